"""``NVIDIA_REQUIRE_CUDA``: the driver requirement an ``nvidia/cuda`` image carries.

Images built on ``nvidia/cuda`` set ``NVIDIA_REQUIRE_CUDA``, and the NVIDIA Container
Toolkit refuses to start a container whose host does not satisfy it::

    cuda>=12.3 brand=tesla,driver>=470,driver<471 brand=geforce,driver>=535,driver<536

Terms separated by spaces are ORed, conditions separated by commas are ANDed
(NVIDIA/nvidia-container-runtime ``README.md``). A condition is ``NAME OP VALUE`` with
``NAME`` one of ``cuda`` (the CUDA version the driver reports), ``driver`` (the driver
version), ``arch`` (the GPU's compute capability) or ``brand`` (the GPU brand NVML
reports), and ``OP`` one of ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=``. Names and brands
compare case-insensitively; versions compare field by field as numbers, trailing zero
fields ignored (libnvidia-container ``src/cli/dsl.c``: ``dsl_evaluate``,
``dsl_compare_version``, ``dsl_compare_string``).

Unlike ``nvidia-container-cli``, which passes a condition it cannot read on the host, the
evaluation here is three-valued: a condition on a fact that is not known (no driver given,
a GPU whose brand is one of several) is *unknown*, and so is a term or a clause whose
outcome depends on it. A brand is given as the set of names the GPU may report; the
condition holds when it holds for every one of them.

Everything here is pure: a function of the clause text and the host's facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import _, ngettext

if TYPE_CHECKING:
    from dataclasses import dataclass, replace
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass, replace


__all__ = [
    "NAMES",
    "OPERATORS",
    "Condition",
    "HostFacts",
    "RequireCuda",
    "RequireCudaError",
    "Term",
    "Verdict",
    "evaluate",
    "parse",
]

#: the conditions nvidia-container-cli evaluates (libnvidia-container ``configure.c``)
NAMES = ("cuda", "driver", "arch", "brand")
#: longest first, so that ``>=`` is not read as ``>``
OPERATORS = ("!=", "<=", ">=", "=", "<", ">")
_OP_CHARS = "<>=!"


class RequireCudaError(ValueError):
    """A clause nvidia-container-cli would reject ("invalid expression")."""


@dataclass(frozen=True)
class Condition:
    """``name op value``, e.g. ``driver>=535``."""

    name: str  # one of NAMES, lower case
    op: str  # one of OPERATORS
    value: str  # a version ("535", "12.3") or, for brand, a name ("tesla")

    def __str__(self) -> str:
        return f"{self.name}{self.op}{self.value}"

    def test(self, host: HostFacts) -> Optional[bool]:
        """True, False, or None where the host's fact is not known."""
        if self.name == "brand":
            if host.brands is None or not host.brands:
                return None
            results = {_compare_text(b, self.op, self.value) for b in host.brands}
            return results.pop() if len(results) == 1 else None
        fact = {"cuda": host.cuda, "driver": host.driver, "arch": host.arch}[self.name]
        if fact is None:
            return None
        return _compare_version(_fields(str(fact)), self.op, _fields(self.value))


@dataclass(frozen=True)
class Term:
    """Conditions that must all hold (one space-separated part of the clause)."""

    conditions: tuple[Condition, ...]

    def __str__(self) -> str:
        return ",".join(str(c) for c in self.conditions)

    def test(self, host: HostFacts) -> Optional[bool]:
        results = [c.test(host) for c in self.conditions]
        if False in results:
            return False
        return None if None in results else True

    def value_of(self, name: str, op: str) -> Optional[str]:
        return next((c.value for c in self.conditions if c.name == name and c.op == op), None)

    @property
    def branch(self) -> Optional[int]:
        """The driver branch of a ``driver>=N,driver<N+1`` term (its brand aside), if it is one."""
        low, high = self.value_of("driver", ">="), self.value_of("driver", "<")
        if low is None or high is None or not low.isdigit() or not high.isdigit():
            return None
        others = [c for c in self.conditions if c.name not in ("driver", "brand")]
        return int(low) if int(high) == int(low) + 1 and not others else None

    @property
    def brands(self) -> Optional[tuple[str, ...]]:
        """The brands a term is limited to (None: any brand)."""
        found = tuple(c.value.lower() for c in self.conditions if c.name == "brand" and c.op == "=")
        return found or None


