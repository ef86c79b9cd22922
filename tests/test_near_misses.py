"""Issue 38, point 6: every check that guards something gets its almost-right value, and every option
is shown to reach the code that uses it (a test that fails when the option is dropped on the way)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mtcli import guards, registry
from mtcli.errors import UserError
from tests import worlds
from tests.worlds import one_line
from tests.conftest import REPO

# mtcli run in a process of its own (a real standard input) with every decode's options recorded
DRIVER = """
import dataclasses, json, os, sys
from mtcli.decode import Translator
real = Translator.translate_batch
def record(self, lines, options):
    with open(os.environ["RECORD"], "a") as f:
        f.write(json.dumps(dataclasses.asdict(options)) + "\\n")
    return real(self, lines, options)
Translator.translate_batch = record
from mtcli.cli import main
sys.argv[0] = "mtcli"
main()
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return worlds.world(tmp_path_factory)


def decoded_with(tmp_path: Path, args: list, stdin: bytes | Path | None = None) -> list[dict]:
    record = tmp_path / "record.jsonl"
    record.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "RECORD": str(record)}
    env.pop("MTCLI_BEAM", None)
    if isinstance(stdin, Path):
        with open(stdin, "rb") as f:
            p = subprocess.run([sys.executable, "-c", DRIVER, *map(str, args)], stdin=f, capture_output=True, env=env,
                               timeout=120)
    else:
        p = subprocess.run([sys.executable, "-c", DRIVER, *map(str, args)], input=stdin or b"", capture_output=True,
                           env=env, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    return [json.loads(line) for line in record.read_text().splitlines()]


OPTIONS = {  # command-line options -> what TranslationOptions must hold
    "beam 3, alpha 0.7": (["--beam", "3", "--alpha", "0.7"], {"beam_size": 3, "length_penalty": 0.7}),
    "greedy": (["--greedy"], {"beam_size": 1}),
    "beam 4, batch 7": (["-b", "4", "--batch-size", "7"], {"beam_size": 4, "max_batch_size": 7, "batch_type": "examples"}),
}


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("mode", ["arguments", "-i FILE", "-i -", "stdin pipe", "stdin file", "-i FILE.srt",
                                  "--format html on stdin", "-i FILE.md -o"])
def test_decoding_options_reach_the_decoder_in_every_input_mode(mode, options, world, tmp_path):
    flags, want = OPTIONS[options]
    english = "Tom likes the cat.\nCome here, Ana!\n"
    (tmp_path / "in.txt").write_text(english)
    (tmp_path / "in.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nTom likes the cat.\n\n")
    (tmp_path / "in.md").write_text("# Come here, Ana!\n\nTom likes the cat.\n")
    base = ["translate", "-m", world.model, *flags]
    args, stdin = {
        "arguments": (base + ["Tom likes the cat.", "Come here, Ana!"], None),
        "-i FILE": (base + ["-i", tmp_path / "in.txt"], None),
        "-i -": (base + ["-i", "-"], english.encode()),
        "stdin pipe": (base, english.encode()),
        "stdin file": (base, tmp_path / "in.txt"),
        "-i FILE.srt": (base + ["-i", tmp_path / "in.srt"], None),
        "--format html on stdin": (base + ["--format", "html"], b"<p>Tom likes the cat.</p>\n"),
        "-i FILE.md -o": (base + ["-i", tmp_path / "in.md", "-o", tmp_path / "out.md"], None),
    }[mode]
    seen = decoded_with(tmp_path, args, stdin)
    assert seen, "nothing was decoded"
    for options_got in seen:
        assert {k: options_got[k] for k in want} == want, (mode, options_got)


def test_nbest_reaches_the_decoder_and_the_output(world, tmp_path):
    seen = decoded_with(tmp_path, ["translate", "-m", world.model, "--nbest", "3", "-i", "-"], b"Tom likes the cat.\n")
    from mtcli.config import DEFAULTS

    assert {(o["beam_size"], o["num_hypotheses"]) for o in seen} == {(max(DEFAULTS.beam_size, 3), 3)}
    seen = decoded_with(tmp_path, ["translate", "-m", world.model, "--nbest", "6", "Tom likes the cat."])
    assert {(o["beam_size"], o["num_hypotheses"]) for o in seen} == {(6, 6)}


def test_evaluate_beam_and_alpha_reach_the_decoder(world, tmp_path):
    seen = decoded_with(tmp_path, ["evaluate", "-m", world.model, "--data", world.corpus, "--limit", "3", "--beam", "2",
                                   "--alpha", "0.9"])
    assert {(o["beam_size"], o["length_penalty"]) for o in seen} == {(2, 0.9)}


def test_the_repl_decodes_with_the_options_given(world, run_cli, monkeypatch, tmp_path):
    from mtcli.decode import Translator

    seen, real = [], Translator.translate_batch
    monkeypatch.setattr(Translator, "translate_batch", lambda self, lines, o: seen.append(o) or real(self, lines, o))
    monkeypatch.setenv("MTCLI_HOME", str(tmp_path))

    class Terminal:
        def isatty(self):
            return True

    typed = iter(["Tom likes the cat."])

    def type_a_line(prompt=""):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr("builtins.input", type_a_line)
    code, out, err = run_cli("translate", "-m", world.model, "--beam", "2", "--alpha", "0.3")
    assert code == 0 and out.startswith("es> "), err
    assert {(o.beam_size, o.length_penalty) for o in seen} == {(2, 0.3)}


def test_arguments_that_are_not_utf8_are_one_line_whatever_the_locale_decoded(world, run_cli):
    latin1 = b"Caf\xe9 is open.".decode("utf-8", "surrogateescape")  # as Python hands such bytes in sys.argv
    assert "argument 2: byte offset 3: invalid UTF-8 (byte 0xe9)" in one_line(
        run_cli("translate", "-m", world.model, "Hi.", latin1))
    code, out, err = run_cli("translate", "-m", world.model, "--greedy", "Caf\u00e9 is open.")  # near miss: UTF-8
    assert code == 0 and out.count("\n") == 1, err
    code, out, err = run_cli("translate", "-m", world.model, "--greedy", "\ud800")  # no bytes at all: no traceback
    assert code in (0, 2) and "Traceback" not in err, err


# --- names ------------------------------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("MTCLI_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


@pytest.mark.parametrize("name", ["a" * 64, "a", "0", "a.b-c_d", "en-es2", "En-Es", "v1.0"])
def test_model_names_almost_refused_are_taken(name):
    registry._check_name(name)


@pytest.mark.parametrize("name", ["a" * 65, "", "-a", ".a", "_a", "a/b", "a b", "a\n", "..", ".", "en-es", "é",
                                  "a\\b", "a:b"])
def test_model_names_almost_right_are_refused(name):
    rule = ("the shipped model's name; choose another --name" if name == "en-es" else
            "use letters, digits, '.', '_' and '-' (up to 64, starting with a letter or digit)")
    with pytest.raises(UserError, match=re.escape(rule) + "$"):
        registry._check_name(name)


def test_a_name_resolves_only_exactly(world, home, run_cli):
    registry.add(world.model, "medium")
    assert registry.resolve("medium") == home / "models" / "medium"
    registry.release()
    for almost in ("mediu", "medium2", "Medium", " medium", "medium ", "medium/", "en-e", "en-es-"):
        assert "model" in one_line(run_cli("info", "-m", almost)), almost
    (Path("medium")).mkdir()  # a directory of the same name here: the name wins; ./medium is the directory
    assert registry.resolve("medium") == home / "models" / "medium"
    assert registry.resolve("./medium") == Path("./medium")
    registry.release()


@pytest.mark.parametrize("spec, what", [
    (" \t", "the model is empty: give a name from `mtcli models` or a model directory"),
    ("Xmodel", "no model named 'Xmodel' (nor a directory of that name)"),  # (a name: no "/", "\\" or "~" in it)
    ("a/b", "a/b: no such model directory"), ("a\\b", "a\\b: no such model directory"),
    ("~/none", "~/none: no such model directory"), ("file", "file: not a directory"),
    ("~nosuchuser/m", "the model ~nosuchuser/m: ~nosuchuser cannot be expanded: no user named 'nosuchuser'; give the "
                      "path without ~"),
])
def test_a_model_neither_named_nor_a_directory_says_which(spec, what, home):
    Path("file").write_text("x")
    with pytest.raises(UserError) as e:
        registry.resolve(spec)
    hint = "; known models: en-es, es-en (`mtcli models`); register a model directory with `mtcli models add DIR " \
           "--name NAME`, or give a model directory's path"
    assert str(e.value) == what + ("" if spec.isspace() or spec.startswith("~n") else hint)


def test_check_free_refuses_a_taken_name_unless_forced_and_only_that_name(world, home):
    registry.add(world.model, "tiny")
    with pytest.raises(UserError, match=r"exists \(.*/tiny\); add --force to replace it, or choose another name$"):
        registry.check_free("tiny")
    assert registry.check_free("tiny", force=True) == home / "models" / "tiny"
    assert registry.check_free("tiny2") == home / "models" / "tiny2"
    assert registry.check_free("tin") == home / "models" / "tin"


def test_a_model_directory_gone_or_replaced_is_not_the_one_locked(tmp_path):
    """registry._same, after a command locked a model: removed meanwhile (nothing to stat) or another directory
    under its name is not the model locked."""
    model = tmp_path / "m"
    model.mkdir()
    fd = registry._open_dir(model)
    try:
        assert registry._same(fd, model)
        model.rename(tmp_path / "moved")
        assert not registry._same(fd, model) and registry._same(fd, tmp_path / "moved")
        model.mkdir()
        assert not registry._same(fd, model)
    finally:
        os.close(fd)


def test_a_removal_that_fails_says_why(home, monkeypatch):
    model = home / "models" / "m"
    model.mkdir(parents=True)
    (model / registry.WEIGHTS).write_bytes(b"")  # (registered: models() lists it)
    monkeypatch.setattr(registry, "_delete", lambda path: (_ for _ in ()).throw(OSError(16, "Device or resource busy")))
    with pytest.raises(UserError, match=f"^cannot remove {re.escape(str(model))}: Device or resource busy$"):
        registry.remove("m")


def test_a_taken_name_is_refused_with_advice_the_command_can_follow(world, home, run_cli, tmp_path):
    """The advice of a refusal names options its own command has: finetune (and train --register) told to "add
    --force", which they do not have (their --force, where there is one, is about --out, not the name)."""
    import typer.main

    from mtcli.cli import app

    registry.add(world.model, "tiny")
    registry.release()
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("Hello.\tHola.\n" * 30)
    commands = typer.main.get_command(app).commands
    for argv in (["models", "add", str(world.model), "--name", "tiny"],
                 ["finetune", "-m", str(world.model), "-p", str(pairs), "-n", "tiny", "-o", str(tmp_path / "ft")]):
        code, _, err = run_cli(*argv)
        command = commands[argv[0]]
        command = command.commands[argv[1]] if hasattr(command, "commands") else command
        have = {o for p in command.params for o in p.opts}
        assert code == 2 and "exists" in err and set(re.findall(r"--[a-z-]+", err)) <= have, (argv, err)
    with pytest.raises(UserError, match=r"remove it first \(`mtcli models remove tiny`\)"):
        registry.check_free("tiny", replacing=registry.removing("tiny"))  # (what train --register is given)
    assert not (tmp_path / "ft").exists()


def test_remove_refuses_the_shipped_model_by_its_name_only(run_cli, home):
    assert "shipped" in one_line(run_cli("models", "remove", "en-es"))
    for almost in ("en-es2", "en-e", "EN-ES"):
        assert "no model named" in one_line(run_cli("models", "remove", almost))


# --- paths ------------------------------------------------------------------------------------------------


def test_an_output_almost_the_input_is_written(world, tmp_path):
    english = tmp_path / "in.txt"
    english.write_text("Tom likes the cat.\n")
    copy = tmp_path / "copy.txt"
    copy.write_bytes(english.read_bytes())  # the same bytes, another file
    assert guards.input_named(copy, [english]) is None
    assert guards.input_named(tmp_path / "new.txt", [english]) is None
    assert guards.input_named("-", [english], stdin=True) is None
    assert guards.input_named("/dev/null", ["/dev/null"]) is None  # a sink, whatever reads it
    assert guards.input_named(tmp_path / "in.txt", [english]) == str(english)
    assert guards.input_named(f"{tmp_path}/../{tmp_path.name}/in.txt", [english]) == str(english)
    (tmp_path / "d").mkdir()
    assert guards.input_named(tmp_path / "d", [tmp_path / "d"]) is None  # a directory is no file to destroy


def test_standard_input_is_an_input_only_when_the_command_reads_it(tmp_path, monkeypatch):
    out, other = tmp_path / "out.txt", tmp_path / "other.txt"
    out.write_text("x")
    other.write_text("x")
    with open(out, "rb") as held:
        monkeypatch.setattr(sys, "stdin", held)  # (the shell's `< out.txt`)
        assert guards.input_named(out, []) is None  # stdin not read by the command: not an input
        assert guards.input_named(out, [], stdin=True) == "standard input"
        assert guards.input_named(other, [], stdin=True) is None


def test_writable_near_misses(tmp_path):
    guards.check_writable(tmp_path / "new" / "deeper" / "out.txt", "-o")  # made on the way
    guards.check_writable("-", "-o")
    guards.check_writable("/dev/null", "-o")
    (tmp_path / "file").write_text("x")
    guards.check_writable(tmp_path / "file", "-o")
    with pytest.raises(UserError, match=r"cannot be written \(.*/file is a file, not a directory\); mtcli cannot write "
                                        "there: give a writable place$"):
        guards.check_writable(tmp_path / "file" / "under", "-o")  # a file on the way
    with pytest.raises(UserError, match="cannot be written"):
        guards.check_writable("/proc/self/x", "-o")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # the probe left nothing


def test_what_is_not_a_regular_file_is_named_and_a_file_is_not(tmp_path):
    import socket

    os.mkfifo(tmp_path / "fifo")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(tmp_path / "sock"))
        kinds = [guards.kind(p) for p in (tmp_path / "fifo", "/dev/null", tmp_path / "sock", tmp_path, tmp_path / "no")]
    (tmp_path / "file").write_text("x")
    assert kinds + [guards.kind(tmp_path / "file")] == ["pipe", "device", "socket", None, None, None]


