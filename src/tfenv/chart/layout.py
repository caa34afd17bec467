"""Where everything goes: the charts as boxes and labels on a plane, in pixels.

The layout knows no SVG; :mod:`.svg` draws what it returns. Text widths are
estimated (0.6 em a column, generous for the sans-serif faces the SVG names; a Chinese
character takes two columns), so
a fact too wide for its column is turned upright and a strip's line is shortened
with an ellipsis; the hover text always keeps the whole of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from tfenv.chart.palette import FACT, MACHINE, MATRIX, Swatch
from tfenv.i18n import _
from tfenv.i18n.width import display_width

if TYPE_CHECKING:
    from tfenv.chart.cells import MatrixChart
    from tfenv.chart.machine import MachineChart

__all__ = ["Box", "Drawing", "Label", "machine_drawing", "matrix_drawing"]

_MARGIN = 12.0
_CELL_W = 36.0
_CELL_H = 20.0
_LABEL_W = 180.0
_TEXT = 10.5  # the size of text in cells
_EM = 0.6  # estimated width of a character, in em


@dataclass(frozen=True)
class Label:
    x: float
    y: float  # the baseline
    text: str
    size: float = _TEXT
    anchor: str = "start"  # start, middle, end
    bold: bool = False
    ink: str = "#000000"
    upright: bool = False  # turned a quarter anticlockwise, reading upwards


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float
    fill: str
    title: str  # the hover text
    labels: tuple[Label, ...] = ()
    stroke: str = "#FFFFFF"
    stroke_width: float = 1.0
    data: tuple[tuple[str, str], ...] = ()  # data-* attributes: row, series, verdict


Item = Union[Box, Label]


@dataclass(frozen=True)
class Drawing:
    width: float
    height: float
    title: str
    desc: str
    items: tuple[Item, ...] = field(default_factory=tuple)


def text_width(text: str, size: float) -> float:
    return display_width(text) * size * _EM


def fit(text: str, width: float, size: float) -> str:
    """``text``, shortened with an ellipsis to fit ``width`` at ``size``."""
    most = int(width / (size * _EM))
    if display_width(text) <= most:
        return text
    kept, used = "", 0
    for ch in text:
        used += display_width(ch)
        if used > most - 1:
            break
        kept += ch
    return kept.rstrip() + "\u2026"


# -- the compatibility chart ------------------------------------------------------


def matrix_drawing(chart: MatrixChart) -> Drawing:
    items: list[Item] = [Label(_MARGIN, _MARGIN + 14, chart.title, 15, bold=True)]
    left = _MARGIN + _LABEL_W
    y = _MARGIN + 30
    items.append(Label(_MARGIN, y + 14, "TensorFlow", 11, bold=True))
    for i, (series, title) in enumerate(zip(chart.series, chart.series_titles)):
        x = left + i * _CELL_W
        label = Label(x + _CELL_W / 2, y + 14, series, 11, "middle", bold=True)
        items.append(
            Box(x, y, _CELL_W, _CELL_H, "#FFFFFF", title, (label,), data=_d(series=series))
        )
    y += _CELL_H + 4
    for section in chart.sections:
        items.append(Label(_MARGIN, y + 16, section.title, 12, bold=True))
        y += 22
        for row in section.rows:
            upright = any(
                c.verdict == "fact" and text_width(c.text, _TEXT) > _CELL_W - 6 for c in row.cells
            )
            longest = max((text_width(c.text, _TEXT) for c in row.cells), default=0)
            h = max(_CELL_H, longest + 10) if upright else _CELL_H
            name = Label(_MARGIN + 4, y + h / 2 + 4, row.label, _TEXT)
            items.append(Box(_MARGIN, y, _LABEL_W - 4, h, "#FFFFFF", row.title, (name,)))
            for i, (series, cell) in enumerate(zip(chart.series, row.cells)):
                x = left + i * _CELL_W
                swatch = FACT if cell.verdict == "fact" else MATRIX[cell.verdict]
                text = cell.text or swatch.mark
                if upright:
                    mark = Label(
                        x + _CELL_W / 2 + 4, y + h - 5, text, _TEXT, ink=swatch.ink, upright=True
                    )
                else:
                    mark = Label(
                        x + _CELL_W / 2, y + h / 2 + 4, text, _TEXT, "middle", ink=swatch.ink
                    )
                data = _d(row=row.key or row.label, series=series, verdict=cell.verdict)
                items.append(Box(x, y, _CELL_W, h, swatch.fill, cell.title, (mark,), data=data))
            y += h
        y += 6
    width = left + len(chart.series) * _CELL_W + _MARGIN
    y, legend = _legend(tuple(MATRIX.values()), y + 6, width)
    items += legend
    desc = _(
        "TensorFlow series across; down: the newest release's Python range, CUDA, cuDNN and "
        "driver floors, how each GPU generation runs its official Linux wheel, and which "
        "platforms have a GPU build. Hover over a cell for the fact and its source."
    )
    return Drawing(width, y + _MARGIN, chart.title, desc, tuple(items))


# -- the chart of one machine ---------------------------------------------------------

_SERIES_W = 56.0
_BAR_W = 760.0
_BAR_H = 22.0


def machine_drawing(chart: MachineChart) -> Drawing:
    items: list[Item] = [
        Label(_MARGIN, _MARGIN + 14, chart.title, 15, bold=True),
        Label(_MARGIN, _MARGIN + 34, fit(chart.machine, _SERIES_W + _BAR_W, 11), 11),
    ]
    y = _MARGIN + 46
    left = _MARGIN + _SERIES_W
    for strip in chart.strips:
        swatch = MACHINE[strip.verdict]
        name = Label(_MARGIN + _SERIES_W - 8, y + 15, strip.series, 11, "end", bold=strip.chosen)
        items.append(name)
        line = fit(strip.text, _BAR_W - 12, 11)
        text = Label(left + 6, y + 15, line, 11, bold=strip.chosen, ink=swatch.ink)
        stroke, width = ("#000000", 3.0) if strip.chosen else ("#FFFFFF", 1.0)
        data = _d(
            series=strip.series, verdict=strip.verdict, chosen="yes" if strip.chosen else "no"
        )
        items.append(
            Box(left, y, _BAR_W, _BAR_H, swatch.fill, strip.title, (text,), stroke, width, data)
        )
        y += _BAR_H + 3
    total = left + _BAR_W + _MARGIN
    if chart.chosen is None:
        items.append(Label(_MARGIN, y + 16, _("No plan was chosen: nothing fits as asked."), 11))
        y += 22
    y, legend = _legend(tuple(MACHINE.values()), y + 8, total)
    items += legend
    desc = _(
        "For {machine}: one strip per TensorFlow series, whether it fits, fits with "
        "warnings, or why not; the chosen plan is outlined. Hover over a strip for the plan "
        "or the conflicts."
    ).format(machine=chart.machine)
    return Drawing(total, y + _MARGIN, chart.title, desc, tuple(items))


# -- shared ---------------------------------------------------------------------------


def _legend(swatches: tuple[Swatch, ...], top: float, width: float) -> tuple[float, list[Item]]:
    """The legend in two columns under the chart; returns its bottom and its items."""
    items: list[Item] = [Label(_MARGIN, top + 12, _("Legend"), 12, bold=True)]
    col_w = max((width - 2 * _MARGIN) / 2, 200)
    y = top + 20
    for i, s in enumerate(swatches):
        x = _MARGIN + (i % 2) * col_w
        row_y = y + (i // 2) * 22
        mark = Label(x + 20, row_y + 14, s.mark, 9.5, "middle", ink=s.ink)
        legend = _(s.legend)
        label = Label(x + 46, row_y + 14, legend, 11)
        items.append(
            Box(x, row_y, 40, 18, s.fill, legend, (mark,), "#888888", 0.5, _d(legend=s.key))
        )
        items.append(label)
    rows = (len(swatches) + 1) // 2
    return y + rows * 22, items


def _d(**data: str) -> tuple[tuple[str, str], ...]:
    return tuple(data.items())
