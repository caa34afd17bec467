"""The compatibility table, one row per TensorFlow minor series, derived from the KB."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Optional

from packaging.version import Version

from tfenv.i18n import N_, _
from tfenv.kb.releases import build_of
from tfenv.models.platform import DRIVER_OSES

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.tensorflow import TfBuild

__all__ = [
    "Note",
    "Row",
    "heading",
    "matrix_rows",
    "render_docs_page",
    "render_json",
    "render_markdown",
    "render_text",
]

COLUMNS = (
    "TF",
    "latest",
    "Python",
    "CUDA",
    "cuDNN",
    "driver Linux",
    "driver Windows/WSL2",
    "native",
    "PTX",
    "MLIR-generated kernels",
    "GPU platforms",
    "notes",
)


class Note(str):
    """A note of a row: the English text (a ``str``: what --json and the Markdown page
    carry) that knows its template, so that the text table and the chart word it in the
    interface language (:meth:`local`)."""

    template: str
    params: dict[str, str]

    def __new__(cls, template: str, **params: object) -> Note:
        values = {k: str(v) for k, v in params.items()}
        made = super().__new__(cls, template.format(**values))
        made.template = template
        made.params = values
        return made

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, str]]:
        return (self.template,), self.params

    def local(self) -> str:
        return _(self.template).format(**self.params)


def _local(note: str) -> str:
    return note.local() if isinstance(note, Note) else note


@dataclass(frozen=True)
class Row:
    series: str
    latest: Optional[str]
    python: list[str]
    cuda: Optional[str]
    cudnn: Optional[str]
    min_driver_linux: Optional[str]
    min_driver_windows: Optional[str]
    sass: list[str]  # the hand-written kernels'
    ptx: list[str]
    ptx_isa: Optional[str]
    generated_sass: Optional[list[str]]  # the MLIR-generated kernels' (None: none in the wheel)
    generated_ptx: Optional[list[str]]
    generated_ptx_isa: Optional[str]
    generated_ptx_targets: Optional[list[str]]
    gpu_platforms: list[str]
    keras: Optional[int]
    notes: list[str]

    def cells(self, local: bool = False) -> tuple[str, ...]:
        """The row's cells, in English (the Markdown page), or ``local``: in the interface
        language (the text table, the chart), the same words either way in English."""
        unknown, none = (_("unknown"), _("none")) if local else ("unknown", "none")

        def v(x: Optional[object]) -> str:
            return unknown if x is None else str(x)

        py = f"{self.python[0]}-{self.python[-1]}" if self.python else none
        notes = [_local(n) for n in self.notes] if local else self.notes
        return (
            self.series,
            self.latest or "-",
            py,
            v(self.cuda),
            v(self.cudnn),
            v(self.min_driver_linux),
            v(self.min_driver_windows),
            " ".join(self.sass) or "-",
            _ptx(self.ptx, self.ptx_isa, None, local),
            _generated(self, local),
            " ".join(self.gpu_platforms) or "-",
            (_("; ") if local else "; ").join(notes),
        )


def matrix_rows(
    kb: KnowledgeBase, tf: Optional[str] = None, cuda_major: Optional[int] = None
) -> list[Row]:
    rows = []
    for build in sorted(kb.builds.all, key=lambda b: b.series):
        if tf is not None and str(build.series) != tf:
            continue
        row = _row(kb, build)
        if cuda_major is not None and (row.cuda is None or Version(row.cuda).major != cuda_major):
            continue
        rows.append(row)
    return rows


def _row(kb: KnowledgeBase, build: TfBuild) -> Row:
    releases = [
        r
        for r in kb.index.releases(build.gpu_package)
        if (r.version.major, r.version.minor) == (build.series.major, build.series.minor)
        and not r.yanked
    ]
    stable = [r for r in releases if not r.version.is_prerelease] or releases
    latest = stable[-1] if stable else None
    if latest is not None and latest.package == "tensorflow":
        build = build_of(kb, latest.version) or build  # headers where the table has no row
    pythons: set[Version] = set()
    if latest is not None:
        for ws in latest.wheels.values():
            pythons.update(Version(p) for p in ws.pythons if p.replace(".", "").isdigit())
    linux = build.linux
    cuda = linux.cuda if linux else None
    drivers = [kb.cuda.driver_floor(cuda, os)[0] if cuda else None for os in DRIVER_OSES]
    caps = build.compute
    gen = caps.generated if caps else None
    notes: list[str] = (
        [Note(N_("Keras {major}"), major=build.keras_major)] if build.keras_major else []
    )
    if build.gpu_package != "tensorflow":
        notes.append(Note(N_("GPU build: {package}"), package=build.gpu_package))
    if latest is not None and latest.version.is_prerelease:
        notes.append(Note(N_("pre-release")))
    return Row(
        series=str(build.series),
        latest=str(latest.version) if latest else None,
        python=[str(p) for p in sorted(pythons)],
        cuda=str(cuda) if cuda else None,
        cudnn=str(linux.cudnn) if linux and linux.cudnn else None,
        min_driver_linux=str(drivers[0]) if drivers[0] else None,
        min_driver_windows=str(drivers[1]) if drivers[1] else None,
        sass=[_arch("sm", v) for v in caps.hand_written.sass] if caps else [],
        ptx=[_arch("compute", v) for v in caps.hand_written.ptx] if caps else [],
        ptx_isa=_s(caps.hand_written.ptx_isa) if caps else None,
        generated_sass=[_arch("sm", v) for v in gen.sass] if gen else None,
        generated_ptx=[_arch("compute", v) for v in gen.ptx] if gen else None,
        generated_ptx_isa=_s(gen.ptx_isa) if gen else None,
        generated_ptx_targets=list(gen.ptx_targets) if gen else None,
        gpu_platforms=sorted(build.gpu_platforms),
        keras=build.keras_major,
        notes=notes,
    )


def _arch(prefix: str, v: Version) -> str:
    return f"{prefix}_{v.major}{v.minor}"


def _s(v: Optional[Version]) -> Optional[str]:
    return None if v is None else str(v)


def _ptx(
    ptx: list[str], isa: Optional[str], targets: Optional[list[str]], local: bool = False
) -> str:
    if not ptx:
        return "-"
    text = " ".join(ptx)
    if isa:
        text += f" (ISA {isa})"
    specific = [t for t in targets or [] if t.endswith("a")]
    if specific:
        only = _("{targets} only") if local else "{targets} only"
        text += " " + only.format(targets=" ".join(specific))
    return text


def _generated(row: Row, local: bool = False) -> str:
    if row.generated_sass is None:
        return _("none") if local else "none"
    sass = " ".join(row.generated_sass) or "-"
    ptx = _ptx(row.generated_ptx or [], row.generated_ptx_isa, row.generated_ptx_targets, local)
    return f"{sass}; PTX {ptx}"


def render_json(rows: list[Row]) -> str:
    import json

    data: list[dict[str, Any]] = [asdict(r) for r in rows]
    return json.dumps(data, indent=2) + "\n"


def render_markdown(rows: list[Row]) -> str:
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    out += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(out) + "\n"


# the text table's headings in the current language (the JSON and Markdown keep COLUMNS)
_HEADINGS = {
    "latest": N_("latest"),
    "driver Linux": N_("driver Linux"),
    "driver Windows/WSL2": N_("driver Windows/WSL2"),
    "native": N_("native"),
    "MLIR-generated kernels": N_("MLIR-generated kernels"),
    "GPU platforms": N_("GPU platforms"),
    "notes": N_("notes"),
}


def heading(column: str) -> str:
    """A column's heading (one of :data:`COLUMNS`) in the interface language: the text
    table's and the chart's labels."""
    return _(_HEADINGS[column]) if column in _HEADINGS else column


def render_text(rows: list[Row]) -> str:
    head = tuple(heading(c) for c in COLUMNS)
    table = [head] + [r.cells(local=True) for r in rows]
    widths = [max(_columns(row[i]) for row in table) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(cell + " " * (w - _columns(cell)) for cell, w in zip(row, widths)).rstrip()
        for row in table
    ]
    return "\n".join(lines) + "\n"


def _columns(text: str) -> int:
    """Columns on a terminal: a Chinese character takes two."""
    from tfenv.i18n.width import display_width

    return display_width(text)


DOCS_PREAMBLE = """\
# Compatibility matrix