def test_read_once_of_a_descriptor_reads_from_where_it_stands(tmp_path):
    (tmp_path / "in.txt").write_bytes(b"Hi.\nBye.\n")
    with open(tmp_path / "in.txt", "rb") as f:
        f.read(4)  # (buffered: the descriptor stands at the file's end now)
        os.lseek(f.fileno(), 4, os.SEEK_SET)
        assert guards.read_once(f.fileno(), 100) == b"Bye.\n"
        assert guards.read_once(f.fileno(), 100) == b""
    with open(tmp_path / "in.txt", "rb") as f:
        assert guards.read_once(f.fileno(), 2) == b"Hi."  # at most limit + 1 bytes: the caller refuses more


def test_read_once_of_a_path_near_misses(tmp_path, monkeypatch):
    """A file: at most limit + 1 bytes, and no more than its size when opened though it grows on each
    read (from a path, and from a descriptor standing past its start); a /proc file (size 0) to its end;
    a named pipe whose writer opened it and writes later, waited for; one never opened, refused by name."""
    grow = tmp_path / "grow.txt"
    grow.write_bytes(b"Hi.\nBye.\n")
    assert guards.read_once(grow, 2) == b"Hi." and guards.read_once(tmp_path / "grow.txt", 9) == b"Hi.\nBye.\n"
    real_read = os.read

    def read_and_grow(fd, n):
        with open(grow, "ab") as f:
            f.write(b"More.\n")
        return real_read(fd, n)

    with monkeypatch.context() as m:
        m.setattr(os, "read", read_and_grow)
        assert guards.read_once(grow, 100) == b"Hi.\nBye.\n"
        before = grow.read_bytes()
        with open(grow, "rb") as f:
            os.lseek(f.fileno(), 4, os.SEEK_SET)
            assert guards.read_once(f.fileno(), 100) == before[4:]
        m.setattr(os, "read", lambda fd, n: real_read(fd, min(n, 1)))  # a byte a read, as a pipe may give
        assert guards.read_once(grow, 4) == b"Hi.\nB"
    assert guards.read_once("/proc/self/status", 1 << 20).startswith(b"Name:")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def late_writer():
        with open(fifo, "wb") as f:  # (opened at once: a slow program, not a missing one)
            time.sleep(0.3)
            f.write(b"Hi.\n")

    writer = threading.Thread(target=late_writer)
    writer.start()
    assert guards.read_once(fifo, 100) == b"Hi.\n"
    writer.join(10)

    def early_writer():
        with open(fifo, "wb") as f:
            f.write(b"Hi.\nBye.\n")

    with monkeypatch.context() as m:  # select slow to see the data: the wait reads its first byte itself
        m.setattr(guards.select, "select", lambda *args: (time.sleep(0.3), ([], [], []))[1])
        writer = threading.Thread(target=early_writer)
        writer.start()
        assert guards.read_once(fifo, 4) == b"Hi.\nB"  # (that byte counts toward limit + 1)
        writer.join(10)
    monkeypatch.setattr(guards, "FIFO_WAIT", 0.2)
    with pytest.raises(UserError) as e:
        guards.read_once(fifo, 100)
    assert str(e.value) == f"{fifo}: a named pipe that no program opened to write in 0.2 s; start its writer first, " \
                           "or give a file"


