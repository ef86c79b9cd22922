"""Atomic file writes: a temporary file beside the target, fsynced, then renamed over it, so a
reader (or a crash) sees the old file or the new one, never half of either."""

from __future__ import annotations

import glob
import json
import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path

from mtcli.errors import UserError

_TMP_ID = re.compile("[0-9a-f]{32}")  # uuid4().hex in the temporary file names


def atomic_write(path: str | os.PathLike, write: Callable[[Path], object]) -> None:
    """write(tmp_path) fills a temporary file that then replaces `path`."""
    path = Path(path)
    # not mkstemp: its files are private (0600); open() gives the usual umask permissions
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # e.g. the parent is a file: there is no temporary file either
            pass
        if isinstance(e, OSError):
            raise UserError(f"cannot write {path}: {e.strerror or e}") from None
        raise
    _fsync_dir(path.parent)
    _remove_debris(path)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable across a power cut (POSIX; directories cannot be opened on Windows)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_debris(path: Path) -> None:
    """Temporary files of earlier writes to `path` whose process was killed before the rename."""
    prefix = f".{path.name}."
    for stale in path.parent.glob(glob.escape(prefix) + "*.tmp"):
        if _TMP_ID.fullmatch(stale.name[len(prefix) : -len(".tmp")]):
            try:
                stale.unlink()
            except OSError:
                pass


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    atomic_write(path, lambda tmp: tmp.write_bytes(data))


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, obj) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")
