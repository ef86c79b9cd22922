"""Writing files without destroying anything: every `-o` goes through write_output, every file of
mtcli's own (models, states, tokenized data) through atomic_write_bytes. Both:

- "-" is standard output; a character device (/dev/null, a terminal) or a FIFO is written straight
  through, as the shell's `>` would: it is never replaced by a regular file.
- A symlink is followed: the file it points to is written, the link stays.
- A regular file is replaced atomically: a temporary file beside it, fsynced, renamed over it, so a
  reader (or a crash) sees the old file or the new one, never half of either. It keeps the old
  file's mode and owner. A read-only file is refused.
- A directory, a block device or a socket is refused.

They differ for a regular file with several hard links. write_output rewrites it in place: a
rename would split the links (the other names would keep the old text), and a user who linked an
output means every name to show it, as the shell's `>` and vim's backupcopy=auto do. Space is
reserved first, so a full disk fails before a byte changes; only a crash during the write itself
can leave it half written. atomic_write_bytes replaces it (splitting the links): a run directory
snapshotted with `cp -al` keeps its files, and a crash never leaves half a state.
"""

from __future__ import annotations

import errno
import glob
import hashlib
import json
import os
import stat
import sys
import uuid
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path

from mtcli.errors import OutputError, UserError
from mtcli import lazy_re

_TMP_ID = lazy_re.compile("[0-9a-f]{32}")  # uuid4().hex in the temporary file names
NAME_MAX = 255  # bytes in a file name (ext4, XFS, btrfs, APFS, NTFS in UTF-16 units)


def _tmp_prefix(path: Path) -> str:
    """".NAME." before a temporary file's id and ".tmp"; a name too long to take them is cut (with a
    digest of the whole name, so that two long names never share their temporary files)."""
    room = NAME_MAX - len(".") - len(".") - 32 - len(".tmp")
    name = path.name.encode("utf-8", "surrogateescape")
    if len(name) <= room:
        return f".{path.name}."
    digest = hashlib.sha256(name).hexdigest()[:8]
    return f".{name[: room - 9].decode('utf-8', 'ignore')}~{digest}."
STDOUT = "-"
_FD_PATHS = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/")  # the process's own streams


def _fail(path, e: OSError) -> UserError:
    return UserError(f"cannot write {path}: {e.strerror or e}")


def atomic_write(path: str | os.PathLike, write: Callable[[Path], object], mode: os.stat_result | None = None) -> None:
    """write(tmp_path) fills a temporary file that then replaces the regular file `path` (no symlink:
    resolve it first). mode: the stat of the file replaced, whose permissions and owner are kept."""
    path = Path(path)
    # not mkstemp: its files are private (0600); open() gives the usual umask permissions
    tmp = path.with_name(f"{_tmp_prefix(path)}{uuid.uuid4().hex}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        with open(tmp, "rb") as f:
            if mode is not None:
                os.chmod(f.fileno(), stat.S_IMODE(mode.st_mode))
                try:
                    os.chown(f.fileno(), mode.st_uid, mode.st_gid)
                except PermissionError:  # only root may give a file away; the mode is kept all the same
                    pass
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # e.g. the parent is a file: there is no temporary file either
            pass
        if isinstance(e, OSError):
            raise _fail(path, e) from None
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
    prefix = _tmp_prefix(path)
    for stale in path.parent.glob(glob.escape(prefix) + "*.tmp"):
        if _TMP_ID.fullmatch(stale.name[len(prefix) : -len(".tmp")]):
            try:
                stale.unlink()
            except OSError:
                pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _rewrite_in_place(path: Path, pieces: Iterable[bytes], size: int) -> None:
    import tempfile

    with tempfile.TemporaryFile() as spool:  # the output whole before the file changes
        for piece in pieces:
            spool.write(piece)
        length = spool.tell()
        spool.seek(0)
        _copy_in_place(path, spool, length, size)


def _copy_in_place(path: Path, spool, length: int, size: int) -> None:
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        if length > size and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, length)  # a full disk fails here, before a byte changes
            except OSError as e:
                # a file system without it: just write. glibc emulates it there, and its emulation reads
                # through this write-only descriptor: EBADF, before it has changed a byte
                if e.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.EBADF):
                    raise
        while data := spool.read(1 << 20):
            _write_all(fd, data)
        os.ftruncate(fd, length)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_through(path, pieces: Iterable[bytes]) -> None:
    if os.fspath(path) == STDOUT:
        sys.stdout.flush()  # after whatever the command printed as text
        for piece in pieces:
            sys.stdout.buffer.write(piece)
        sys.stdout.flush()
        return
    with open(path, "wb") as f:  # a device or a pipe: O_TRUNC changes nothing there
        for piece in pieces:
            f.write(piece)