def test_output_file_and_dir_near_misses(tmp_path, run_cli, world):
    from mtcli.cli import _output_file

    assert _output_file(str(tmp_path / "out")) == tmp_path / "out"
    assert _output_file("-") == Path("-")
    assert "names a directory" in one_line(run_cli("translate", "-m", world.model, "-o", f"{tmp_path}/out/", "Hi."))
    assert "standard output cannot take a directory" in one_line(run_cli("tokenize", "--out", "-"))


def _refused(call, capsys) -> str:
    """The one line a cli helper's refusal prints (typer.Exit, exit 2)."""
    import typer

    with pytest.raises(typer.Exit):
        call()
    return capsys.readouterr().err


def test_output_file_refusals_word_for_word(tmp_path, capsys, monkeypatch):
    """A directory named with or without a slash, by -o (the default) or by another option; "-" is
    standard output even where a directory named "-" stands."""
    from mtcli.cli import _output_file

    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.chdir(tmp_path)
    Path("-").mkdir()
    assert _output_file("-") == Path("-") and _output_file("d/x") == Path("d/x")
    assert _refused(lambda: _output_file("new/"), capsys) == "error: -o new/: names a directory; give a file name\n"
    assert _refused(lambda: _output_file(str(tmp_path), "--flagged"), capsys) == \
        f"error: --flagged {tmp_path}: names a directory; give a file name\n"


