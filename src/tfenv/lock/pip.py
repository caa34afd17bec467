"""pip routes: the full closure for one target, resolved by uv for that target's platform.

uv runs as a subprocess (``uv pip compile --format pylock.toml``) with a
controlled environment: no user or project configuration, no ``UV_*``/``PIP_*``
variables from the caller except proxies and certificates, the shared cache
directory, explicit timeouts and retries. The resolution is for the target's
``--python-platform`` and ``--python-version``, never the host's, and is
constrained by the solver's plan (its pins go in as requirements and as
constraints). The result is a parsed pylock document; ``pylock.py`` turns it into
both lockfiles.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from tfenv.errors import LockError
from tfenv.lock import LOCK_EXTRA_HINT

if TYPE_CHECKING:
    from tfenv.models.plan import Plan
    from tfenv.models.target import Target

from tfenv.i18n import _
from tfenv.lock.assumed import ASSUMED_GLIBC

__all__ = [
    "DEFAULT_GLIBC",
    "PipLockSpec",
    "UvRun",
    "compile_pylock",
    "find_uv",
    "plan_requirements",
    "python_platform",
    "uv_command",
    "uv_env",
]

DEFAULT_GLIBC = ASSUMED_GLIBC  # assumed when a Linux target does not say
_GLIBC_RANGE = (17, 40)  # the manylinux_2_X targets uv knows
_KEEP_ENV = (
    "PATH",
    "HOME",
    "USERPROFILE",
    "SYSTEMROOT",
    "TMPDIR",
    "TEMP",
    "TMP",
    "XDG_CACHE_HOME",
    "LOCALAPPDATA",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "UV_CACHE_DIR",
    "UV_NATIVE_TLS",
)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_TEMP_PREFIX = "tfenv-lock-"


@dataclass(frozen=True)
class PipLockSpec:
    """Everything one uv run needs; nothing here is read from the caller's environment."""

    index_url: str
    python_version: str
    python_platform: str
    requirements: tuple[str, ...]
    constraints: tuple[str, ...] = ()
    cache_dir: Optional[Path] = None
    offline: bool = False
    timeout_s: float = 30.0
    retries: int = 3
    uv_bin: Optional[str] = None
    extra_env: tuple[tuple[str, str], ...] = field(default=())


def find_uv() -> str:
    """The uv binary of the ``uv`` PyPI package (the ``lock`` extra)."""
    try:
        import uv
    except ImportError:
        raise LockError(
            _("tfenv lock needs uv, which is not installed."),
            hint=_("{lock_extra_hint} For pip routes, pip install uv is enough.").format(
                lock_extra_hint=_(LOCK_EXTRA_HINT)
            ),
        ) from None
    return str(uv.find_uv_bin())


def python_platform(target: Target) -> str:
    """uv's ``--python-platform`` for the target machine."""
    major, minor = (target.glibc.major, target.glibc.minor) if target.glibc else DEFAULT_GLIBC
    minor = max(_GLIBC_RANGE[0], min(_GLIBC_RANGE[1], minor)) if major == 2 else minor
    return target.platform.uv_platform((2, minor))