@dataclass(frozen=True)
class HostFacts:
    """What nvidia-container-cli reads on the host (None: not known)."""

    driver: Optional[Version] = None  # the driver version, "535.104.05"
    cuda: Optional[Version] = None  # the CUDA version that driver reports, "12.2"
    brands: Optional[frozenset[str]] = None  # the brand names the GPU may report
    arch: Optional[Version] = None  # the GPU's compute capability


@dataclass(frozen=True)
class Verdict:
    """Whether a clause admits a host, and the term that decides it."""

    admits: Optional[bool]  # None: depends on a fact that is not known
    term: Optional[Term]  # the term that admits (or, when unknown, the first that might)
    clause: RequireCuda
    # where the GPU may report one of several brands: those it admits and those it refuses
    admitted: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

    @property
    def refusal(self) -> str:
        """What nvidia-container-cli prints when it refuses to start the container."""
        return self.clause.refusal


@dataclass(frozen=True)
class RequireCuda:
    """A parsed clause: terms, any one of which admits a host."""

    text: str
    terms: tuple[Term, ...]

    def __str__(self) -> str:
        return self.text

    @property
    def cuda_floor(self) -> Optional[Version]:
        """The X.Y of a ``cuda>=X.Y`` term standing alone, if the clause has one."""
        for term in self.terms:
            if len(term.conditions) == 1:
                value = term.value_of("cuda", ">=")
                if value is not None:
                    return Version(value)
        return None

    @property
    def refusal(self) -> str:
        """nvidia-container-cli's message: it names the clause's first term."""
        first = str(self.terms[0]) if self.terms else ""
        text = f"unsatisfied condition: {first}"
        if first.startswith("cuda>="):
            text += (
                ", please update your driver to a newer version, or use an earlier cuda container"
            )
        return text

    def branches(self) -> dict[int, Optional[tuple[str, ...]]]:
        """Driver branch -> the brands it is listed for (None: any brand), in clause order."""
        out: dict[int, Optional[tuple[str, ...]]] = {}
        for term in self.terms:
            branch = term.branch
            if branch is None:
                continue
            if branch in out and out[branch] is None:
                continue
            brands = term.brands
            if brands is None:
                out[branch] = None
            else:
                out[branch] = tuple(dict.fromkeys((*(out.get(branch) or ()), *brands)))
        return out

    def describe(self) -> str:
        """A short reading: "cuda>=12.3, or a driver of branch 470, 525 or 535 (brands: ...)"."""
        parts = [str(t) for t in self.terms if t.branch is None]
        groups: dict[Optional[tuple[str, ...]], list[int]] = {}
        for branch, brands in self.branches().items():
            groups.setdefault(brands, []).append(branch)
        for brands, numbers in groups.items():
            which = _join([str(n) for n in numbers], _("or"))
            if brands is None:
                text = ngettext(
                    "a driver of branch {branches}", "a driver of branches {branches}", len(numbers)
                )
            else:
                text = ngettext(
                    "a driver of branch {branches} (brands: {brands})",
                    "a driver of branches {branches} (brands: {brands})",
                    len(numbers),
                )
            parts.append(text.format(branches=which, brands=", ".join(brands or ())))
        return _join(parts, _("or")) if parts else _("nothing (an empty clause)")


