"""Reliability of outputs: `-o` never destroys what it points at (devices, pipes, symlinks, hard links,
modes, directories), and a standard output that is full, closed or a closed pipe ends in one line."""

from __future__ import annotations

import errno
import io
import os
import socket
import stat
import subprocess
import sys
import threading

import pytest

from mtcli.atomic import atomic_write_bytes, write_output
from mtcli.checkpoint import METRICS
from mtcli.errors import UserError
from tests import worlds
from tests.worlds import one_line as one_error_line
from tests.conftest import REPO


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return worlds.world(tmp_path_factory)


def test_devices_are_written_through_never_replaced(tally):
    """As root a rename over /dev/null would replace the system's /dev/null with a regular file."""
    for dev in ("/dev/null", "/dev/full"):
        before = os.stat(dev)
        try:
            atomic_write_bytes(dev, b"x\n")
        except UserError as e:
            assert dev == "/dev/full" and "No space left" in str(e)
        after = os.stat(dev)
        assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
        tally["input: odd paths (devices, FIFOs, links, directories, long names, loops)"] += 1


def test_fifo_is_written_through(tmp_path, tally):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    atomic_write_bytes(fifo, b"hola\n")
    reader.join(10)
    assert got == [b"hola\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
    tally["input: odd paths (devices, FIFOs, links, directories, long names, loops)"] += 1


def test_symlinks_are_followed_modes_kept_hard_links_kept(tmp_path, tally):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    os.chmod(target, 0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write_bytes(link, b"new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "created.txt")
    atomic_write_bytes(dangling, b"made\n")
    assert dangling.is_symlink() and (tmp_path / "created.txt").read_text() == "made\n"
    # hard links: an output is rewritten in place, every name shows the new text, the inode is the same
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a long old text that is longer than the new one\n")
    os.chmod(a, 0o640)
    os.link(a, b)
    inode = a.stat().st_ino
    for data in (b"short\n", b"a much longer new text than the old short one\n"):
        write_output(b, data)
        assert a.read_bytes() == data and a.stat().st_ino == inode and a.stat().st_nlink == 2
    assert stat.S_IMODE(a.stat().st_mode) == 0o640
    # ... while mtcli's own files are replaced: a run snapshotted with `cp -al` keeps its state
    atomic_write_bytes(b, b"new state\n")
    assert a.read_bytes() == data and b.read_bytes() == b"new state\n" and a.stat().st_nlink == 1
    assert not list(tmp_path.glob(".*.tmp"))
    tally["input: odd paths (devices, FIFOs, links, directories, long names, loops)"] += 4


def test_directories_sockets_and_unwritable_paths_are_refused(tmp_path, tally):
    d = tmp_path / "dir"
    d.mkdir()
    (d / "keep").write_text("x")
    for path in (d, tmp_path / "dir/", "", "."):
        with pytest.raises(UserError, match="directory"):
            atomic_write_bytes(path, b"x")
    assert (d / "keep").read_text() == "x"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "sock"))
        with pytest.raises(UserError, match="socket"):
            atomic_write_bytes(tmp_path / "sock", b"x")
    finally:
        sock.close()
    with pytest.raises(UserError, match="cannot write"):
        atomic_write_bytes(tmp_path / ("x" * 300), b"x")  # a name too long for the file system
    if os.geteuid():  # root may write a read-only file; others are refused, as by the shell
        ro = tmp_path / "ro.txt"
        ro.write_text("keep")
        os.chmod(ro, 0o444)
        with pytest.raises(UserError, match="read-only"):
            atomic_write_bytes(ro, b"x")
        assert ro.read_text() == "keep"
    tally["input: odd paths (devices, FIFOs, links, directories, long names, loops)"] += 7


def test_dash_is_stdout(capsysbinary):
    atomic_write_bytes("-", b"\x89PNG\r\n")
    assert capsysbinary.readouterr().out == b"\x89PNG\r\n"


def test_every_o_option_goes_through_the_safe_writer(world, tmp_path, run_cli, tally):
    """translate, evaluate and plot -o: /dev/null stays a device, a symlink is followed, a directory
    is refused in one line, `-` is stdout."""
    target = tmp_path / "real.txt"
    target.write_text("old")
    os.chmod(target, 0o600)
    (tmp_path / "link").symlink_to(target)
    inputs = tmp_path / "in.txt"
    inputs.write_text("Hello.\nWhere is the cat?\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / METRICS).write_text('{"epoch": 1, "train_error": 2.0, "selection_error": 2.5, "train_accuracy": 0.2, '
                               '"selection_accuracy": 0.1}\n')
    commands = {
        "translate": ["translate", "-m", world.model, "-i", inputs, "--greedy", "-o"],
        "evaluate": ["evaluate", "-m", world.model, "--data", world.corpus, "--limit", "3", "--beam", "1", "-o"],
        "plot": ["plot", run, "-o"],
    }
    for name, args in commands.items():
        code, _, err = run_cli(*args, "/dev/null")
        assert code == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode), err
        code, _, err = run_cli(*args, tmp_path / "link")
        assert code == 0 and (tmp_path / "link").is_symlink() and target.read_bytes() != b"old", err
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        target.write_text("old")
        assert "directory" in one_error_line(run_cli(*args, tmp_path))
        # a trailing slash names a directory: refused, not a file written under the name without it
        assert "directory" in one_error_line(run_cli(*args, f"{tmp_path}/new{os.sep}"))
        assert not (tmp_path / "new").exists()
        tally["input: odd paths (devices, FIFOs, links, directories, long names, loops)"] += 3
    code, out, err = run_cli(*commands["translate"], "-")
    assert code == 0 and len(out.splitlines()) == 2, err