def test_an_output_that_is_an_input_word_for_word(tmp_path, capsys, monkeypatch):
    """Named as it is (no alias) or by a link (its input named), by -o (the default) or another option;
    standard input is an input only when the caller says the command reads it; "-" is never checked."""
    from mtcli.cli import _not_an_input

    monkeypatch.setenv("COLUMNS", "400")
    data, link = tmp_path / "data.txt", tmp_path / "link.txt"
    data.write_text("x")
    link.symlink_to(data)
    expected = "is this command's input or one of the model's files: writing it would destroy it; give another output"
    assert _refused(lambda: _not_an_input(data, [data]), capsys) == f"error: -o {data} {expected}\n"
    assert _refused(lambda: _not_an_input(link, [data], option="--flagged"), capsys) == \
        f"error: --flagged {link} (that is {data}) {expected}\n"
    with open(data, "rb") as held:
        monkeypatch.setattr(sys, "stdin", held)  # (the shell's `< data.txt`)
        _not_an_input(data, [])  # the command does not read standard input
        assert _refused(lambda: _not_an_input(data, [], True), capsys) == \
            f"error: -o {data} (that is standard input) {expected}\n"
    monkeypatch.setattr(guards, "_probe", lambda d: (_ for _ in ()).throw(OSError(30, "Read-only file system")))
    _not_an_input(None, [data])
    _not_an_input(Path("-"), [data], True)
    with pytest.raises(UserError) as e:
        _not_an_input(tmp_path / "out.txt", [data], option="--flagged")
    assert str(e.value) == f"--flagged {tmp_path}/out.txt: cannot be written (Read-only file system); mtcli cannot " \
                           "write there: give a writable place"


