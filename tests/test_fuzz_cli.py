"""Reliability: the whole CLI fuzzed. Hypothesis draws a command (every command and subcommand typer
knows, found by walking the app, so a new command is fuzzed too) and options and arguments with
hostile values: 0, negative, NaN, infinities, huge, wrong types, empty, long, odd paths, special
files. Every run must end without a traceback, with exit code 0, 2, 3 or 130, and must touch
nothing outside its temporary directory: every file written, renamed, removed or created is
checked with a Python audit hook while the command runs.

Kept fast (milliseconds per run): training's loop, serving, launching MPI ranks and the network
are stubbed, evaluate scores 3 pairs; everything before them (parsing, validation, locks, file
checks, loading models and data, decoding) runs for real."""

from __future__ import annotations

import os
import shutil
import sys
import urllib.error
from collections import Counter
from pathlib import Path

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mtcli.distributed
import mtcli.evaluate
import mtcli.serve.server
import mtcli.train
from mtcli.cli import app, main
from tests import worlds
from tests.conftest import IN_CI

RUNS = 150

INTS = ["0", "1", "2", "3", "-1", "16", "64", "65", "1000000", "99999999999999999999999", "-99999999999999999999"]
FLOATS = ["0.5", "1.5", "nan", "-nan", "inf", "-inf", "1e400", "-0.0", "1e-300", "0.99"]
WORDS = ["", " ", "abc", "é", "\u202e", "x" * 5000, "--", "-", "0x10", "1_000", "%s%n", "'", "~", "true",
         "small", "large", "grouped", "random", "noam", "thesis", "error", "bleu", "test", "selection", "text", "srt",
         "html", "markdown"]
PATHS = ["out", "sub/dir/x", ".", "..", "../..", "corpus.tsv", "model", "prepared", "run", "/dev/null", "/dev/full",
         "missing/file", "link", "file.txt", "dir", "empty.txt"]
# half the values fit some option, so runs also get past parsing into the commands' own checks
FITTING = ["1", "2", "4", "16", "0.1", "0.5", "small", "random", "thesis", "bleu", "selection", "srt", "corpus.tsv",
           "model", "run", "out", "prepared"]
VALUES = st.one_of(st.sampled_from(FITTING), st.sampled_from(INTS + FLOATS + WORDS + PATHS))
TEXTS = st.sampled_from(["Hello.", "", "Where is the cat?", "x" * 20_000, "🙂", "\ud800", "-", "--help"])
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
WRITING_EVENTS = {"os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.truncate", "os.link",
                  "os.symlink", "shutil.rmtree", "shutil.copyfile", "shutil.copytree", "os.utime"}


def _commands() -> dict[tuple[str, ...], list]:
    """Every command path (("models", "add"), ...) -> its click parameters."""
    found = {}

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            if getattr(cmd, "invoke_without_command", False) and path:
                found[path] = cmd.params
            for name, sub in subs.items():
                walk(sub, (*path, name))
        else:
            found[path] = cmd.params

    walk(typer.main.get_command(app), ())
    return found


COMMANDS = _commands()


@st.composite
def invocations(draw) -> list[str]:
    path = draw(st.sampled_from(sorted(COMMANDS)))
    params = COMMANDS[path]
    options = [p for p in params if p.param_type_name == "option"]
    arguments = [p for p in params if p.param_type_name == "argument"]
    args = list(path)
    for p in draw(st.lists(st.sampled_from(options), max_size=4)) if options else []:
        args.append(draw(st.sampled_from(p.opts)))
        if not p.is_flag:
            args.append(draw(VALUES))
    for p in arguments:
        if p.nargs == -1:
            args += draw(st.lists(TEXTS, max_size=2))
        elif draw(st.booleans()):
            args.append(draw(st.sampled_from(PATHS + WORDS[:6])))
    return args


