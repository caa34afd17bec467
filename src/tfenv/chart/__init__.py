"""Charts of what tfenv knows: the compatibility chart and the chart of one machine.

- :mod:`.cells` turns the knowledge base into the compatibility chart's cells, each
  decided by the rules the solver uses (:mod:`tfenv.rules`), with its fact and source;
- :mod:`.machine` resolves one machine once per TensorFlow series for its strips;
- :mod:`.palette` holds the colours (Okabe and Ito's colour-blind-safe set) and the
  legend's words;
- :mod:`.layout` places boxes and labels; :mod:`.svg` writes them through
  :mod:`xml.etree.ElementTree` (which escapes every text and attribute) and
  :mod:`.page` wraps the SVG in one self-contained HTML page.

Nothing here is on the path of ``tfenv resolve`` unless ``--chart`` is given
(``tests/test_imports.py``).
"""

from __future__ import annotations

__all__: list[str] = []
