"""A seeded fuzzer of every tfenv command: hostile flags, files, streams and tools.

Each case is an argv (and maybe stdin, and a fake ``nvidia-smi`` on PATH) run through
``tfenv.cli.main`` in this process, in a scratch folder full of hostile inputs: FIFOs,
``/dev/zero``, a sparse 16 GiB file, non-UTF-8 and deeply nested files, host files,
configurations, lockfiles and package metadata with numbers past Python's limits or
control characters in names, a local package index that answers garbage. A case passes
when tfenv exits 0, 1 or 2 and prints no traceback (no "internal error", exit 3) within
:data:`HANG_S` seconds.

Run it (the counts in the notes come from this)::

    python -m tests.fuzz_cli --seed 13 --cases 2600          # every case
    python -m tests.fuzz_cli --seed 13 --budget 45 --json    # what tests/test_fuzz.py runs

Nothing here reaches the network: every index URL is on 127.0.0.1, and ``lock`` and
``refresh`` get one through the environment when no flag names one.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import io
import json
import os
import random
import stat
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable, Optional

from tests.fake_smi import write_fake_smi
from tests.host_doc import host_document
from tests.http_fixture import running

HANG_S = 20.0
COMMANDS = (
    "resolve",
    "detect",
    "lock",
    "install",
    "check-upgrade",
    "matrix",
    "doctor",
    "explain",
    "refresh",
)
DEAD_INDEX = "http://127.0.0.1:9/simple/"  # nothing listens on the discard port

# -- hostile values ------------------------------------------------------------------

NUMBERS = [
    "0", "-1", "1", "3.11", "2.35", "8.6", "99.9", "1e309", "inf", "-inf", "nan", "NaN",
    "9" * 5000, "1" * 4301 + ".0", "\u0663.\u0661\u0661", "\u00b2", "1_0", "0x10", " 3.11 ",
    "3.11.", ".5", "1e3", "3", "535.104.05", "0.0.0", "12.2", "-0", "+5", "", " ", "3.11\n",
]  # fmt: skip
VERSIONS = [
    "2.15", "9.99", "latest", ">=2.12,<2.16", "==" + "1" * 5000, "2.15.1", "banana", "",
    "\u0662.\u0661\u0665", "2.15.*", "~=2.15", "==2.15.0rc1", "<0", ">=9999", "2." + "9" * 30,
    "2.15,", "!=", "1!2.15", "2.15+local", "\x1b[2J", "2.15\n--extra-index-url x",
]  # fmt: skip
STRINGS = [
    "", " ", "\n", "A100\ntouch pwned\n#", "\x1b[31mred\x1b[0m", "\ud800", "x" * 100_000,
    "RTX 3060", "A100", "--", "-", "nul\x00byte", "\u202egnp.exe", "GeForce RTX 4090",
    "A100 80GB", "cluster", "a.b", "..", "\u2028", "'; rm -rf ~ #", "$(touch pwned)",
]  # fmt: skip
URLS = [
    DEAD_INDEX, "not a url", "http://", "ftp://127.0.0.1/simple", "http://127.0.0.1:99999/",
    "http://user:secret@127.0.0.1:9/simple", "file:///nonexistent/simple", "",
    "http://127.0.0.1:9/\nsimple", "http://[::1", "http://127.0.0.1:9/" + "a" * 5000,
]  # fmt: skip
EXAMPLES = [
    "Could not load dynamic library 'cudart64_110.dll'",
    "ERROR: Could not find a version that satisfies the requirement tensorflow==2.13.0 "
    "(from versions: 2.16.1, 2.17.0)",
    "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8",
    "ptxas fatal   : Value 'sm_89' is not defined for option 'gpu-name'",
    "  - nothing provides __cuda needed by tensorflow-2.7.0-cuda102py310hcf4adbc_0",
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open",
    "/usr/local/cuda/bin/ptxas --version returned 1",
    "Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0",
]
HUGE = "9" * 5000
EXAMPLES += [  # issue 26: numbers past Python's int conversion limit
    f"Could not load dynamic library 'libcudart.so.{HUGE}'",
    f"Could not load dynamic library 'libcudnn.so.{HUGE}'; dlerror: cannot open",
    f"Loaded runtime CuDNN library: {HUGE}.1.0 but source was compiled with: 8.6.0",
    f"ptxas fatal   : Value 'sm_{HUGE}' is not defined for option 'gpu-name'",
    f"Could not load dynamic library 'cudart64_{HUGE}.dll'",
    "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=" + HUGE,
]
OS_NAMES = ["linux", "windows", "wsl2", "macos", "win", "darwin", "LINUX", "beos", ""]
ARCHES = ["x86_64", "aarch64", "arm64", "amd64", "riscv", ""]
MANAGERS = ["auto", "pip", "conda", "container", "system", "brew"]

# -- files ------------------------------------------------------------------------------

HOST_BASE = host_document(
    driver="535.104.05",
    driver_cuda="12.2",
    gpus=[
        {
            "index": 0,
            "name": "NVIDIA A100-SXM4-80GB",
            "compute_capability": "8.0",
            "cc_source": "nvidia-smi",
            "memory_mib": 81920,
            "mig": False,
            "uuid": "GPU-1",
        }
    ],
    packages={"tensorflow": "2.15.1"},
    sources={"os": "platform"},
)
HOST_MUTATIONS: list[tuple[str, Any]] = [
    ("gpus.0.name", "A100\ntouch pwned\n#"),
    ("gpus.0.name", 'A100\n--extra-index-url="http://127.0.0.1:9/x/simple"\n#'),
    ("gpus.0.name", "\x1b]0;pwned\x07A100"),
    ("gpus.0.name", "A" * 5000),
    ("gpus.0.name", "\ud800"),
    ("gpus.0.compute_capability", "99.9"),
    ("gpus.0.compute_capability", "\u0668.\u0660"),
    ("gpus.0.compute_capability", "8." + "9" * 5000),
    ("gpus.0.compute_capability", 8.0),
    ("gpus.0.index", 10**30),
    ("gpus.0.index", -1),
    ("gpus.0.index", 1e309),
    ("gpus.0.memory_mib", float("nan")),
    ("gpus.0.uuid", "GPU\n1"),
    ("driver", "0"),
    ("driver", "1e309"),
    ("driver", "\u0665\u0663\u0665.104"),
    ("driver", 535.104),
    ("python", "3." + "1" * 5000),
    ("python", "\u0663.\u0661\u0661"),
    ("python", {}),
    ("glibc", "2.35\n"),
    ("driver_cuda", "inf"),
    ("packages", {"tensorflow\n": "2.15"}),
    ("packages", {"tensorflow": "\x1b[2J"}),
    ("notes", ["line one\nline two"]),
    ("notes", "not a list"),
    ("sources", [1, 2]),
    ("schema", 2),
    ("gpus", {"0": {}}),
    ("gpus", [[]]),
    ("cuda_toolkits", [{"version": "12.2", "path": "/usr/local/cuda\x1b[0m", "source": "nvcc"}]),
    ("os", "linux\n"),
    # issue 26: odd values that are no real ones
    ("schema", True),
    ("schema", 1.0),
    ("python", "1!3.11"),
    ("python", "3.11.5.1"),
    ("python", "3.11+local"),
    ("gpus.0.compute_capability", "1!8.0"),
    ("gpus.0.compute_capability", "8.0+local"),
    ("driver_cuda", "99.9"),
    ("driver_cuda", "0"),
    ("glibc", "99.99"),
    ("packages", {"tensorflow": "garbage"}),
    ("packages", {"": "2.15"}),
    ("python", ""),
    ("driver", " "),
]
DEEP_KEY = "k" + ".k" * 20_000 + " = 1"  # issue 26: 2.4 GB and 7 s in tomllib before the scan
DEEP_HEADER = "[k" + ".k" * 100_000 + "]"
CONFIG_TOP = {
    "tensorflow": 'tensorflow = "2.15"',
    "python": 'python = "3.11"',
    "dependencies": 'dependencies = ["numpy"]',
}
CONFIG_TARGETS = """\
[targets.cluster]
os = "linux"
arch = "x86_64"
gpu = "A100"
driver = "535.104.05"
glibc = "2.31"

