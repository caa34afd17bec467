"""The curated NVIDIA knowledge base: GPUs, CUDA toolkits and drivers, cuDNN series."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from packaging.version import Version

from tests.snapshot import frozen_kb
from tfenv.errors import KBValidationError, UsageError
from tfenv.kb import KnowledgeBase, cuda, cudnn, gpus
from tfenv.kb._fields import Provenance

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATA = Path(gpus.__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="module")
def catalog() -> gpus.GpuCatalog:
    return gpus.load()


@pytest.fixture(scope="module")
def cuda_facts() -> cuda.CudaFacts:
    return cuda.load()


@pytest.fixture(scope="module")
def cudnn_facts() -> cudnn.CudnnFacts:
    return cudnn.load()


def _check_provenance(p: Provenance) -> None:
    assert p.sources
    assert all(s.strip() for s in p.sources)
    assert _DATE.match(p.retrieved)


# -- every shipped file ---------------------------------------------------------------


def test_shipped_files_have_no_registry_host_names() -> None:
    banned = ("pypi" + ".org", "python" + "hosted")
    paths = sorted((_DATA / "nvidia").glob("*.yaml"))
    assert {p.name for p in paths} >= {"cuda.yaml", "cudnn.yaml", "gpus.yaml", "jetson.yaml"}
    for path in paths:
        text = path.read_text("utf-8")
        assert not any(b in text for b in banned), path.name


def test_loading_from_an_explicit_root_matches_the_packaged_data() -> None:
    assert len(gpus.load(_DATA)) == len(gpus.load())
    assert len(cuda.load(_DATA).toolkits) == len(cuda.load().toolkits)
    assert len(cudnn.load(_DATA).all_series) == len(cudnn.load().all_series)


# -- GPUs -----------------------------------------------------------------------------


def test_gpu_catalog_is_large_and_sourced(catalog: gpus.GpuCatalog) -> None:
    assert len(catalog.models) >= 150
    for model in catalog.models:
        _check_provenance(model.provenance)
        assert model.name.strip() == model.name
        assert len(model.compute_capability.release) == 2
    for amb in catalog.ambiguous:
        _check_provenance(amb.provenance)


def test_gpu_names_are_unique(catalog: gpus.GpuCatalog) -> None:
    names = [m.name for m in catalog.models]
    assert len(names) == len(set(names))
    by_key: dict[str, set[Version]] = {}
    for m in catalog.models:
        by_key.setdefault(gpus.normalize_name(m.name), set()).add(m.compute_capability)
    # names that differ only in case (desktop "SUPER", laptop "Super") share a compute capability
    assert all(len(ccs) == 1 for ccs in by_key.values())


def test_gpu_catalog_spans_kepler_to_blackwell(catalog: gpus.GpuCatalog) -> None:
    archs = {m.architecture for m in catalog.models}
    for arch in ("Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ampere", "Hopper"):
        assert arch in archs
    assert any(a.startswith("Blackwell") for a in archs)
    assert any(a.startswith("Ada") for a in archs)
    segments = {m.segment for m in catalog.models}
    assert {"datacenter", "geforce-desktop", "geforce-laptop", "workstation", "jetson"} <= segments


def test_every_unresolved_alias_is_declared(catalog: gpus.GpuCatalog) -> None:
    declared = {gpus.normalize_name(a.alias) for a in catalog.ambiguous}
    ambiguous = [a for m in catalog.models for a in m.aliases if catalog.is_ambiguous(a)]
    assert ambiguous, "no alias is ambiguous: the check below checks nothing"
    for alias in ambiguous:
        assert gpus.normalize_name(alias) in declared, alias


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("RTX 3060", "8.6"),
        ("3060", "8.6"),
        ("GeForce RTX 3060", "8.6"),
        ("NVIDIA GeForce RTX 3060", "8.6"),
        ("  nvidia   geforce rtx 3060 ", "8.6"),
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("A100 80 GB", "8.0"),
        ("a100-80gb", "8.0"),
        ("A100", "8.0"),
        ("H100", "9.0"),
        ("RTX 5090", "12.0"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("V100", "7.0"),
        ("T4", "7.5"),
        ("GTX 1060", "6.1"),
        ("GTX 1060 6GB", "6.1"),
        ("GTX TITAN X", "5.2"),
        ("TITAN X (Pascal)", "6.1"),
        ("RTX 3050 A Laptop GPU", "8.9"),
        ("RTX 2050", "8.6"),
        ("MX450", "7.5"),
        ("RTX 6000 Ada", "8.9"),
        ("Quadro RTX 6000", "7.5"),
    ],
)
def test_gpu_lookup(catalog: gpus.GpuCatalog, name: str, cc: str) -> None:
    model = catalog.lookup(name)
    assert model.compute_capability == Version(cc)
    assert catalog.find(name) == model


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("GTX1060", "NVIDIA GeForce GTX 1060"),
        ("gtx1060", "NVIDIA GeForce GTX 1060"),
        ("GeForceGTX1060", "NVIDIA GeForce GTX 1060"),
        ("gtx1060 6gb", "NVIDIA GeForce GTX 1060 6GB"),
        ("3070ti", "NVIDIA GeForce RTX 3070 Ti"),  # not the 3070
        ("3070Ti", "NVIDIA GeForce RTX 3070 Ti"),
        ("RTX3070Ti", "NVIDIA GeForce RTX 3070 Ti"),
        ("rtx3070ti", "NVIDIA GeForce RTX 3070 Ti"),
        ("RTX 3070Ti", "NVIDIA GeForce RTX 3070 Ti"),
        ("RTX3070", "NVIDIA GeForce RTX 3070"),
        ("RTX 3070 Ti Laptop", "NVIDIA GeForce RTX 3070 Ti Laptop GPU"),  # stays the laptop part
        ("RTX3070Ti Laptop", "NVIDIA GeForce RTX 3070 Ti Laptop GPU"),
        ("rtx 3070ti laptop gpu", "NVIDIA GeForce RTX 3070 Ti Laptop GPU"),
        ("NVIDIA GeForce GTX 1060 with Max-Q Design", "NVIDIA GeForce GTX 1060"),
        ("GTX 1060 Max-Q", "NVIDIA GeForce GTX 1060"),
        ("gtx1060 with max-q design", "NVIDIA GeForce GTX 1060"),
        # a Max-Q part the catalog names is that part, not its full-power sibling
        ("NVIDIA GeForce GTX 1650 with Max-Q Design", "NVIDIA GeForce GTX 1650 with Max-Q Design"),
        ("RTX2080 with Max-Q Design", "NVIDIA GeForce RTX 2080 with Max-Q Design"),
        ("a10080gb", "NVIDIA A100-SXM4-80GB"),
    ],
)
def test_gpu_names_as_typed_and_as_nvidia_prints_them(
    catalog: gpus.GpuCatalog, name: str, model: str
) -> None:
    """No spaces, any case, a glued Ti and NVIDIA's "with Max-Q Design" suffix name the
    same GPU; a Max-Q part has its full-power sibling's compute capability."""
    found = catalog.lookup(name)
    want = catalog.lookup(model)
    assert found.compute_capability == want.compute_capability
    assert found.name == want.name or normalize_cc_family(found, want)


