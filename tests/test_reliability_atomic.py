"""Reliability of mtcli/atomic.py, case by case: what the other reliability tests leave open (issue 21:
each surviving mutant of a mutation run that changes what a user sees). Missing parent directories are
created; JSON files are indented UTF-8 text; a failed write names its file and reason and keeps the
old file; a socket or block device is refused saying which; a hard-linked output under a file-size
limit is written in full or not at all; the run directory's lock file (its mode, a foreign one, a
lock that cannot be taken); and standard streams that are closed, full, a terminal or a closed file
object. No test needs root: where root would write anyway, the permission check is simulated."""

from __future__ import annotations

import errno
import io
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mtcli.atomic import (LOCK, atomic_write, atomic_write_bytes, atomic_write_json, claim_dir, guarded_stdio,
                          lock_dir, unlock_dir, write_output)
from mtcli.errors import OutputError, UserError
from tests.conftest import REPO


def _refused(path, data, write=atomic_write_bytes) -> str:
    with pytest.raises(UserError) as e:
        write(path, data)
    assert "\n" not in str(e.value)
    return str(e.value)


# --- files: where they go, what they hold ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["a" * 255, "é" * 125 + ".txt", "x" * 217, "x" * 218])
def test_a_file_name_as_long_as_the_system_allows_is_written(tmp_path, name):
    """The temporary file's name adds an id to the output's name: for the longest names the system
    allows (255 bytes, UTF-8) it is cut, and the earlier write's leftovers are still found and removed."""
    out = tmp_path / name
    atomic_write_bytes(out, b"first")
    assert [p.name for p in tmp_path.iterdir()] == [name] and out.read_bytes() == b"first"
    from mtcli.atomic import _tmp_prefix
    debris = tmp_path / f"{_tmp_prefix(out)}{'0' * 32}.tmp"  # a killed write's temporary file
    debris.write_bytes(b"half")
    atomic_write_bytes(out, b"second")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name] and out.read_bytes() == b"second"
    write_output(out, "third\n")  # what -o writes with
    assert out.read_text() == "third\n"


def test_two_long_names_alike_up_to_the_cut_keep_their_own_temporary_files(tmp_path):
    from mtcli.atomic import _tmp_prefix
    a, b = tmp_path / ("n" * 240 + "a"), tmp_path / ("n" * 240 + "b")
    assert _tmp_prefix(a) != _tmp_prefix(b)
    assert all(len((_tmp_prefix(p) + "0" * 32 + ".tmp").encode()) <= 255 for p in (a, b))


def test_missing_parent_directories_are_created(tmp_path):
    """`-o new/deeper/out.txt` and `--out runs/2025/first` need no mkdir -p first."""
    out = tmp_path / "new" / "deeper" / "out.txt"
    write_output(out, "hola\n")
    assert out.read_text(encoding="utf-8") == "hola\n"
    run = tmp_path / "runs" / "2025" / "first"
    claim_dir(run, lambda d: False, False, "--out directory")
    assert run.is_dir() and not list(run.iterdir())


def test_json_files_are_indented_utf8_text(tmp_path):
    """What atomic_write_json writes (the tokenized data's manifest.json, which tokenize's help points to)
    is for reading: two-space indents, accents as themselves rather than \\u escapes, a final newline."""
    path = tmp_path / "manifest.json"
    atomic_write_json(path, {"data": {"path": "datos/español ñ.tsv"}, "vocab": [150, 220]})
    assert path.read_bytes() == ('{\n  "data": {\n    "path": "datos/español ñ.tsv"\n  },\n  "vocab": [\n'
                                 '    150,\n    220\n  ]\n}\n').encode("utf-8")


