"""mtcli.usercache: an entry is written whole or not at all, whatever stops its writer, and the cache holds no more
than its entries kept."""

import errno
import os
import threading

import numpy as np
import pytest

from mtcli import usercache

ARRAYS = {"a": np.arange(1000, dtype=np.float32), "b": np.ones((3, 4), np.int64)}


def _names(where):
    return sorted(p.name for p in where.iterdir())


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), SystemExit(1), OSError(errno.ENOSPC, "No space left on device"),
                                  OSError(errno.EROFS, "Read-only file system")], ids=repr)
def test_a_write_that_does_not_finish_leaves_nothing_behind(stop, tmp_path, monkeypatch):
    """Ctrl-C, an exit, a full or read-only disk while an entry is written: nothing of it is left (a 28 MB weights
    file each time); the cache's own errors cost only the cache, the others go on."""
    save, calls = np.save, []

    def failing(f, array, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # (the first array written: the second's write fails)
            raise stop
        save(f, array, **kwargs)

    monkeypatch.setattr(np, "save", failing)
    if isinstance(stop, OSError):
        usercache.write(tmp_path, "k", ARRAYS)
    else:
        with pytest.raises(type(stop)):
            usercache.write(tmp_path, "k", ARRAYS)
    assert _names(tmp_path) == []
    monkeypatch.setattr(np, "save", save)
    usercache.write(tmp_path, "k", ARRAYS)
    assert _names(tmp_path) == ["k"] and usercache.read(tmp_path / "k", ARRAYS) is not None


def test_what_a_killed_writer_left_goes_at_the_next_write(tmp_path):
    """A temporary entry left by a writer killed outright (SIGKILL) is removed by the next write once it is
    STALE_SECONDS old; one as new as a writer still at work is not."""
    old, live = tmp_path / ".k.dead.tmp", tmp_path / ".k.live.tmp"
    for d in (old, live):
        d.mkdir()
        (d / "a.npy").write_bytes(b"\0" * 100)
    long_ago = os.stat(old).st_mtime - usercache.STALE_SECONDS - 60
    os.utime(old, (long_ago, long_ago))
    usercache.write(tmp_path, "other", ARRAYS)
    assert _names(tmp_path) == [".k.live.tmp", "other"]


def test_writers_and_readers_of_one_entry_at_once(tmp_path):
    """Processes that find no entry make it at the same time (the first translations after an upgrade): each
    reader meanwhile gets the arrays or None, never others or an error, and one sound entry is left."""
    start, errors, read = threading.Barrier(12), [], []

    def writer():
        start.wait()
        try:
            usercache.write(tmp_path, "k", ARRAYS, keep=2)
        except Exception as e:  # noqa: BLE001 (told below)
            errors.append(e)

    def reader():
        start.wait()
        for _ in range(50):
            try:
                found = usercache.read(tmp_path / "k", ARRAYS)
            except Exception as e:  # noqa: BLE001
                errors.append(e)
                return
            if found is not None:
                read.append(all(np.array_equal(found[n], ARRAYS[n]) for n in ARRAYS))

    threads = [threading.Thread(target=f) for f in [writer] * 6 + [reader] * 6]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and all(read)
    assert _names(tmp_path) == ["k"]
    found = usercache.read(tmp_path / "k", ARRAYS)
    assert found is not None and all(np.array_equal(found[n], ARRAYS[n]) for n in ARRAYS)
