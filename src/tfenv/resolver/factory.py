"""Builds the solver's candidates and requirements from the knowledge base.

The provider stays thin and forwards here. What the factory knows about the
machine comes from the :class:`~tfenv.models.target.Target`; what it knows about
TensorFlow, CUDA and GPUs comes from the rules (:mod:`tfenv.rules`) and the install
routes (:mod:`tfenv.routes`), both reading the :class:`~tfenv.kb.KnowledgeBase`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from packaging.version import Version

from tfenv import routes, rules
from tfenv.i18n import N_, _
from tfenv.kb.releases import TfOption, tf_options
from tfenv.rules.model import (
    Candidate,
    Requirement,
    TfCandidate,
    VersionCandidate,
    allowed,
    fact_candidates,
)

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.models.target import Request, Target

__all__ = ["ACCEL_LABEL", "RANK", "Factory"]

RANK = {
    "platform": 0,
    "gpu": 1,
    "driver": 2,
    "python": 3,
    "accelerator": 4,
    "tensorflow": 5,
    "cuda": 6,
    "cudnn": 7,
    "route": 8,
}
#: what each accelerator is called in sentences (N_: translate with _() where used)
ACCEL_LABEL = {"cuda": N_("CUDA build"), "metal": N_("Metal plug-in"), "cpu": N_("CPU only")}


class Factory:
    def __init__(self, kb: KnowledgeBase, target: Target, request: Request) -> None:
        self.kb = kb
        # a container brings its own Linux, Python and glibc: only the host's GPU and
        # driver still count, and on Windows the container runs in WSL2
        self.target = routes.view(request.manager, target)
        self.request = request
        self.context = rules.Context(kb, self.target, request, routes.in_image(request.manager))
        self.where = routes.Where(kb, self.target, request.cuda_libs)
        self.candidates = lru_cache(maxsize=None)(self._candidates)
        self.dependencies = lru_cache(maxsize=None)(self._dependencies)

    # -- the request --------------------------------------------------------
    def accelerators(self) -> tuple[str, ...]:
        t, r = self.target, self.request
        if r.no_gpu:
            return ("cpu",)
        if t.has_nvidia_gpu:
            return ("cuda", "cpu") if r.allow_cpu else ("cuda",)
        if t.platform.is_macos:
            from tfenv.kb.metal import runs_on_gpu  # Macs only

            if runs_on_gpu(self.kb, t.platform.key, t.gpu_vendor):
                return ("metal", "cpu")
        return ("cpu",)

    def root_requirements(self) -> list[Requirement]:
        t, r = self.target, self.request
        accels = self.accelerators()
        reqs = [
            allowed("platform", ("target",), _("the target platform")),
            allowed("gpu", ("target",), _("the target GPU")),
            allowed("driver", ("target",), _("the target driver")),
            allowed("accelerator", accels, _accel_text(accels), "accelerator", ordered=True),
            Requirement("tensorflow", f"TensorFlow {r.tf_text}", self._matches_request, "request"),
            allowed(
                "route",
                tuple(x.name for x in routes.for_manager(r.manager)),
                _("an install route usable with --manager {manager}").format(manager=r.manager),
                "manager",
            ),
        ]
        if t.python is not None:
            reqs.append(allowed("python", (str(t.python),), f"Python {t.python}", "python"))
        return reqs

    def _matches_request(self, c: Candidate) -> bool:
        return isinstance(c, TfCandidate) and self.request.allows(c.option.version, c.option.yanked)

    # -- candidates ---------------------------------------------------------
    def _candidates(self, identifier: str) -> tuple[Candidate, ...]:
        if identifier in ("platform", "gpu", "driver"):
            return (fact_candidates(self.target)[identifier],)
        if identifier == "accelerator":
            return tuple(
                Candidate(identifier, a, _(ACCEL_LABEL[a]), i) for i, a in enumerate(ACCEL_LABEL)
            )
        if identifier == "route":
            return tuple(
                Candidate(identifier, r.name, _("route {route}").format(route=r.name), i)
                for i, r in enumerate(routes.ROUTES)
            )
        if identifier == "tensorflow":
            return self._tf_candidates()
        if identifier == "python":
            return self._python_candidates()
        if identifier in ("cuda", "cudnn"):
            return self._version_candidates(identifier)
        raise KeyError(identifier)

    def _tf_candidates(self) -> tuple[Candidate, ...]:
        out: list[tuple[tuple[int, int, int], Candidate]] = []
        for accel in self.accelerators():
            for pos, opt in enumerate(self._options_for(accel)):
                label = _("{name} {version} ({build})").format(
                    name="TensorFlow" if opt.package == "tensorflow" else opt.package,
                    version=opt.version,
                    build=_(ACCEL_LABEL[accel]),
                )
                key = f"{opt.package}=={opt.version}/{accel}"
                # known-broken releases go last, so they are used only when asked for; on
                # Apple silicon every release with a paired Metal plug-in comes before the
                # CPU-only ones (the default plan is the newest with a known pairing)
                first = 0 if accel == "metal" else 1
                rank = (1 if opt.broken else 0, first, pos)
                out.append((rank, TfCandidate("tensorflow", key, label, 0, opt, accel)))
        out.sort(key=lambda item: item[0])
        return tuple(c for _, c in out)

    def _options_for(self, accel: str) -> tuple[TfOption, ...]:
        platform = self.target.platform.key
        options = tf_options(self.kb, "tensorflow", platform)
        if accel != "cuda":
            if platform == "macos_arm64":  # Apple's own build where tensorflow has none
                return self.kb.memo(("apple_options", platform), lambda: self._apple(options))
            if accel == "metal":  # an Intel Mac: the build the pairing names
                return self.kb.memo(("metal_options", platform), lambda: self._paired(options))
            return options
        return self.kb.memo(("cuda_options", platform), lambda: self._cuda_options(options))

    def _apple(self, options: tuple[TfOption, ...]) -> tuple[TfOption, ...]:
        """Releases before tensorflow's own macOS arm64 wheels (2.13) come from Apple's
        tensorflow-macos, the distribution the Metal pairings name for them (metal.yaml;
        Apple's tensorflow-plugin page: "For TensorFlow version 2.12 or earlier")."""
        from tfenv.kb.metal import own_distributions

        have = {o.version for o in options if o.wheels is not None}
        extra: dict[Version, TfOption] = {}
        for package in own_distributions(self.kb):
            for o in tf_options(self.kb, package, self.target.platform.key):
                if o.wheels is not None and o.version not in have and o.version not in extra:
                    extra[o.version] = o
        kept = [o for o in options if o.version not in extra]
        return tuple(sorted((*kept, *extra.values()), key=lambda o: o.version, reverse=True))

    def _paired(self, options: tuple[TfOption, ...]) -> tuple[TfOption, ...]:
        """On an Intel Mac, tensorflow has wheels of its own before 2.13, but Apple's
        plug-in is paired with Apple's tensorflow-macos there (metal.yaml; Apple's
        tensorflow-plugin page: "For TensorFlow version 2.12 or earlier"): the releases of
        those series come from the distribution the pairing names, and only from it."""
        from tfenv.kb.metal import own_distributions

        metal, own = self.kb.metal, own_distributions(self.kb)

        def apple_only(v: Version) -> bool:
            return metal.paired(v) is None and any(metal.paired(v, p) for p in own)

        extra: dict[Version, TfOption] = {}
        for package in own:
            for o in tf_options(self.kb, package, self.target.platform.key):
                if o.wheels is not None and apple_only(o.version):
                    extra.setdefault(o.version, o)
        kept = [o for o in options if not apple_only(o.version)]
        return tuple(sorted((*kept, *extra.values()), key=lambda o: o.version, reverse=True))

    def _cuda_options(self, options: tuple[TfOption, ...]) -> tuple[TfOption, ...]:
        """Releases of each series' GPU package (tensorflow-gpu for 2.0, tensorflow after)."""
        packages = {b.gpu_package for b in self.kb.builds.all} - {"tensorflow"}
        for package in sorted(packages):
            options += tf_options(self.kb, package, self.target.platform.key)
        return tuple(o for o in options if o.build and o.build.gpu_package == o.package)

    def _python_candidates(self) -> tuple[Candidate, ...]:
        seen: set[Version] = set()
        for opt in tf_options(self.kb, "tensorflow", self.target.platform.key):
            seen.update(opt.pythons)
        return tuple(
            VersionCandidate("python", str(v), f"Python {v}", i, v)
            for i, v in enumerate(sorted(seen, reverse=True))
        )

    def _version_candidates(self, identifier: str) -> tuple[Candidate, ...]:
        versions: set[Version] = set()
        builds = [o.build for o in self._options_for("cuda") if o.build is not None]
        for build in (*self.kb.builds.all, *builds):
            for cb in (build.linux, build.windows):
                value = None if cb is None else getattr(cb, identifier)
                if value is not None:
                    versions.add(value)
        label = "CUDA" if identifier == "cuda" else "cuDNN"
        return tuple(
            VersionCandidate(identifier, str(v), f"{label} {v}", i, v)
            for i, v in enumerate(sorted(versions, reverse=True))
        )

    # -- dependencies -------------------------------------------------------
    def _dependencies(self, c: Candidate) -> tuple[Requirement, ...]:
        deps = rules.requirements_for(self.context, c)
        if not isinstance(c, TfCandidate):
            return deps
        choices = routes.options(self.where, c.option, c.accel, self.request.manager)
        waived = routes.waived(self.where, c.option, choices, self.request.manager)
        return (
            allowed("accelerator", (c.accel,), c.label, "accelerator"),
            *(d for d in deps if d.kind not in waived),
            allowed(
                "route",
                tuple(x.name for x in choices),
                self._route_text(c, choices),
                "route",
                ordered=True,
            ),
        )

    def _route_text(self, c: TfCandidate, choices: tuple[routes.Route, ...]) -> str:
        """ "an install route for it (conda: why not; conda+pip: why not)": with --manager
        other than auto, why the routes it asks for cannot install this release."""
        text = _("an install route for it")
        if self.request.manager == "auto":
            return text
        why = []
        for r in routes.for_manager(self.request.manager):
            if r in choices or c.accel not in r.accelerators:
                continue
            problem = r.problem(self.where, c.option, c.accel)
            if problem:
                why.append(_("{route}: {problem}").format(route=r.name, problem=problem))
        if not why:
            return text
        return _("an install route for it ({why})").format(why=_("; ").join(why))


def _accel_text(accels: tuple[str, ...]) -> str:
    if accels == ("cuda",):
        return _(
            "NVIDIA GPU support (this machine has an NVIDIA GPU; "
            "pass --allow-cpu to accept a CPU plan)"
        )
    return _(" or ").join(_(ACCEL_LABEL[a]) for a in accels)
