"""Findings of a new-user trial (R4-R8), each with a case taken from the frozen knowledge
base: releases, GPUs and drivers are found in the data, never typed here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

import pytest
from packaging.version import Version

from tfenv.api import resolve
from tfenv.host.profile import GpuInfo, HostProfile
from tfenv.i18n import using
from tfenv.kb import KnowledgeBase
from tfenv.models.driver import DriverVersion
from tfenv.models.plan import Resolution
from tfenv.rules.gpu_code import code_for


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.from_environment()


# -- R8: the driver-below-toolkit warning and the plan's PTX JIT reason, from one fact -----


def _jit_case(kb: KnowledgeBase) -> Optional[tuple[Version, Version, DriverVersion]]:
    """A Linux release, a compute capability and a driver where the GPU JIT-compiles some of
    the release's PTX, the driver JIT-compiles that ISA, and the driver is still below the
    build's CUDA's own minimum (the case the warning said needed a newer driver for JIT)."""
    for release in reversed(kb.index.releases("tensorflow")):
        v = release.version
        build = kb.builds.for_version(v)
        if v.is_prerelease or release.yanked or build is None or build.compute is None:
            continue
        if build.linux is None or build.linux.cuda is None:
            continue
        toolkit = kb.cuda.toolkit(build.linux.cuda)
        own = toolkit.min_driver("linux") if toolkit else None
        floor, _rule = kb.cuda.driver_floor(build.linux.cuda, "linux")
        if own is None or floor is None:
            continue
        ccs = {p for _kind, code in build.compute.kinds for p in code.ptx}
        for cc in sorted(ccs):
            code = code_for(build, cc)
            if code is None or not code.loads or code.jit_isa is None:
                continue
            jit, _why = kb.cuda.jit_floor(code.jit_isa, "linux")
            if jit is not None and max(jit, floor) < own:
                return v, cc, max(jit, floor)
    return None


def test_driver_below_toolkit_agrees_with_the_jit_reason(kb: KnowledgeBase) -> None:
    case = _jit_case(kb)
    assert case is not None, "the data has no release whose PTX JITs below its CUDA's minimum"
    release, cc, driver = case
    res = resolve(f"=={release}", os="linux", arch="x86_64", cc=str(cc), driver=str(driver))
    assert res.plan is not None
    below = [w for w in res.plan.warnings if w.code == "driver-below-toolkit"]
    assert len(below) == 1
    text = str(below[0])
    # the plan runs on this driver, JIT included: the warning must not say JIT needs more
    assert "PTX JIT and a newer ptxas" not in text
    assert "this driver JIT-compiles it" in text
    assert below[0].params["jit"] == str(driver) or DriverVersion(below[0].params["jit"]) <= driver
    # and the reasons do not raise the floor for JIT above this driver either
    assert all(
        r.code != "driver-jit" or DriverVersion(r.params["floor"]) <= driver
        for r in res.plan.reasons
    )


def test_driver_below_toolkit_on_native_code_names_no_jit(kb: KnowledgeBase) -> None:
    """A GPU the release has SASS for runs no PTX: the warning says so (XLA only)."""
    case = _jit_case(kb)
    assert case is not None
    release, _cc, driver = case
    build = kb.builds.for_version(release)
    assert build is not None
    assert build.compute is not None
    native = next(
        s
        for s in sorted(build.compute.hand_written.sass, reverse=True)
        if (c := code_for(build, s)) is not None and c.verdict == "native"
    )
    res = resolve(f"=={release}", os="linux", arch="x86_64", cc=str(native), driver=str(driver))
    assert res.plan is not None
    below = [str(w) for w in res.plan.warnings if w.code == "driver-below-toolkit"]
    assert len(below) == 1
    assert "no PTX JIT" in below[0]
    assert "PTX JIT and a newer ptxas" not in below[0]


def test_check_upgrade_says_what_the_plan_says(
    kb: KnowledgeBase, capsys: pytest.CaptureFixture[str]
) -> None:
    """check-upgrade's driver finding is the plan's own sentence, and where that sentence
    says the driver runs the plan, the fix is for XLA's compile speed, not for loading."""
    import json

    from tfenv.cli import main

    case = _jit_case(kb)
    assert case is not None
    release, cc, driver = case
    oldest = next(r.version for r in kb.index.releases("tensorflow") if not r.version.is_prerelease)
    argv = ["check-upgrade", "--from", str(oldest), "--to", str(release), "--os", "linux"]
    argv += ["--arch", "x86_64", "--cc", str(cc), "--driver", str(driver), "--json"]
    capsys.readouterr()
    main(argv)
    target = json.loads(capsys.readouterr().out)["targets"][0]
    found = [f for f in target["findings"] + target["standing"] if f["kind"] == "driver"]
    assert [f["summary"] for f in found] == [
        w for w in target["new_plan"]["warnings"] if "own minimum" in w
    ]
    assert "PTX JIT and XLA's ptxas need" not in found[0]["summary"]
    assert "parallel compilation" in found[0]["fix"]
    assert "fail to load" not in found[0]["fix"]


