"""Every file Stepformer writes goes through `write_atomic`: all of it is written, or nothing changes.

The bytes go to a temporary file in the target's folder, are flushed to disk and checked (the file on disk
has exactly their size), then the temporary file is renamed over the target and the folder is synced, so a
crash or a full disk at any moment leaves either the old file or the new one. Any failure (disk full,
read-only, no permission, no such folder, a target that is a folder or a system file) is one EngineError
naming the file and the reason, and the temporary file is removed.

- A symlink is written through: the file it points to is replaced, in that file's folder; the link stays.
- A new file gets the usual mode (0666 less the umask); a replaced file keeps its mode.
- Temporary files are named `.NAME.PID.RANDOM.tmp`. A writer killed mid-write leaves one behind; the next
  write of the same file removes those whose process is gone (never one of a process still running).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ..errors import EngineError

TEMP_SUFFIX = ".tmp"


def write_atomic(path: str | Path, data: bytes) -> Path:
    """Write all of `data` to `path` or nothing; returns the file written (a symlink's target)."""
    if not data:
        _regular_target(Path(path))
        raise EngineError(f"cannot write {path}: there is nothing to write")
    return write_atomic_with(path, lambda file: _write_bytes(file, data))


def write_atomic_with(path: str | Path, fill: Callable[[BinaryIO], int]) -> Path:
    """Like write_atomic, for a writer too large to hold in memory first: `fill` writes the whole file into the
    open binary file it is given (raising OSError when a write failed) and returns how many bytes it wrote."""
    path = Path(path)
    target = _regular_target(path)
    remove_stale_temps(target)
    mode = _mode_for(target)
    tmp = _create_temp(target, path)
    try:
        _write_all(tmp, fill)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise EngineError(f"cannot write {path}: {_reason(exc)}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(target.parent)
    return target


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_target(path: Path) -> None:
    """Refuse now what write_atomic would refuse (a folder, a special file, a folder that is missing or where
    no file can be created): writers that take long to make their bytes call it first, to fail before the work."""
    _create_temp(_regular_target(path), path).unlink()


def _regular_target(path: Path) -> Path:
    """The regular file to replace: the path itself, or where its symlink(s) point; refuses the rest."""
    target = Path(os.path.realpath(path))
    folder = target.parent
    if not folder.is_dir():
        raise EngineError(f"cannot write {path}: the folder {folder} does not exist")
    if target.is_dir():
        raise EngineError(f"cannot write {path}: it is a folder")
    if target.exists() and not target.is_file():
        raise EngineError(f"cannot write {path}: it is not a regular file (a device, pipe or socket)")
    return target


def _mode_for(target: Path) -> int:
    """The replaced file's permission bits, or those a new file gets under the current umask."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0o022)  # reading the umask means setting it; it is put back at once
        os.umask(umask)
        return 0o666 & ~umask


def _create_temp(target: Path, path: Path) -> Path:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        raise EngineError(f"cannot write {path}: cannot create a file in {target.parent} ({_reason(exc)})") from None
    return tmp


def _write_bytes(file: BinaryIO, data: bytes) -> int:
    file.write(data)
    return len(data)


def _write_all(tmp: Path, fill: Callable[[BinaryIO], int]) -> None:
    """Write, flush and fsync; then the size on disk must be the size `fill` wrote."""
    with open(tmp, "wb") as f:
        size = fill(f)
        f.flush()
        os.fsync(f.fileno())
        written = os.fstat(f.fileno()).st_size
    if written != size:
        raise OSError(f"only {written} of {size} bytes reached the disk")


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); Windows has no folder handles to sync."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---- temporary files of writers that were killed ------------------------------------------------
def temp_files(target: Path) -> list[tuple[Path, int]]:
    """The temporary files of `target` in its folder, each with the id of the process that wrote it."""
    pattern = re.compile(re.escape(f".{target.name}.") + r"(\d+)\.[0-9a-f]+" + re.escape(TEMP_SUFFIX))
    found = []
    for candidate in target.parent.glob(f".{target.name}.*{TEMP_SUFFIX}"):
        match = pattern.fullmatch(candidate.name)
        if match:
            found.append((candidate, int(match.group(1))))
    return found


def remove_stale_temps(target: Path) -> None:
    """Remove `target`'s temporary files whose writer is no longer running."""
    for tmp, pid in temp_files(target):
        if not _running(pid):
            tmp.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    """Whether process `pid` exists. Only POSIX can ask without harm, so elsewhere every writer counts as live."""
    if os.name != "posix" or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process
        return True
    return True