def normalize_cc_family(found: gpus.GpuModel, want: gpus.GpuModel) -> bool:
    """Several models share a short name (the A100 variants): the same compute capability
    and a name of the same product is a match."""
    return found.compute_capability == want.compute_capability and want.name.startswith(
        found.name.split("-")[0]
    )


@pytest.mark.parametrize(
    "name",
    [
        "GTX 9999",
        "RTX3070TiX",  # no part of a name is matched on its own
        "3070tii",
        "RTX 30",
        "GTX106",
        "with Max-Q Design",
        "Max-Q",
        "banana",
        "RTX 3070 Ti Desktop",
    ],
)
def test_names_that_stay_unknown(catalog: gpus.GpuCatalog, name: str) -> None:
    assert catalog.find(name) is None
    with pytest.raises(UsageError, match="Unknown GPU"):
        catalog.lookup(name)


def test_spaces_left_out_keep_ambiguity(catalog: gpus.GpuCatalog) -> None:
    """A name of cards of different compute capability stays ambiguous written together."""
    for name in ("TITANX", "titan x", "RTX6000"):
        with pytest.raises(UsageError, match="ambiguous"):
            catalog.lookup(name)


def test_exact_name_beats_alias(catalog: gpus.GpuCatalog) -> None:
    model = catalog.find("NVIDIA H200")
    assert model is not None
    assert model.name == "NVIDIA H200"


