"""Files in and out: bounded reads of regular files, atomic writes, all-or-nothing sets.

Reading: :func:`read_text` / :func:`read_bytes` are the one way tfenv reads a file a
user named (a host file, a configuration, a lockfile, a log, package metadata). They
open without blocking, refuse anything but a regular file (a FIFO, ``/dev/zero``, a
directory) and refuse a file larger than a bound, so no input can hang tfenv or
exhaust its memory. Problems are :class:`InputFileError` (an ``OSError``) whose
``strerror`` is one sentence; callers wrap it in their own :class:`~tfenv.errors.TfenvError`.

Writing: :func:`atomic_write` writes a temp file beside the target and renames it over
the target, so readers see the old file or the new one. It only ever renames over a
regular file (or nothing): a directory or a device at the target is refused
(:class:`UnsafeTargetError`), except a terminal, a pipe or the null device, which are
written in place because that is what naming them means. :func:`replace_all` writes a
set of files all-or-nothing: every file is staged first, each existing one is kept as a
backup while the new ones are renamed into place, and any failure puts every one back.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

if TYPE_CHECKING:
    import tempfile
    from pathlib import Path

__all__ = [
    "MAX_READ",
    "InputFileError",
    "UnsafeTargetError",
    "atomic_write",
    "atomic_write_bytes",
    "describe_oserror",
    "owner_tag",
    "read_bytes",
    "read_tail",
    "read_text",
    "remove_leftovers",
    "remove_stale",
    "replace_all",
    "size_text",
    "temp_folder",
]

MAX_READ = 16 * 1024 * 1024  # the default bound on a file tfenv reads: 16 MiB
STALE_AFTER_S = 24 * 3600.0  # temp files and folders older than this are left-overs

PathLike = Union[str, "os.PathLike[str]"]


class InputFileError(OSError):
    """A file cannot be read as the text tfenv needs; ``strerror`` says why."""

    def __init__(self, reason: str, errno: int = 0) -> None:
        super().__init__(errno, reason)

    def __str__(self) -> str:
        return str(self.strerror)


class UnsafeTargetError(OSError):
    """The path to write is a directory or a special file that must not be replaced."""

    def __init__(self, reason: str, errno: int = 0) -> None:
        super().__init__(errno, reason)

    def __str__(self) -> str:
        return str(self.strerror)


def describe_oserror(exc: BaseException) -> str:
    """The reason an OS call failed, as words (``No such file or directory``)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


# -- reading ------------------------------------------------------------------------


