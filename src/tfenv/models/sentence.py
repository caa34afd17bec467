"""A plan's reason or warning: the sentence, and a language-neutral code beside it.

A :class:`Sentence` is the text a person reads (a ``str``, in the current language) that
also carries ``code``, one of :data:`CODES`, and ``params``, the named values its template
was filled with. ``--json`` writes both beside the sentence (``reason_codes``,
``warning_codes``), so that a script reads ``{"code": "driver-floor", "params": {"floor":
"525.60.13", ...}}`` and never parses the sentence. docs/json.md lists the codes (a test
keeps it equal to :data:`CODES`); a test resolves many machines and finds every reason and
warning coded.

Build one with :func:`said`::

    said("route", _("Route {route}: {why}."), route=route.name, why=_(route.why))

``tfenv doctor``'s findings are worded the same way, with the codes of
:data:`tfenv.models.doctor_codes.DOCTOR_CODES` (a second closed list, loaded only when a
doctor sentence is made).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CODES", "Sentence", "coded", "said"]

#: every code a reason or warning may carry, and what it says (docs/json.md)
CODES: dict[str, str] = {
    # reasons
    "tensorflow": "the TensorFlow release chosen: the newest matching the request that fits",
    "python": "the Python chosen (given, detected, or the newest with wheels)",
    "python-unconstrained": "no Python is chosen (nothing constrains it)",
    "cuda-build": "the CUDA and cuDNN the release was built and tested with",
    "cuda-installed": "the CUDA and cuDNN the plan installs, which differ from the build's",
    "driver-floor": "the NVIDIA driver the plan needs, and the machine's",
    "driver-jit": "a higher driver floor because kernels run by PTX JIT",
    "gpu-code": "how the GPU runs TensorFlow's kernels (natively, PTX JIT, partly)",
    "route": "the install route taken, and what it does",
    "route-not-taken": "why the route TensorFlow's docs recommend was not taken",
    "host-needs": "what the host of a container plan needs",
    "runtime-pin": "a dependency bound the release needs to import and run (params: id)",
    "cuda-wheels-dropped": "the and-cuda extra cannot install here; its wheels one by one",
    "cuda-wheels-build": "CUDA wheels pinned to the versions the release was built with",
    "cuda-wheels-newest": "CUDA wheels: the newest the extra allows that the GPU and driver run",
    "cpu-package": "the CPU-only distribution installed instead of tensorflow",
    "conda-build": "conda-forge's build and variant chosen",
    "conda-python": "the Python of a conda plan",
    "conda-env": "the new conda environment the plan creates",
    "conda-windows-path": "where conda puts the CUDA DLLs on Windows",
    "metal-plugin": "the tensorflow-metal plug-in paired with the release",
    "metal-package": "Apple's own TensorFlow build for macOS arm64",
    "metal-conda-deps": "Apple's conda dependencies package for the release",
    "metal-macos": "the oldest macOS the plug-in's wheel is tagged for",
    "metal-gpu": "the AMD GPU of an Intel Mac that Apple's plug-in runs on, and Apple's words",
    "image": "the container image chosen, and what it carries",
    "image-pins": "the packages pinned inside the container image",
    "image-runs": "whether the container toolkit starts the image here",
    # warnings
    "driver-unknown": "the driver version is not known; the floor it must meet",
    "driver-below-toolkit": (
        "the driver is older than the CUDA toolkit's own minimum (params: outcome, `slower` or "
        "`may-fail`)"
    ),
    "ptx-jit": "no native code for the GPU: kernels JIT-compiled from PTX",
    "cuda-predates-gpu": "the CUDA version predates the GPU's compute capability",
    "cudnn-forward": "whether cuDNN runs on a GPU newer than its native list",
    "cudnn-unknown": "whether the plan's cuDNN has native code for this GPU is not established",
    "cudnn-newer": "the plan's cuDNN has no code for this GPU: a later cuDNN of its major has",
    "cudnn-later": "a later cuDNN than the build's: the built one has no code for this GPU",
    "newer-image": "a container image with a newer CUDA for this GPU",
    "yanked": "the release is yanked from the index (used only when pinned exactly)",
    "known-issue": "a known issue of the release on this machine (params: id)",
    "glibc-unknown": "the glibc is not known; the floor the wheels need",
    "apple-gpu-unused": "a CPU plan on a Mac whose GPU runs Metal: why the GPU is not used",
    "gpu-unused": "the GPU is not used by the index's wheels (Linux aarch64)",
    "jetson": "where GPU TensorFlow comes from on a Jetson",
    "conda-cudnn-cap": "cuDNN capped in a conda plan: newer series have no code for the GPU",
    "conda-unpublished": "whether conda-forge published the release is not established",
    "conda-broken": "conda-forge builds of the release not used, and why",
    "conda-forge-newer": "conda-forge has CPU builds newer than the plan's wheels (osx-64)",
    "metal-inferred": "the tensorflow-metal pairing is inferred, not Apple's table",
    "metal-intel": "an Intel Mac's pairing: Apple's table, libraries checked on arm64 only",
    "image-warning": "a caveat of the container image on this machine",
}


class Sentence(str):
    """A sentence (``str``) with its code (one of :data:`CODES`) and named values."""

    code: str
    params: dict[str, str]

    def __new__(cls, text: str, code: str, params: dict[str, str]) -> Sentence:
        made = super().__new__(cls, text)
        made.code = code
        made.params = params
        return made

    def __getnewargs__(self) -> tuple[str, str, dict[str, str]]:  # type: ignore[override]
        return (str(self), self.code, self.params)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}


def _check(code: str) -> None:
    if code in CODES:
        return
    from tfenv.models.doctor_codes import DOCTOR_CODES

    if code not in DOCTOR_CODES:
        raise ValueError(f"not a sentence code: {code!r}")


def said(code: str, template: str, /, **params: object) -> Sentence:
    """``template`` (already in the current language) filled with ``params``, coded."""
    _check(code)
    return Sentence(
        template.format(**params),
        code,
        {k: str(v) for k, v in params.items() if v is not None},
    )


def coded(code: str, text: str, /, **params: object) -> Sentence:
    """A sentence worded elsewhere (the knowledge base's prose), coded: ``params`` name
    what a script may need (an id)."""
    _check(code)
    return Sentence(text, code, {k: str(v) for k, v in params.items() if v is not None})