def test_titan_x_is_ambiguous(catalog: gpus.GpuCatalog) -> None:
    assert catalog.find("TITAN X") is None
    assert catalog.is_ambiguous("NVIDIA TITAN X")
    with pytest.raises(UsageError) as info:
        catalog.lookup("TITAN X")
    message = str(info.value)
    assert "NVIDIA GeForce GTX TITAN X" in message
    assert "NVIDIA TITAN X (Pascal)" in message
    assert "5.2" in message
    assert "6.1" in message
    assert "--cc" in message


@pytest.mark.parametrize("name", ["RTX 6000", "RTX 5000", "RTX 4000"])
def test_quadro_and_ada_workstation_names_are_ambiguous(
    catalog: gpus.GpuCatalog, name: str
) -> None:
    with pytest.raises(UsageError, match="ambiguous"):
        catalog.lookup(name)


def test_unknown_gpu_suggests_names(catalog: gpus.GpuCatalog) -> None:
    assert catalog.find("banana") is None
    with pytest.raises(UsageError) as info:
        catalog.lookup("banana")
    assert "Did you mean" in str(info.value)
    assert catalog.suggest("banana")
    close = catalog.suggest("RTX 3066")
    assert 1 <= len(close) <= 3
    assert any("3060" in s for s in close)


def test_by_compute_capability(catalog: gpus.GpuCatalog) -> None:
    names = {m.name for m in catalog.by_compute_capability("8.6")}
    assert "NVIDIA GeForce RTX 3060" in names
    assert all(m.compute_capability == Version("8.6") for m in catalog.by_compute_capability("8.6"))
    assert catalog.by_compute_capability(Version("1.0")) == ()


# -- CUDA -------------------------------------------------------------------------------


def test_cuda_records_are_sourced(cuda_facts: cuda.CudaFacts) -> None:
    for t in cuda_facts.toolkits:
        _check_provenance(t.provenance)
    for f in cuda_facts.families:
        _check_provenance(f.provenance)
        assert f.caveats.strip()
    for b in cuda_facts.driver_branches:
        _check_provenance(b.provenance)


def test_cuda_toolkits_cover_10_to_13(cuda_facts: cuda.CudaFacts) -> None:
    versions = [t.version for t in cuda_facts.toolkits]
    assert versions == sorted(versions)
    assert len(versions) == len(set(versions))
    for v in ("10.0", "10.1", "10.2", "11.0", "11.8", "12.0", "12.6", "12.8", "12.9", "13.0"):
        assert Version(v) in versions
    assert cuda_facts.toolkit("12.7") is None  # never released
    tk = cuda_facts.toolkit("12.2.140")
    assert tk is not None
    assert tk.version == Version("12.2")
    assert {f.major for f in cuda_facts.families} == {10, 11, 12, 13}


def test_cuda_compute_capability_ranges(cuda_facts: cuda.CudaFacts) -> None:
    previous: cuda.CudaToolkit | None = None
    for tk in cuda_facts.toolkits:
        if tk.cc_min is not None and tk.cc_max is not None:
            assert tk.cc_min <= tk.cc_max
        if previous is not None:
            for a, b in ((previous.cc_min, tk.cc_min), (previous.cc_max, tk.cc_max)):
                if a is not None and b is not None:
                    assert a <= b, tk.version
        previous = tk

    def cc(version: str) -> tuple[Version | None, Version | None]:
        tk = cuda_facts.toolkit(version)
        assert tk is not None
        return tk.cc_min, tk.cc_max

    assert cc("11.8") == (Version("3.5"), Version("9.0"))
    assert cc("12.0")[0] == Version("5.0")  # Kepler dropped
    assert cc("12.8")[1] == Version("12.0")  # Blackwell added
    assert cc("13.0")[0] == Version("7.5")  # Maxwell..Volta dropped


