"""The machine a plan is for, at the edges: GPUs that only come in Arm machines, GPUs tfenv
does not know, and Jetson facts."""

from __future__ import annotations

import pytest
from packaging.version import Version

from tfenv.api import build_target
from tfenv.errors import UsageError
from tfenv.host.profile import HostProfile
from tfenv.kb import KnowledgeBase
from tfenv.kb.jetson import is_jetson
from tfenv.models.driver import DriverVersion
from tfenv.models.target import MachineArgs


def _x86_host() -> HostProfile:
    return HostProfile(os="linux", arch="x86_64", python=Version("3.11"))


def test_an_arm_only_gpu_overrides_the_detected_arch(kb: KnowledgeBase) -> None:
    target = build_target(kb, MachineArgs(gpu="GH200"), detect=_x86_host)
    assert (target.os, target.arch, str(target.cc)) == ("linux", "aarch64", "9.0")
    assert "arch" not in target.detected
    assert any("Linux aarch64 assumed" in n for n in target.notes)


@pytest.mark.parametrize(
    ("args", "given"),
    [
        (MachineArgs(os="linux", arch="x86_64", gpu="Orin (nvgpu)"), "--arch x86_64"),
        (MachineArgs(os="windows", gpu="NVIDIA GB200"), "--os windows"),
    ],
)
def test_an_arm_only_gpu_with_a_conflicting_machine_exits_2(
    kb: KnowledgeBase, args: MachineArgs, given: str
) -> None:
    with pytest.raises(UsageError) as info:
        build_target(kb, args)
    assert given in str(info.value)
    assert "--arch aarch64" in str(info.value)
    assert info.value.exit_code == 2


def test_a_gpu_for_any_host_keeps_the_arch(kb: KnowledgeBase) -> None:
    target = build_target(kb, MachineArgs(os="linux", arch="aarch64", gpu="A100"))
    assert target.arch == "aarch64"
    assert build_target(kb, MachineArgs(os="linux", gpu="A100")).arch == "x86_64"
    assert build_target(kb, MachineArgs(os="linux", arch="arm64", gpu="GB10")).arch == "aarch64"


def test_gpu_and_cc_together(kb: KnowledgeBase) -> None:
    unknown = build_target(kb, MachineArgs(os="linux", gpu="Acme  X1", cc="8.6"))
    assert (unknown.gpu_name, str(unknown.cc)) == ("Acme X1", "8.6")
    assert any("not in tfenv's GPU list" in n for n in unknown.notes)
    # an ambiguous short name is settled by --cc
    picked = build_target(kb, MachineArgs(os="linux", gpu="RTX 6000", cc="7.5"))
    assert picked.gpu_name == "Quadro RTX 6000"
    with pytest.raises(UsageError, match=r"but --cc says 8\.9"):
        build_target(kb, MachineArgs(os="linux", gpu="RTX 3060", cc="8.9"))


def test_an_unknown_gpu_names_the_nearest_and_cc(kb: KnowledgeBase) -> None:
    with pytest.raises(UsageError) as info:
        build_target(kb, MachineArgs(os="linux", gpu="RTX 4000 Ada Laptop"))
    text = str(info.value)
    assert "Did you mean 'NVIDIA RTX 4000 Ada Generation Laptop GPU'" in text
    assert "--cc" in text


def test_jetson_is_known_by_name_or_by_a_jetson_only_compute_capability(
    kb: KnowledgeBase,
) -> None:
    assert is_jetson(kb, "Orin (nvgpu)", Version("8.7"))
    assert is_jetson(kb, None, Version("8.7"))
    assert is_jetson(kb, None, Version("7.2"))
    assert not is_jetson(kb, None, Version("8.6"))
    assert not is_jetson(kb, "NVIDIA GH200 480GB", Version("9.0"))
    assert not is_jetson(kb, "Acme X1", Version("8.7"))  # a name tfenv does not know


def test_jetpack_ways_out(kb: KnowledgeBase) -> None:
    facts = kb.jetson
    orin = facts.way_out(Version("8.7"), DriverVersion("540.4.0"))
    assert orin is not None
    assert orin.wheel is not None
    assert (orin.jetpack.jetpack, orin.wheel.version) == ("6.1", "2.16.1+nv24.08")
    assert orin.install is not None
    assert "/jp/v61 " in orin.install
    xavier = facts.way_out(Version("7.2"))
    assert xavier is not None
    assert xavier.wheel is not None
    assert (xavier.jetpack.jetpack, xavier.wheel.python) == ("5.1", Version("3.8"))
    assert [j.jetpack for j in facts.for_module(Version("8.7"), DriverVersion("540.4.0"))] == [
        "6.1",
        "6.0",
    ]
    thor = facts.way_out(Version("11.0"), DriverVersion("580.00"))
    assert thor is not None
    assert thor.wheel is None
    assert facts.way_out(Version("8.6")) is None
    for jp in facts.jetpacks:
        assert jp.provenance.sources
        assert jp.provenance.retrieved
        assert all(w.status in ("established", "inferred") for w in jp.tensorflow)
