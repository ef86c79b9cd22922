"""Arrays mtcli makes once from a slower source and keeps in the user cache directory, read memory-mapped after
that: langid's model decompressed, a translator's weights as float32. An entry is a directory of .npy files under
a key that names what it was made from; written whole or not at all, and one that cannot be read is made again."""

from __future__ import annotations

from pathlib import Path


def root(name: str) -> Path | None:
    """The cache's directory for `name`; None where it would lie in a home directory that does not exist
    (HOME=/nonexistent, a service account's: making it had created /nonexistent/.cache for a translation)."""
    from platformdirs import user_cache_dir

    where, home = Path(user_cache_dir("mtcli", appauthor=False)) / name, Path.home()
    return None if where.is_relative_to(home) and not home.is_dir() else where


def read(directory: Path, names, mode: str = "r") -> dict | None:
    """The entry's arrays by name, memory-mapped (mode "c": writable, the writes this process's own), or None
    when one is missing or not a .npy file. The entry is marked used (its mtime), which write keeps by."""
    import os

    import numpy as np

    try:
        arrays = {name: np.load(directory / f"{name}.npy", mmap_mode=mode, allow_pickle=False) for name in names}
    except (OSError, ValueError, EOFError):  # missing, truncated, not .npy
        return None
    try:
        os.utime(directory)
    except OSError:  # (a read-only cache: kept as it is)
        pass
    return arrays


# a temporary entry this old was left by a writer that was killed (SIGKILL, a power cut): a live one's last file is
# made seconds after it (the weights' 28 MB), and a writer that fails or is interrupted removes its own
STALE_SECONDS = 3600


def write(where: Path, key: str, arrays: dict, keep: int = 1) -> None:
    """The arrays into where/key, whole or not at all (written aside, then renamed); of the other keys, all but
    the keep - 1 last used (read or written) are removed, and so are temporary entries left STALE_SECONDS ago."""
    import os
    import shutil
    import uuid

    import numpy as np

    tmp = where / f".{key}.{uuid.uuid4().hex}.tmp"
    try:
        tmp.mkdir(parents=True)
        for name, array in arrays.items():
            with open(tmp / f"{name}.npy", "wb") as f:
                np.save(f, array, allow_pickle=False)
                f.flush()
                os.fsync(f.fileno())
        shutil.rmtree(where / key, ignore_errors=True)  # a damaged entry (its reader refused it)
        os.rename(tmp, where / key)
        others = sorted((p for p in where.iterdir() if p.name != key), key=lambda p: p.stat().st_mtime_ns)
        left = [p for p in others if p.name.startswith(".")]
        kept = [p for p in others if not p.name.startswith(".")]
        for old in kept[: max(0, len(kept) - (keep - 1))] + [p for p in left if _age(p) > STALE_SECONDS]:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException as e:  # (Ctrl-C while writing too: the 28 MB written aside go)
        shutil.rmtree(tmp, ignore_errors=True)
        if not isinstance(e, OSError):  # an OSError: a read-only or full cache directory, or another process
            raise  # made the entry first; no cache from this one


def _age(path: Path) -> float:
    """Seconds since path was last modified (0 when it is gone: another process removed it)."""
    import time

    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0
