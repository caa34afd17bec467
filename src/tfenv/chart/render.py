"""The charts as text: SVG or a whole HTML page (what the commands write)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.chart.layout import machine_drawing, matrix_drawing
from tfenv.chart.page import html_page
from tfenv.chart.svg import svg_text

if TYPE_CHECKING:
    from tfenv import matrix
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Resolution

__all__ = ["machine_chart_text", "matrix_chart_text"]


def matrix_chart_text(kb: KnowledgeBase, rows: list[matrix.Row], fmt: str = "svg") -> str:
    """The compatibility chart of ``rows`` as ``svg`` or ``html``."""
    from tfenv.chart.cells import matrix_chart

    drawing = matrix_drawing(matrix_chart(kb, rows))
    return html_page(drawing) if fmt == "html" else svg_text(drawing)


def machine_chart_text(kb: KnowledgeBase, res: Resolution, fmt: str = "svg") -> str:
    """The chart of ``res``'s machine as ``svg`` or ``html``."""
    from tfenv.chart.machine import machine_chart

    drawing = machine_drawing(machine_chart(kb, res))
    return html_page(drawing) if fmt == "html" else svg_text(drawing)