def _open_for_reading(path: PathLike) -> int:
    """A descriptor opened without blocking (a FIFO with no writer does not hang us);
    InputFileError names why it cannot be opened."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags)
    except OSError as exc:
        raise InputFileError(describe_oserror(exc), exc.errno or 0) from None
    except ValueError as exc:  # a NUL byte in the path
        raise InputFileError(describe_oserror(exc)) from None


@contextmanager
def _regular_file(path: PathLike) -> Iterator[tuple[int, os.stat_result]]:
    """The open descriptor and status of the regular file at ``path``, closed afterwards;
    anything but a regular file, and any OSError while it is read, is an InputFileError."""
    fd = _open_for_reading(path)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"it is {_kind(st.st_mode)}, not a regular file")
        yield fd, st
    except InputFileError:
        raise
    except OSError as exc:
        raise InputFileError(describe_oserror(exc)) from None
    finally:
        os.close(fd)


def _read_up_to(fd: int, n: int) -> bytes:
    """At most ``n`` bytes from ``fd``, fewer only at its end."""
    chunks: list[bytes] = []
    size = 0
    while size < n:
        chunk = os.read(fd, min(1 << 20, n - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_bytes(path: PathLike, limit: int = MAX_READ, what: str = "") -> bytes:
    """The bytes of the regular file at ``path``; InputFileError for anything else, or
    for a file over ``limit`` bytes (``what`` says of what kind of file that is the most
    tfenv reads: "of a TOML file")."""
    with _regular_file(path) as (fd, _):
        data = _read_up_to(fd, limit + 1)  # one byte more tells a file over the bound
    if len(data) > limit:
        of = f" {what}" if what else ""
        raise InputFileError(f"it is larger than {size_text(limit)}, the most tfenv reads{of}")
    return data


def read_tail(path: PathLike, keep: int) -> tuple[bytes, bool]:
    """The last ``keep`` bytes of the regular file at ``path`` and whether it is longer
    (a log's end holds its errors); InputFileError for anything but a regular file."""
    with _regular_file(path) as (fd, st):
        start = max(0, st.st_size - keep)
        if start:
            os.lseek(fd, start, os.SEEK_SET)
        return _read_up_to(fd, keep), start > 0


def read_text(path: PathLike, limit: int = MAX_READ, errors: str = "strict", what: str = "") -> str:
    """The UTF-8 text of the regular file at ``path`` (see :func:`read_bytes`)."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"it is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def size_text(n: int) -> str:
    """A size limit in words: whole MiB or KiB where it is one, else bytes."""
    for unit, name in ((1024 * 1024, "MiB"), (1024, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} bytes"


# -- writing ------------------------------------------------------------------------


def atomic_write(path: Path, text: str, mode: int = 0o644, *, parents: bool = True) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    atomic_write_bytes(path, text.encode("utf-8"), mode, parents=parents)


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o644, *, parents: bool = True) -> None:
    """Atomically replace a regular file (or create one); a stream target is written in place.

    ``parents`` creates missing folders above ``path``.
    """
    if _write_stream(path, data):
        return
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    _check_target(path)
    tmp = _stage(path, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def replace_all(
    folder: Path,
    files: Sequence[tuple[str, bytes]],
    mode: int = 0o644,
    modes: Optional[Mapping[str, int]] = None,
    remove: Sequence[str] = (),
) -> list[Path]:
    """Write every ``(name, data)`` into ``folder``, and remove the files named in
    ``remove``, or do none of it (each file with ``mode``, or its own from ``modes``).

    A name may hold ``/`` (a file in a subfolder, created as needed). All files are
    staged as temp files first; then, one by one, an existing file is kept as a backup (a
    hard link, else a rename) and its temp file renamed over it, each file to remove is
    renamed to a backup, and at last the backups are removed. If anything fails, every
    file already replaced or removed is restored from its backup (or removed when it did
    not exist before), the folders made for the new files are removed again, and the
    OSError is raised.

    SIGINT, SIGTERM and SIGHUP arriving while the files are swapped wait until the swap
    and its clean-up are done (a signal cannot leave backups behind); temp files and
    backups carry their run's host and process id, so the next write into the folder
    removes those of a run that is gone (killed by SIGKILL), however recent.
    """
    finals = [_inside(folder, name) for name, _ in files]
    gone = [_inside(folder, name) for name in remove]
    for final in finals + gone:
        _check_target(final)
    made: list[Path] = []  # folders this call created, outermost first
    staged: list[Path] = []
    try:
        for final in finals:
            made += _make_folders(final.parent)
        for (name, data), final in zip(files, finals):
            remove_leftovers(final.parent, f".{final.name}.", (".tmp", ".bak"))
            _step("stage")
            staged.append(_stage(final, data, (modes or {}).get(name, mode)))
        for final in gone:
            remove_leftovers(final.parent, f".{final.name}.", (".tmp", ".bak"))
    except BaseException:
        _discard(staged, made)
        raise
    with _signals_deferred():
        done: list[tuple[Path, Path | None]] = []  # (final, backup or None: it was new)
        try:
            _swap(staged, finals, gone, done)
        except BaseException as exc:
            problems = _restore(done)
            _discard(staged, made)
            if problems and isinstance(exc, OSError):
                raise OSError(
                    exc.errno,
                    f"{describe_oserror(exc)}; and restoring failed for {'; '.join(problems)}",
                ) from None
            raise
        for _final, backup in done:
            if backup is not None:
                _step("clean")
                backup.unlink(missing_ok=True)
    return finals


def _swap(
    staged: list[Path], finals: list[Path], gone: list[Path], done: list[tuple[Path, Path | None]]
) -> None:
    """Rename each temp file over its final name and each file to remove to a backup,
    recording in ``done`` what to put back if a later one fails."""
    for tmp, final in zip(staged, finals):
        _step("backup")
        backup = _backup(final)
        done.append((final, backup))
        _step("rename")
        os.replace(tmp, final)
    for final in gone:
        _step("backup")
        aside = _set_aside(final)
        if aside is not None:
            done.append((final, aside))


def _inside(folder: Path, name: str) -> Path:
    """``folder / name`` for a relative name that stays inside ``folder``."""
    from pathlib import Path  # the readers (a warm resolve) need none of it

    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or ".." in parts:
        raise UnsafeTargetError(f"{name!r} is not a file name inside {folder}")
    return folder.joinpath(*parts)


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, outermost first."""
    missing = []
    here = folder
    while not os.path.isdir(here):
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    made = []
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            if not path.is_dir():
                raise
            continue
        made.append(path)
    return made


def _discard(staged: list[Path], made: list[Path]) -> None:
    """Remove staged temp files and the (then empty) folders made for them."""
    for tmp in staged:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
    for path in reversed(made):
        with contextlib.suppress(OSError):
            path.rmdir()


#: Called with the name of each step of :func:`replace_all` ("stage", "backup", "rename",
#: "clean") just before it; None outside tests, which set it to stop a run at each step.
STEP_HOOK: Optional[Callable[[str], None]] = None


def _step(name: str) -> None:
    if STEP_HOOK is not None:
        STEP_HOOK(name)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back while the body runs, then deliver the first
    that came to the handler that was in place (in the main thread; elsewhere no handler
    can be changed, and nothing is held)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def hold(signum: int, _frame: object) -> None:
        pending.append(signum)

    wanted: list[int] = [signal.SIGINT, signal.SIGTERM]
    if hasattr(signal, "SIGHUP"):
        wanted.append(signal.SIGHUP)
    previous: dict[int, Any] = {}
    try:
        for signum in wanted:
            previous[signum] = signal.signal(signum, hold)
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if pending:
            _deliver(pending[0], previous.get(pending[0]))


def _deliver(signum: int, handler: Any) -> None:
    import signal

    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)