def test_an_output_that_is_an_input_is_refused_before_any_work(world, tmp_path, run_cli, tally):
    """evaluate -o its --data (by its name, a symlink or a hard link) or a model file, plot -o the
    metrics it draws, export and translate -o the model's weights: refused in one line, every input unchanged."""
    import shutil

    model, data = tmp_path / "model", tmp_path / "pairs.tsv"
    shutil.copytree(world.model, model)
    shutil.copyfile(world.corpus, data)
    (tmp_path / "link.tsv").symlink_to(data)
    os.link(data, tmp_path / "hard.tsv")
    inputs = [data, model / METRICS, model / "model.safetensors", model / "src.json"]
    before = [p.read_bytes() for p in inputs]
    evaluate = ["evaluate", "-m", model, "--data", data, "--beam", "1", "--limit", "2", "-o"]
    for args in ([*evaluate, data], [*evaluate, tmp_path / "link.tsv"], [*evaluate, tmp_path / "hard.tsv"],
                 [*evaluate, model / "src.json"], ["plot", model, "-o", model / METRICS],
                 ["export", model, "-f", "argos", "-o", model / "model.safetensors"],
                 ["translate", "-m", model, "-o", model / "model.safetensors", "Hello."]):
        assert "would destroy it" in one_error_line(run_cli(*args)), args
        tally["input: odd paths (devices, FIFOs, links, directories, long names, loops)"] += 1
    assert [p.read_bytes() for p in inputs] == before


def test_plot_to_stdout_is_the_png_alone(world, monkeypatch, capsysbinary):
    from mtcli.cli import main

    monkeypatch.setattr(sys, "argv", ["mtcli", "plot", str(world.model), "-o", "-"])
    with pytest.raises(SystemExit) as e:
        main()
    out = capsysbinary.readouterr().out
    assert e.value.code == 0 and out.startswith(b"\x89PNG\r\n") and out.endswith(b"IEND\xaeB`\x82")


class _Failing(io.TextIOWrapper):
    def __init__(self, errno_: int):
        super().__init__(io.BytesIO(), encoding="utf-8")
        self.errno = errno_

    def write(self, s):
        raise OSError(self.errno, os.strerror(self.errno))

    def flush(self):
        raise OSError(self.errno, os.strerror(self.errno))


@pytest.mark.parametrize("errno_", [32, 28, 9, 5])  # EPIPE, ENOSPC, EBADF, EIO
def test_stdout_write_errors_in_process_are_one_line(world, monkeypatch, capsys, errno_, tally):
    from mtcli.cli import main

    monkeypatch.setattr(sys, "argv", ["mtcli", "translate", "-m", str(world.model), "--greedy", "Hello."])
    monkeypatch.setattr(sys, "stdout", _Failing(errno_))
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "cannot write to standard output" in err, err
    tally["fault: stdout/stderr write errors"] += 1


def _mtcli(args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtcli", *map(str, args)], cwd=REPO, capture_output=False,
                          timeout=120, **kw)


