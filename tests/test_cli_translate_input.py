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


def test_a_file_is_read_translated_and_written_a_chunk_at_a_time(tmp_path, monkeypatch):
    """translate -i FILE -o OUT holds one chunk, not the file: the first LINES_PER_CALL lines are translated before
    the file's end is read, and written (to the temporary file beside OUT) before the next chunk is translated; OUT
    ends as the input came (CRLF, no final line end)."""
    from types import SimpleNamespace

    from mtcli import guards, session
    from mtcli.atomic import write_output_pieces
    from mtcli.text import read
    from mtcli.text.pipeline import LINES_PER_CALL

    lines = [f"{k}" + " word" * 200 for k in range(2 * LINES_PER_CALL + 5)]  # ~1 KB each: several pieces read
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_bytes("\r\n".join(lines).encode())
    got, seen = [0], []
    pieces = guards.read_pieces

    def counted(path, limit):
        for piece in pieces(path, limit):
            got[0] += len(piece)
            yield piece

    def translate(batch, first):
        written = sum(p.stat().st_size for p in tmp_path.glob(".out.txt.*.tmp"))
        seen.append((first, len(batch), got[0], written))
        return [SimpleNamespace(line=first + k, nbest=[(line.upper(), 0.0)], warnings=[], check=None)
                for k, line in enumerate(batch)]

    monkeypatch.setattr(guards, "read_pieces", counted)
    file = session.read_input(src, "text", out)
    assert isinstance(file, session.FileLines)
    chunks = session.translate_groups(file.groups(), SimpleNamespace(translate=translate), 1, False, False, False,
                                      None, "line")
    write_output_pieces(out, read.encode_pieces(chunks, file.reader.document))
    size = src.stat().st_size
    assert [s[:2] for s in seen] == [(1, LINES_PER_CALL), (LINES_PER_CALL + 1, LINES_PER_CALL), (2 * LINES_PER_CALL + 1, 5)]
    assert seen[0][2] < size and seen[0][3] == 0
    assert seen[1][3] > size // 3  # the first chunk (~2/5 of it, less what the file object buffers) written already
    assert out.read_bytes() == "\r\n".join(line.upper() for line in lines).encode()


# a process running the CLI that writes its peak resident memory (KB) as the last line of stderr
_PEAK = ("import resource, sys\nfrom mtcli.__main__ import main\ntry:\n    main()\nfinally:\n"
         "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")


@pytest.mark.slow
@pytest.mark.parametrize("decoding", [["--greedy"], []], ids=["greedy", "default"])
def test_resident_memory_does_not_grow_with_the_file(tmp_path, tiny_model_dir, decoding):
    """translate -i FILE: three chunks' worth of lines peak at the resident memory of one chunk's (the file is
    streamed; decoding's buffers are sized by the batch, not by what came before), greedy and at the default beam."""
    import subprocess
    import sys

    from mtcli.text.pipeline import LINES_PER_CALL
    from tests.conftest import tiny_pairs

    words = " ".join(en for en, _ in tiny_pairs()).split()

    def peak_mb(lines: int) -> float:
        src = tmp_path / f"{lines}.txt"
        src.write_text("".join(f"{words[k % len(words)]} {k}\n" for k in range(lines)))
        run = subprocess.run([sys.executable, "-c", _PEAK, "translate", "-m", str(tiny_model_dir), *decoding,
                              "--no-check", "-i", str(src), "-o", str(tmp_path / "out.txt")],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        assert len((tmp_path / "out.txt").read_text().splitlines()) == lines
        return int(run.stderr.split()[-1]) / 1024

    one, three = peak_mb(LINES_PER_CALL), peak_mb(3 * LINES_PER_CALL)
    assert three - one < 16, (one, three)


@pytest.mark.skipif(not os.path.exists("/dev/null") or os.name != "posix", reason="a POSIX null device")
def test_the_null_device_is_empty_input(shipped_model, run_cli, tmp_path):
    """Attack 2026-12-03's X: `-i /dev/null` (the usual "nothing") had been refused as a device."""
    code, out, err = run_cli("translate", "-m", shipped_model, "-i", "/dev/null")
    assert (code, out, err) == (0, "", "")
    code, _, err = run_cli("translate", "-m", shipped_model, "-i", "/dev/null", "-o", tmp_path / "out.txt")
    assert (code, err, (tmp_path / "out.txt").read_bytes()) == (0, "", b"")


def test_fewer_nbest_rows_than_asked_are_said_once(shipped_model, run_cli):
    """Attack 2026-12-03's AA: a line got fewer than --nbest rows, unsaid. No candidate is made up to fill them."""
    code, out, err = run_cli("translate", "-m", shipped_model, "--nbest", "3", "You have %d new messages, {name}.",
                             "I like it.")
    rows = [row.split(" ||| ")[0] for row in out.splitlines()]
    assert code == 0 and rows.count("1") == 3 and 1 <= rows.count("0") < 3
    assert "1 of 2 arguments got fewer than 3 translations" in err and err.count("fewer than") == 1, err


def test_a_lone_dash_argument_is_standard_input(shipped_model, tmp_path):
    """`echo ... | mtcli translate -` (sacrebleu's and llm's "-") had translated the text "-"."""
    import subprocess
    import sys

    run = [sys.executable, "-m", "mtcli", "translate", "-m", str(shipped_model), "--greedy", "--no-check"]
    piped = subprocess.run([*run, "-"], input="The plant is green.\n", capture_output=True, text=True, timeout=120)
    assert (piped.returncode, piped.stdout) == (0, "La planta es verde.\n"), piped.stderr
    both = subprocess.run([*run, "-i", tmp_path / "none.txt", "-"], capture_output=True, text=True, timeout=120)
    assert both.returncode == 2 and "not both" in both.stderr  # (a dash beside -i is still two inputs)