# -- R7: the ways out that keep the GPU come before those that give it up ---------------------


def _keeps_gpu_first(messages: list[str]) -> bool:
    from tfenv.models.messages import GIVES_UP_GPU

    gives = [m in GIVES_UP_GPU for m in messages]
    return gives == sorted(gives)


def test_a_jetson_is_offered_the_jetpack_wheel_before_a_cpu_plan(kb: KnowledgeBase) -> None:
    jp = next(j for j in kb.jetson.jetpacks if j.compute_capabilities)
    cc = max(jp.compute_capabilities)
    res = resolve(os="linux", arch="aarch64", cc=str(cc))
    assert res.plan is None
    messages = [s.message for s in res.suggestions]
    assert "way-out.cpu" in messages
    assert "way-out.said" in messages
    assert messages.index("way-out.said") < messages.index("way-out.cpu")
    assert _keeps_gpu_first(messages)


def test_ways_out_keep_the_gpu_first_on_every_kind_of_machine(kb: KnowledgeBase) -> None:
    """Machines of each system with a GPU and an old driver or a release with no GPU build
    there: whatever ways out they get, the CPU-only ones come last."""
    newest = max(
        v for v in (o.version for o in kb.index.releases("tensorflow")) if not v.is_prerelease
    )
    seen = 0
    for os_, arch in (("windows", "x86_64"), ("wsl2", "x86_64"), ("linux", "x86_64")):
        for cc in ("3.5", "8.6"):
            res = resolve(f"=={newest}", os=os_, arch=arch, cc=cc, driver="418.39")
            if res.plan is not None:
                continue
            messages = [s.message for s in res.suggestions]
            seen += "way-out.cpu" in messages and len(messages) > 1
            assert _keeps_gpu_first(messages), (os_, cc, messages)
    assert seen


# -- R5: sentences name operating systems by their display names, in both languages -------

#: an OS name as tfenv keys it, standing alone in a sentence (not a flag's value, a path,
#: a URL or a platform key such as linux_x86_64)
_LOWER_OS = re.compile(r"(?<![-/\w.=])(linux|wsl2|windows|macos)(?![\w/.-])")


def _sentences(res: Resolution) -> list[str]:
    out = [*res.target.notes, *res.conflict_sentences, *res.suggestion_sentences]
    if res.plan is not None:
        out += [*res.plan.reasons, *res.plan.warnings]
    return [str(s) for s in out]


def _lowercase_os(text: str) -> list[str]:
    return [m.group(0) for m in _LOWER_OS.finditer(text.replace("--os ", "--os="))]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sentences_name_operating_systems_by_their_display_names(
    kb: KnowledgeBase, lang: str
) -> None:
    newest = max(o.version for o in kb.index.releases("tensorflow") if not o.version.is_prerelease)
    windows_gpu = max(
        (b.series for b in kb.builds.all if b.windows is not None and b.windows.cuda),
    )
    cases: list[tuple[Optional[str], dict[str, Any]]] = [
        (None, {"os": "linux", "arch": "x86_64", "cc": "8.6", "driver": "535.104.05"}),
        (None, {"os": "wsl2", "arch": "x86_64", "cc": "9.0", "driver": "535.104.05"}),
        (
            f"~={windows_gpu}.0",
            {"os": "windows", "arch": "x86_64", "cc": "8.6", "driver": "537.13"},
        ),
        (f"=={newest}", {"os": "windows", "arch": "x86_64", "cc": "8.6", "driver": "537.13"}),
        (None, {"os": "macos", "arch": "x86_64"}),
        (None, {"os": "wsl2", "arch": "x86_64", "cc": "8.6", "driver": "418.39"}),
    ]
    seen = 0
    with using(lang):
        for tf, machine in cases:
            res = resolve(tf, **machine)
            for text in _sentences(res):
                seen += 1
                assert not _lowercase_os(text), (machine, text)
    assert seen > 20


