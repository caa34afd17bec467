"""Validate the shipped, generated ``data/index/*.json`` files (made by ``tfenv refresh``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import tfenv.data
from tfenv.kb import index
from tfenv.kb.index import IndexFacts

INDEX_DIR = Path(tfenv.data.__file__).parent / "index"

# tensorflow 2.15.0 (and its rcs, and the sibling packages' 2.15.0 builds) pinned
# TensorRT packages that have no wheel on the index: tensorrt 8.6.1.post1 is an
# sdist only, and tensorrt-libs has no 8.6.1 at all. That made
# `tensorflow[and-cuda]==2.15.0` uninstallable, which 2.15.0.post1 fixed.
UNINSTALLABLE_PINS = {"tensorrt==8.6.1.post1", "tensorrt-libs==8.6.1"}


@pytest.fixture(scope="module")
def facts() -> IndexFacts:
    return index.load()


def test_files_carry_provenance_and_no_host() -> None:
    paths = sorted(INDEX_DIR.glob("*.json"))
    assert {p.stem for p in paths} == {*index.INDEX_PACKAGES, index.CUDA_WHEELS}
    for path in paths:
        text = path.read_text("utf-8")
        doc = json.loads(text)
        assert doc["generated_by"] == "tfenv refresh"
        sources = doc["source"] if isinstance(doc["source"], list) else [doc["source"]]
        assert all(s.startswith("simple:/") and s.endswith("/") for s in sources)
        assert "://" not in text
        assert text.endswith("}\n")


def test_versions_ascending(facts: IndexFacts) -> None:
    for pkg in index.INDEX_PACKAGES:
        versions = [r.version for r in facts.releases(pkg)]
        assert versions == sorted(versions)
        assert versions, pkg


def test_every_tensorflow_2x_release_present(facts: IndexFacts) -> None:
    have = {r.version for r in facts.releases("tensorflow")}
    stable = sorted(v for v in have if not v.is_prerelease)
    assert stable[0] == Version("2.0.0")
    for minor in range(22):
        assert any(v.release[:2] == (2, minor) for v in stable), minor
    assert Version("2.21.0") in have
    assert Version("2.16.0") not in have  # 2.16 was released as 2.16.1
    assert Version("2.16.1") in have


def test_and_cuda_pins_are_satisfiable(facts: IndexFacts) -> None:
    unsatisfied: set[tuple[str, str]] = set()
    for pkg in index.INDEX_PACKAGES:
        for release in facts.releases(pkg):
            for wheels in release.wheels.values():
                for ws in (wheels, *wheels.variants.values()):
                    for line in ws.and_cuda or ():
                        req = Requirement(line)
                        assert req.name in facts.cuda.versions, f"{line} not in cuda-wheels.json"
                        if not any(
                            cw.platforms and req.specifier.contains(cw.version, prereleases=True)
                            for cw in facts.cuda_versions(req.name)
                        ):
                            unsatisfied.add((str(release.version), line))
    assert {line for _v, line in unsatisfied} == UNINSTALLABLE_PINS
    assert {Version(v).base_version for v, _line in unsatisfied} == {"2.15.0"}
    assert not any(v in ("2.15.0.post1", "2.15.1") for v, _ in unsatisfied)


def test_tensorrt_8_6_1_has_no_wheel(facts: IndexFacts) -> None:
    assert facts.cuda_wheel_platforms("tensorrt", "8.6.1.post1") == frozenset()
    assert facts.cuda_wheel_platforms("tensorrt-libs", "8.6.1") is None


def test_2_15_0_post1_is_linux_x86_64_only(facts: IndexFacts) -> None:
    post1 = facts.release("tensorflow", "2.15.0.post1")
    assert post1 is not None
    assert post1.platforms == {"linux_x86_64"}
    ac = post1.wheels["linux_x86_64"].and_cuda
    assert ac is not None
    assert not any(a.startswith("tensorrt") for a in ac)


def test_windows_stubs_for_tensorflow_intel(facts: IndexFacts) -> None:
    stubs = 0
    for release in facts.releases("tensorflow"):
        v = release.version
        win = release.wheels.get("windows_x86_64")
        if release.prerelease or win is None:
            continue
        expect_stub = Version("2.11") <= v <= Version("2.18.0")
        assert (win.stub_for == "tensorflow-intel") == expect_stub, v
        if expect_stub:
            assert win.size < 1_000_000
            stubs += 1
    assert stubs >= 8  # 2.11 to 2.18: the loop saw the stubs it is about


def test_glibc_floors(facts: IndexFacts) -> None:
    r221 = facts.release("tensorflow", "2.21.0")
    r220 = facts.release("tensorflow", "2.20.0")
    r28 = facts.release("tensorflow", "2.8.0")
    assert r221 is not None
    assert r220 is not None
    assert r28 is not None
    assert r221.wheels["linux_x86_64"].glibc == Version("2.27")
    assert r221.wheels["linux_aarch64"].glibc == Version("2.27")
    assert r220.wheels["linux_x86_64"].glibc == Version("2.17")
    assert r28.wheels["linux_x86_64"].glibc == Version("2.12")


def test_and_cuda_cudnn_pins(facts: IndexFacts) -> None:
    r214 = facts.release("tensorflow", "2.14.0")
    r2151 = facts.release("tensorflow", "2.15.1")
    r213 = facts.release("tensorflow", "2.13.0")
    assert r214 is not None
    assert r2151 is not None
    assert r213 is not None
    assert "nvidia-cudnn-cu11==8.7.0.84" in (r214.wheels["linux_x86_64"].and_cuda or ())
    assert "nvidia-cudnn-cu12==8.9.4.25" in (r2151.wheels["linux_x86_64"].and_cuda or ())
    assert r213.wheels["linux_x86_64"].and_cuda is None


def test_tensorflow_2_0_python(facts: IndexFacts) -> None:
    r200 = facts.release("tensorflow", "2.0.0")
    assert r200 is not None
    assert r200.wheelset("linux_x86_64", "3.7") is not None
    assert r200.wheelset("linux_x86_64", "3.8") is None