def test_evaluate_save_names_the_scores_file_it_cannot_write(tmp_path, monkeypatch):
    """(the probe refused as a read-only mount would: root writes through permissions)"""
    from mtcli.cli import _scores_writable

    monkeypatch.setattr(guards, "_probe", lambda d: (_ for _ in ()).throw(OSError(30, "Read-only file system")))
    with pytest.raises(UserError, match=f"^--save: the model's scores file {tmp_path}/scores.json: cannot be written "
                                        r"\(Read-only file system\)"):
        _scores_writable("m", tmp_path)


# --- options ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, refused", [
    (["--greedy", "--beam", "1"], False), (["--greedy", "--beam", "2"], True),
    (["--beam", "3", "--nbest", "3"], False), (["--beam", "2", "--nbest", "3"], True),
    (["--beam", "2", "--alpha", "0.5"], False), (["--beam", "1", "--alpha", "0.5"], True),
    (["--scores"], False), (["--scores", "--json"], True), (["--nbest", "2"], False), (["--greedy", "--nbest", "2"], True),
    (["--nbest", "2", "--scores"], True), (["--batch-size", "1"], False), (["--batch-size", "0"], True),
    (["--no-check"], False), (["--min-confidence", "0"], False), (["--no-check", "--min-confidence", "0"], True),
])
def test_translate_options_right_and_almost_right(args, refused, world, run_cli):
    result = run_cli("translate", "-m", world.model, *args, "Tom likes the cat.")
    if refused:
        one_line(result)
    else:
        assert result[0] == 0, result[2]


