"""What an answer may ask: the knowledge base, the machine at hand, and the solver.

The machine at hand is the one the user described (``--host`` or flags), else the one
tfenv detected, with what the pasted text itself states about the machine it came from
(a ``cp313`` tag, ``Platform: win-64``) in place of *detected* facts: a pip error pasted
from another interpreter or another machine is about that one. Facts the user gave win
over the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional

from packaging.version import InvalidVersion, Version

from tfenv.explain.hints import Hints, read_hints
from tfenv.i18n import N_, _

if TYPE_CHECKING:
    from tfenv.host.profile import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.tensorflow import TfBuild
    from tfenv.models.driver import DriverVersion
    from tfenv.models.plan import Resolution
    from tfenv.models.target import Request, Target

__all__ = ["PLATFORM_MACHINE", "Answer", "Context", "target_of"]


@dataclass(frozen=True)
class Answer:
    """What a message means here: facts, and a fix for this machine (None: the catalog's)."""

    facts: tuple[str, ...] = ()
    fix: Optional[str] = None


@dataclass
class Context:
    kb: KnowledgeBase
    text: str
    target: Optional[Target] = None  # as the user gave it or tfenv detected it
    host: Optional[HostProfile] = None
    tf_given: Optional[Version] = None  # --tf
    _hints: Optional[Hints] = field(default=None, repr=False)
    _machine: Optional[tuple[Optional[Target], tuple[str, ...]]] = field(default=None, repr=False)
    _solved: dict[tuple[object, ...], Resolution] = field(default_factory=dict, repr=False)

    @property
    def hints(self) -> Hints:
        """What the text states about its machine (read once, on first use)."""
        if self._hints is None:
            self._hints = read_hints(self.text)
        return self._hints

    @property
    def machine(self) -> Optional[Target]:
        """The machine to answer for: the target with the text's facts in place of detected ones."""
        return self._machine_and_sources()[0]

    @property
    def from_text(self) -> tuple[str, ...]:
        """The machine facts taken from the text ("python", "platform")."""
        return self._machine_and_sources()[1]

    def _machine_and_sources(self) -> tuple[Optional[Target], tuple[str, ...]]:
        if self._machine is None:
            self._machine = _with_hints(self.target, self.hints)
        return self._machine

    @property
    def platform(self) -> Optional[str]:
        m = self.machine
        return m.platform.key if m is not None else None

    @property
    def tf(self) -> Optional[Version]:
        """The TensorFlow the message is about: --tf, else the one installed, else the text's."""
        if self.tf_given is not None:
            return self.tf_given
        installed = self.host.package_version("tensorflow") if self.host else None
        for text in (installed, self.hints.tensorflow):
            if text:
                try:
                    return Version(text)
                except InvalidVersion:
                    continue
        return None

    def build(self) -> Optional[TfBuild]:
        from tfenv.kb.releases import build_of

        tf = self.tf
        return build_of(self.kb, tf) if tf is not None else None

    @property
    def driver(self) -> Optional[DriverVersion]:
        """The machine's driver, else the one the text prints (an nvidia-smi header)."""
        m = self.machine
        if m is not None and m.driver is not None:
            return m.driver
        return _driver(self.hints.driver)

    @property
    def cc(self) -> Optional[Version]:
        m = self.machine
        if m is not None and m.cc is not None:
            return m.cc
        return self.hints.cc

    def describe_machine(self) -> str:
        m = self.machine
        if m is None:
            return _("not known (give --host, or --os/--python/--gpu/--driver)")
        if self.target is None:
            return _("{machine} (from the message)").format(machine=m.describe())
        if "platform" in self.from_text:
            return _("{machine} (from the message; this machine, {this}, is another one)").format(
                machine=m.describe(), this=self.target.describe()
            )
        detected = bool(self.target.detected)
        if self.from_text:
            template = (
                _("{machine} (detected; {facts} from the message)")
                if detected
                else _("{machine} (given; {facts} from the message)")
            )
            return template.format(
                machine=m.describe(), facts=_(" and ").join(_fact_name(f) for f in self.from_text)
            )
        template = _("{machine} (detected)") if detected else _("{machine} (given)")
        return template.format(machine=m.describe())

    def solve(self, target: Target, request: Request, ways_out: bool = False) -> Resolution:
        """The solver's answer for ``target`` (remembered: several answers may ask); with
        ``ways_out``, the nearest ways out when nothing fits (slower)."""
        from tfenv.resolver import resolve, solve_once

        key = (target, request, ways_out)
        if key not in self._solved:
            run = resolve if ways_out else solve_once
            self._solved[key] = run(self.kb, target, request)
        return self._solved[key]


PLATFORM_MACHINE = {
    "linux_x86_64": ("linux", "x86_64"),
    "linux_aarch64": ("linux", "aarch64"),
    "windows_x86_64": ("windows", "x86_64"),
    "macos_x86_64": ("macos", "x86_64"),
    "macos_arm64": ("macos", "arm64"),
}


def _with_hints(target: Optional[Target], hints: Hints) -> tuple[Optional[Target], tuple[str, ...]]:
    from tfenv.models.target import Target

    changes, used = _changes(target, hints)
    if target is None:
        if "os" not in changes:
            return None, ()
        try:
            return Target.from_facts(changes), used
        except ValueError:
            return None, ()
    if not changes:
        return target, ()
    if "os" in changes:  # the text is from another machine: what was detected here is not its
        changes.update(_forget_detected(target, changes))
    try:
        return replace(target, **changes), used  # type: ignore[arg-type]
    except ValueError:
        return target, ()


def _changes(target: Optional[Target], hints: Hints) -> tuple[dict[str, object], tuple[str, ...]]:
    """The machine facts the text states in place of detected (or unknown) ones."""
    used: list[str] = []
    changes: dict[str, object] = {}
    detected = target.detected if target is not None else frozenset()
    other_os = target is None or (
        "os" in detected
        and target.platform.key != hints.platform
        and not (target.system.is_wsl2 and (hints.platform or "").startswith("linux"))
    )
    if hints.platform is not None and other_os:
        changes["os"], changes["arch"] = PLATFORM_MACHINE[hints.platform]
        used.append("platform")
    python_open = target is None or target.python is None or "python" in detected
    differs = target is None or target.python != hints.python
    if hints.python is not None and python_open and differs:
        changes["python"] = hints.python
        used.append("python")
    driver = _driver(hints.driver)
    driver_open = target is None or target.driver is None or "driver" in detected
    new = target is None or target.driver != driver
    if driver is not None and driver_open and new and (target or "os" in changes):
        changes["driver"] = driver
        used.append("driver")
    return changes, tuple(used)


def _driver(text: Optional[str]) -> Optional[DriverVersion]:
    from tfenv.models.driver import DriverVersion

    try:
        return DriverVersion(text) if text else None
    except ValueError:
        return None


def _forget_detected(target: Target, changes: dict[str, object]) -> dict[str, object]:
    out: dict[str, object] = {"detected": frozenset(), "glibc": None}
    detected = target.detected
    if "driver" in detected and "driver" not in changes:
        out["driver"] = None
    if "gpu" in detected:
        out["cc"], out["gpu_name"] = None, None
    if "python" in detected and "python" not in changes:
        out["python"] = None
    return out


def target_of(host: HostProfile) -> Optional[Target]:
    """The machine a detected host profile describes (None: one no TensorFlow wheel serves)."""
    from tfenv.models.target import Target

    facts = host.target_facts()
    detected = {"os", "arch", "glibc", "python", "driver"}
    if facts["cc"] is not None:
        detected.add("gpu")
    try:
        return Target.from_facts(facts, detected, (n.text for n in host.current_notes()))
    except ValueError:
        return None


#: the machine facts the text can give, as the machine line names them
_FACT_NAMES = {"platform": N_("platform"), "python": N_("python"), "driver": N_("driver")}


def _fact_name(fact: str) -> str:
    found = _FACT_NAMES.get(fact)
    return _(found) if found is not None else fact
