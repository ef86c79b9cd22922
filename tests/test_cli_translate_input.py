"""translate's input paths and arguments, refused before any model is loaded: an output that is the input
itself, a directory, a device; a pipe (`-i <(...)`) read like a file; arguments that are not UTF-8."""

import os
import threading

import pytest


@pytest.fixture
def english(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("The dog runs.\n")
    return src


def test_the_input_file_is_never_the_output(shipped_model, run_cli, english, tmp_path):
    (tmp_path / "link.txt").symlink_to(english)
    os.link(english, tmp_path / "hard.txt")
    for out in (english, tmp_path / "link.txt", tmp_path / "hard.txt"):
        code, _, err = run_cli("translate", "-m", shipped_model, "-i", english, "-o", out)
        assert code == 2 and "is the input file" in err and err.count("\n") == 1, err
    assert english.read_text() == "The dog runs.\n"


def test_directories_and_devices_are_one_line(shipped_model, run_cli, tmp_path):
    for path, said in ((tmp_path, "is a directory"), ("/dev/zero", "not a file or a pipe"),
                       (tmp_path / "none.txt", "no such file")):
        code, _, err = run_cli("translate", "-m", shipped_model, "-i", path)
        assert code == 2 and said in err and err.count("\n") == 1, err


def test_arguments_that_are_not_utf8_are_refused(shipped_model, run_cli):
    latin1 = b"Caf\xe9 is open.".decode("utf-8", "surrogateescape")  # as Python hands such bytes in sys.argv
    code, out, err = run_cli("translate", "-m", shipped_model, "Hi.", latin1)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "argument 2: byte offset 3: invalid UTF-8 (byte 0xe9)" in err


def test_a_pipe_is_read_like_a_file(shipped_model, run_cli, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w") as f:
            f.write("The plant is green.\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    code, out, err = run_cli("translate", "-m", shipped_model, "--greedy", "-i", fifo)
    writer.join(10)
    assert code == 0 and out == "La planta es verde.\n", err