def test_family_floor_is_at_most_toolkit_minimums(cuda_facts: cuda.CudaFacts) -> None:
    os_names: tuple[cuda.OsName, ...] = ("linux", "windows")
    compared = 0
    for tk in cuda_facts.toolkits:
        fam = cuda_facts.family(tk.version.release[0])
        assert fam is not None
        if tk.version.release[1] == 0:
            continue  # x.0 releases shipped before the family floor was set
        for os in os_names:
            floor, own = fam.min_driver(os), tk.min_driver(os)
            if floor is not None and own is not None:
                assert floor <= own, (tk.version, os)
                compared += 1
    assert compared >= 10, compared


def test_toolkit_minimums_rise_with_the_toolkit(cuda_facts: cuda.CudaFacts) -> None:
    os_names: tuple[cuda.OsName, ...] = ("linux", "windows")
    for os in os_names:
        known = [d for d in (t.min_driver(os) for t in cuda_facts.toolkits) if d is not None]
        assert len(known) >= 10, os
        assert known == sorted(known), os


def test_driver_branches_ascend(cuda_facts: cuda.CudaFacts) -> None:
    branches = cuda_facts.driver_branches
    assert [b.branch for b in branches] == sorted({b.branch for b in branches})
    known = [b.max_cuda for b in branches if b.max_cuda is not None]
    assert len(known) >= 10
    assert known == sorted(known)


@pytest.mark.parametrize(
    ("cuda_version", "os", "driver", "rule"),
    [
        ("12.2", "linux", "525.60.13", "minor-version compatibility"),
        ("12.9", "windows", "528.33", "minor-version compatibility"),
        ("11.8", "linux", "450.80.02", "minor-version compatibility"),
        ("10.1", "linux", "418.39", "its own toolkit driver"),
        ("10.0", "windows", "411.31", "its own toolkit driver"),
        ("11.0", "linux", "450.51.05", "below the family floor"),
        ("13.2", "linux", "580.65.06", "minor-version compatibility"),
    ],
)
def test_driver_floor(
    cuda_facts: cuda.CudaFacts, cuda_version: str, os: cuda.OsName, driver: str, rule: str
) -> None:
    floor, why = cuda_facts.driver_floor(cuda_version, os)
    assert floor == Version(driver)
    assert rule in why
    assert str(floor) == driver  # printed as NVIDIA writes it


def test_driver_floor_unknowns(cuda_facts: cuda.CudaFacts) -> None:
    assert cuda_facts.driver_floor("13.2", "windows") == (
        None,
        "the minimum Windows driver for CUDA 13.2 is not established",
    )
    floor, why = cuda_facts.driver_floor("9.0", "linux")
    assert floor is None
    assert "not a known" in why


@pytest.mark.parametrize(
    ("driver", "max_cuda"),
    [
        ("535.104.05", "12.2"),
        ("536.25", "12.2"),  # Windows driver of branch R535
        ("470.82.01", "11.4"),
        ("565.57.01", "12.7"),
        ("580.95.05", "13.0"),
        ("410.48", "10.0"),
    ],
)
def test_max_cuda_for_driver(cuda_facts: cuda.CudaFacts, driver: str, max_cuda: str) -> None:
    assert cuda_facts.max_cuda_for_driver(Version(driver)) == Version(max_cuda)


def test_max_cuda_below_known_branches(cuda_facts: cuda.CudaFacts) -> None:
    assert cuda_facts.max_cuda_for_driver("396.26") is None


# -- cuDNN ------------------------------------------------------------------------------