def test_os_display_names_come_from_one_place() -> None:
    from tfenv.models.platform import OS_TITLES, SYSTEMS, os_title

    assert {s.name for s in SYSTEMS} == set(OS_TITLES)
    for s in SYSTEMS:
        assert os_title(s.name) in s.title  # "native Windows" names Windows too


# -- R6: on a host with several GPUs the plan says which one it is for, and why -----------


def _two_gpu_host(kb: KnowledgeBase, tmp_path: Path) -> tuple[Path, tuple[GpuInfo, GpuInfo]]:
    """A host file with two GPUs of different compute capabilities that the newest release
    runs on, the higher one first (the plan must not silently take index 0)."""
    newest = max(o.version for o in kb.index.releases("tensorflow") if not o.version.is_prerelease)
    build = kb.builds.for_version(newest)
    assert build is not None
    assert build.compute is not None
    sass = sorted(build.compute.hand_written.sass)
    low, high = sass[-2], sass[-1]
    names = []
    for cc in (high, low):
        model = next(m for m in kb.gpus.by_compute_capability(cc) if not m.is_jetson)
        names.append(model.name)
    gpus = (GpuInfo(0, names[0], high, "nvml"), GpuInfo(1, names[1], low, "nvml"))
    profile = HostProfile(
        os="linux",
        arch="x86_64",
        python=Version("3.11"),
        driver="580.65.06",
        driver_cuda=Version("13.0"),
        gpus=gpus,
    )
    host = tmp_path / "two-gpus.json"
    host.write_text(profile.to_json())
    return host, gpus