def test_a_model_is_asked_for_once(run_cli, monkeypatch):
    monkeypatch.delenv("MTCLI_MODEL", raising=False)
    assert run_cli("plot") == (2, "", "error: give a model: `mtcli plot MODEL` or -m MODEL (a name from `mtcli models` "
                                      "or a directory)\n")
    assert run_cli("info", "x", "-m", "en-es") == (2, "", "error: give the model once: as the MODEL argument or with "
                                                          "-m/--model\n")


@pytest.mark.parametrize("option", [["--round-trip"], ["--min-confidence", "0.5"], ["--flagged", "f.txt"]])
def test_each_check_option_is_named_when_the_check_is_off(option, run_cli):
    code, out, err = run_cli("translate", "--no-check", *option, "-i", "-")
    assert (code, out, err) == (2, "", f"error: {option[0]} reads the check that --no-check turns off\n")


@pytest.mark.parametrize("args, message", [
    (["--format", "markdown", "--nbest", "2", "-i", "-"], "--format markdown translates a document (-i FILE or stdin) "
     "and writes it back whole; --nbest, --scores, --json and text arguments are for plain lines"),
    (["-i", "-", "Hi."], "give the English as text arguments or with -i/--input, not both"),
    (["--greedy", "--nbest", "2", "Hi."], "--greedy keeps one candidate; --nbest 2 needs beam search (drop --greedy)"),
    (["--greedy", "--beam", "2", "Hi."], "--greedy is --beam 1: give --greedy or --beam 2, not both"),
    (["--beam", "2", "--nbest", "3", "Hi."], "--nbest 3 needs --beam 3 or more, not --beam 2"),
    (["--greedy", "--alpha", "0.5", "Hi."], "--alpha ranks the hypotheses of beam search; greedy decoding (--greedy, "
                                            "--beam 1) has none to rank"),
    (["--scores", "--json", "Hi."], "--scores: the output of --json carries the scores already"),
    (["--nbest", "2", "--scores", "Hi."], "--scores: the output of --nbest carries the scores already"),
])
def test_translate_refusals_word_for_word(args, message, run_cli):
    assert run_cli("translate", *args) == (2, "", f"error: {message}\n")


def test_a_long_mtcli_beam_is_shown_cut_at_40_characters(run_cli, monkeypatch):
    monkeypatch.setenv("MTCLI_BEAM", "9" * 50)
    assert f"MTCLI_BEAM={'9' * 40!r}: give a beam size" in one_line(run_cli("translate", "-i", "-"))


def _decoding(**given):
    """cli._decoding called directly: translate's defaults with `given` changed."""
    from mtcli.cli import _decoding

    args = dict(fmt="text", beam=4, alpha=0.6, nbest=1, batch_size=None, check=True, round_trip=False,
                min_confidence=None, flagged=None, align=False, scores=False, rerank="short")
    return _decoding(None, **{**args, **given})