def test_cudnn_series(cudnn_facts: cudnn.CudnnFacts) -> None:
    for s in cudnn_facts.all_series:
        _check_provenance(s.provenance)
        assert s.cuda_majors
        assert set(s.min_cc) <= set(s.cuda_majors)
        assert set(s.cuda_versions) <= set(s.cuda_majors)
    for v in ("7.4", "7.6", "8.0", "8.1", "8.6", "8.7", "8.9", "9.0", "9.3", "9.10"):
        assert cudnn_facts.series(v) is not None, v
    s89 = cudnn_facts.series("8.9.4.25")
    assert s89 is not None
    assert s89.version == Version("8.9")
    assert s89.cuda_majors == (11, 12)
    assert s89.min_cc[12] == Version("5.0")
    assert s89.supports_cuda(Version("12.2")) is True
    assert s89.supports_cuda(Version("13.0")) is False
    s917 = cudnn_facts.series("9.17")
    assert s917 is not None
    assert s917.min_cc[13] == Version("7.5")
    assert cudnn_facts.series("9") is None
    assert cudnn_facts.series("7.5") is None


# -- broken files ---------------------------------------------------------------------


def _gpu_record(name: str, cc: str) -> dict[str, object]:
    return {
        "name": name,
        "compute_capability": cc,
        "architecture": "Ampere",
        "segment": "geforce-desktop",
        "aliases": [],
        "source": "https://developer.nvidia.com/cuda-gpus",
        "retrieved": "2026-11-30",
    }


def _write_gpus(tmp_path: Path, records: list[dict[str, object]], **extra: object) -> Path:
    target = tmp_path / "nvidia" / "gpus.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump({"gpus": records, **extra}), "utf-8")
    generated: dict[str, object] = {
        "generated_by": "tfenv refresh --gpus",
        "source": "NVIDIA/open-gpu-kernel-modules README.md @ test",
        "driver": None,
        "rules": "nvidia/gpu-families.yaml",
        "retrieved": "2026-12-01",
        "rows": 0,
        "gpus": [],
    }
    (tmp_path / "nvidia" / "gpus-readme.json").write_text(json.dumps(generated), "utf-8")
    return tmp_path


def _records() -> list[dict[str, object]]:
    return [_gpu_record(f"NVIDIA Test GPU {i}", "8.6") for i in range(5)]


def test_a_valid_hand_made_file_loads(tmp_path: Path) -> None:
    assert len(gpus.load(_write_gpus(tmp_path, _records()))) == 5


def test_broken_gpus_missing_source(tmp_path: Path) -> None:
    records = _records()
    del records[2]["source"]
    with pytest.raises(KBValidationError) as info:
        gpus.load(_write_gpus(tmp_path, records))
    assert info.value.file == "nvidia/gpus.yaml"
    assert info.value.path == "gpus[2].source"
    assert "nvidia/gpus.yaml" in str(info.value)
    assert "gpus[2].source" in str(info.value)


def test_broken_gpus_bad_version(tmp_path: Path) -> None:
    records = _records()
    records[3]["compute_capability"] = "eight point six"
    with pytest.raises(KBValidationError) as info:
        gpus.load(_write_gpus(tmp_path, records))
    assert info.value.path == "gpus[3].compute_capability"
    assert "nvidia/gpus.yaml: at gpus[3].compute_capability" in str(info.value)


def test_broken_gpus_unknown_key(tmp_path: Path) -> None:
    records = _records()
    records[1]["compute_capabilty"] = "8.6"
    with pytest.raises(KBValidationError, match="compute_capabilty"):
        gpus.load(_write_gpus(tmp_path, records))


def test_broken_gpus_duplicate_name(tmp_path: Path) -> None:
    records = _records()
    records[4]["name"] = "Test GPU 0"  # same as gpus[0] once "NVIDIA " is ignored
    with pytest.raises(KBValidationError) as info:
        gpus.load(_write_gpus(tmp_path, records))
    assert info.value.path == "gpus[4].name"


