"""The compatibility chart's cells, decided by the rules the solver uses.

Columns are the series of ``tfenv matrix`` (:func:`tfenv.matrix.matrix_rows`), each
seen through its newest release. The fact rows (Python, CUDA, cuDNN, the driver
floors) show the matrix's own cells. A GPU generation's cell evaluates the solver's
rules (:func:`tfenv.rules.failures`) for that release's CUDA build on a Linux x86_64
machine with a GPU of that compute capability, and, where they pass, how the kernels
run there (:func:`tfenv.rules.gpu_code.code_for`, the words of the plan's reasons). A
platform's cell asks the same rules whether the release has a GPU build there (CUDA,
or the Metal plug-in on Apple silicon), only a CPU wheel, or no wheel at all. Every
cell carries the fact and its source for the hover text.

Every label, title and hover text is worded in the interface language (``--lang``); the
fact rows' labels and cells are the text table's own (:func:`tfenv.matrix.heading`,
``Row.cells(local=True)``). Names, versions and sources stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Optional

from packaging.version import Version

from tfenv import matrix, rules
from tfenv.i18n import N_, _
from tfenv.kb.releases import TfOption, tf_options
from tfenv.models.target import Target
from tfenv.rules.gpu_code import code_for
from tfenv.rules.model import TfCandidate

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb._fields import Provenance
    from tfenv.kb.tensorflow import TfBuild

__all__ = [
    "PLATFORMS",
    "Cell",
    "ChartRow",
    "Generation",
    "MatrixChart",
    "Section",
    "generations",
    "gpu_cell",
    "matrix_chart",
    "platform_cell",
]

#: The platform rows: label (English, N_), OS, architecture, and the accelerator of its
#: GPU build.
PLATFORMS = (
    (N_("Windows (native)"), "windows", "x86_64", "cuda"),
    ("macOS x86_64", "macos", "x86_64", "cuda"),
    (N_("Apple silicon (Metal)"), "macos", "arm64", "metal"),
    ("Linux aarch64", "linux", "aarch64", "cuda"),
)
_FACT_COLUMNS = ("Python", "CUDA", "cuDNN", "driver Linux", "driver Windows/WSL2")
_GPU_KINDS = frozenset(r.kind for r in rules.RULES if r.fact_key == "gpu")
_WHEEL_KINDS = ("no-wheel", "stub")
_BUILD_KINDS = ("gpu-platform", "metal")


@dataclass(frozen=True)
class Cell:
    verdict: str  # a key of palette.MATRIX, or "fact" for a plain fact
    text: str  # what the cell shows ("" for a verdict: its palette mark)
    title: str  # the hover text: the fact and its source


@dataclass(frozen=True)
class ChartRow:
    label: str  # in the interface language
    title: str
    cells: tuple[Cell, ...]
    key: str = ""  # the label in English: the SVG's data-row, the same in every language


@dataclass(frozen=True)
class Section:
    title: str
    rows: tuple[ChartRow, ...]


@dataclass(frozen=True)
class MatrixChart:
    title: str
    series: tuple[str, ...]
    series_titles: tuple[str, ...]
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class Generation:
    """One GPU row: an architecture at one compute capability, and GPUs that have it."""

    architecture: str
    cc: Version
    examples: tuple[str, ...]
    provenance: Provenance

    @property
    def label(self) -> str:
        return f"{self.architecture} {self.cc}"


def generations(kb: KnowledgeBase) -> tuple[Generation, ...]:
    """Every compute capability of a GPU in tfenv's list that is not only made for Arm
    machines (those are the Linux aarch64 row's), oldest first."""
    found: dict[Version, list[str]] = {}
    arch: dict[Version, str] = {}
    prov: dict[Version, Provenance] = {}
    for model in kb.gpus.models:
        if model.arch is not None:
            continue
        cc = model.compute_capability
        found.setdefault(cc, []).append(model.name)
        arch.setdefault(cc, model.architecture)
        prov.setdefault(cc, model.provenance)
    return tuple(Generation(arch[cc], cc, tuple(found[cc][:3]), prov[cc]) for cc in sorted(found))


def matrix_chart(kb: KnowledgeBase, rows: list[matrix.Row]) -> MatrixChart:
    """The chart of ``rows`` (``tfenv matrix``'s rows, possibly filtered)."""
    builds = {str(b.series): b for b in kb.builds.all}
    columns = [(r, builds[r.series]) for r in rows]
    facts = tuple(_fact_row(kb, columns, i, name) for i, name in _fact_indices())
    gens = tuple(
        ChartRow(
            g.label,
            _("{architecture}, compute capability {cc}: e.g. {examples} (source: {source})").format(
                architecture=g.architecture,
                cc=g.cc,
                examples=", ".join(g.examples),
                source=_cite(g.provenance),
            ),
            tuple(gpu_cell(kb, r, b, g) for r, b in columns),
            g.label,
        )
        for g in generations(kb)
    )
    platforms = tuple(
        ChartRow(
            _(label),
            _("{platform}: does the newest release of each series have a GPU build there").format(
                platform=_(label)
            ),
            tuple(platform_cell(kb, r, b, os, arch, accel) for r, b in columns),
            label,
        )
        for label, os, arch, accel in PLATFORMS
    )
    return MatrixChart(
        title=_("TensorFlow compatibility chart (generated by tfenv from its knowledge base)"),
        series=tuple(r.series for r in rows),
        series_titles=tuple(
            _("TensorFlow {series}: newest release {latest}").format(
                series=r.series, latest=r.latest or "-"
            )
            for r in rows
        ),
        sections=(
            Section(_("The newest release of each series"), facts),
            Section(_("GPU code in the official Linux x86_64 wheels"), gens),
            Section(_("GPU builds by platform"), platforms),
        ),
    )


def _fact_indices() -> tuple[tuple[int, str], ...]:
    return tuple((matrix.COLUMNS.index(name), name) for name in _FACT_COLUMNS)


def _fact_row(
    kb: KnowledgeBase, columns: list[tuple[matrix.Row, TfBuild]], index: int, name: str
) -> ChartRow:
    cells = []
    label = matrix.heading(name)  # the text table's heading, in the same words
    for row, build in columns:
        value = row.cells(local=True)[index]
        source = _fact_source(kb, row, build, name)
        fields = {"version": row.latest or row.series, "name": label, "value": value}
        if source:
            title = _("TensorFlow {version}: {name} {value} (source: {source})").format(
                source=source, **fields
            )
        else:
            title = _("TensorFlow {version}: {name} {value}").format(**fields)
        cells.append(Cell("fact", value, title))
    title = _("{name}, as in 'tfenv matrix'").format(name=label)
    return ChartRow(label, title, tuple(cells), name)


def _fact_source(kb: KnowledgeBase, row: matrix.Row, build: TfBuild, name: str) -> str:
    if name == "Python":
        release = kb.index.release(build.gpu_package, row.latest) if row.latest else None
        return _cite(release.provenance) if release else ""
    linux = build.linux
    if name in ("CUDA", "cuDNN"):
        return _cite(linux.provenance) if linux else ""
    if linux is None or linux.cuda is None:
        return ""
    os: Literal["linux", "windows"] = "linux" if name == "driver Linux" else "windows"
    floor, why = kb.cuda.driver_floor(linux.cuda, os)
    family = kb.cuda.family(linux.cuda.major)
    toolkit = kb.cuda.toolkit(linux.cuda)
    fam_floor = family.min_driver(os) if family is not None else None
    found = family if family is not None and fam_floor == floor else toolkit
    return f"{why}; {_cite(found.provenance)}" if found is not None else why


def _option(kb: KnowledgeBase, package: str, platform: str, version: str) -> Optional[TfOption]:
    want = Version(version)
    return next((o for o in tf_options(kb, package, platform) if o.version == want), None)


def _own_build(kb: KnowledgeBase, platform: str, version: str) -> Optional[TfOption]:
    """Apple's tensorflow-macos in the series of ``version`` where tensorflow has no wheel
    (the solver plans it the same way: resolver/factory.py)."""
    from tfenv.kb.metal import own_distributions

    v = Version(version)
    for package in own_distributions(kb):
        for o in tf_options(kb, package, platform):  # newest first
            same = (o.version.major, o.version.minor) == (v.major, v.minor)
            if same and o.wheels is not None and not o.version.is_prerelease:
                return o
    return None


def gpu_cell(kb: KnowledgeBase, row: matrix.Row, build: TfBuild, gen: Generation) -> Cell:
    """How the newest release of ``row``'s series runs on a GPU of ``gen``."""
    if row.latest is None:
        return Cell("unknown", "", _no_release(row))
    option = _option(kb, build.gpu_package, "linux_x86_64", row.latest)
    where = _("{generation} (e.g. {gpu})").format(generation=gen.label, gpu=gen.examples[0])
    if option is None or option.build is None:
        return Cell(
            "unknown",
            "",
            _("{package} {version}: no build facts").format(
                package=build.gpu_package, version=row.latest
            ),
        )
    target = Target("linux", "x86_64", cc=gen.cc, gpu_name=gen.examples[0])
    cand = _candidate(option, "cuda")
    failed = rules.failures(rules.Context(kb, target), cand)
    source = _compute_source(option.build)
    gpu = [f for f in failed if f.rule.kind in _GPU_KINDS]
    if gpu:
        if all(f.rule.kind == "cudnn-arch" for f in gpu):
            source = _cudnn_source(kb, option.build)
        return Cell(
            "cannot-load",
            "",
            _("{release} cannot load on {where}: {why}{source}").format(
                release=_label(cand), where=where, why=_needs(gpu), source=source
            ),
        )
    code = code_for(option.build, gen.cc)
    if code is None:
        return Cell(
            "unknown",
            "",
            _("{release} on {where}: its GPU code is not recorded").format(
                release=_label(cand), where=where
            ),
        )
    return Cell(
        code.verdict,
        "",
        _("{release} runs on {where} {code}{source}").format(
            release=_label(cand), where=where, code=code.text(), source=source
        ),
    )


def platform_cell(
    kb: KnowledgeBase, row: matrix.Row, build: TfBuild, os: str, arch: str, accel: str
) -> Cell:
    """Whether the newest release of ``row``'s series has a GPU build, only a CPU wheel,
    or no wheel for the platform of ``os`` on ``arch``."""
    if row.latest is None:
        return Cell("unknown", "", _no_release(row))
    target = Target(os, arch)
    ctx = rules.Context(kb, target)
    platform = target.platform.key
    package = build.gpu_package if accel == "cuda" else "tensorflow"
    gpu_option = _option(kb, package, platform, row.latest)
    if accel == "metal" and (gpu_option is None or gpu_option.wheels is None):
        gpu_option = _own_build(kb, platform, row.latest) or gpu_option
    cpu_option = _option(kb, "tensorflow", platform, row.latest)
    why_not_gpu: list[rules.Failure] = []
    if gpu_option is not None:
        cand = _candidate(gpu_option, accel)
        why_not_gpu = rules.failures(ctx, cand, (*_WHEEL_KINDS, *_BUILD_KINDS))
        if not why_not_gpu:
            return Cell("gpu-build", "", _gpu_build_title(kb, cand, platform, accel))
    if cpu_option is None:
        return Cell(
            "no-wheel",
            "",
            _("No tensorflow {version} release on the index").format(version=row.latest),
        )
    cpu = _candidate(cpu_option, "cpu")
    no_wheel = rules.failures(ctx, cpu, _WHEEL_KINDS)
    if no_wheel:
        return Cell("no-wheel", "", _failed_title(kb, cpu, no_wheel))
    return Cell("cpu-only", "", _failed_title(kb, cpu, why_not_gpu, gpu=True))


def _no_release(row: matrix.Row) -> str:
    return _("TensorFlow {series}: no release on the index").format(series=row.series)


def _needs(failed: list[rules.Failure]) -> str:
    """ "it needs X; it needs Y": what each failed rule requires."""
    return _("; ").join(
        _("it needs {requirement}").format(requirement=f.requirement.text) for f in failed
    )


_KINDS = {"cuda": N_("CUDA build"), "metal": N_("Metal plug-in"), "cpu": N_("CPU only")}


def _label(cand: TfCandidate) -> str:
    """The candidate's label in the interface language: "TensorFlow 2.15.1 (CUDA build)"."""
    option = cand.option
    name = "TensorFlow" if option.package == "tensorflow" else option.package
    return _("{name} {version} ({kind})").format(
        name=name, version=option.version, kind=_(_KINDS[cand.accel])
    )


def _candidate(option: TfOption, accel: str) -> TfCandidate:
    """The solver's candidate for ``option`` built for ``accel`` (as the factory makes it)."""
    kind = {"cuda": "CUDA build", "metal": "Metal plug-in", "cpu": "CPU only"}[accel]
    name = "TensorFlow" if option.package == "tensorflow" else option.package
    key = f"{option.package}=={option.version}/{accel}"
    return TfCandidate("tensorflow", key, f"{name} {option.version} ({kind})", 0, option, accel)


def _gpu_build_title(kb: KnowledgeBase, cand: TfCandidate, platform: str, accel: str) -> str:
    version = cand.option.version
    if accel == "metal":
        from tfenv.kb.metal import metal_plugin

        plugin = metal_plugin(kb, version)
        pair = (
            _("{pairing}; source: {source}").format(
                pairing=plugin.pair.describe(), source=_cite(plugin.pair.provenance)
            )
            if plugin
            else ""
        )
        name = "TensorFlow" if cand.option.package == "tensorflow" else cand.option.package
        return _("{name} {version} uses the Apple GPU through the Metal plug-in ({pair})").format(
            name=name, version=version, pair=pair
        )
    build = cand.option.build
    if build is None:
        return _("{release} is a CUDA build for {platform}").format(
            release=_label(cand), platform=platform
        )
    return _("{release} is a CUDA build for {platform} (source: {source})").format(
        release=_label(cand), platform=platform, source=_cite(build.provenance)
    )


def _failed_title(
    kb: KnowledgeBase, cand: TfCandidate, failed: list[rules.Failure], gpu: bool = False
) -> str:
    """ "TensorFlow 2.15.1 has no GPU build here: it needs ... (source: ...)"."""
    version = cand.option.version
    what = (
        _("TensorFlow {version} has a CPU wheel here but no GPU build").format(version=version)
        if gpu
        else _label(cand)
    )
    if not failed:
        return what
    sources = sorted({s for f in failed for s in f.rule.sources(kb, version)})
    if any(f.rule.kind == "metal" for f in failed):  # the pairing table, not the index
        sources.append(_cite(kb.metal.table_provenance))
    if not sources:
        return _("{what}: {why}").format(what=what, why=_needs(failed))
    return _("{what}: {why} (source: {source})").format(
        what=what, why=_needs(failed), source="; ".join(sources)
    )


def _compute_source(build: TfBuild) -> str:
    caps = build.compute
    if caps is None:
        return ""
    return _(" (source: {source})").format(source=_cite(caps.provenance))


def _cudnn_source(kb: KnowledgeBase, build: TfBuild) -> str:
    """Where the cuDNN facts that decided a ``cudnn-arch`` cell come from."""
    cb = build.for_machine("linux")
    series = kb.cudnn.series(cb.cudnn) if cb is not None and cb.cudnn is not None else None
    return f" (source: {_cite(series.provenance)})" if series is not None else ""


def _cite(prov: Provenance) -> str:
    return prov.cite()