def _backup(final: Path) -> Path | None:
    """Keep the current ``final`` under a hidden name; None when there is none."""
    if not os.path.lexists(final):
        return None
    backup = _fresh_name(final, ".bak")
    try:
        os.link(final, backup)
    except OSError:
        os.rename(final, backup)  # no hard links here: a rename keeps it as well
    return backup


def _set_aside(final: Path) -> Path | None:
    """Rename ``final`` (a file to remove) to a hidden backup name; None when it is absent."""
    if not os.path.lexists(final):
        return None
    backup = _fresh_name(final, ".bak")
    os.rename(final, backup)
    return backup


def _restore(done: list[tuple[Path, Path | None]]) -> list[str]:
    problems = []
    for final, backup in reversed(done):
        try:
            if backup is None:
                if os.path.lexists(final):
                    final.unlink()
            else:
                os.replace(backup, final)
        except OSError as exc:
            problems.append(f"{final} ({describe_oserror(exc)})")
    return problems


def _stage(path: Path, data: bytes, mode: int) -> Path:
    import tempfile  # only writers pay for it (it pulls in shutil and the compressors)
    from pathlib import Path

    fd, name = tempfile.mkstemp(
        prefix=f".{path.name}.{owner_tag()}-", suffix=".tmp", dir=path.parent
    )
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _fresh_name(path: Path, suffix: str) -> Path:
    import secrets

    return path.with_name(f".{path.name}.{owner_tag()}-{secrets.token_hex(4)}{suffix}")


def _check_target(path: Path) -> None:
    """Only a regular file (or nothing) may be renamed over."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # absent, a dangling symlink or unreadable: the rename decides
    if not stat.S_ISREG(mode):
        raise UnsafeTargetError(
            f"{path} is {_kind(mode)}, not a regular file; tfenv will not replace it"
        )


def _write_stream(path: Path, data: bytes) -> bool:
    """Write in place when ``path`` is a terminal, a pipe or the null device; else False.

    Raises UnsafeTargetError for any other existing non-regular file.
    """
    try:
        st = os.stat(path)
    except OSError:
        return False
    if stat.S_ISREG(st.st_mode):
        return False
    if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
        _check_target(path)  # raises: a directory, a socket, a block device
    flags = os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if stat.S_ISFIFO(st.st_mode):
            raise UnsafeTargetError(
                f"{path} is a FIFO (named pipe) that no process is reading", exc.errno or 0
            ) from None
        raise
    try:
        if stat.S_ISCHR(st.st_mode) and not (os.isatty(fd) or _is_devnull(st)):
            raise UnsafeTargetError(
                f"{path} is a character device, not a terminal or a regular file"
            )
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return True


def _is_devnull(st: os.stat_result) -> bool:
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return (st.st_rdev, st.st_mode) == (null.st_rdev, null.st_mode)


# -- left-overs ---------------------------------------------------------------------

_OWNER = r"(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]{1,10})-"  # compiled by re when first used


def owner_tag() -> str:
    """This run's mark in the names of its temp files and folders: a digest of the host
    name and the process id (``3fa2b1c0-4242``), so that a later run can tell whether the
    run that made them is still alive."""
    return f"{_host_tag()}-{os.getpid()}"


def _host_tag() -> str:
    import hashlib
    import socket

    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _owner_gone(rest: str) -> bool:
    """Whether ``rest`` (a name after its prefix) starts with the tag of a run on this host
    that has ended; False when it has no tag, is from another host, or may still run."""
    found = re.match(_OWNER, rest)
    if found is None or found.group("host") != _host_tag() or sys.platform == "win32":
        return False  # (os.kill(pid, 0) would end the process on Windows)
    pid = int(found.group("pid"))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False


def remove_leftovers(
    folder: Path, prefix: str, suffixes: tuple[str, ...] = ("",), max_age_s: float = STALE_AFTER_S
) -> None:
    """Remove files and folders in ``folder`` named ``prefix*suffix`` and owned by this
    user that a run left behind: one whose owner tag (:func:`owner_tag`) names a process
    of this host that has ended, whatever its age, or any older than ``max_age_s``
    (from another host, or from before names carried the tag); nothing else."""
    import shutil

    cutoff = time.time() - max_age_s
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(prefix) or not entry.name.endswith(suffixes):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                continue
            if st.st_mtime >= cutoff and not _owner_gone(entry.name[len(prefix) :]):
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            continue


remove_stale = remove_leftovers  # the name it had before left-overs carried their owner


def temp_folder(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A new temp folder ``<prefix><owner tag>-<random>``, removed when the returned
    ``TemporaryDirectory`` is cleaned up; first removes the folders of that prefix that
    runs killed before their clean-up (SIGKILL) left behind (:func:`remove_leftovers`)."""
    import tempfile
    from pathlib import Path

    remove_leftovers(Path(tempfile.gettempdir()), prefix)
    return tempfile.TemporaryDirectory(prefix=f"{prefix}{owner_tag()}-")