@pytest.mark.parametrize("given, message", [
    (dict(check=False, round_trip=True, min_confidence=0.5), "--round-trip reads the check that --no-check turns off"),
    (dict(fmt="markdown", min_confidence=0.5), "--format markdown: --min-confidence is for plain lines (a document is "
                                               "not checked)"),
    (dict(fmt="html", align=True), "--format html: --align is for plain lines (a document is not checked)"),
    (dict(align=True, nbest=2), "--align: its alignments follow the one translation of each line, not --nbest"),
    (dict(align=True, scores=True), "--align: its alignments follow the one translation of each line, not --scores"),
])
def test_decoding_refusals_name_the_option_that_contradicts(given, message, capsys, monkeypatch):
    import typer

    monkeypatch.setenv("COLUMNS", "400")
    with pytest.raises(typer.Exit):
        _decoding(**given)
    assert capsys.readouterr().err == f"error: {message}\n"


def test_decoding_options_almost_refused_are_taken():
    assert _decoding(min_confidence=0.5, align=True).return_alignments
    assert _decoding(fmt="markdown").check == "fast" and _decoding(check=False).check == "off"
    assert _decoding(align=True, nbest=1).num_hypotheses == 2  # (the check's second best)
    assert _decoding(beam=2).num_hypotheses == 2 and _decoding(beam=2, nbest=3).num_hypotheses == 3
    assert (_decoding(beam=3).beam_size, _decoding(alpha=1.5).length_penalty) == (3, 1.5)
    assert _decoding(round_trip=True, beam=1).check == "full" and _decoding(beam=1, nbest=1).num_hypotheses == 1
    options = _decoding(batch_size=3)
    assert (options.max_batch_size, options.batch_type) == (3, "examples")


def test_document_options_right_and_almost_right():
    import typer

    from mtcli.cli import _document_options

    _document_options("json", ["menu.*"], False)
    _document_options("po", None, True)
    _document_options("xliff", [], True)
    for fmt, keys, overwrite in (("po", ["menu.*"], False), ("json", None, True), ("text", None, True)):
        with pytest.raises(typer.Exit):
            _document_options(fmt, keys, overwrite)


@pytest.mark.parametrize("split, refused", [("test", False), ("selection", False), ("Test", True), ("test ", True),
                                            ("train", True), ("", True)])
def test_evaluate_split_right_and_almost_right(split, refused, run_cli, monkeypatch, world):
    monkeypatch.setattr("mtcli.cli._load_translator", lambda model: (_ for _ in ()).throw(UserError("loaded")))
    message = one_line(run_cli("evaluate", "-m", world.model, "--split", split, "--corpus", world.corpus))
    assert ("--split must be test or selection" in message) == refused, message


def test_evaluate_data_with_split_only_when_given(world, run_cli, monkeypatch):
    monkeypatch.setattr("mtcli.cli._load_translator", lambda model: (_ for _ in ()).throw(UserError("loaded")))
    assert "do not go with it" in one_line(run_cli("evaluate", "-m", world.model, "--data", world.corpus, "--split",
                                                   "test"))
    assert "loaded" in one_line(run_cli("evaluate", "-m", world.model, "--data", world.corpus))


@pytest.mark.parametrize("given", [["--api-key", ""], ["--api-key", " "], ["--api-key", "\t\n"], "", " ", "\u3000"])
def test_an_empty_or_blank_api_key_is_refused_not_taken_for_none(given, run_cli, monkeypatch):
    """An empty key had served everyone without a key (MTCLI_API_KEY=$KEY with $KEY unset), a blank one
    required a key no client sends: both one line, exit 2, before anything else is checked (a host that is
    no address then comes second, so that a regression ends here rather than serving)."""
    monkeypatch.delenv("MTCLI_API_KEY", raising=False)
    if isinstance(given, str):
        monkeypatch.setenv("MTCLI_API_KEY", given)
    code, out, err = run_cli("serve", "--host", "not..a..host", *(given if isinstance(given, list) else []))
    assert code == 2 and out == "" and err.startswith("error: --api-key (MTCLI_API_KEY) is ") and err.count("\n") == 1
    assert guards.check_api_key("k") == "k" and guards.check_api_key(None) is None