Generated from the knowledge base; do not edit by hand (`tests/test_matrix.py` fails when
this page, its chart and the data disagree). Regenerate both with
`tfenv matrix --docs-page --svg docs/matrix.svg > docs/matrix.md`.

![The compatibility chart: TensorFlow series across, facts and verdicts down](matrix.svg)

The chart's cells come from the rules `tfenv resolve` applies (hover over a cell in
`tfenv matrix --html chart.html` for its fact and source); see [charts](charts.md).

Columns: the newest release of each series; the Pythons its wheels carry (any platform);
the CUDA and cuDNN the official Linux wheels were built and tested with; the lowest NVIDIA
driver for that CUDA (the minor-version-compatibility floor of its major where one exists,
else the toolkit's own minimum; the Windows figure applies to WSL2 too); the GPU code
compiled into the official wheels as native SASS (`sm_XY` runs on X.Y to X.9; "partial":
only some kernels) and PTX (`compute_XY`, JIT-compiled for X.Y and newer); the platforms
whose official wheel is a CUDA build. `unknown` means not established, never "none".
Every fact's source is in the data files under `src/tfenv/data/` (see knowledge-base.md).

"""


def render_docs_page(rows: list[Row]) -> str:
    return DOCS_PREAMBLE + render_markdown(rows)