def parse(text: str) -> RequireCuda:
    """Parse a clause; :class:`RequireCudaError` where nvidia-container-cli would reject it."""
    terms: list[Term] = []
    for part in text.split(" "):
        conditions = tuple(_condition(c, text) for c in part.split(",") if c)
        if conditions:
            terms.append(Term(conditions))
    return RequireCuda(text, tuple(terms))


def evaluate(clause: RequireCuda, host: HostFacts) -> Verdict:
    """Whether ``clause`` admits ``host``: any term that holds admits it.

    An empty clause admits every host, as nvidia-container-cli does. Where the GPU may
    report one of several brands the clause is evaluated for each: it admits the host when
    it admits every one of them, refuses it when it refuses every one, and is unknown
    otherwise (``admitted`` and ``refused`` then name the brands).
    """
    if host.brands is not None and len(host.brands) > 1:
        return _by_brand(clause, host)
    return _evaluate(clause, host)


def _by_brand(clause: RequireCuda, host: HostFacts) -> Verdict:
    assert host.brands is not None
    each = {b: _evaluate(clause, replace(host, brands=frozenset({b}))) for b in sorted(host.brands)}
    admitted = tuple(b for b, v in each.items() if v.admits is True)
    refused = tuple(b for b, v in each.items() if v.admits is False)
    first = next(iter(each.values()))
    if len(admitted) == len(each):
        return Verdict(True, first.term, clause, admitted, ())
    if len(refused) == len(each):
        return Verdict(False, None, clause, (), refused)
    maybe = next((v.term for v in each.values() if v.admits is not False), None)
    return Verdict(None, maybe, clause, admitted, refused)


def _evaluate(clause: RequireCuda, host: HostFacts) -> Verdict:
    if not clause.terms:
        return Verdict(True, None, clause)
    maybe: Optional[Term] = None
    for term in clause.terms:
        result = term.test(host)
        if result is True:
            return Verdict(True, term, clause)
        if result is None and maybe is None:
            maybe = term
    return Verdict(None, maybe, clause) if maybe is not None else Verdict(False, None, clause)


def _condition(text: str, clause: str) -> Condition:
    start = next((i for i, ch in enumerate(text) if ch in _OP_CHARS), -1)
    if start <= 0:
        raise RequireCudaError(f"{text!r} in {clause!r} is not NAME OP VALUE")
    name = text[:start].lower()
    if name not in NAMES:
        raise RequireCudaError(f"{name!r} in {clause!r} is not one of {', '.join(NAMES)}")
    end = start
    while end < len(text) and text[end] in _OP_CHARS:
        end += 1
    op, value = text[start:end], text[end:]
    if op not in OPERATORS:
        raise RequireCudaError(f"{op!r} in {clause!r} is not an operator")
    if not value:
        raise RequireCudaError(f"{text!r} in {clause!r} has no value")
    if name == "brand":
        if op not in ("=", "!="):
            raise RequireCudaError(f"{text!r} in {clause!r}: a brand compares only with = or !=")
    elif not _is_version(value):
        raise RequireCudaError(f"{value!r} in {clause!r} is not a version")
    return Condition(name, op, value)


def _is_version(text: str) -> bool:
    return all(part.isdigit() for part in text.split("."))


def _fields(text: str) -> tuple[int, ...]:
    """Version fields as numbers, trailing zero fields dropped ("12.0" == "12")."""
    parts = [int(p) for p in text.split(".") if p]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _compare_version(left: tuple[int, ...], op: str, right: tuple[int, ...]) -> bool:
    return {
        "=": left == right,
        "!=": left != right,
        "<": left < right,
        "<=": left <= right,
        ">": left > right,
        ">=": left >= right,
    }[op]


def _compare_text(left: str, op: str, right: str) -> bool:
    same = left.casefold() == right.casefold()
    return same if op == "=" else not same


def _join(items: Iterable[str], word: str) -> str:
    found = list(items)
    if len(found) <= 1:
        return "".join(found)
    return f"{', '.join(found[:-1])} {word} {found[-1]}"