[targets.laptop]
host = "host-ok.json"
"""
CONFIG_BASE = "\n".join(CONFIG_TOP.values()) + "\n\n" + CONFIG_TARGETS
CONFIG_MUTATIONS = [
    'tensorflow = "9.99"',
    "tensorflow = 2.15",
    'tensorflow = "' + "1" * 5000 + '"',
    'python = "\u0663.\u0661\u0661"',
    "python = 1e309",
    'index-url = "not a url"',
    'index-url = "http://user:secret@127.0.0.1:9/simple"',
    'index-url = "http://127.0.0.1:9/\\nsimple"',
    'dependencies = ["numpy\\n--extra-index-url http://127.0.0.1:9/"]',
    'dependencies = ["tensorflow==2.15.0", "tensorflow==2.16.1"]',
    "dependencies = [" + "[" * 5000 + "]" * 5000 + "]",
    "pre = 1",
    'manager = "brew"',
    "channels = [1, 2]",
    "allow-cpu = " + "9" * 5000,
    # issue 26
    DEEP_KEY,
    'tensorflow = ""',
    'tensorflow = "  "',
    'index-url = ""',
    'dependencies = ["pkg @ file:///etc/passwd"]',
    'channels = ["../../x"]',
    'channels = [""]',
    'out = " "',
]
TARGET_MUTATIONS = [
    'gpu = "A100\\ntouch pwned\\n#"',
    'gpu = "\\u001b[31mA100"',
    "gpu-index = -1",
    "gpu-index = " + "9" * 5000,
    'cc = "99.9"',
    'cc = "\u0668.\u0660"',
    'driver = "0"',
    'driver = "1e309"',
    'glibc = "inf"',
    'host = "/dev/zero"',
    'host = "fifo"',
    'host = "deep.json"',
    'host = "nonutf8.json"',
    'host = "host-pwn.json"',
    "os = 5",
    'os = "beos"',
    # issue 26
    'gpu = ""',
    'host = " "',
    'driver = ""',
    'python = " "',
]


def _set(doc: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(doc))
    node: Any = out
    keys = dotted.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def _dump_json(doc: Any) -> str:
    # allow_nan: NaN and Infinity are what a hostile writer would put there
    return json.dumps(doc, allow_nan=True)


@dataclass
class Workspace:
    root: Path
    paths: dict[str, list[str]] = field(default_factory=dict)
    smi_dirs: list[str] = field(default_factory=list)
    index_url: str = DEAD_INDEX

    def add(self, kind: str, path: Path | str) -> str:
        self.paths.setdefault(kind, []).append(str(path))
        return str(path)

    def pick(self, rng: random.Random, *kinds: str) -> str:
        """A path of one of ``kinds``; the first (sane) one of the first kind 40% of the time."""
        first = self.paths.get(kinds[0], [])
        if first and rng.random() < 0.4:
            return first[0]
        pool = [p for k in kinds for p in self.paths.get(k, [])]
        return rng.choice(pool)


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, "utf-8", errors="surrogatepass")
    else:
        path.write_bytes(data)
    return path


def _special_files(ws: Workspace) -> None:
    root = ws.root
    fifo = root / "fifo"
    os.mkfifo(fifo)
    for kind in ("special", "out"):
        ws.add(kind, fifo)
        ws.add(kind, root / "dir")
        ws.add(kind, root / ("n" * 300))  # a name longer than the filesystem allows
        ws.add(kind, root / "/".join(["d" * 200] * 25))  # a path longer than PATH_MAX
    (root / "dir").mkdir()
    with contextlib.suppress(OSError):  # a character device of our own (needs root)
        os.mknod(root / "chardev", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        ws.add("out", root / "chardev")
    for dev in ("/dev/zero", "/dev/urandom", "/dev/null"):
        if os.path.exists(dev):
            ws.add("special", dev)
    huge = root / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(16 << 30)  # sparse: 16 GiB that take no disk
    ws.add("special", huge)
    ws.add("special", _write(root / "nonutf8.json", b'{"schema": 1, "os": "\xff\xfe"}'))
    ws.add("special", _write(root / "deep.json", "[" * 100_000 + "]" * 100_000))
    ws.add("special", _write(root / "deep.toml", "a = " + "[" * 100_000 + "]" * 100_000))
    ws.add("special", _write(root / "deep.yaml", "a: " + "[" * 100_000 + "]" * 100_000))
    ws.add("special", _write(root / "empty.txt", ""))
    ws.add("special", _write(root / "dotted.toml", DEEP_KEY + "\n"))
    ws.add("special", _write(root / "header.toml", DEEP_HEADER + "\n"))
    twice = '{"schema": 1, "os": "linux", "arch": "x86_64", "python": "3.11", "python": "3.12"}'
    ws.add("host", _write(root / "host-twice.json", twice))
    ws.add("special", root / "missing.json")
    for kind in ("out",):
        ws.add(kind, root / "out" / "new.json")
        ws.add(kind, root / "out-file.txt")
    _write(root / "out-file.txt", "existing\n")


def _host_files(ws: Workspace) -> None:
    ws.add("host", _write(ws.root / "host-ok.json", _dump_json(HOST_BASE)))
    pwn = _set(HOST_BASE, "gpus.0.name", "A100\ntouch pwned\n#")
    _write(ws.root / "host-pwn.json", _dump_json(pwn))
    for i, (key, value) in enumerate(HOST_MUTATIONS):
        try:
            text = _dump_json(_set(HOST_BASE, key, value))
        except (ValueError, UnicodeEncodeError):
            continue
        ws.add("host", _write(ws.root / "hosts" / f"host-{i}.json", text))


def _configs(ws: Workspace) -> None:
    ws.add("config", _write(ws.root / "tfenv.toml", CONFIG_BASE))
    head = "\n".join(CONFIG_TOP.values()) + "\n\n"
    for i, line in enumerate(CONFIG_MUTATIONS):
        key = line.split("=")[0].strip()
        top = {**CONFIG_TOP, key: line}
        text = "\n".join(top.values()) + "\n\n" + CONFIG_TARGETS
        _write(ws.root / f"c{i}" / "host-ok.json", _dump_json(HOST_BASE))
        ws.add("config", _write(ws.root / f"c{i}" / "tfenv.toml", text))
    for i, line in enumerate(TARGET_MUTATIONS):
        key = line.split("=")[0].strip()
        own = 'os = "linux"\n' if key != "os" else ""
        text = head + "[targets.cluster]\n" + line + "\n" + own
        folder = ws.root / f"t{i}"
        _write(folder / "host-ok.json", _dump_json(HOST_BASE))
        _write(folder / "host-pwn.json", _dump_json(_set(HOST_BASE, "gpus.0.name", "A\nB")))
        with contextlib.suppress(FileExistsError):
            os.symlink(ws.root / "fifo", folder / "fifo")
        _write(folder / "deep.json", "[" * 50_000 + "]" * 50_000)
        _write(folder / "nonutf8.json", b"\xff")
        ws.add("config", _write(folder / "tfenv.toml", text))
    ws.add("config", _write(ws.root / "bad-name" / "my\nconfig.toml", CONFIG_BASE))
    ws.add("config", _write(ws.root / "pyproject" / "pyproject.toml", "[tool]\ntfenv = 5\n"))
    ws.add("config", _write(ws.root / "garbage" / "tfenv.toml", b"\x00\xff= ["))


def _lockfiles(ws: Workspace) -> None:
    lk = ws.root / "locks"
    files = {
        "requirements.txt": "tensorflow==2.15.0\nnumpy==1.26.4\n",
        "requirements-two.txt": "tensorflow==2.15.0\ntensorflow==2.16.1\n",
        "requirements-huge.txt": "tensorflow==2." + "1" * 5000 + "\n",
        "requirements-arabic.txt": "tensorflow==\u0662.\u0661\u0665\n",
        "requirements-esc.txt": "tensorflow==2.15.0 # \x1b[2J\nbad\x1b line\n",
        "requirements-cont.txt": "tensorflow==2.15.0 \\\n",
        "pylock.toml": 'lock-version = "1.0"\ncreated-by = "x"\n[[packages]]\nname = "tensorflow"\n'
        'version = "2.' + "9" * 5000 + '"\n',
        "pylock.deep.toml": "a = " + "[" * 50_000 + "]" * 50_000,
        "pylock.bad.toml": "packages = 5\n",
        "pylock.dotted.toml": 'lock-version = "1.0"\n' + DEEP_KEY + "\n",
        "pylock.header.toml": 'lock-version = "1.0"\n' + DEEP_HEADER + "\n",
        "conda-lock.yml": "package:\n- name: tensorflow\n  version: '1e309'\n  platform: linux-64\n"
        "  manager: conda\n",
        "conda-lock-alias.yml": "a: &a [1, 2]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\n"
        "package: [*c, *c, *c]\n",
        "conda-lock-deep.yml": "package: " + "[" * 50_000 + "]" * 50_000,
        "environment.yml": "dependencies:\n- tensorflow=2.15\n- python=\u0663.\u0661\u0661\n",
        "environment-int.yml": "dependencies:\n- tensorflow=" + "9" * 5000 + "\n",
        "environment-bad.yml": "dependencies: {a: !!python/object:os.system [ls]}\n",
    }
    for name, text in files.items():
        ws.add("lock", _write(lk / name, text))
    ws.add("lock", lk)
    with contextlib.suppress(FileExistsError):
        os.symlink("/dev/zero", lk / "requirements-zero.txt")
        ws.add("lock", lk / "requirements-zero.txt")
        os.symlink(ws.root / "fifo", lk / "requirements-fifo.txt")
        ws.add("lock", lk / "requirements-fifo.txt")


def _prefixes(ws: Workspace) -> None:
    metas: dict[str, bytes] = {
        "ok": b"Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.0\n",
        "arabic": "Name: tensorflow\nVersion: \u0662.\u0661\u0665.\u0660\n".encode(),
        "huge": b"Name: tensorflow\nVersion: 2." + b"9" * 5000 + b"\n",
        "esc": b"Name: tensorflow\x1b[2J\nVersion: 2.15.0\n",
        "binary": b"\xff\xfe\x00\x00Name",
    }
    for key, data in metas.items():
        site = ws.root / "prefixes" / key / "lib" / "python3.11" / "site-packages"
        _write(site / "tensorflow-2.15.0.dist-info" / "METADATA", data)
        _write(site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.8", b"\x7fELF not really")
        _write(ws.root / "prefixes" / key / "conda-meta" / "x.json", b'{"name": [1], "version": 2}')
        ws.add("prefix", site.parent.parent.parent)
    site = ws.root / "prefixes" / "special" / "lib" / "python3.11" / "site-packages"
    (site / "a-1.dist-info").mkdir(parents=True)
    (site / "b-1.dist-info").mkdir(parents=True)
    (site / "c-1.dist-info").mkdir(parents=True)
    os.symlink("/dev/zero", site / "a-1.dist-info" / "METADATA")
    os.symlink(ws.root / "fifo", site / "b-1.dist-info" / "METADATA")
    os.symlink(ws.root / "huge.txt", site / "c-1.dist-info" / "METADATA")
    meta = ws.root / "prefixes" / "special" / "conda-meta"
    meta.mkdir()
    os.symlink("/dev/zero", meta / "zero.json")
    _write(meta / "deep.json", "[" * 50_000 + "]" * 50_000)
    ws.add("prefix", site.parent.parent.parent)


def _interpreters(ws: Workspace) -> None:
    answers = {
        "empty-object": "{}",
        "list": "[1, 2]",
        "wrong-types": '{"prefix": 5, "python": [], "paths": "x"}',
        "esc": '{"prefix": "/x\\u001b[2J", "python": "3.11", "paths": ["/nonexistent"]}',
        "garbage": "\\xff not json",
        "deep": "[" * 5000 + "]" * 5000,
        "nothing": "",
    }
    for key, answer in answers.items():
        script = ws.root / "pythons" / key
        _write(script, f"#!/bin/sh\nprintf '%s\\n' '{answer}'\n")
        script.chmod(0o755)
        ws.add("python", script)
    failing = _write(ws.root / "pythons" / "exit3", "#!/bin/sh\nexit 3\n")
    failing.chmod(0o755)
    ws.add("python", failing)
    ws.add("python", sys.executable)


def _logs(ws: Workspace) -> None:
    logs = {
        "escapes.log": "\x1b]0;pwned\x07\x1b[2J"
        "Could not load dynamic library 'libcudart.so.11.0'\n",
        "ptxas.log": "x" * 100_000 + "ptxas --version returned 1\n",
        "long.log": "/" * 1_000_000,
        "surrogate.log": "Could not load dynamic library 'libcudnn.so.\ud8008'\n",
    }
    for name, text in logs.items():
        ws.add("log", _write(ws.root / "logs" / name, text))
    ws.add("log", _write(ws.root / "logs" / "binary.log", b"\xff\xfe\x80 cuInit: \xc3\x28"))


SMI_QUERIES = [
    "0, \x1b[31mNVIDIA A100\x1b[0m, GPU-1, 81920, Disabled, 8.0",
    "0, " + "A" * 5000 + ", GPU-1, 81920, Disabled, 8.0",
    "0, A100, GPU-1, " + "9" * 5000 + ", Disabled, 99.9",
    "\u0660, A100, GPU-1, 1e309, Enabled, \u0668.\u0660",
    "0, A100\u2028touch pwned, GPU-1, -5, Disabled, nan",
]


def _fake_smis(ws: Workspace) -> None:
    for i, query in enumerate(SMI_QUERIES):
        name = query.split(", ")[1][:20]
        folder = write_fake_smi(ws.root / "smi" / str(i), query, table_name=name, memory_mib=12196)
        ws.smi_dirs.append(str(folder))
    folder = ws.root / "smi" / "binary"
    script = _write(folder / "nvidia-smi", "#!/bin/sh\nhead -c 4096 /dev/urandom\n")
    script.chmod(0o755)
    ws.smi_dirs.append(str(folder))


def _kb_dirs(ws: Workspace) -> None:
    """Copies of the shipped data, each with one file broken (for TFENV_DATA_DIR)."""
    import shutil

    import tfenv.data

    shipped = Path(tfenv.data.__file__).parent

    def fifo(d: Path) -> None:
        (d / "nvidia" / "gpus.yaml").unlink()
        (d / "nvidia" / "gpus.yaml").symlink_to(ws.root / "fifo")

    def huge(d: Path) -> None:
        text = (d / "platforms.yaml").read_text()
        _write(d / "platforms.yaml", text + "\nx: " + "9" * 5000)

    breakages: dict[str, Callable[[Path], object]] = {
        "deep": lambda d: _write(d / "errors.yaml", "errors: " + "[" * 50_000 + "]" * 50_000),
        "fifo": fifo,
        "hugeint": huge,
        "nonutf8": lambda d: _write(d / "tensorflow" / "builds.yaml", b"\xff\xfe: ["),
        "missing": lambda d: (d / "nvidia" / "cuda.yaml").unlink(),
    }
    for name, breaking in breakages.items():
        folder = ws.root / "kb" / name
        shutil.copytree(shipped, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
        breaking(folder)
        ws.add("kbdir", folder)


def build(root: Path) -> Workspace:
    ws = Workspace(root)
    _special_files(ws)
    _kb_dirs(ws)
    _host_files(ws)
    _configs(ws)
    _lockfiles(ws)
    _prefixes(ws)
    _interpreters(ws)
    _logs(ws)
    _fake_smis(ws)
    return ws


# -- a hostile package index -------------------------------------------------------------

_PAGES = {
    "garbage": (200, b"\xff\xfe{not json", "application/vnd.pypi.simple.v1+json"),
    "deep": (200, b"[" * 100_000 + b"]" * 100_000, "application/vnd.pypi.simple.v1+json"),
    "hugeint": (200, b'{"files": [{"filename": "x", "url": "x", "size": ' + b"9" * 5000 + b"}]}",
                "application/vnd.pypi.simple.v1+json"),
    "badfiles": (200, json.dumps({"files": [
        {"filename": "tensorflow-2.\u0661\u0665.0-cp311-cp311-manylinux_2_17_x86_64.whl",
         "url": "a.whl", "core-metadata": True},
        {"filename": "tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl",
         "url": "b.whl", "core-metadata": {"sha256": 5}},
        {"filename": "tensorflow-" + "9" * 5000 + "-py3-none-any.whl", "url": "c.whl"},
        {"filename": "tensorflow-2.16.1-cp311-cp311-manylinux_2_17_x86_64.whl",
         "url": "d.whl", "core-metadata": True},
    ]}).encode(), "application/vnd.pypi.simple.v1+json"),
    "notfound": (404, b"", "text/plain"),
    "error": (500, b"", "text/plain"),
}  # fmt: skip
_METADATA = (
    b"Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.16.1\n"
    b"Requires-Python: >=3." + b"9" * 5000 + b"\n"
    b"Requires-Dist: nvidia-cudnn-cu12==\xd9\xa9.0 ; extra == 'and-cuda'\n"
    b"Requires-Dist: ((((((((((((((((((((((((((\n"
)


class _Hostile(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        mode = self.path.strip("/").split("/")[0]
        if self.path.endswith(".metadata"):
            status, body, ctype = 200, _METADATA, "text/plain"
        else:
            status, body, ctype = _PAGES.get(mode, _PAGES["garbage"])
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


# -- cases ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    command: str
    argv: tuple[str, ...]
    stdin: Optional[bytes] = None
    smi: Optional[str] = None  # a folder holding a fake nvidia-smi, put first on PATH
    env: tuple[tuple[str, str], ...] = ()  # variables set for this case only


Gen = Callable[[random.Random, Workspace], Case]


HOSTILE = 0.35  # how often a value comes from the hostile pools rather than a sane one
SANE = {
    "python": ["3.11", "3.10", "3.9", "3.12"],
    "driver": ["535.104.05", "470.82.01", "552.22"],
    "glibc": ["2.35", "2.31", "2.17"],
    "cc": ["8.6", "8.0", "7.5", "9.0"],
    "gpu": ["RTX 3060", "A100", "GeForce RTX 4090", "T4"],
    "os": ["linux", "windows", "wsl2", "macos"],
    "arch": ["x86_64", "aarch64", "arm64"],
    "tf": ["2.15", "2.16", "latest", "2.12", "2.15.1", ">=2.13,<2.16"],
    "index": ["0", "1"],
    "seconds": ["5", "0.5", "30"],
    "jobs": ["1", "2", "4"],
    "series": ["2.15", "2.12", "2.10"],
    "cuda": ["12", "11"],
}


def _maybe(rng: random.Random, p: float = 0.5) -> bool:
    return rng.random() < p


def _value(rng: random.Random, sane: str, hostile: list[str]) -> str:
    return rng.choice(hostile) if _maybe(rng, HOSTILE) else rng.choice(SANE[sane])


def _number(rng: random.Random, sane: str) -> str:
    return _value(rng, sane, NUMBERS)


def _machine(rng: random.Random, ws: Workspace, python: bool = True) -> list[str]:
    out: list[str] = []
    pool: list[Callable[[], list[str]]] = [
        lambda: ["--host", ws.pick(rng, "host", "special")],
        lambda: ["--os", _value(rng, "os", OS_NAMES + STRINGS)],
        lambda: ["--arch", _value(rng, "arch", ARCHES)],
        lambda: ["--gpu", _value(rng, "gpu", STRINGS)],
        lambda: ["--cc", _number(rng, "cc")],
        lambda: ["--no-gpu"],
        lambda: ["--gpu-index", _number(rng, "index")],
        lambda: ["--driver", _number(rng, "driver")],
        lambda: ["--glibc", _number(rng, "glibc")],
        lambda: ["--python", _number(rng, "python")],
    ]
    weights = [0.6, 1, 0.5, 1, 0.5, 0.3, 0.2, 1, 0.5, 1]
    chosen: list[int] = []
    for _ in range(rng.randint(1, 4)):
        i = rng.choices(range(len(pool)), weights)[0]
        if i not in chosen:
            chosen.append(i)
    for i in chosen:
        if python or i != len(pool) - 1:  # doctor's environment has its own Python
            out += pool[i]()
    return out


def _resolve(rng: random.Random, ws: Workspace) -> Case:
    argv = ["resolve", *_machine(rng, ws)]
    if _maybe(rng):
        argv += ["--tf", _value(rng, "tf", VERSIONS)]
    if _maybe(rng, 0.3):
        argv += ["--manager", rng.choice(MANAGERS)]
    for flag in ("--allow-cpu", "--pre", "--json"):
        if _maybe(rng, 0.2):
            argv.append(flag)
    if _maybe(rng, 0.3):
        argv += ["--emit", ws.pick(rng, "out")]
        if _maybe(rng, 0.4):
            argv += ["--requirements", ws.pick(rng, "lock", "special")]
    return Case("resolve", tuple(argv))


def _install(rng: random.Random, ws: Workspace) -> Case:
    """Always --dry-run: the steps are worked out (interpreters asked, the folder checked),
    nothing is created or installed."""
    argv = ["install", ws.pick(rng, "out", "special"), "--dry-run"]
    if _maybe(rng, 0.3):
        argv += ["--lock", ws.pick(rng, "lock", "special")]
        if _maybe(rng):
            argv += ["--config", ws.pick(rng, "config", "special")]
    else:
        argv += _machine(rng, ws)
        if _maybe(rng):
            argv += ["--tf", _value(rng, "tf", VERSIONS)]
        if _maybe(rng, 0.3):
            argv += ["--manager", rng.choice(MANAGERS)]
    for flag in ("--force", "--offline", "--json", "--no-uv"):
        if _maybe(rng, 0.2):
            argv.append(flag)
    if _maybe(rng, 0.2):
        argv += ["--index-url", rng.choice([DEAD_INDEX, "", "ftp://x", "http://\x00/"])]
    return Case("install", tuple(argv))


def _detect(rng: random.Random, ws: Workspace) -> Case:
    argv = ["detect"]
    if _maybe(rng):
        argv.append("--json")
    if _maybe(rng, 0.4):
        argv += ["--output", ws.pick(rng, "out")]
    for flag, sane, values in (
        ("--os", "os", OS_NAMES),
        ("--arch", "arch", ARCHES),
        ("--glibc", "glibc", NUMBERS),
        ("--driver", "driver", NUMBERS),
        ("--python", "python", NUMBERS),
        ("--gpu-index", "index", NUMBERS),
        ("--timeout", "seconds", NUMBERS),
    ):
        if _maybe(rng, 0.15):
            argv += [flag, _value(rng, sane, values)]
    smi = rng.choice(ws.smi_dirs) if _maybe(rng, 0.6) else None
    return Case("detect", tuple(argv), smi=smi)


def _lock(rng: random.Random, ws: Workspace) -> Case:
    argv = ["lock", "--config", ws.pick(rng, "config", "special")]
    if _maybe(rng, 0.4):
        argv.append("--check")
    else:
        argv += ["--offline"] if _maybe(rng) else ["--index-url", rng.choice(URLS)]
        argv += ["--cache-dir", str(ws.root / "uv-cache")]
    if _maybe(rng, 0.3):
        argv += ["--target", rng.choice([*STRINGS, "cluster", "laptop"])]
    if _maybe(rng, 0.3):
        argv += ["--out", ws.pick(rng, "out")]
    if _maybe(rng, 0.3):
        argv += ["--jobs", _number(rng, "jobs")]
    if _maybe(rng, 0.3):
        argv += ["--timeout", _number(rng, "seconds")]
    argv.append("--quiet")
    return Case("lock", tuple(argv))


def _check_upgrade(rng: random.Random, ws: Workspace) -> Case:
    argv = ["check-upgrade"]
    source = rng.choices(range(4), [3, 2, 2, 1])[0]
    if source == 0:
        argv += ["--from", _value(rng, "tf", VERSIONS)]
    elif source == 1:
        argv += ["--from-file", ws.pick(rng, "lock", "special")]
    elif source == 2:
        argv += ["--from-env", ws.pick(rng, "prefix", "special")]
    if _maybe(rng):
        argv += ["--to", _value(rng, "tf", VERSIONS)]
    if _maybe(rng, 0.6):
        argv += _machine(rng, ws)
    else:
        argv += ["--config", ws.pick(rng, "config", "special")]
        if _maybe(rng, 0.1):
            argv += ["--relock", "--offline", "--index-url", DEAD_INDEX]
    for flag in ("--allow-downgrade", "--strict", "--pre", "--allow-cpu"):
        if _maybe(rng, 0.15):
            argv.append(flag)
    if _maybe(rng, 0.3):
        argv.append(rng.choice(["--json", "--markdown"]))
    return Case("check-upgrade", tuple(argv))


def _matrix(rng: random.Random, ws: Workspace) -> Case:
    argv = ["matrix"]
    if _maybe(rng, 0.7):
        argv += ["--tf", _value(rng, "series", VERSIONS + NUMBERS)]
    if _maybe(rng, 0.4):
        argv += ["--cuda", _number(rng, "cuda")]
    if _maybe(rng, 0.3):
        argv.append(rng.choice(["--json", "--markdown", "--docs-page"]))
    return Case("matrix", tuple(argv))


def _doctor(rng: random.Random, ws: Workspace) -> Case:
    argv = ["doctor"]
    pick = rng.randrange(3)
    if pick == 0:
        flag = rng.choice(["--interpreter", "--python"])
        argv += [flag, rng.choice([*ws.paths["python"], "", ws.pick(rng, "special"), "3.11"])]
    elif pick == 1:
        argv += ["--prefix", rng.choice([*ws.paths["prefix"], "", ws.pick(rng, "special")])]
    if _maybe(rng, 0.2):
        argv.append("--import")
        argv += ["--timeout", rng.choice(["20", "20", *NUMBERS])]
    if _maybe(rng, 0.2):
        argv.append("--load-libraries")
    if _maybe(rng, 0.3):
        argv.append("--json")
    if _maybe(rng, 0.3):
        argv += _machine(rng, ws, python=False)
    smi = rng.choice(ws.smi_dirs) if _maybe(rng, 0.5) else None
    return Case("doctor", tuple(argv), smi=smi)


def _explain(rng: random.Random, ws: Workspace) -> Case:
    argv = ["explain"]
    stdin = None
    pick = rng.randrange(5)
    if pick < 2:
        argv.append(rng.choice([*STRINGS, *VERSIONS, *EXAMPLES]))
    elif pick < 4:
        argv.append("-")
        stdin = Path(ws.pick(rng, "log")).read_bytes()
    else:
        argv += ["--file", ws.pick(rng, "log", "special")]
    for flag in ("--json", "--no-detect"):
        if _maybe(rng, 0.4):
            argv.append(flag)
    if _maybe(rng, 0.3):
        argv += ["--tf", _value(rng, "tf", VERSIONS)]
    if _maybe(rng, 0.3):
        argv += _machine(rng, ws)
    return Case("explain", tuple(argv), stdin=stdin)


def _refresh(rng: random.Random, ws: Workspace) -> Case:
    argv = ["refresh"]
    if _maybe(rng, 0.7):
        mode = rng.choice(list(_PAGES))
        argv += ["--index-url", f"{ws.index_url}{mode}/simple/"]
    elif _maybe(rng):
        argv += ["--index-url", rng.choice(URLS)]
    if _maybe(rng, 0.4):
        argv.append("--check")
    else:
        argv += ["--data-dir", rng.choice([str(ws.root / "data-out"), ws.pick(rng, "special")])]
    argv += ["--package", rng.choice(["tensorflow", "tensorflow", "cuda-wheels", *STRINGS[:5]])]
    if _maybe(rng, 0.3):
        argv += ["--timeout", _number(rng, "seconds")]
    if "--check" not in argv and "--data-dir" not in argv:  # never write tfenv's own data
        argv += ["--data-dir", str(ws.root / "data-out")]
    return Case("refresh", tuple(argv))


EMPTY_FLAGS = {  # issue 26: an empty or blank value is never taken as the default
    "resolve": ["--tf", "--os", "--arch", "--gpu", "--cc", "--driver", "--glibc", "--python",
                "--host", "--emit", "--requirements", "--manager", "--gpu-index"],
    "check-upgrade": ["--from", "--to", "--from-file", "--from-env", "--config", "--target",
                      "--index-url"],
    "lock": ["--config", "--target", "--out", "--index-url", "--cache-dir", "--jobs",
             "--timeout"],
    "refresh": ["--index-url", "--data-dir", "--package", "--timeout"],
    "explain": ["--tf", "--file", "--host"],
    "detect": ["--output", "--python", "--driver", "--timeout"],
    "doctor": ["--prefix", "--interpreter", "--timeout"],
    "matrix": ["--tf", "--cuda"],
}  # fmt: skip


def _empty_value(rng: random.Random, ws: Workspace) -> Case:
    """A command with one flag given an empty or blank value, in either spelling."""
    command = rng.choice(sorted(EMPTY_FLAGS))
    flag = rng.choice(EMPTY_FLAGS[command])
    blank = rng.choice(["", " ", "\t", "  \n"])
    argv = [command, f"{flag}={blank}"] if _maybe(rng) else [command, flag, blank]
    if command == "explain":
        argv.append("ImportError: libcudart.so.12")
    return Case(command, tuple(argv))


GENERATORS: dict[str, Gen] = {
    "resolve": _resolve,
    "detect": _detect,
    "lock": _lock,
    "install": _install,
    "check-upgrade": _check_upgrade,
    "matrix": _matrix,
    "doctor": _doctor,
    "explain": _explain,
    "refresh": _refresh,
    "empty": _empty_value,  # its cases count under the command they run
}
WEIGHTS = {"refresh": 0.5, "lock": 0.8, "empty": 0.5, "install": 0.8}  # slow ones less often


def _environment(rng: random.Random, ws: Workspace) -> tuple[tuple[str, str], ...]:
    """Now and then, a hostile environment variable."""
    if not _maybe(rng, 0.15):
        return ()
    special = ws.pick(rng, "special")
    pool: list[tuple[str, str]] = [
        ("TFENV_DATA_DIR", rng.choice(ws.paths["kbdir"] + [special, ""])),
        ("TFENV_INDEX_URL", rng.choice(URLS)),
        ("PIP_INDEX_URL", rng.choice(URLS)),
        ("PIP_CONFIG_FILE", special),
        ("TFENV_CACHE_DIR", rng.choice(["", special, str(ws.root / "fifo")])),
        ("COLUMNS", rng.choice(["abc", "-5", "9" * 5000, "0"])),
        ("TFENV_DEBUG", "1"),
        ("LD_LIBRARY_PATH", rng.choice(STRINGS)),
        ("XLA_FLAGS", "--xla_gpu_cuda_data_dir=" + rng.choice(STRINGS)),
        ("CUDA_VISIBLE_DEVICES", rng.choice(STRINGS)),
        ("CONDA_PREFIX", rng.choice(STRINGS)),
    ]
    chosen = rng.sample(pool, rng.randint(1, 2))
    return tuple((k, v) for k, v in chosen if "\x00" not in v and "\ud800" not in v)


def cases(seed: int, ws: Workspace) -> Iterator[Case]:
    rng = random.Random(seed)
    names = list(GENERATORS)
    weights = [WEIGHTS.get(n, 1.0) for n in names]
    i = 0
    while True:
        # each command in turn first, so that a short budget still covers them all
        name = names[i] if i < len(names) else rng.choices(names, weights)[0]
        i += 1
        case = GENERATORS[name](rng, ws)
        env = _environment(rng, ws)
        yield Case(case.command, case.argv, case.stdin, case.smi, env) if env else case


# -- running ----------------------------------------------------------------------------


@dataclass
class Outcome:
    case: Case
    code: int
    seconds: float
    stderr: str

    @property
    def ok(self) -> bool:
        bad = "Traceback" in self.stderr or "internal error" in self.stderr
        return self.code in (0, 1, 2) and not bad and self.seconds < HANG_S


def run_case(case: Case, base_env: dict[str, str]) -> Outcome:
    from tfenv.cli import main

    env = dict(base_env)
    if case.smi is not None:
        env["PATH"] = case.smi + os.pathsep + base_env.get("PATH", "")
    env.update(dict(case.env))
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stdin = io.TextIOWrapper(io.BytesIO(case.stdin or b""), encoding="utf-8", errors="strict")
    saved = (sys.stdin, sys.stdout, sys.stderr, dict(os.environ))
    os.environ.clear()
    os.environ.update(env)
    sys.stdin, sys.stdout, sys.stderr = stdin, out, err
    faulthandler.dump_traceback_later(HANG_S * 3, exit=True, file=sys.__stderr__ or 2)
    started = time.monotonic()
    try:
        code = main(list(case.argv))
    except SystemExit as exc:  # argparse's --help and --version
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception:  # escaped main() itself: a traceback, recorded as one
        import traceback

        err.write(traceback.format_exc())
        code = -1
    finally:
        faulthandler.cancel_dump_traceback_later()
        sys.stdin, sys.stdout, sys.stderr = saved[0], saved[1], saved[2]
        os.environ.clear()
        os.environ.update(saved[3])
    seconds = time.monotonic() - started
    err.flush()
    buffer: Any = err.buffer
    text = buffer.getvalue().decode("utf-8", "replace")
    return Outcome(case, code, seconds, text)


def _leftovers(root: Path) -> list[str]:
    """Temp files and backups of tfenv's writes, and uv temp folders, still there."""
    import re

    ours = re.compile(r"^\..+\.(tmp|bak)$|^tfenv-lock-")
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ours.match(p.name))