def test_a_failed_write_names_the_file_and_the_reason_and_keeps_the_old_one(tmp_path):
    target = tmp_path / "state.bin"
    target.write_bytes(b"previous\n")

    def half_then_full(tmp: Path) -> None:
        tmp.write_bytes(b"new st")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    message = _refused(target, half_then_full, atomic_write)
    assert message == f"cannot write {target}: {os.strerror(errno.ENOSPC)}"
    assert target.read_bytes() == b"previous\n" and [p.name for p in tmp_path.iterdir()] == ["state.bin"]


def test_paths_the_system_refuses_are_named_with_the_reason(tmp_path):
    """A loop of symlinks (refused by stat), a full device written through, and `-o /dev/fd/N` (here a
    descriptor on /dev/full, as `-o /dev/stdout >/dev/full` is): each error says which path and why."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert _refused(loop, b"x") == f"cannot write {loop}: {os.strerror(errno.ELOOP)}"
    assert _refused("/dev/full", b"x", write_output) == f"cannot write /dev/full: {os.strerror(errno.ENOSPC)}"
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        with pytest.raises(OutputError) as e:
            write_output(f"/dev/fd/{full}", b"x")
    finally:
        os.close(full)
    assert str(e.value) == f"cannot write /dev/fd/{full}: {os.strerror(errno.ENOSPC)}"


def test_a_read_only_file_is_refused_by_name_and_kept(tmp_path, monkeypatch):
    ro = tmp_path / "ro.txt"
    ro.write_text("keep\n")
    os.chmod(ro, 0o444)
    if os.geteuid() == 0:  # root may write any file: os.access answers for it as it would for another user
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p).resolve() == ro.resolve()
                            and mode & os.W_OK else real_access(p, mode, **kw))
    for write in (write_output, atomic_write_bytes):
        assert _refused(ro, b"x", write) == f"cannot write {ro}: the file is read-only"
    assert ro.read_text() == "keep\n"


def test_a_socket_or_a_block_device_is_refused_saying_which(tmp_path, monkeypatch):
    """A block device is simulated (stat says so): no test writes near a real disk, whatever the code does."""
    monkeypatch.chdir(tmp_path)  # a short socket address: at most 108 bytes
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("s")
        assert _refused(tmp_path / "s", b"x", write_output).startswith(f"cannot write {tmp_path / 's'}: it is a socket;")
    finally:
        sock.close()
    disk = tmp_path / "disk"
    disk.write_bytes(b"")
    real_stat = os.stat

    def stat_(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        return os.stat_result((stat.S_IFBLK | 0o660, *st[1:])) if Path(path) == disk else st

    monkeypatch.setattr(os, "stat", stat_)
    assert _refused(disk, b"x", write_output).startswith(f"cannot write {disk}: it is a block device;")
    assert disk.read_bytes() == b""


# --- a hard-linked output under a real limit: written in full or not at all -----------------------------

# write_output of stdin to argv[1] with a file-size limit (ulimit -f) of argv[2] bytes: the kernel refuses
# (EFBIG, SIGXFSZ ignored) every byte past it, as a full disk would, and refuses to reserve past it
LIMITED = r"""
import resource, signal, sys
from mtcli.atomic import write_output
from mtcli.errors import UserError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    write_output(sys.argv[1], sys.stdin.buffer.read())
except UserError as e:
    print(e)
"""


@pytest.mark.parametrize("room", ["exactly the new size", "less than the new size"])
def test_a_hard_linked_output_under_a_file_size_limit(tmp_path, room):
    """An in-place rewrite reserves the new size first, no more: room for exactly the new text writes
    it; less room refuses it in one line before a byte changes, both names keeping the old text."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    old, new = b"old\n" * 10, b"new text\n" * 1000  # 9,000 bytes: more than one block, not a multiple of one
    first.write_bytes(old)
    os.link(first, second)
    limit = len(new) if room == "exactly the new size" else 4096
    r = subprocess.run([sys.executable, "-c", LIMITED, str(first), str(limit)], input=new, cwd=REPO,
                       capture_output=True, timeout=60, check=False)
    assert r.returncode == 0 and not r.stderr, r.stderr.decode(errors="replace")
    if room == "exactly the new size":
        assert r.stdout == b"" and first.read_bytes() == new
    else:
        assert r.stdout.decode() == f"cannot write {first}: {os.strerror(errno.EFBIG)}\n"
        assert first.read_bytes() == old
    assert first.stat().st_nlink == 2 and second.read_bytes() == first.read_bytes()