def test_undeclared_ambiguous_alias_is_rejected(tmp_path: Path) -> None:
    records = _records()
    records[0]["aliases"] = ["Test"]
    records[1]["aliases"] = ["Test"]
    records[1]["compute_capability"] = "7.5"
    with pytest.raises(KBValidationError) as info:
        gpus.load(_write_gpus(tmp_path, records))
    assert "declare it under 'ambiguous'" in str(info.value)
    declared = [
        {
            "alias": "Test",
            "candidates": ["NVIDIA Test GPU 0", "NVIDIA Test GPU 1"],
            "source": "https://developer.nvidia.com/cuda-gpus",
            "retrieved": "2026-11-30",
        }
    ]
    loaded = gpus.load(_write_gpus(tmp_path, records, ambiguous=declared))
    assert loaded.find("Test") is None
    assert loaded.is_ambiguous("test")


def test_broken_cuda_branch_order(tmp_path: Path) -> None:
    src = {"source": "https://docs.nvidia.com/", "retrieved": "2026-11-30"}
    data = {
        "toolkits": [],
        "families": [],
        "driver_branches": [
            {"branch": 535, "max_cuda": "12.2", **src},
            {"branch": 530, "max_cuda": "12.1", **src},
        ],
    }
    (tmp_path / "nvidia").mkdir()
    (tmp_path / "nvidia" / "cuda.yaml").write_text(yaml.safe_dump(data), "utf-8")
    with pytest.raises(KBValidationError) as info:
        cuda.load(tmp_path)
    assert info.value.file == "nvidia/cuda.yaml"
    assert info.value.path == "driver_branches[1].branch"


def test_broken_cudnn_minor_of_wrong_major(tmp_path: Path) -> None:
    data = {
        "series": [
            {
                "version": "8.9",
                "cuda": [{"major": 12, "versions": ["12.0", "11.8"], "min_cc": "5.0"}],
                "source": "https://docs.nvidia.com/",
                "retrieved": "2026-11-30",
            }
        ]
    }
    (tmp_path / "nvidia").mkdir()
    (tmp_path / "nvidia" / "cudnn.yaml").write_text(yaml.safe_dump(data), "utf-8")
    with pytest.raises(KBValidationError) as info:
        cudnn.load(tmp_path)
    assert info.value.path == "series[0].cuda[0].versions[1]"


def test_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(KBValidationError, match="missing"):
        cudnn.load(tmp_path)


def test_newest_cudnn_wheel_is_capped_by_the_gpu() -> None:
    """The cuDNN wheels and their CUDA major come from and_cuda.yaml; with ``newest`` the
    pin stops at the last cuDNN series that supports the GPU (9.10 for Maxwell)."""
    from tfenv.kb.cuda_wheels import cuda_wheels

    kb = frozen_kb()
    assert dict(kb.and_cuda.cudnn.cuda_major) == {"nvidia-cudnn-cu11": 11, "nvidia-cudnn-cu12": 12}
    release = kb.index.release("tensorflow", "2.21.0")
    assert release is not None
    ws = release.wheels["linux_x86_64"]

    def cudnn(cc: str) -> tuple[Version, tuple[str, ...]]:
        got = cuda_wheels(kb, ws, "3.11", "newest", Version(cc), None)
        assert got is not None
        pin = next(p for p in got.pins if p.name == "nvidia-cudnn-cu12")
        return pin.version, got.caps

    old, caps = cudnn("5.0")
    assert (old.major, old.minor) == (9, 10)
    assert any("compute capability 5.0" in c for c in caps)
    new, caps = cudnn("9.0")
    assert new > old
    assert caps == ()


def test_nvidia_wheel_names_come_from_the_recorded_packages(kb: KnowledgeBase) -> None:
    facts = kb.and_cuda
    assert facts.wheel("cudnn", 12) == "nvidia-cudnn-cu12"
    assert facts.wheel("cuda-nvcc", 11) == "nvidia-cuda-nvcc-cu11"
    assert facts.wheel("cuda-nvrtc", 11) is None  # no cu11 NVRTC wheel in any and-cuda extra
    assert facts.wheel("cudnn", 13) is None  # not recorded: never a guessed name
    assert facts.component("nvidia-cuda-runtime-cu12") == "cuda-runtime"
    assert facts.component("nvidia-cudnn-cu11") == "cudnn"
    assert facts.component("tensorrt") is None
