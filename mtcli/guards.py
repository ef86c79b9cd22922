"""Checks on what a user names, made before any work: `~user` paths, an output that is one of the
inputs by another name, a destination that cannot be written, a standard input that cannot be read,
a file or a pipe that would never end, a host name. Each refusal is a UserError: one line, exit 2.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import select
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from mtcli.errors import UserError
from mtcli import lazy_re

STDIO = "-"
FIFO_WAIT = 30.0  # seconds a named pipe may wait for its writer before it is refused
FIFO_NOTICE = 1.0  # seconds before saying that it waits
CHUNK = 1 << 20
_LABEL = lazy_re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")  # one label of a host name (RFC 1123)


# --- ~ and ~user ---------------------------------------------------------------------------------


def expand_user(text: str | os.PathLike, what: str) -> Path:
    """`text` with a leading ~ or ~user expanded, as the shell would have; a ~ that names no user (or no
    home directory) is one line naming `what` (the option or variable it came from)."""
    text = os.fspath(text)
    if not text.startswith("~"):
        return Path(text)
    expanded = os.path.expanduser(text)  # (Path.expanduser raises RuntimeError instead)
    if expanded == text or expanded.startswith("~"):
        user = text[1:].replace(os.sep, "/").partition("/")[0]  # (Windows: either separator ends the name)
        who = f"no user named {user!r}" if user else "no home directory (HOME unset, or itself starting with ~)"
        raise UserError(f"{what} {text}: ~{user} cannot be expanded: {who}; give the path without ~")
    return Path(expanded)


# --- an output that is an input ---------------------------------------------------------------------


def _identity(st: os.stat_result | None) -> tuple[int, int] | None:
    """What two names of one file share; None for what writing cannot destroy (a terminal, /dev/null)
    or nothing at all. Files and pipes count: a pipe written into is read back as input."""
    if st is None or not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return None
    return st.st_dev, st.st_ino


def _stat(path: str | os.PathLike) -> os.stat_result | None:
    try:
        return os.stat(path)  # follows links, /dev/stdin and /proc/self/fd/N included
    except (OSError, ValueError):
        return None


def stdin_fd() -> int | None:
    """Standard input's descriptor (None: no descriptor at all, as a test's stand-in)."""
    try:
        return sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is both of the last two
        return None


def stdin_stat() -> os.stat_result | None:
    fd = stdin_fd()
    try:
        return None if fd is None else os.fstat(fd)
    except OSError:
        return None


def input_named(output: str | os.PathLike, inputs: Iterable[str | os.PathLike | None],
                stdin: bool = False) -> str | None:
    """Which input `output` names by any route (the same path, a symlink, a hard link, /dev/stdin,
    /proc/self/fd/N, /dev/fd/N), as the user would call it; None if none. stdin: standard input is one
    of the inputs."""
    if os.fspath(output) == STDIO:
        return None
    target = _identity(_stat(output))
    if target is None:
        return None
    for path in inputs:
        if path is not None and os.fspath(path) != STDIO and _identity(_stat(path)) == target:
            return os.fspath(path)
    if stdin and _identity(stdin_stat()) == target:
        return "standard input"
    return None


# --- standard input -----------------------------------------------------------------------------------


def check_stdin() -> None:
    """Standard input, about to be read: a directory, a descriptor open for writing only or a closed
    one is one line, not a traceback."""
    fd, st = stdin_fd(), stdin_stat()
    if fd is None:
        return
    if st is None:
        raise UserError("standard input is closed; pipe the text in, or give -i FILE")
    if stat.S_ISDIR(st.st_mode):
        raise UserError("standard input is a directory; pipe a file in (< FILE), or give -i FILE")
    try:
        import fcntl

        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except (ImportError, OSError):
        return
    if flags & os.O_ACCMODE == os.O_WRONLY:
        raise UserError("standard input is open for writing only (0>FILE?); pipe the text in (< FILE)")


# --- reading a file or a pipe once --------------------------------------------------------------------


def _wait_for_writer(fd: int, name: str) -> bytes:
    """A path opened without blocking, a named pipe's wait for its writer: return (with what was read
    meanwhile) once a writer holds it open or has come and gone, say so after FIFO_NOTICE seconds, and refuse
    after FIFO_WAIT seconds without one. Anything else is ready at once (select says so for a file)."""
    started, noted = time.monotonic(), False
    while True:
        try:
            if select.select([fd], [], [], 0.1)[0]:  # data, or a writer that has closed it again
                return b""
        except InterruptedError:
            pass
        try:  # EAGAIN: a writer holds it open (a slow one); b"": no writer (yet)
            first = os.read(fd, 1)
        except BlockingIOError:
            return b""
        if first:
            return first
        waited = time.monotonic() - started
        if waited >= FIFO_WAIT:
            raise UserError(f"{name}: a named pipe that no program opened to write in {FIFO_WAIT:g} s; start "
                            "its writer first, or give a file")
        if waited >= FIFO_NOTICE and not noted:
            noted = True
            print(f"waiting for a program to write to the pipe {name} (at most {FIFO_WAIT:g} s)...",
                  file=sys.stderr, flush=True)


def read_once(path: str | os.PathLike | int, limit: int) -> bytes:
    """The bytes of a file or a pipe (a path, or an open descriptor such as 0, read from where it
    stands), read once to its end: a regular file up to the size it had when opened (one still being
    written ends there), a pipe until its writer closes it (a named one with no writer is refused after
    FIFO_WAIT seconds, not waited for in silence). At most limit + 1 bytes: the caller refuses more.
    OSError is left to the caller, which names the file."""
    return b"".join(read_pieces(path, limit))


def read_pieces(path: str | os.PathLike | int, limit: int) -> Iterator[bytes]:
    """read_once's bytes a piece (up to CHUNK) at a time, as they are read: a long file in bounded memory."""
    if isinstance(path, int):
        yield from _pieces(path, limit + 1)
        return
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # (Python's descriptors are close-on-exec anyway)
    try:
        first = _wait_for_writer(fd, os.fspath(path))  # (a file or a device is ready at once: only a pipe waits)
        os.set_blocking(fd, True)
        if first:
            yield first
        yield from _pieces(fd, limit + 1 - len(first))
    finally:
        os.close(fd)


