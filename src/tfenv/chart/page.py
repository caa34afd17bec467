"""One self-contained HTML page around a chart: the SVG inline, no outside resources."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from tfenv.chart.svg import FONT, clean, svg_element
from tfenv.i18n import language

if TYPE_CHECKING:
    from tfenv.chart.layout import Drawing

__all__ = ["html_page"]

_STYLE = (
    f"body{{margin:16px;background:#FFFFFF;color:#000000;font-family:{FONT}}}"
    "p{max-width:60em;font-size:14px}"
    ".cell:hover rect{stroke:#000000;stroke-width:2}"
)


#: the page's language as HTML names it (BCP 47)
_HTML_LANG = {"en": "en", "zh": "zh-Hans"}


def html_page(drawing: Drawing) -> str:
    """The page: its title, the drawing's description, and the SVG inline (hover over a
    cell for its fact and source: the SVG's ``<title>`` elements)."""
    root = svg_element(drawing)
    ET.indent(root, space=" ")
    svg = ET.tostring(root, encoding="unicode")
    title = html.escape(clean(drawing.title))
    desc = html.escape(clean(drawing.desc))
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{_HTML_LANG[language()]}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n<main>\n"
        f"<p>{desc}</p>\n{svg}\n</main>\n</body>\n</html>\n"
    )
