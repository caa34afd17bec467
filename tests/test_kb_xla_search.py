"""Where XLA looks for ptxas and libdevice (and_cuda.yaml xla_search), and which CUDA's
ptxas first knows a GPU (nvidia/cuda.yaml): the facts doctor and explain answer from."""

from __future__ import annotations

from packaging.version import Version

from tfenv.kb import KnowledgeBase

V = Version


def test_search_order_per_release(kb: KnowledgeBase) -> None:
    xla = kb.and_cuda.xla
    assert xla is not None
    assert xla.places("ptxas", V("2.13.1")) == ("path", "xla_flags", "build_toolkit", "cuda_home")
    assert xla.places("ptxas", V("2.15.1")) == (
        "path", "xla_flags", "build_toolkit", "cuda_home", "pip_nvcc",
    )  # fmt: skip
    assert xla.places("ptxas", V("2.17.0")) == (
        "xla_flags", "path", "build_toolkit", "cuda_home", "pip_nvcc",
    )  # fmt: skip
    assert xla.places("ptxas", V("2.21.0")) == ("xla_flags", "path", "cuda_home", "pip_nvcc")
    assert xla.places("libdevice", V("2.13.1")) == ("xla_flags", "build_toolkit", "cuda_home")
    assert "pip_nvcc" in xla.places("libdevice", V("2.14.0"))
    assert xla.floor_for(V("2.16.2")) is None
    assert xla.floor_for(V("2.17.0")) == V("11.8")
    assert any("cuda_libdevice_path.cc" in s for s in xla.provenance.sources)


def test_first_cuda_whose_ptxas_knows_a_gpu(kb: KnowledgeBase) -> None:
    assert kb.cuda.first_for(V("8.6")) == V("11.1")
    assert kb.cuda.first_for(V("8.9")) == V("11.8")
    assert kb.cuda.first_for(V("9.0")) == V("11.8")
    assert kb.cuda.first_for(V("9.0"), arch_specific=True) == V("12.0")  # sm_90a
    assert kb.cuda.first_for(V("12.0")) == V("12.8")
    assert kb.cuda.ptx_isa[V("8.4")] == V("12.4")  # "current version is '8.4'"
