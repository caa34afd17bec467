"""Draw a :class:`~tfenv.chart.layout.Drawing` as SVG, through ElementTree.

ElementTree escapes every text and attribute value it writes, so a GPU name or a
host file's text lands in the SVG as characters, never as markup. Control characters
(and bidirectional overrides) are shown as escapes first, as on the terminal
(:func:`tfenv.textsafe.visible`), so nothing XML cannot carry reaches it.
The output is deterministic: attributes in the order they are set, numbers with
at most one decimal.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from tfenv.chart.layout import Box, Label
from tfenv.textsafe import visible

if TYPE_CHECKING:
    from tfenv.chart.layout import Drawing

__all__ = ["FONT", "svg_element", "svg_text"]

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
# what XML 1.0 cannot hold and textsafe.visible lets through: U+FFFE, U+FFFF
_NOT_XML = re.compile("[\ufffe\uffff]")


def clean(text: str) -> str:
    """``text`` on one line, controls shown as escapes, non-characters as U+FFFD."""
    return _NOT_XML.sub("\ufffd", visible(text))


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def svg_element(drawing: Drawing) -> ET.Element:
    """The ``<svg>`` element (its children are in the SVG namespace, unprefixed)."""
    w, h = _n(drawing.width), _n(drawing.height)
    root = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "width": w,
            "height": h,
            "viewBox": f"0 0 {w} {h}",
            "role": "img",
            "aria-labelledby": "chart-title chart-desc",
            "font-family": FONT,
        },
    )
    ET.SubElement(root, "title", {"id": "chart-title"}).text = clean(drawing.title)
    ET.SubElement(root, "desc", {"id": "chart-desc"}).text = clean(drawing.desc)
    ET.SubElement(root, "rect", {"width": w, "height": h, "fill": "#FFFFFF"})
    for item in drawing.items:
        if isinstance(item, Box):
            _box(root, item)
        else:
            _label(root, item)
    return root


def svg_text(drawing: Drawing) -> str:
    """The SVG document: an XML declaration and the ``<svg>`` element, newline-terminated."""
    root = svg_element(drawing)
    ET.indent(root, space=" ")
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _box(parent: ET.Element, box: Box) -> None:
    attrs = {"class": "cell"}
    attrs.update({f"data-{k}": clean(v) for k, v in box.data})
    group = ET.SubElement(parent, "g", attrs)
    ET.SubElement(group, "title").text = clean(box.title)
    ET.SubElement(
        group,
        "rect",
        {
            "x": _n(box.x),
            "y": _n(box.y),
            "width": _n(box.w),
            "height": _n(box.h),
            "fill": box.fill,
            "stroke": box.stroke,
            "stroke-width": _n(box.stroke_width),
        },
    )
    for label in box.labels:
        _label(group, label)


def _label(parent: ET.Element, label: Label) -> None:
    attrs = {"x": _n(label.x), "y": _n(label.y), "font-size": _n(label.size)}
    if label.anchor != "start":
        attrs["text-anchor"] = label.anchor
    if label.bold:
        attrs["font-weight"] = "bold"
    if label.ink != "#000000":
        attrs["fill"] = label.ink
    if label.upright:
        attrs["transform"] = f"rotate(-90 {_n(label.x)} {_n(label.y)})"
    ET.SubElement(parent, "text", attrs).text = clean(label.text)