# --- the run directory's lock -------------------------------------------------------------------------------


def test_the_lock_file_is_a_plain_file_holding_this_pid(tmp_path):
    """Readable by all, executable by none (mode 644 under umask 022), whatever an earlier run left in it."""
    (tmp_path / LOCK).write_text("4194304 and more text from an earlier run\n")
    os.chmod(tmp_path / LOCK, 0o644)
    (tmp_path / "new").mkdir()
    old_umask = os.umask(0o022)
    try:
        lock_dir(tmp_path, "train")
        lock_dir(tmp_path / "new", "train")
    finally:
        os.umask(old_umask)
        unlock_dir(tmp_path)
        unlock_dir(tmp_path / "new")
    for d in (tmp_path, tmp_path / "new"):
        assert (d / LOCK).read_text() == f"{os.getpid()}\n"
        assert stat.S_IMODE((d / LOCK).stat().st_mode) == 0o644


def test_a_lock_in_a_missing_directory_is_one_line_naming_it(tmp_path):
    missing = tmp_path / "missing"
    with pytest.raises(UserError) as e:
        lock_dir(missing, "train")
    assert str(e.value) == f"cannot use {missing}: {os.strerror(errno.ENOENT)}"


def test_a_held_lock_file_holding_foreign_bytes_is_still_a_one_line_refusal(tmp_path):
    """The holder's PID is read from the lock file; whatever bytes are there (a damaged or foreign file),
    the refusal is the usual one line, and the lock is taken at once when released."""
    import fcntl

    (tmp_path / LOCK).write_bytes(b"\xff\xfe\x80 not a pid")
    holder = os.open(tmp_path / LOCK, os.O_RDWR)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(UserError) as e:
            lock_dir(tmp_path, "train")
    finally:
        os.close(holder)
    assert str(e.value).startswith(f"{tmp_path} is in use by another `mtcli train` (PID ") and "\n" not in str(e.value)
    lock_dir(tmp_path, "train")
    unlock_dir(tmp_path)


def test_a_lock_the_file_system_cannot_take_is_one_line_naming_the_directory(tmp_path, monkeypatch):
    """flock failing otherwise than "held" (ENOLCK: e.g. an NFS mount without a lock manager)."""
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(UserError) as e:
        lock_dir(tmp_path, "train")
    assert str(e.value) == f"cannot lock {tmp_path}: {os.strerror(errno.ENOLCK)}"


# --- standard streams ------------------------------------------------------------------------------------------


def _devnull(fd: int) -> bool:
    st, null = os.fstat(fd), os.stat(os.devnull)
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == null.st_rdev


def test_a_full_stdout_is_one_error_and_the_last_flush_is_quiet(monkeypatch):
    """`>/dev/full`: the translation still buffered is reported once, naming the reason; the descriptor
    then points at /dev/null, so the interpreter's own last flush (here: close) has nothing to report."""
    raw = open("/dev/full", "w", encoding="utf-8")  # noqa: SIM115 (closed below, as the interpreter would)
    monkeypatch.setattr(sys, "stdout", raw)
    try:
        with pytest.raises(OutputError) as e:
            with guarded_stdio():
                print("¿Dónde está el gato?")
        assert str(e.value) == f"cannot write to standard output: {os.strerror(errno.ENOSPC)}"
        assert _devnull(raw.fileno())
    finally:
        raw.close()