def _pieces(fd: int, most: int) -> Iterator[bytes]:
    """At most `most` bytes of `fd` from where it stands; of a regular file, no more than the size it has
    now (a size of 0, as /proc reports: to its end)."""
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode) and st.st_size:
        most = min(most, st.st_size - os.lseek(fd, 0, os.SEEK_CUR))
    while most > 0 and (data := os.read(fd, min(CHUNK, most))):  # (b"": its end)
        yield data
        most -= len(data)


def kind(path: str | os.PathLike) -> str | None:
    """"pipe", "device", "socket" for what is not a regular file (or a directory, or nothing)."""
    st = _stat(path)
    if st is None:
        return None
    if stat.S_ISFIFO(st.st_mode):
        return "pipe"
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return "device"
    if stat.S_ISSOCK(st.st_mode):
        return "socket"
    return None


# --- destinations ----------------------------------------------------------------------------------------


def _nearest_existing(path: Path) -> Path:
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _probe(directory: Path) -> None:
    """Create and delete a file in `directory`: the one test that a read-only mount, a permission,
    an immutable flag or /proc and /sys all answer truly (os.access does not, for root)."""
    fd, name = tempfile.mkstemp(prefix=".mtcli-probe-", dir=directory)
    os.close(fd)
    os.unlink(name)


def check_writable(path: str | os.PathLike, what: str, directory: bool = False) -> None:
    """Refuse, before any work, a destination that cannot be written: a file (or, directory=True, a
    directory) `what` names. Standard output, devices and pipes are written through and pass; a
    missing path is judged by the nearest directory above it that exists."""
    text = os.fspath(path)
    if text == STDIO:
        return
    st = _stat(text)
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return
    real = Path(os.path.realpath(text))
    try:
        if st is not None and stat.S_ISREG(st.st_mode):
            if not os.access(real, os.W_OK):
                raise OSError(errno.EACCES, "the file is read-only")
            if st.st_nlink > 1:  # rewritten in place (atomic.write_output): its directory is not written
                return
        where = real if directory and st is not None and stat.S_ISDIR(st.st_mode) else real.parent
        nearest = _nearest_existing(where)
        if not nearest.is_dir():
            raise OSError(errno.ENOTDIR, f"{nearest} is a file, not a directory")
        _probe(nearest)
    except OSError as e:
        raise UserError(f"{what} {text}: cannot be written ({e.strerror or e}); mtcli cannot write there: give a "
                        "writable place") from None


# --- host names --------------------------------------------------------------------------------------


def check_api_key(key: str | None, what: str = "--api-key (MTCLI_API_KEY)") -> str | None:
    """A server's API key: none, or one a client can send. An empty or blank one was taken as none, and the
    server answered everyone (MTCLI_API_KEY=$KEY with $KEY unset); it is refused, its value never shown."""
    if key is not None and not key.strip():
        raise UserError(f"{what} is {'empty' if not key else 'blank'}: give the key clients must send, or leave it "
                        "unset to serve without one")
    return key


def check_host(host: str, what: str = "--host") -> str:
    """An address to listen on: an IP address or a host name of valid labels; anything else is one line."""
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    hint = "give an IP address (127.0.0.1, 0.0.0.0, ::1) or a host name such as localhost"
    if not host or host.strip() != host:
        raise UserError(f"{what} {host!r}: not an address; {hint}")
    try:
        ascii_name = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise UserError(f"{what} {host!r}: not a valid host name; {hint}") from None
    labels = ascii_name[:-1].split(".") if ascii_name.endswith(".") else ascii_name.split(".")
    if len(ascii_name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise UserError(f"{what} {host!r}: not a valid host name; {hint}")
    return host