def _write_file(path: Path, pieces: Iterable[bytes]) -> None:
    with open(path, "wb") as f:
        for piece in pieces:
            f.write(piece)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, keep_links: bool = False) -> None:
    """Write `data` to `path` as the module docstring says; keep_links: rewrite a file with several
    hard links in place (write_output) rather than replace it."""
    _write_pieces(path, [data], keep_links)


def _write_pieces(path: str | os.PathLike, pieces: Iterable[bytes], keep_links: bool) -> None:
    text = os.fspath(path)
    if text == STDOUT or text.startswith(_FD_PATHS):
        try:
            return _write_through(path, pieces)
        except OSError as e:
            raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        st = os.stat(path)  # follows symlinks
    except FileNotFoundError:
        st = None  # a new file, or a dangling symlink: its target is created
    except OSError as e:
        raise _fail(path, e) from None
    try:
        if st is None or stat.S_ISREG(st.st_mode):
            real = Path(os.path.realpath(path))
            if st is not None and not os.access(real, os.W_OK):
                raise UserError(f"cannot write {path}: the file is read-only")
            if keep_links and st is not None and st.st_nlink > 1:
                return _rewrite_in_place(real, pieces, st.st_size)
            return atomic_write(real, lambda tmp: _write_file(tmp, pieces), st)
        if stat.S_ISDIR(st.st_mode):
            raise UserError(f"cannot write {path}: it is a directory; give a file name")
        if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
            return _write_through(path, pieces)
    except OSError as e:
        raise _fail(path, e) from None
    kind = "block device" if stat.S_ISBLK(st.st_mode) else "socket" if stat.S_ISSOCK(st.st_mode) else "special file"
    raise UserError(f"cannot write {path}: it is a {kind}; give a regular file, a pipe, a character device or -")


def write_output(path: str | os.PathLike, data: bytes | str) -> None:
    """The one function every `-o` uses (text is written as UTF-8)."""
    write_output_pieces(path, [data.encode("utf-8") if isinstance(data, str) else data])


def write_output_pieces(path: str | os.PathLike, pieces: Iterable[bytes]) -> None:
    """write_output for an output made a piece at a time (a file translated a chunk at a time): each piece is
    written as it comes, none kept in memory, yet a regular file changes only once the last piece is written
    (an error before then leaves it as it was; the pieces' own errors pass through)."""
    _write_pieces(path, pieces, keep_links=True)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, obj) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


# --- directories mtcli writes into --------------------------------------------------------------------

LOCK = ".mtcli.lock"  # in a run directory: locked by the `mtcli train` writing it, and the directory's mark
_held: dict[Path, int] = {}  # directory -> descriptor of its lock file, while this process holds it


def claim_dir(directory: Path, is_ours: Callable[[Path], bool], force: bool, what: str, reading: Path | None = None,
              forcing: str = "add --force") -> None:
    """Make `directory` one mtcli may write its files into: new, empty (but for the file it is
    `reading`), one mtcli wrote (is_ours: a mark or a manifest tells), or any with force. Otherwise
    refused: the user's files could share the names mtcli writes and be replaced. `forcing` says
    how the user forces it from the command at hand."""
    try:
        if directory.exists() and not directory.is_dir():
            raise UserError(f"{directory} is a file, not a directory; give a {what}")
        directory.mkdir(parents=True, exist_ok=True)
        entries = sorted(p.name for p in directory.iterdir()
                         if reading is None or not (p.is_file() and os.path.samefile(p, reading)))
    except OSError as e:
        raise UserError(f"cannot write to {directory}: {e.strerror or e}") from None
    if not entries or force or is_ours(directory):
        return
    shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
    raise UserError(f"{directory} holds files mtcli did not write ({shown}); give a new or empty {what}, "
                    f"or {forcing} to write mtcli's files among them (files of the same names are replaced)")