def plan_requirements(
    plan: Plan, dependencies: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(requirements, constraints): the plan's pins plus the project's dependencies;
    the TensorFlow distribution and what the release needs of its dependencies to run
    (the plan's runtime constraints: ``numpy<2``) are also constraints, so no dependency
    can move them."""
    reqs = tuple(plan.pip) + tuple(dependencies)
    return reqs, (f"{plan.package}=={plan.tensorflow}", *(c.line for c in plan.constraints))


def uv_env(spec: PipLockSpec, environ: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    """The environment uv runs in: only what is listed here."""
    src = os.environ if environ is None else environ
    env = {k: src[k] for k in _KEEP_ENV if k in src}
    env.update(
        UV_NO_CONFIG="1",
        UV_NO_PROGRESS="1",
        NO_COLOR="1",
        UV_PYTHON_DOWNLOADS="never",
        UV_HTTP_TIMEOUT=str(max(1, round(spec.timeout_s))),
        UV_HTTP_RETRIES=str(spec.retries),
    )
    if spec.cache_dir is not None:
        env["UV_CACHE_DIR"] = str(spec.cache_dir)
    env.update(dict(spec.extra_env))
    return env


def uv_command(spec: PipLockSpec, req_in: Path, constraints: Path, out: Path) -> list[str]:
    cmd = [
        spec.uv_bin or find_uv(),
        "pip",
        "compile",
        str(req_in),
        "--constraints",
        str(constraints),
        "--python-platform",
        spec.python_platform,
        "--python-version",
        spec.python_version,
        "--python",  # builds sdists if any; saves uv's interpreter discovery (~0.1 s)
        sys.executable,
        "--generate-hashes",
        *(["--index-url", spec.index_url] if spec.index_url else []),
        "--no-config",
        "--format",
        "pylock.toml",
        "--output-file",
        str(out),
        "--no-header",
        "--quiet",
    ]
    if spec.offline:
        cmd.append("--offline")
    return cmd


def compile_pylock(
    spec: PipLockSpec, environ: Optional[Mapping[str, str]] = None
) -> dict[str, Any]:
    """Run uv for one target and return its pylock document (parsed TOML)."""
    return UvRun(spec, environ).result()


class UvRun:
    """One ``uv pip compile`` process, started on creation; :meth:`result` waits for it.

    Its inputs, output and stderr live in a ``tfenv-lock-*`` temp folder removed by
    :meth:`result` or :meth:`cancel` (stderr goes to a file, so no pipe can fill while
    nobody reads); the folder's name carries this run's host and process id, so the next
    run removes one left by a killed run at once (any other after a day). uv runs in
    tfenv's process group and ends with it (``tfenv.procs``).
    """

    def __init__(self, spec: PipLockSpec, environ: Optional[Mapping[str, str]] = None) -> None:
        from tfenv.fsutil import temp_folder

        self.spec = spec
        self._tmp = temp_folder(_TEMP_PREFIX)
        folder = Path(self._tmp.name)
        req_in, cons = folder / "requirements.in", folder / "constraints.txt"
        self._out = folder / "pylock.toml"
        req_in.write_text("".join(f"{r}\n" for r in spec.requirements), "utf-8")
        cons.write_text("".join(f"{c}\n" for c in spec.constraints), "utf-8")
        cmd = uv_command(spec, req_in, cons, self._out)
        self._timeout = max(120.0, spec.timeout_s * 20)
        self._started = time.monotonic()
        self._err = (folder / "uv.stderr").open("w+", encoding="utf-8", errors="replace")
        from tfenv import procs

        try:
            self._proc = procs.start(
                cmd, env=uv_env(spec, environ), cwd=str(folder), stderr=self._err
            )
        except OSError as exc:
            self._close()
            raise LockError(
                _("Cannot run uv ({cmd}): {value}.").format(cmd=cmd[0], value=exc.strerror or exc)
            ) from None
        except procs.Stopping:
            self._close()
            raise LockError(_("tfenv is stopping; uv was not started.")) from None

    def result(self) -> dict[str, Any]:
        """Wait for uv; its pylock document, or LockError saying what went wrong."""
        try:
            left = self._timeout - (time.monotonic() - self._started)
            try:
                code = self._proc.wait(timeout=max(0.0, left))
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
                raise LockError(
                    _("uv did not finish within {timeout:.0f} s.").format(timeout=self._timeout)
                ) from None
            if code != 0:
                self._err.seek(0)
                message, hint = _explain(self._err.read(), self.spec)
                raise LockError(message, hint=hint or None)
            return _parse(self._out)
        finally:
            self._done()

    def cancel(self) -> None:
        """Stop uv if it still runs, and remove its folder."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._done()

    def _close(self) -> None:
        self._err.close()
        self._tmp.cleanup()

    def _done(self) -> None:
        from tfenv import procs

        procs.forget(self._proc)
        self._close()


def _explain(stderr: str, spec: PipLockSpec) -> tuple[str, str]:
    """(message, hint) from uv's error output."""
    text = _ANSI.sub("", stderr).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    detail = " ".join(lines[:12]) or _("uv failed without saying why")
    low = text.lower()
    if spec.offline and ("offline" in low or "not found in the cache" in low or "cache" in low):
        return (
            _("Offline, and the cache lacks something this lock needs: {detail}").format(
                detail=detail
            ),
            _("Run 'tfenv lock' once online (same cache directory) to fill the cache."),
        )
    if "no solution found" in low:
        return (
            _(
                "The packages cannot be resolved together for {platform}, Python {python}: {detail}"
            ).format(platform=spec.python_platform, python=spec.python_version, detail=detail),
            _("Relax the project's dependencies, or pin another TensorFlow version."),
        )
    if "hash" in low and "mismatch" in low:
        return (
            _("The index served a file whose hash does not match: {detail}").format(detail=detail),
            "",
        )
    if any(w in low for w in ("timed out", "timeout", "connect", "status code", "http", "network")):
        return (
            _("The package index {index} could not be read: {detail}").format(
                index=_redact(spec.index_url) or _("(uv default)"), detail=detail
            ),
            _("Check the index URL and the network, or use --offline with a warm cache."),
        )
    return (_("uv failed: {detail}").format(detail=detail), "")


def _redact(url: str) -> str:
    from tfenv.index_url import redact

    return redact(url)


def _parse(path: Path) -> dict[str, Any]:
    from tfenv.structured import parse_toml

    try:
        return parse_toml(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LockError(_("uv wrote no readable lock: {exc}.").format(exc=exc)) from None