def test_full_closed_and_gone_stdout_for_real(world, tmp_path, tally):
    """The shell's cases: `>/dev/full`, `>&-`, `| head -0`, and a stderr that cannot be written."""
    args = ["translate", "-m", world.model, "--greedy", "Hello.", "Where is the cat?"]
    with open("/dev/full", "wb") as full:
        r = _mtcli(args, stdout=full, stderr=subprocess.PIPE)
    assert r.returncode == 2 and r.stderr.decode() == "error: cannot write to standard output: No space left on device\n"
    r = _mtcli(args, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert r.returncode == 2 and r.stderr.decode().count("\n") == 1 and "standard output" in r.stderr.decode()
    # nothing for stdout (-o): a closed stdout loses nothing, so no error (a training run's exit code)
    r = _mtcli([*args, "-o", tmp_path / "out.txt"], stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert (r.returncode, r.stderr) == (0, b"") and len((tmp_path / "out.txt").read_text().splitlines()) == 2
    read, write = os.pipe()
    os.close(read)  # `| head -0`: the reader is gone before anything is written
    try:
        r = _mtcli(args, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert r.returncode == 2 and r.stderr.decode() == "error: cannot write to standard output: Broken pipe\n"
    with open("/dev/full", "wb") as full:  # stderr full: the translation is still written, exit 0
        r = _mtcli(args, stdout=subprocess.PIPE, stderr=full)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2
    with open("/dev/full", "wb") as full:  # both: the exit code alone tells
        r = _mtcli(["translate", "-m", tmp_path / "missing", "Hi."], stdout=subprocess.PIPE, stderr=full)
    assert r.returncode == 2
    tally["fault: stdout/stderr write errors"] += 5


def test_overlong_translate_lines_are_cut_with_a_warning_naming_the_line(world, tmp_path, run_cli, tally):
    """A 10 MB line once took 2 GB: now a line is read up to MAX_LINE_CHARS, and the warning says so."""
    from mtcli.schema import MAX_LINE_CHARS

    src = tmp_path / "long.txt"
    src.write_text("Hello.\n" + "x" * (5 * MAX_LINE_CHARS) + "\nWhere is the cat?\n")
    code, out, err = run_cli("translate", "-m", world.model, "-i", src, "--greedy")
    assert code == 0 and len(out.splitlines()) == 3, err
    assert f"line 2: longer than {MAX_LINE_CHARS:,} characters" in err and err.count("warning:") == 1, err
    tally["input: translate lines over the length limit"] += 1


def test_paths_the_system_refuses_are_one_line_everywhere(world, tmp_path, run_cli, monkeypatch, tally):
    """A name too long for the file system and a loop of symlinks, given to every path option: the
    system's refusal (ENAMETOOLONG, ELOOP) is one line, exit 2, whichever check meets it first."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for bad in ("x" * 5000, "loop/x"):
        for args in (["download", "--dest", bad], ["tokenize", "--data", bad], ["tokenize", "--data", world.corpus,
                     "--out", bad], ["train", "--out", bad, "--prepared", world.prepared], ["train", "--prepared", bad],
                     ["translate", "-m", world.model, "-i", bad], ["translate", "-m", bad, "Hi."],
                     ["translate", "-m", world.model, "-o", bad, "Hi."], ["plot", bad], ["plot", world.model, "-o", bad],
                     ["evaluate", "-m", world.model, "--data", bad], ["info", bad], ["models", "add", bad]):
            one_error_line(run_cli(*args))
            tally["input: odd paths (devices, FIFOs, links, directories, long names, loops)"] += 1


@pytest.mark.parametrize("refusal, written", [(errno.EOPNOTSUPP, True), (errno.EINVAL, True), (errno.EBADF, True),
                                               (errno.ENOSPC, False)])
def test_a_hard_linked_file_where_space_cannot_be_reserved(tmp_path, monkeypatch, refusal, written):
    """A file with several names is rewritten in place, space reserved first: a file system that cannot
    reserve (EOPNOTSUPP, EINVAL; EBADF from glibc, whose emulation of it reads through the write-only
    descriptor, e.g. on NFSv3 or vfat) is simply written; a full disk (ENOSPC) is a one-line error and
    both names keep the old text, byte for byte."""
    from mtcli.errors import UserError

    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes(b"old\n")
    os.link(first, second)

    def cannot(fd, offset, length):
        raise OSError(refusal, os.strerror(refusal))

    monkeypatch.setattr(os, "posix_fallocate", cannot)
    if written:
        write_output(first, b"a longer new text\n")
    else:
        with pytest.raises(UserError, match=f"{first}.*{os.strerror(errno.ENOSPC)}"):
            write_output(first, b"a longer new text\n")
    expected = b"a longer new text\n" if written else b"old\n"
    assert first.read_bytes() == expected and second.read_bytes() == expected