def lock_dir(directory: Path, command: str) -> None:
    """Hold an exclusive lock (flock) on `directory`'s LOCK file until unlock_dir or the end of the
    process: another mtcli writing into it is refused at once, naming this process."""
    directory = Path(directory)
    try:
        fd = os.open(directory / LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as e:
        raise UserError(f"cannot use {directory}: {e.strerror or e}") from None
    try:
        import fcntl  # POSIX

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
        os.close(fd)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise UserError(f"{directory} is in use by another `mtcli {command}` (PID {holder}); wait for it to "
                            "end, or use another --out") from None
        raise UserError(f"cannot lock {directory}: {e.strerror or e}") from None
    except ImportError:  # no flock (Windows): the mark alone
        pass
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _held[directory] = fd


def unlock_dir(directory: Path) -> None:
    fd = _held.pop(Path(directory), None)
    if fd is not None:
        os.close(fd)  # releases the lock; the file stays as the directory's mark


# --- standard streams ------------------------------------------------------------------------------


class _Guarded:
    """A standard stream whose write errors (EPIPE from `| head`, ENOSPC from `>/dev/full`, a closed
    descriptor) become one OutputError on stdout, and are dropped on stderr: the diagnostics of a
    long training run are not worth stopping it for."""

    def __init__(self, raw, name: str, fatal: bool):
        self._raw, self._name, self._fatal = raw, name, fatal
        self.broken = False

    def __getattr__(self, attr):
        return getattr(self._raw, attr)

    def _call(self, method: str, *args):
        if self.broken and not self._fatal:
            return None
        try:
            if self._raw is None:
                raise OSError(errno.EBADF, "the stream is closed")
            return getattr(self._raw, method)(*args)
        except (OSError, ValueError) as e:  # ValueError: a closed Python file object
            self.broken = True
            if self._fatal:
                reason = getattr(e, "strerror", None) or str(e)
                raise OutputError(f"cannot write to standard {self._name}: {reason}") from None
            return None

    def write(self, data):
        return self._call("write", data)

    def writelines(self, lines):
        return self._call("writelines", lines)

    def flush(self):
        if self._raw is None:  # a closed stream holds nothing to lose (`mtcli train >&-` ran fine)
            return None
        return self._call("flush")

    @property
    def buffer(self):
        raw = getattr(self._raw, "buffer", None)
        return _Guarded(raw, self._name, self._fatal)

    def isatty(self) -> bool:
        return self._raw is not None and self._raw.isatty()


def _occupy(fd: int) -> None:
    """A closed standard descriptor gets /dev/null, so no file mtcli opens lands on fd 0, 1 or 2."""
    try:
        os.fstat(fd)
    except OSError:
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)


def _silence(stream) -> None:
    """After a write error: point the descriptor at /dev/null, so the interpreter's last flush of
    what is still buffered fails quietly instead of printing a second error."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a real descriptor (a test's capture)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


@contextmanager
def guarded_stdio():
    """Inside the block sys.stdout and sys.stderr are guarded (_Guarded); stdout is flushed at the end,
    so a full disk or a closed pipe is found while mtcli can still report it."""
    for fd in (0, 1, 2):
        _occupy(fd)
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (lives as long as the process)
    saved = sys.stdout, sys.stderr
    sys.stdout = _Guarded(saved[0], "output", fatal=True)
    sys.stderr = guarded_err = _Guarded(saved[1], "error", fatal=False)
    try:
        yield
        sys.stdout.flush()
    except OutputError:
        _silence(saved[0])
        raise
    finally:
        sys.stdout, sys.stderr = saved
        if guarded_err.broken:
            _silence(saved[1])


__all__ = ["write_output", "write_output_pieces", "atomic_write", "atomic_write_bytes", "atomic_write_text", "atomic_write_json", "claim_dir", "lock_dir",
           "unlock_dir", "guarded_stdio", "LOCK", "STDOUT"]
