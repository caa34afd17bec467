"""``tfenv doctor --import``: import TensorFlow in the target interpreter, with a time limit,
and run the checks of a plan's Verify step there (the GPU list, a computation)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from tfenv.doctor.findings import Finding, Status
from tfenv.i18n import _
from tfenv.models.sentence import said

__all__ = ["ImportResult", "error_line", "run_import_check"]

_MARK = "TFENV-DOCTOR-RESULT "
_SCRIPT = r"""
import json, sys
out = {}
try:
    import tensorflow as tf
except ModuleNotFoundError as exc:
    if exc.name == "tensorflow":
        print("TFENV-DOCTOR-RESULT " + json.dumps({"missing": True}))
        sys.exit(0)
    raise
out["version"] = tf.__version__
out["built_with_cuda"] = bool(tf.test.is_built_with_cuda())
# the checks of a plan's Verify step (tfenv.models.plan.VERIFY_GPU and VERIFY_CPU)
gpus = tf.config.list_physical_devices("GPU")
out["gpus"] = [g.name for g in gpus]
try:
    with tf.device("/CPU:0"):
        out["computed"] = float(tf.reduce_sum(tf.random.normal([1000, 1000])))
except Exception as exc:
    out["compute_error"] = f"{type(exc).__name__}: {exc}"[:2000]
out["details"] = [tf.config.experimental.get_device_details(g) for g in gpus]
out["build_info"] = {k: str(v) for k, v in dict(tf.sysconfig.get_build_info()).items()}
if gpus:
    with tf.device("/GPU:0"):
        a = tf.random.uniform((256, 256))
        c = tf.matmul(a, a)
    out["matmul_device"] = c.device
print("TFENV-DOCTOR-RESULT " + json.dumps(out, default=str))
# the result is out: TensorFlow's teardown (its threads, static destructors) checks nothing
# and costs up to a second or more, so the child ends here
import os
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
"""


@dataclass(frozen=True)
class ImportResult:
    findings: tuple[Finding, ...]
    data: Optional[dict[str, Any]]
    log: str  # stderr of the child: TensorFlow's own log, for `tfenv explain`


def run_import_check(
    python: str,
    timeout: float,
    has_gpu: bool = True,
    env: Optional[Mapping[str, str]] = None,
    os: str = "linux",
) -> ImportResult:
    """Import TensorFlow in ``python``, isolated: ``-I`` (no current folder, user site or
    PYTHON* variables) in a new empty folder, so a ``tensorflow.py`` or ``tensorflow/``
    where tfenv was started cannot be imported instead. ``has_gpu``: whether this machine
    has an NVIDIA GPU (without one, a CUDA build that sees none is what is expected);
    ``env``: the child's environment (None: tfenv's own), e.g. an activated environment's;
    ``os``: the system whose shell a fix is written for."""
    from tfenv import procs

    try:
        proc = procs.run(
            [python, "-I", "-c", _SCRIPT],
            timeout=timeout,
            neutral_cwd=True,
            errors="replace",
            env=env,
        )
    except subprocess.TimeoutExpired:
        f = Finding(
            "import",
            "problem",
            said(
                "import-timeout",
                _("Importing TensorFlow took longer than {timeout:g} s"),
                timeout=timeout,
            ),
            said(
                "import-timeout-detail",
                _(
                    "A first start on a GPU without native kernels JIT-compiles PTX and can take "
                    "long."
                ),
            ),
            said(
                "fix-larger-timeout",
                _("rerun with a larger --timeout; see the compute-capability finding"),
            ),
        )
        return ImportResult((f,), None, "")
    except OSError as exc:
        f = Finding(
            "import",
            "problem",
            said("import-cannot-run", _("Cannot run {python}: {exc}"), python=python, exc=exc),
        )
        return ImportResult((f,), None, "")
    data = _result(proc.stdout)
    if data is None:
        last = error_line(proc.stderr)
        f = Finding(
            "import",
            "problem",
            said(
                "import-failed",
                _("Importing TensorFlow failed (exit {returncode})"),
                returncode=proc.returncode,
            ),
            said("import-last-line", "{line}", line=last),
            said(
                "fix-explain-log", _("the import's log is printed below: `tfenv explain` reads it")
            ),
        )
        return ImportResult((f,), None, proc.stderr)
    return ImportResult(tuple(_findings(data, has_gpu, _install(python, os))), data, proc.stderr)


def _install(python: str, os: str) -> str:
    """``PYTHON -m pip install tensorflow`` in ``os``'s shell (``python`` in the activated
    environment where the path cannot start a Windows command bare)."""
    from pathlib import Path

    from tfenv.doctor.env import TargetEnv
    from tfenv.doctor.runtime import pip_line

    target = TargetEnv(Path(python).parent, None, (), (), (), False, interpreter=python)
    return pip_line(target, ["install", "tensorflow"], os)


#: a line that names the exception a failed run ended with (``TypeError: ...``)
_EXCEPTION_LINE = re.compile(r"[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)(?::.*)?")


def error_line(log: str) -> str:
    """The line of a failed import's log that says what went wrong: the last exception
    line (``TypeError: Unable to convert ...``), else the last line with text, stripped
    (a traceback's last line is often an indented detail such as a tab and ``() ->
    handle``, which says nothing alone)."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    for line in reversed(lines):
        if _EXCEPTION_LINE.fullmatch(line):
            return line
    return lines[-1] if lines else _("(no output)")