def test_a_full_stderr_is_dropped_silenced_and_left_alone(monkeypatch):
    """`2>/dev/full`: diagnostics are dropped, not an error, and the descriptor ends on /dev/null, so
    nothing still buffered (a stderr replaced by a buffered file) can fail at the interpreter's exit."""
    raw = open("/dev/full", "w", encoding="utf-8")  # noqa: SIM115
    monkeypatch.setattr(sys, "stderr", raw)
    try:
        with guarded_stdio():
            assert sys.stderr.write("warning: one\n") == len("warning: one\n")  # buffered
            assert sys.stderr.flush() is None  # fails: dropped
        assert _devnull(raw.fileno())
    finally:
        raw.close()


class _Filling(io.StringIO):
    """A log on a disk that fills up once, then has room again."""

    def __init__(self):
        super().__init__()
        self.full = True

    def write(self, s):
        if self.full:
            self.full = False
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(s)


def test_once_stderr_failed_no_more_diagnostics_are_written_to_it(monkeypatch):
    """A log does not resume half way (a torn progress line, then later messages): after its first
    failure stderr is left alone until the end."""
    log = _Filling()
    monkeypatch.setattr(sys, "stderr", log)
    with guarded_stdio():
        sys.stderr.write("epoch 1\n")
        sys.stderr.write("epoch 2\n")
        sys.stderr.flush()
    assert log.getvalue() == ""


@pytest.mark.parametrize("stream, reason", [(None, "the stream is closed"),
                                            ("closed", "I/O operation on closed file")])
def test_a_closed_stdout_is_one_error_naming_why(monkeypatch, stream, reason):
    """None: the descriptor was closed when Python started (`>&-`); a closed Python file object otherwise."""
    if stream == "closed":
        stream = io.StringIO()
        stream.close()
    monkeypatch.setattr(sys, "stdout", stream)
    with pytest.raises(OutputError) as e:
        with guarded_stdio():
            print("Hola.")
    assert str(e.value).rstrip(".") == f"cannot write to standard output: {reason}"


def test_guarded_streams_are_what_they_wrap(monkeypatch):
    """On a terminal they are terminals (rich's colours and progress bars, input()'s line editing ask
    isatty, fileno, encoding); a closed one (`2>&-`) is no terminal, not a crash."""
    master, slave = os.openpty()
    out = open(slave, "w", encoding="utf-8")  # noqa: SIM115
    err = open(os.dup(slave), "w", encoding="utf-8")  # noqa: SIM115
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        with guarded_stdio():
            seen = (sys.stdout.isatty(), sys.stderr.isatty(), sys.stdout.fileno(), sys.stderr.encoding)
        assert seen == (True, True, out.fileno(), "utf-8")
    finally:
        out.close()
        err.close()
        os.close(master)
    monkeypatch.setattr(sys, "stderr", None)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    with guarded_stdio():
        assert sys.stderr.isatty() is False


# with stdin and stderr closed (`<&- 2>&-`): an output written while a native library warns on fd 2
CLOSED_FDS = r"""
import os, sys
from mtcli.atomic import atomic_write, guarded_stdio

def write(tmp):
    with open(tmp, "wb") as f:
        f.write(b"hola\n")
        f.flush()
        os.write(2, b"a native library's warning\n")

with guarded_stdio():
    atomic_write(sys.argv[1], write)
print("done")
"""


def test_closed_standard_descriptors_get_dev_null_not_an_output_file(tmp_path):
    """A file mtcli opens never lands on fd 0, 1 or 2 left closed by the shell: what is written to
    "stderr" goes nowhere, not into the user's output, and the command runs to the end."""
    out = tmp_path / "out.txt"

    def close_stdin_and_stderr():
        os.close(0)
        os.close(2)

    r = subprocess.run([sys.executable, "-c", CLOSED_FDS, str(out)], cwd=REPO, stdout=subprocess.PIPE,
                       preexec_fn=close_stdin_and_stderr, timeout=60, check=False)
    assert (r.returncode, r.stdout) == (0, b"done\n")
    assert out.read_bytes() == b"hola\n"