def _peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


SIGNAL_STOPPER = """
import os, sys
from tfenv import fsutil
from tfenv.cli import main
at, signum, n = int(sys.argv[1]), int(sys.argv[2]), [0]
def hook(step):
    n[0] += 1
    if n[0] == at:
        os.kill(os.getpid(), signum)
fsutil.STEP_HOOK = hook
sys.exit(main(sys.argv[3:]))
"""
SIGNAL_EMIT = ("resolve", "--os", "linux", "--gpu", "A100", "--driver", "535.104.05",
               "--python", "3.11", "--manager", "container", "--force", "--emit")  # fmt: skip

_NOT_LEFTOVERS = (".devcontainer", ".tfenv-emit.json")  # the emitted folder and record


def _signal_cases(seed: int) -> dict[str, Any]:
    """``resolve --emit`` over an existing tree in a child that signals itself (SIGINT,
    SIGTERM, SIGKILL) at each step of the write, then a clean run: what stays behind."""
    import subprocess

    rng = random.Random(seed)
    env = {**os.environ, "TFENV_DETECT_NVML": "0"}
    codes: Counter[int] = Counter()
    left_after_signal = left_after_next = tracebacks = 0
    with tempfile.TemporaryDirectory(prefix="tfenv-fuzz-signals-") as tmp:
        for n, (at, signum) in enumerate((a, s) for a in range(1, 12) for s in (2, 15, 9)):
            folder = Path(tmp) / f"{n}-{rng.randrange(1000)}" / "cont"
            (folder / ".devcontainer").mkdir(parents=True)
            for name in ("Dockerfile", ".devcontainer/devcontainer.json"):
                (folder / name).write_text("old\n")
            argv = [sys.executable, "-c", SIGNAL_STOPPER, str(at), str(signum), *SIGNAL_EMIT]
            proc = subprocess.run([*argv, str(folder)], env=env, capture_output=True,
                                  text=True, timeout=120, check=False)  # fmt: skip
            codes[proc.returncode] += 1
            tracebacks += "Traceback" in proc.stderr or "internal error" in proc.stderr
            hidden = [p for p in folder.rglob(".*") if p.name not in _NOT_LEFTOVERS]
            left_after_signal += bool(hidden)
            again = subprocess.run([*argv[:3], "0", "0", *SIGNAL_EMIT, str(folder)], env=env,
                                   capture_output=True, timeout=120, check=False)  # fmt: skip
            codes[again.returncode] += 1
            left_after_next += any(p.name not in _NOT_LEFTOVERS for p in folder.rglob(".*"))
    return {
        "cases": 2 * 11 * 3,
        "exit_codes": dict(codes),
        "tracebacks": tracebacks,
        "runs_leaving_files_after_the_signal": left_after_signal,
        "leftovers_after_the_next_run": left_after_next,
    }