def _result(stdout: str) -> Optional[dict[str, Any]]:
    from tfenv.structured import StructureError, load_json

    for line in reversed(stdout.splitlines()):
        if line.startswith(_MARK):
            try:
                data = load_json(line[len(_MARK) :])
            except StructureError:
                return None
            return data if isinstance(data, dict) else None
    return None


def _findings(
    data: dict[str, Any], has_gpu: bool = True, install: str = "pip install tensorflow"
) -> list[Finding]:
    if data.get("missing"):
        return [
            Finding(
                "import",
                "problem",
                said(
                    "import-missing",
                    _("TensorFlow is not installed for this interpreter (import tensorflow fails)"),
                ),
                fix=said("fix-pip-install-tensorflow", "{command}", command=install),
            )
        ]
    version = data.get("version")
    out = [
        Finding(
            "import",
            "ok",
            said("import-ok", _("import tensorflow works: {version}"), version=version),
        )
    ]
    if data.get("compute_error"):
        out.append(
            Finding(
                "import-compute",
                "problem",
                said(
                    "import-compute-failed",
                    _("A computation on the CPU failed (the Verify check of a CPU plan)"),
                ),
                said("import-compute-error", "{error}", error=data["compute_error"]),
                said("fix-explain-message", _("run `tfenv explain` on the message")),
            )
        )
    info = data.get("build_info")
    info = info if isinstance(info, dict) else {}
    detail = said(
        "import-build-info",
        "{info}",
        info=", ".join(f"{k}={info[k]}" for k in ("cuda_version", "cudnn_version") if k in info),
    )
    if not data.get("built_with_cuda"):
        status: Status = "warning" if has_gpu else "ok"
        if has_gpu:
            title = said("import-not-cuda", _("This TensorFlow is not built with CUDA"))
        else:
            title = said(
                "import-not-cuda-cpu",
                _(
                    "This TensorFlow is not built with CUDA: TensorFlow runs on the CPU, as it "
                    "must here (no NVIDIA GPU)"
                ),
            )
        out.append(Finding("import-cuda", status, title, detail))
        return out
    raw_gpus = data.get("gpus")
    gpus = [str(g) for g in raw_gpus] if isinstance(raw_gpus, list) else []
    if not gpus and not has_gpu:
        out.append(
            Finding(
                "import-gpu",
                "ok",
                said(
                    "import-gpu-none-expected",
                    _(
                        "A CUDA build that sees no GPU, as expected on a machine without an NVIDIA "
                        "GPU (a CPU CI runner): TensorFlow runs on the CPU"
                    ),
                ),
                detail,
            )
        )
        return out
    if not gpus:
        out.append(
            Finding(
                "import-gpu",
                "problem",
                said(
                    "import-gpu-none", _("A CUDA build, but list_physical_devices('GPU') is empty")
                ),
                detail,
                said(
                    "fix-see-libraries",
                    _("see the library findings above, or run `tfenv explain` on the log"),
                ),
            )
        )
        return out
    out.append(
        Finding(
            "import-gpu",
            "ok",
            said("import-gpus", _("GPUs visible: {gpus}"), gpus=", ".join(gpus)),
            detail,
        )
    )
    device = str(data.get("matmul_device", ""))
    ran: Status = "ok" if "GPU" in device else "problem"
    out.append(
        Finding(
            "import-matmul",
            ran,
            said("import-matmul", _("A matmul placed on /GPU:0 ran on {device}"), device=device),
        )
    )
    return out