def test_several_gpus_the_plan_names_the_gpu_and_the_flag(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    host, (first, second) = _two_gpu_host(kb, tmp_path)
    res = resolve(host=host)
    assert res.target.cc == second.compute_capability
    notes = [n for n in res.target.notes if "--gpu-index" in n]
    assert len(notes) == 1
    assert f"GPU 1, {second.name}" in notes[0]
    assert "lowest compute capability" in notes[0]
    assert first.name in notes[0]
    # asked for the other one: the note says so, and that the plan may not fit the rest
    res = resolve(host=host, gpu_index=0)
    assert res.target.cc == first.compute_capability
    notes = [n for n in res.target.notes if "--gpu-index 0" in n]
    assert len(notes) == 1
    assert f"GPU 0, {first.name}" in notes[0]
    # a GPU given by flag replaces the host's: no note about the host's GPUs
    res = resolve(host=host, gpu=first.name)
    assert not [n for n in res.target.notes if "--gpu-index" in n]


def test_one_gpu_gets_no_choice_note(gpu_host_file: Path) -> None:
    res = resolve(host=gpu_host_file)
    assert not [n for n in res.target.notes if "--gpu-index" in n]


# -- R4: an Intel Mac with an AMD GPU gets Apple's Metal plug-in while it had x86_64 wheels ----

INTEL = "macos_x86_64"
AMD_GPU = "AMD Radeon Pro 5500M"  # a name as macOS's System Information shows it


def _intel_pairs(kb: KnowledgeBase) -> list[tuple[Any, Any]]:
    """Apple's established pairings whose plug-in has a macOS x86_64 wheel on the index, with
    that wheel set (the index's facts: the wheels' platform and cpXY tags)."""
    out = []
    for pair in kb.metal.pairs:
        if pair.status != "established":
            continue
        release = kb.index.release("tensorflow-metal", pair.metal)
        wheels = release.wheelset(INTEL) if release is not None else None
        if wheels is not None:
            out.append((pair, wheels))
    return out


def test_apple_names_amd_gpus_with_its_source(kb: KnowledgeBase) -> None:
    gpus = kb.metal.gpus
    assert gpus is not None
    assert "amd" in gpus.vendors
    assert "intel" not in gpus.vendors
    assert gpus.provenance.sources[0].startswith(
        "https://developer.apple.com/metal/tensorflow-plugin"
    )
    assert gpus.provenance.retrieved


def test_an_intel_mac_with_an_amd_gpu_gets_the_paired_x86_64_plug_in(kb: KnowledgeBase) -> None:
    pairs = _intel_pairs(kb)
    assert pairs, "the index records no macOS x86_64 tensorflow-metal wheel"
    for pair, wheels in pairs:
        series = next(iter(pair.tensorflow)).version.rstrip(".*")
        res = resolve(f"=={series}.*", os="macos", arch="x86_64", gpu=AMD_GPU)
        plan = res.plan
        assert plan is not None, (pair.metal, res.conflict_sentences)
        assert plan.accelerator == "metal"
        assert f"tensorflow-metal=={pair.metal}" in plan.pip
        assert f"{pair.package}=={plan.tensorflow}" in plan.pip
        assert plan.python is not None
        assert Version(plan.python) in {Version(p) for p in wheels.pythons}
        codes = {r.code: r for r in plan.reasons}
        assert codes["metal-gpu"].params["gpu"] == AMD_GPU
        assert codes["metal-macos"].params["macos"] == str(wheels.macos)
        assert any(w.code == "metal-intel" for w in plan.warnings)


def test_no_x86_64_plug_in_means_a_cpu_plan_that_says_why(kb: KnowledgeBase) -> None:
    have = {p.metal for p, _w in _intel_pairs(kb)}
    newest_intel = max(have)
    later = [p for p in kb.metal.pairs if p.metal > newest_intel and p.status == "established"]
    assert later
    series = next(iter(later[0].tensorflow)).version.rstrip(".*")
    res = resolve(f"=={series}.*", os="macos", arch="x86_64", gpu=AMD_GPU)
    assert res.plan is not None
    assert res.plan.accelerator == "cpu"
    unused = [w for w in res.plan.warnings if w.code == "apple-gpu-unused"]
    assert len(unused) == 1
    assert "AMD GPU" in unused[0]
    assert "macOS x86_64" in unused[0]


def test_the_default_plan_of_an_amd_intel_mac_is_the_newest_x86_64_pairing(
    kb: KnowledgeBase,
) -> None:
    from tfenv.kb.metal import newest_paired

    newest = newest_paired(kb, INTEL)
    assert newest is not None
    res = resolve(os="macos", arch="x86_64", gpu=AMD_GPU)
    assert res.plan is not None
    assert res.plan.accelerator == "metal"
    assert res.plan.tensorflow == str(newest[0])


def test_intel_graphics_get_no_metal_plan(kb: KnowledgeBase) -> None:
    for pair, _wheels in _intel_pairs(kb):
        series = next(iter(pair.tensorflow)).version.rstrip(".*")
        res = resolve(f"=={series}.*", os="macos", arch="x86_64", gpu="Intel Iris Plus Graphics")
        assert res.plan is not None
        assert res.plan.accelerator == "cpu"
        assert not any("tensorflow-metal" in p for p in res.plan.pip)
        unused = [str(w) for w in res.plan.warnings if w.code == "apple-gpu-unused"]
        assert len(unused) == 1
        assert "Intel Iris Plus Graphics" in unused[0]


def test_an_intel_mac_without_a_gpu_given_is_told_how_to_give_it() -> None:
    res = resolve(os="macos", arch="x86_64")
    assert res.plan is not None
    assert res.plan.accelerator == "cpu"
    assert any("--gpu" in n and "AMD" in n for n in res.target.notes)
    # Apple silicon needs no such note: its GPU is Apple's
    res = resolve(os="macos", arch="arm64")
    assert not any("--gpu" in n for n in res.target.notes)


def test_a_mac_gpu_name_is_no_gpu_elsewhere() -> None:
    from tfenv.errors import UsageError

    with pytest.raises(UsageError):
        resolve(os="linux", arch="x86_64", gpu=AMD_GPU)