class Writes:
    """An audit hook recording what a command writes while `active`."""

    def __init__(self, allowed: list[Path]):
        self.allowed = [str(a.resolve()) for a in allowed]
        self.active, self.outside = False, []
        sys.addaudithook(self)  # cannot be removed: it is idle while not active

    def _check(self, event: str, path) -> None:
        if isinstance(path, int) or path is None:
            return
        path = os.fsdecode(path)
        real = os.path.realpath(path)
        if real in ("/dev/null", "/dev/full") or "__pycache__" in real or any(
                real == a or real.startswith(a + os.sep) for a in self.allowed):
            return
        self.outside.append((event, path))

    def __call__(self, event: str, args) -> None:
        if not self.active:
            return
        if event == "open":
            path, mode, flags = args
            if isinstance(path, (str, bytes)) and os.path.isdir(path):
                return  # a directory opened to write makes a nameless file in it (O_TMPFILE: tempfile.TemporaryFile
                # in py3langid's first load), gone at close; any other open of a directory to write fails
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (mode is None and flags & WRITE_FLAGS):
                self._check(event, path)
        elif event in WRITING_EVENTS:
            self._check(event, args[0])
            if event in ("os.rename", "os.link", "os.symlink", "shutil.copyfile", "shutil.copytree"):
                self._check(event, args[1])


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A temporary tree the runs work in: cwd three levels down (so .. and ../.. stay inside), a
    corpus, a tokenized copy, a trained model, a run with its state, odd files."""
    world = worlds.world(tmp_path_factory)
    root = tmp_path_factory.mktemp("fuzz")
    cwd = root / "a" / "b" / "c"
    cwd.mkdir(parents=True)
    shutil.copy(world.corpus, cwd / "corpus.tsv")
    shutil.copytree(world.prepared, cwd / "prepared")
    shutil.copytree(world.model, cwd / "model")
    shutil.copytree(world.model, cwd / "run")
    (cwd / "link").symlink_to(cwd / "corpus.tsv")
    (cwd / "file.txt").write_text("Hello.\n")
    (cwd / "empty.txt").write_bytes(b"")
    (cwd / "dir").mkdir()
    (root / "home").mkdir()
    import matplotlib  # its font cache is built on first use: before the writes are watched

    return root, cwd, Writes([root, Path(matplotlib.get_cachedir()), Path(os.environ.get("NUMBA_CACHE_DIR", root))])


def _stub_train(prepared, out, mcfg, tcfg, resume, console, comm, overrides, threads, fixed, source=None):
    return mtcli.train.LoopState(done="fuzz: the training loop is stubbed")


_evaluate = mtcli.evaluate.evaluate_pairs  # the real one, on 3 pairs


def _no_network(*a, **k):
    raise urllib.error.URLError("no network in the tests")


@settings(max_examples=RUNS, deadline=None, database=None, derandomize=IN_CI,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(args=invocations())
def test_cli_fuzz(sandbox, monkeypatch, capsys, args, tally, fuzz_codes):
    root, cwd, writes = sandbox
    monkeypatch.chdir(cwd)
    for var, value in {"MTCLI_HOME": root / "home", "HOME": root / "home", "MTCLI_DATA": cwd / "corpus.tsv",
                       "MTCLI_PREPARED": cwd / "prepared", "MTCLI_MODEL": cwd / "model", "COLUMNS": "200"}.items():
        monkeypatch.setenv(var, str(value))
    for var in ("MTCLI_DOWNLOAD_URL", "MTCLI_BEAM", "MTCLI_THREADS", "MTCLI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(mtcli.train, "_train", _stub_train)
    monkeypatch.setattr(mtcli.distributed, "relaunch", lambda ranks, argv: 0)
    monkeypatch.setattr(mtcli.evaluate, "evaluate_pairs", lambda tr, pairs, **kw: _evaluate(tr, pairs[:3], **kw))
    monkeypatch.setattr("urllib.request.urlopen", _no_network)
    monkeypatch.setattr(mtcli.serve.server, "serve", lambda model_dir, cfg, announce: announce("http://stub"))
    monkeypatch.setattr(sys, "argv", ["mtcli", *args])
    (root / "stdin.txt").write_text("Hello.\nWhere is the cat?\n")
    monkeypatch.setattr(sys, "stdin", open(root / "stdin.txt", encoding="utf-8"))  # noqa: SIM115 (piped input)
    writes.active, writes.outside = True, []
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        writes.active = False
        sys.stdin.close()
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out, (args, err)
    assert code in (0, 2, 3, 130), (args, code, err)
    assert not writes.outside, (args, writes.outside)
    if code == 2 and err.strip():
        last = err.strip().splitlines()[-1]
        assert last.startswith("error: ") or "Usage" in err, (args, err)
    fuzz_codes[code] += 1
    tally["input: CLI fuzz runs (hypothesis: commands x options x hostile values)"] += 1


@pytest.fixture(scope="module")
def fuzz_codes(tally):
    codes = Counter()
    yield codes
    for code, n in sorted(codes.items()):
        tally[f"  of which ended with exit code {code}"] += n


def test_every_command_is_fuzzed():
    """The walk finds every command, so a command added later is fuzzed without touching this file."""
    names = {" ".join(path) for path in COMMANDS}
    assert {"download", "tokenize", "train", "plot", "translate", "evaluate", "info", "models", "models add",
            "models remove"} <= names
