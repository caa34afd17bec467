"""The charts' colours: Okabe and Ito's colour-blind-safe palette, one swatch per verdict.

Every swatch also carries a short mark drawn in its cells, so that a verdict reads
without telling the colours apart (in greyscale print, too), and the sentence the
legend shows. Ink is black on every fill but the dark blue, where white keeps the
contrast above 4.5:1.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfenv.i18n import N_

__all__ = ["FACT", "MACHINE", "MATRIX", "OKABE_ITO", "Swatch"]

#: Okabe, M. and Ito, K., "Color Universal Design (CUD): how to make figures and
#: presentations that are friendly to colorblind people" (2008), the eight colours.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
_GREY = "#BBBBBB"  # not established / nothing to install: outside the eight on purpose
_PALE = "#F2F2F2"  # a plain fact (a version number), no verdict


@dataclass(frozen=True)
class Swatch:
    key: str  # the verdict: "native", "cannot-load", "fits", ...
    fill: str
    ink: str  # the colour of text on the fill
    mark: str  # drawn in a cell of this verdict (a few ASCII characters)
    legend: str  # the legend's sentence (English, N_: the layout words it in the language)


def _swatch(key: str, colour: str, mark: str, legend: str) -> Swatch:
    fill = OKABE_ITO.get(colour, colour)
    return Swatch(key, fill, "#FFFFFF" if colour == "blue" else "#000000", mark, legend)


#: A cell that states a fact (Python range, CUDA, driver floor) rather than a verdict.
FACT = Swatch("fact", _PALE, "#000000", "", "")

#: The compatibility chart's verdicts, in legend order.
MATRIX: dict[str, Swatch] = {
    s.key: s
    for s in (
        _swatch("native", "bluish green", "sm", N_("runs natively (SASS for this GPU)")),
        _swatch("partly-jit", "yellow", "mix", N_("partly by PTX JIT on first use")),
        _swatch("jit", "orange", "JIT", N_("all kernels by PTX JIT on first use")),
        _swatch("cannot-load", "vermillion", "no", N_("cannot load (no code for this GPU)")),
        _swatch("gpu-build", "blue", "GPU", N_("GPU build (CUDA, or Metal plug-in)")),
        _swatch("cpu-only", "reddish purple", "CPU", N_("no GPU build on this OS (CPU only)")),
        _swatch("no-wheel", _PALE, "-", N_("no wheel for this platform")),
        _swatch("unknown", _GREY, "?", N_("not established")),
    )
}

#: The chart of one machine: one strip per series, in legend order.
MACHINE: dict[str, Swatch] = {
    s.key: s
    for s in (
        _swatch("fits", "bluish green", "ok", N_("fits")),
        _swatch("warnings", "yellow", "ok*", N_("fits, with warnings")),
        _swatch("driver", "orange", "drv", N_("why not: the NVIDIA driver")),
        _swatch("python", "sky blue", "py", N_("why not: the Python version")),
        _swatch("gpu", "vermillion", "gpu", N_("why not: no code for this GPU")),
        _swatch("os", "reddish purple", "os", N_("why not: nothing for this OS or platform")),
        _swatch("other", _GREY, "?", N_("why not: something else (see the hover text)")),
    )
}