def fuzz(
    seed: int,
    n_cases: Optional[int],
    budget_s: Optional[float],
    log: Optional[Path] = None,
    signals: bool = False,
) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    codes: dict[str, Counter[int]] = {c: Counter() for c in COMMANDS}
    failures: list[dict[str, Any]] = []
    slowest: list[tuple[float, str]] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tfenv-fuzz-") as tmp, running(_Hostile) as url:
        root = Path(tmp)
        ws = build(root)
        ws.index_url = url.removesuffix("simple/")
        home = root / "home"
        home.mkdir()
        base_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(root / "tmp"),
            "TFENV_INDEX_URL": DEAD_INDEX,
            "PIP_INDEX_URL": DEAD_INDEX,
            "UV_INDEX_URL": DEAD_INDEX,
            "TFENV_DETECT_NVML": "0",
            "LC_ALL": "C.UTF-8",
        }
        (root / "tmp").mkdir()
        cwd = os.getcwd()
        os.chdir(root)
        try:
            for n, case in enumerate(cases(seed, ws)):
                if n_cases is not None and n >= n_cases:
                    break
                if budget_s is not None and time.monotonic() - started > budget_s:
                    break
                if log is not None:  # written before the case: a hang still names it
                    with log.open("a") as fh:
                        fh.write(json.dumps({"n": n, "argv": list(case.argv)[:8]}) + "\n")
                outcome = run_case(case, base_env)
                if log is not None:
                    with log.open("a") as fh:
                        fh.write(
                            json.dumps({"n": n, "code": outcome.code, "ok": outcome.ok}) + "\n"
                        )
                counts[case.command] += 1
                codes[case.command][outcome.code] += 1
                slowest.append((outcome.seconds, " ".join(map(repr, case.argv))[:200]))
                if not outcome.ok:
                    failures.append(
                        {
                            "argv": list(case.argv)[:12],
                            "env": [[k, v[:200]] for k, v in case.env],
                            "smi": case.smi,
                            "code": outcome.code,
                            "seconds": round(outcome.seconds, 2),
                            "stderr": outcome.stderr[-1500:],
                        }
                    )
        finally:
            os.chdir(cwd)
        leftovers = _leftovers(root)
    slowest.sort(reverse=True)
    signal_report = _signal_cases(seed) if signals else {}
    return {
        "leftovers": leftovers,
        "peak_rss_mib": round(_peak_rss_mib(), 1),
        "signals": signal_report,
        "seed": seed,
        "cases": dict(counts),
        "total": sum(counts.values()),
        "exit_codes": {c: dict(v) for c, v in codes.items()},
        "failures": failures,
        "tracebacks": sum(
            1 for f in failures if "Traceback" in f["stderr"] or "internal error" in f["stderr"]
        ),
        "hangs": sum(1 for f in failures if f["seconds"] >= HANG_S),
        "seconds": round(time.monotonic() - started, 1),
        "slowest": [(round(s, 2), a) for s, a in slowest[:5]],
    }


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_cli")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases")
    parser.add_argument("--budget", type=float, default=None, help="stop after this many seconds")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--log", type=Path, help="append each case and its outcome (JSON lines)")
    parser.add_argument(
        "--signals", action="store_true", help="also signal a child at each write step (~1 min)"
    )
    args = parser.parse_args(argv)
    if args.cases is None and args.budget is None:
        args.budget = 45.0
    report = fuzz(args.seed, args.cases, args.budget, args.log, args.signals)
    if args.json:
        print(json.dumps(report))
    else:
        for command in COMMANDS:
            found = sorted(report["exit_codes"][command].items())
            codes = ", ".join(f"exit {k}: {v}" for k, v in found)
            print(f"{command:14} {report['cases'].get(command, 0):5} cases  ({codes})")
        print(
            f"total {report['total']} cases in {report['seconds']} s; failures "
            f"{len(report['failures'])}, tracebacks {report['tracebacks']}, hangs {report['hangs']}"
        )
        print(f"leftovers {len(report['leftovers'])}, peak RSS {report['peak_rss_mib']} MiB")
        if report["signals"]:
            print(f"signals: {json.dumps(report['signals'])}")
        for f in report["failures"]:
            print(json.dumps(f, ensure_ascii=True)[:2000])
    sig = report["signals"]
    bad = sig and (sig["tracebacks"] or sig["leftovers_after_the_next_run"])
    return 0 if not report["failures"] and not report["leftovers"] and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
