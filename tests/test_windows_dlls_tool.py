"""tools/windows_dlls.py on synthetic PE files and wheels built here (no real TF wheel).

The modules are minimal PE32+ files (DOS header, PE header, optional header with its data
directories, one section) whose import and delay-import tables name DLLs; the main module also
holds the loader's names the way MSVC leaves them: C strings ("cudart") and, for an 8-letter
name, the immediate of a ``mov rax, imm64`` ("cusolver").
"""

from __future__ import annotations

import importlib.util
import io
import struct
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
import yaml

TOOL = Path(__file__).parent.parent / "tools" / "windows_dlls.py"


def _load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("windows_dlls", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


wd = _load_tool()

SECTION_RVA = 0x1000
SECTION_RAW = 0x400


def pe(imports: list[str], delayed: tuple[str, ...] = (), body: bytes = b"") -> bytes:
    """A PE32+ file with one section holding the import tables, their names and ``body``."""
    sec = bytearray()

    def put(data: bytes) -> int:
        rva = SECTION_RVA + len(sec)
        sec.extend(data)
        return rva

    name_rvas = [put(n.encode() + b"\x00") for n in imports]
    delayed_rvas = [put(n.encode() + b"\x00") for n in delayed]
    put(body)
    while len(sec) % 8:
        sec.append(0)
    import_rva = put(
        b"".join(struct.pack("<IIIII", 0, 0, 0, r, 0) for r in name_rvas) + b"\x00" * 20
    )
    delay_rva = put(
        b"".join(struct.pack("<IIIIIIII", 1, r, 0, 0, 0, 0, 0, 0) for r in delayed_rvas)
        + b"\x00" * 32
    )
    out = bytearray(SECTION_RAW)
    out[0:2] = b"MZ"
    struct.pack_into("<I", out, 0x3C, 0x80)
    out[0x80:0x84] = b"PE\x00\x00"
    opt_size = 112 + 16 * 8
    struct.pack_into("<HHIIIHH", out, 0x84, 0x8664, 1, 0, 0, 0, opt_size, 0x2022)
    opt = 0x98
    struct.pack_into("<H", out, opt, 0x20B)
    struct.pack_into("<I", out, opt + 108, 16)  # NumberOfRvaAndSizes
    dirs = opt + 112
    struct.pack_into("<II", out, dirs + 8 * 1, import_rva, 40)
    if delayed:
        struct.pack_into("<II", out, dirs + 8 * 13, delay_rva, 64)
    sh = opt + opt_size
    out[sh : sh + 8] = b".rdata\x00\x00"
    struct.pack_into("<IIII", out, sh + 8, len(sec), SECTION_RVA, len(sec), SECTION_RAW)
    return bytes(out) + bytes(sec)


CONFIG_H = """#ifndef CUDA_CUDA_CONFIG_H_
#define TF_CUDA_VERSION "64_101"
#define TF_CUBLAS_VERSION "64_10"
#define TF_CUSOLVER_VERSION "64_10"
#define TF_CURAND_VERSION "64_10"
#define TF_CUFFT_VERSION "64_10"
#define TF_CUSPARSE_VERSION "64_10"
#define TF_CUDNN_VERSION "64_7"
#define TF_CUDA_TOOLKIT_PATH "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1"
#endif
"""

BUILD_INFO = (
    "build_info = {'cuda_version': '64_101', 'cudnn_version': '64_7', "
    "'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', 'nvcuda_dll_name': 'nvcuda.dll', "
    "'cudart_dll_name': 'cudart64_101.dll', 'cudnn_dll_name': 'cudnn64_7.dll'}\n"
)

# What MSVC leaves: C strings for short names, a mov rax, imm64 for the 8-letter ones.
LOADER_BODY = (
    b"\x00nvcuda\x00\x00cudart\x00\x00cufft\x00\x00\x00curand\x00\x00cublas\x00\x00cudnn\x00"
    b"\x00cupti\x00"
    b"\x48\xb8cusolver\x49\x89\x43\xd0"
    b"\x48\xb8cusparse\x49\x89\x43\xd0"
)


def wheel(
    tmp_path: Path,
    name: str = "tensorflow-2.3.4-cp38-cp38-win_amd64.whl",
    *,
    config: str = CONFIG_H,
    build_info: str = BUILD_INFO,
    body: bytes = LOADER_BODY,
) -> Path:
    path = tmp_path / name
    main = pe(
        ["python38.dll", "MSVCP140.dll", "KERNEL32.dll", "VCRUNTIME140.dll", "VCRUNTIME140_1.dll"],
        ("dbghelp.dll",),
        body + b"\x00" * 4096,  # the biggest module is the main one
    )
    small = pe(["MSVCP140.dll", "VCRUNTIME140.dll", "python38.dll"])
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("tensorflow/include/external/local_config_cuda/cuda/cuda/cuda_config.h", config)
        zf.writestr("tensorflow/python/platform/build_info.py", build_info)
        zf.writestr("tensorflow/python/_pywrap_tensorflow_internal.pyd", main)
        zf.writestr("tensorflow/python/_pywrap_tfe.pyd", small)
    return path


def test_pe_imports_ordinary_and_delayed() -> None:
    data = pe(["A.dll", "MSVCP140.dll"], ("late.dll",))
    assert wd.pe_imports(data) == (["A.dll", "MSVCP140.dll"], ["late.dll"])


@pytest.mark.parametrize(
    "data",
    [b"", b"MZ" + b"\x00" * 10, b"MZ" + b"\x00" * 0x3A + struct.pack("<I", 0x40) + b"XX"],
)
def test_pe_imports_refuses_what_is_not_pe(data: bytes) -> None:
    with pytest.raises(wd.ScanError):
        wd.pe_imports(data)


def test_a_wheel_gives_its_loader_names_and_runtime(tmp_path: Path) -> None:
    w = wd.scan_wheel(wheel(tmp_path), "0" * 64)
    assert w.main_module == "tensorflow/python/_pywrap_tensorflow_internal.pyd"
    assert w.cuda == [
        "cudart64_101.dll",  # TF_CUDA_VERSION: no TF_CUDART_VERSION in this header
        "cublas64_10.dll",
        "cufft64_10.dll",
        "curand64_10.dll",
        "cusolver64_10.dll",  # an 8-letter name, found as a mov's immediate
        "cusparse64_10.dll",
    ]
    assert w.cudnn == ["cudnn64_7.dll"]
    assert w.cupti == "cupti64_101.dll"
    # imported by the modules, and msvcp140_1.dll that self_check.py checks before the import
    assert w.msvc_imported == ["msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll"]
    assert w.msvc == ["msvcp140.dll", "msvcp140_1.dll", "vcruntime140.dll", "vcruntime140_1.dll"]
    assert w.cuda_imported == []
    assert w.problems == []


def test_cudart_takes_its_own_define_where_there_is_one(tmp_path: Path) -> None:
    config = CONFIG_H.replace('"64_101"', '"64_112"') + '#define TF_CUDART_VERSION "64_110"\n'
    info = BUILD_INFO.replace("cudart64_101", "cudart64_110")
    body = LOADER_BODY + b"\x48\xb8cublasLt\x00"
    w = wd.scan_wheel(wheel(tmp_path, config=config, build_info=info, body=body), "0" * 64)
    assert w.dll("cudart") == "cudart64_110.dll"
    assert w.dll("cublasLt") == "cublasLt64_10.dll"
    assert w.cupti == "cupti64_112.dll"
    assert w.problems == []
    # 2.5-2.10's build_info.py names cudart by TF_CUDA_VERSION: a note, not an error
    info = BUILD_INFO.replace("cudart64_101", "cudart64_112")
    w = wd.scan_wheel(wheel(tmp_path, config=config, build_info=info, body=body), "0" * 64)
    assert w.problems == []
    assert w.notes == [
        "build_info.py's cudart_dll_name cudart64_112.dll is made from TF_CUDA_VERSION; the "
        "loader opens cudart64_110.dll (TF_CUDART_VERSION)"
    ]
    out = io.StringIO()
    path = tmp_path / "tensorflow-2.3.4-cp38-cp38-win_amd64.whl"
    assert wd.run(wd.parse_args([str(path), "--json"]), out) == 0
    records = tmp_path / "records.json"
    records.write_text(out.getvalue(), encoding="utf-8")
    again = io.StringIO()
    assert wd.run(wd.parse_args(["--from-json", str(records)]), again) == 0
    assert "made from TF_CUDA_VERSION" in again.getvalue()
    assert yaml.safe_load(again.getvalue())["dlls"][0]["cuda"][0] == "cudart64_110.dll"


def test_before_per_library_defines_the_libraries_take_the_lib_version(tmp_path: Path) -> None:
    config = (
        '#define TF_CUDA_VERSION "64_100"\n#define TF_CUDA_LIB_VERSION "64_100"\n'
        '#define TF_CUDNN_VERSION "64_7"\n'
    )
    info = BUILD_INFO.replace("cudart64_101", "cudart64_100")
    w = wd.scan_wheel(wheel(tmp_path, config=config, build_info=info), "0" * 64)
    assert w.cuda == [
        "cudart64_100.dll",
        "cublas64_100.dll",
        "cufft64_100.dll",
        "curand64_100.dll",
        "cusolver64_100.dll",
        "cusparse64_100.dll",
    ]
    assert w.cupti == "cupti64_100.dll"


def test_a_name_the_binary_does_not_hold_is_not_loaded(tmp_path: Path) -> None:
    body = LOADER_BODY.replace(b"\x48\xb8cusparse", b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
    w = wd.scan_wheel(wheel(tmp_path, body=body), "0" * 64)
    assert "cusparse64_10.dll" not in w.cuda
    # "cusparse" inside a longer string is not the loader's name
    body = LOADER_BODY.replace(b"\x48\xb8cusparse", b"xxcusparseCreate\x00")
    w = wd.scan_wheel(wheel(tmp_path, body=body), "0" * 64)
    assert "cusparse64_10.dll" not in w.cuda


@pytest.mark.parametrize(
    "text",
    [
        # 2.4 and later
        "import collections\n\nbuild_info = collections.OrderedDict([('cuda_version', '64_101'), "
        "('cudart_dll_name', 'cudart64_101.dll'), ('cudnn_dll_name', 'cudnn64_7.dll'), "
        "('msvcp_dll_names', 'msvcp140.dll,msvcp140_1.dll')])\n",
        # 2.0: module-level names, one msvcp DLL
        "cuda_version_number = '10.1'\ncudart_dll_name = 'cudart64_101.dll'\n"
        "cudnn_dll_name = 'cudnn64_7.dll'\nmsvcp_dll_name = 'msvcp140.dll,msvcp140_1.dll'\n",
    ],
)
def test_build_info_in_each_form_is_read(tmp_path: Path, text: str) -> None:
    w = wd.scan_wheel(wheel(tmp_path, build_info=text), "0" * 64)
    assert w.build_info["cudart_dll_name"] == "cudart64_101.dll"
    assert w.msvcp_checked == ["msvcp140.dll", "msvcp140_1.dll"]
    assert w.problems == []
    bad = text.replace("cudnn64_7", "cudnn64_8")
    assert wd.scan_wheel(wheel(tmp_path, build_info=bad), "0" * 64).problems


def test_build_info_disagreeing_is_an_error(tmp_path: Path) -> None:
    info = BUILD_INFO.replace("cudnn64_7", "cudnn64_8")
    path = wheel(tmp_path, build_info=info)
    out = io.StringIO()
    rc = wd.run(wd.parse_args([str(path)]), out)
    assert rc == 1
    w = wd.scan_wheel(path, "0" * 64)
    assert w.problems == [
        "build_info cudnn_dll_name is 'cudnn64_8.dll', the loader's name is 'cudnn64_7.dll'"
    ]


def test_not_a_cuda_build_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tensorflow-2.3.4-cp38-cp38-win_amd64.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("tensorflow/python/_pywrap_tfe.pyd", pe(["A.dll"]))
    assert wd.main([str(path)]) == 2
    assert "no cuda_config.h" in capsys.readouterr().err
    (tmp_path / "x.whl").write_bytes(b"not a zip")
    assert wd.main([str(tmp_path / "x.whl")]) == 2


def test_yaml_groups_series_that_agree_and_writes_the_block(tmp_path: Path) -> None:
    a = wheel(tmp_path, "tensorflow-2.1.4-cp37-cp37m-win_amd64.whl")
    b = wheel(tmp_path, "tensorflow-2.3.4-cp38-cp38-win_amd64.whl")
    config = CONFIG_H.replace('"64_101"', '"64_110"').replace('"64_7"', '"64_8"')
    info = BUILD_INFO.replace("cudart64_101", "cudart64_110").replace("cudnn64_7", "cudnn64_8")
    c = wheel(tmp_path, "tensorflow-2.4.4-cp38-cp38-win_amd64.whl", config=config, build_info=info)
    target = tmp_path / "windows_manual.yaml"
    target.write_text(
        "# head\ncuda: []\n\ndlls:\n  - old: 1\n    # a comment\n\nredist:\n  name: x\n",
        encoding="utf-8",
    )
    out = io.StringIO()
    args = wd.parse_args(
        [str(c), str(a), str(b), "--write", str(target), "--retrieved", "2026-12-03"]
    )
    assert wd.run(args, out) == 0
    doc = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert doc["cuda"] == []
    assert doc["redist"] == {"name": "x"}
    ranges = [d["tensorflow"] for d in doc["dlls"]]
    assert ranges == [">=2.1,<2.4", ">=2.4,<2.5"]
    first = doc["dlls"][0]
    assert first["cudnn"] == ["cudnn64_7.dll"]
    assert first["status"] == "established"
    assert first["retrieved"] == "2026-12-03"
    assert len(first["source"]) == 2
    assert first["source"][0].startswith("tools/windows_dlls.py on tensorflow-2.1.4-")
    assert doc["dlls"][1]["cuda"][0] == "cudart64_110.dll"
    assert yaml.safe_load(out.getvalue())["dlls"] == doc["dlls"]
