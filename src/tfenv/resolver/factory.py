"""Builds the solver's candidates and requirements from the knowledge base.

The provider stays thin and forwards here. Everything the factory knows about
the target comes from :class:`Target`; everything it knows about TensorFlow,
CUDA and GPUs comes from the :class:`KnowledgeBase`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Optional

from packaging.version import Version

from tfenv.kb.cuda import format_driver
from tfenv.resolver import routes
from tfenv.resolver.compute import GpuCode, format_caps, gpu_code
from tfenv.resolver.model import Candidate, Requirement, allowed
from tfenv.resolver.releases import TfOption, tf_options

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.resolver.target import Request, Target

__all__ = ["Factory", "container_view"]

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


class Factory:
    def __init__(self, kb: KnowledgeBase, target: Target, request: Request) -> None:
        self.kb = kb
        # a container brings its own Linux, Python and glibc: only the host's GPU and
        # driver still count, and on Windows the container runs in WSL2
        self.target = container_view(target) if request.manager == "container" else target
        self.request = request
        self.candidates = lru_cache(maxsize=None)(self._candidates)
        self.dependencies = lru_cache(maxsize=None)(self._dependencies)

    # -- the request --------------------------------------------------------
    def accelerators(self) -> tuple[str, ...]:
        t, r = self.target, self.request
        if r.no_gpu:
            return ("cpu",)
        if t.has_nvidia_gpu:
            return ("cuda", "cpu") if r.allow_cpu else ("cuda",)
        if t.platform == "macos_arm64":
            return ("metal", "cpu")
        return ("cpu",)

    def root_requirements(self) -> list[Requirement]:
        t, r = self.target, self.request
        reqs = [
            allowed("platform", ("target",), "the target platform"),
            allowed("gpu", ("target",), "the target GPU"),
            allowed("driver", ("target",), "the target driver"),
            allowed(
                "accelerator",
                self.accelerators(),
                _accel_text(self.accelerators()),
                "accelerator",
                ordered=True,
            ),
            Requirement("tensorflow", f"TensorFlow {r.tf_text}", self._matches_request, "request"),
            allowed(
                "route",
                routes.for_manager(r.manager),
                f"an install route usable with --manager {r.manager}",
                "manager",
            ),
        ]
        if t.python is not None:
            reqs.append(allowed("python", (str(t.python),), f"Python {t.python}", "python"))
        return reqs

    def _matches_request(self, c: Candidate) -> bool:
        opt: TfOption = c.data[0]
        return self.request.allows(opt.version, opt.yanked)

    # -- candidates ---------------------------------------------------------
    def _candidates(self, identifier: str) -> tuple[Candidate, ...]:
        t = self.target
        if identifier == "platform":
            return (Candidate("platform", "target", t.describe(), t),)
        if identifier == "gpu":
            label = (
                f"{t.gpu_name or 'GPU'} (compute capability {t.cc})" if t.cc else "no NVIDIA GPU"
            )
            return (Candidate("gpu", "target", label, t.cc),)
        if identifier == "driver":
            label = f"driver {format_driver(t.driver)}" if t.driver else "driver (not known)"
            return (Candidate("driver", "target", label, t.driver),)
        if identifier == "accelerator":
            return tuple(
                Candidate("accelerator", a, _ACCEL_LABEL[a], a, i)
                for i, a in enumerate(("cuda", "metal", "cpu"))
            )
        if identifier == "tensorflow":
            return self._tf_candidates()
        if identifier == "python":
            return self._python_candidates()
        if identifier == "route":
            return tuple(
                Candidate("route", r, f"route {r}", r, i) for i, r in enumerate(routes.ROUTES)
            )
        if identifier in ("cuda", "cudnn"):
            return self._version_candidates(identifier)
        raise KeyError(identifier)

    def _tf_candidates(self) -> tuple[Candidate, ...]:
        out: list[tuple[tuple[int, int], Candidate]] = []
        platform = self.target.platform
        for accel in self.accelerators():
            for pos, opt in enumerate(self._options_for(accel)):
                label = f"TensorFlow {opt.version} ({_ACCEL_LABEL[accel]})"
                if opt.package != "tensorflow":
                    label = f"{opt.package} {opt.version} ({_ACCEL_LABEL[accel]})"
                key = f"{opt.package}=={opt.version}/{accel}"
                # known-broken releases go last, so they are used only when asked for
                rank = (1 if opt.broken else 0, pos)
                out.append((rank, Candidate("tensorflow", key, label, (opt, accel, platform))))
        out.sort(key=lambda item: item[0])
        return tuple(c for _, c in out)

    def _options_for(self, accel: str) -> tuple[TfOption, ...]:
        platform = self.target.platform
        options = tf_options(self.kb, "tensorflow", platform)
        if accel != "cuda":
            return options
        return self.kb.memo(("cuda_options", platform), lambda: self._cuda_options(options))

    def _cuda_options(self, options: tuple[TfOption, ...]) -> tuple[TfOption, ...]:
        """Releases of each series' GPU package (tensorflow-gpu for 2.0, tensorflow after)."""
        packages = {b.gpu_package for b in self.kb.builds.all} - {"tensorflow"}
        for package in sorted(packages):
            options += tf_options(self.kb, package, self.target.platform)
        return tuple(o for o in options if o.build and o.build.gpu_package == o.package)

    def _python_candidates(self) -> tuple[Candidate, ...]:
        seen: set[Version] = set()
        for opt in tf_options(self.kb, "tensorflow", self.target.platform):
            seen.update(opt.pythons)
        return tuple(
            Candidate("python", str(v), f"Python {v}", v, i)
            for i, v in enumerate(sorted(seen, reverse=True))
        )

    def _version_candidates(self, identifier: str) -> tuple[Candidate, ...]:
        versions: set[Version] = set()
        for build in self.kb.builds.all:
            for os_name in _OSES:
                cb = build.cuda_build(os_name)
                value = None if cb is None else getattr(cb, identifier)
                if value is not None:
                    versions.add(value)
        label = "CUDA" if identifier == "cuda" else "cuDNN"
        return tuple(
            Candidate(identifier, str(v), f"{label} {v}", v, i)
            for i, v in enumerate(sorted(versions, reverse=True))
        )

    # -- dependencies -------------------------------------------------------
    def _dependencies(self, c: Candidate) -> tuple[Requirement, ...]:
        if c.identifier == "tensorflow":
            from tfenv.resolver.tf_deps import tf_dependencies

            deps = tf_dependencies(self, c)
            if (
                self.request.manager == "container"
                and c.data[1] == "cuda"
                and routes.container_ngc(self.kb, c.data[0], self.target) is not None
            ):
                # the NGC image's forward-compatibility package runs it on this driver
                deps = tuple(d for d in deps if d.kind != "driver")
            return deps
        if c.identifier == "cuda":
            return self._cuda_deps(c.data)
        if c.identifier == "cudnn":
            return self._cudnn_deps(c.data)
        return ()

    def _cuda_deps(self, cuda: Version) -> tuple[Requirement, ...]:
        toolkit = self.kb.cuda.toolkit(cuda)
        if toolkit is None or toolkit.cc_min is None:
            return ()
        lo = toolkit.cc_min
        return (
            Requirement(
                "gpu",
                f"a GPU of compute capability >= {lo} (the lowest CUDA {cuda} can target)",
                lambda g: g.data is None or g.data >= lo,
                "cuda-gpu-range",
            ),
        )

    def _cudnn_deps(self, cudnn: Version) -> tuple[Requirement, ...]:
        series = self.kb.cudnn.series(cudnn)
        if series is None:
            return ()
        majors = tuple(series.cuda_majors)
        lows = dict(series.min_cc)
        reqs = [
            Requirement(
                "cuda",
                f"CUDA {' or '.join(f'{m}.x' for m in majors)} (what cuDNN {cudnn} supports)",
                lambda k: k.data.major in majors,
                "cudnn-cuda",
            )
        ]
        if lows:
            lo = min(lows.values())
            reqs.append(
                Requirement(
                    "gpu",
                    f"a GPU of compute capability >= {lo} (cuDNN {cudnn}'s minimum)",
                    lambda g: g.data is None or g.data >= lo,
                    "cudnn-gpu",
                )
            )
        return tuple(reqs)

    def gpu_code_text(self, opt: TfOption) -> str:
        caps = opt.build.compute if opt.build else None
        if caps is None:
            return "GPU code of this build not known"
        return format_caps(caps.sass, caps.ptx)

    def gpu_code_for(self, opt: TfOption) -> Optional[GpuCode]:
        caps = opt.build.compute if opt.build else None
        if caps is None or self.target.cc is None:
            return None
        return gpu_code(self.target.cc, caps.sass, caps.ptx, caps.sass_partial)


_OSES: tuple[Literal["linux", "windows"], ...] = ("linux", "windows")


def container_view(target: Target) -> Target:
    """The target as a container sees it: Linux (WSL2 on Windows), the host's GPU and driver."""
    os_name = "wsl2" if target.os == "windows" else target.os
    return replace(target, os=os_name, python=None, glibc=None)


_ACCEL_LABEL = {"cuda": "CUDA build", "metal": "Metal plug-in", "cpu": "CPU only"}


def _accel_text(accels: tuple[str, ...]) -> str:
    if accels == ("cuda",):
        return (
            "NVIDIA GPU support (this machine has an NVIDIA GPU; "
            "pass --allow-cpu to accept a CPU plan)"
        )
    return " or ".join(_ACCEL_LABEL[a] for a in accels)
