"""What every command owes its user, checked over all commands: --version, shell completion, help
that prints every option's text as written, -m/--model wherever a model is used (and MTCLI_MODEL),
errors that name flags the command has, usage errors in one line, contradictory options refused."""

import os
import re
import subprocess
import sys
from importlib.metadata import version

import pytest
import typer

from mtcli.cli import app

ROOT = typer.main.get_command(app)


def _commands(group=ROOT, path=()):
    """(("translate",), command), (("models", "add"), command), ... every command and group."""
    for name, cmd in group.commands.items():
        yield (*path, name), cmd
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, (*path, name))


COMMANDS = dict(_commands())
MODEL_COMMANDS = {p for p, cmd in COMMANDS.items() if any(par.name == "model" for par in cmd.params)}


def _flags(path) -> set[str]:
    cmd = COMMANDS[path] if path else ROOT
    return {"-h", "--help"} | {o for par in cmd.params for o in (*par.opts, *par.secondary_opts) if o.startswith("-")}


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch, tmp_path):
    monkeypatch.delenv("MTCLI_MODEL", raising=False)
    monkeypatch.delenv("MTCLI_BEAM", raising=False)
    monkeypatch.setenv("MTCLI_HOME", str(tmp_path / "home"))


def _one_error_line(result, code=2) -> str:
    exit_code, out, err = result
    assert exit_code == code and out == "" and err.count("\n") == 1 and err.startswith("error: "), (exit_code, err)
    return err


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_comes_from_the_package_metadata(flag, run_cli):
    assert run_cli(flag) == (0, f"mtcli {version('mtcli')}\n", "")


def test_shell_completion_completes_commands_and_options(run_cli, monkeypatch):
    code, out, _ = run_cli("--show-completion", "bash")
    assert code == 0 and "_MTCLI_COMPLETE" in out
    monkeypatch.setenv("_MTCLI_COMPLETE", "complete_bash")
    for words, expected in (("mtcli tr", {"train", "translate"}), ("mtcli translate --gr", {"--greedy"}),
                            ("mtcli models re", {"remove"})):
        monkeypatch.setenv("COMP_WORDS", words)
        monkeypatch.setenv("COMP_CWORD", str(len(words.split()) - 1))
        code, out, _ = run_cli()
        assert code == 0 and set(out.split()) == expected, (words, out)


def test_root_help_lists_every_command_and_the_conventions(run_cli):
    code, out, _ = run_cli("-h")
    assert code == 0 and all(f"  {name}" in out for (name, *rest) in COMMANDS if not rest)
    assert all(flag in out for flag in ("--version", "--install-completion", "--show-completion"))


def _squeeze(text: str) -> str:
    return "".join(text.split())  # help is wrapped to the terminal: compare without whitespace


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_help_prints_every_option_text_as_written(path, run_cli):
    """Nothing in a help text is taken for markup: [distributed], [default: ...] and the like print."""
    code, out, _ = run_cli(*path, "-h")
    cmd = COMMANDS[path]
    assert code == 0 and _squeeze(cmd.help.split("\n\n")[0]) in _squeeze(out)
    for par in cmd.params:
        if getattr(par, "help", None):
            assert _squeeze(par.help) in _squeeze(out), (path, par.name)
    if not hasattr(cmd, "commands"):
        assert "Examples:" in out


@pytest.mark.parametrize("path", sorted(p for p, c in COMMANDS.items() if not hasattr(c, "commands")), ids=" ".join)
def test_help_examples_print_each_on_one_line_to_copy(path, monkeypatch, capsys):
    """Wrapped at a narrow terminal's width, an example could no longer be copied and pasted."""
    from mtcli.cli import main

    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setattr(sys, "argv", ["mtcli", *path, "-h"])
    with pytest.raises(SystemExit):
        main()
    out = capsys.readouterr().out
    examples = COMMANDS[path].help.split("Examples:", 1)[1]
    for example in filter(None, (line.strip() for line in examples.splitlines())):
        assert example == "\b" or any(line.strip() == example for line in out.splitlines()), (path, example)


def test_help_keeps_the_bracketed_texts_rich_markup_used_to_swallow(run_cli):
    train = _squeeze(run_cli("train", "-h")[1])
    assert "mtcli[distributed]" in train and "[default:runs/CONFIG]" in train
    assert "[default:RUN/curves.png]" in _squeeze(run_cli("plot", "-h")[1])


def test_every_command_that_uses_a_model_takes_dash_m_and_mtcli_model(run_cli, monkeypatch):
    assert {("translate",), ("evaluate",), ("info",), ("plot",)} <= MODEL_COMMANDS
    for path in MODEL_COMMANDS:
        assert {"-m", "--model"} <= _flags(path), path
    monkeypatch.setenv("MTCLI_MODEL", "no-such-model")
    for path in MODEL_COMMANDS:
        required = [a for par in COMMANDS[path].params if par.required
                    for a in ([par.opts[0], "x"] if par.param_type_name == "option" else ["x"])]
        text = ["Hi."] if path == ("translate",) else []  # not read: the model is resolved first
        assert "no model named 'no-such-model'" in _one_error_line(run_cli(*path, *required, *text)), path


@pytest.mark.parametrize("path", [("evaluate",), ("info",), ("plot",)], ids=" ".join)
def test_positional_model_still_works_and_is_refused_together_with_dash_m(path, run_cli):
    assert "no model named 'nothing'" in _one_error_line(run_cli(*path, "nothing"))
    assert "give the model once" in _one_error_line(run_cli(*path, "nothing", "-m", "en-es"))


@pytest.mark.parametrize("args", [
    ["evaluate", "--corpus", "/nonexistent/spa.txt"],
    ["evaluate", "--data", "x.tsv", "--split", "selection"],
    ["translate", "--beam", "0", "Hi."],
    ["translate", "--greedy", "--nbest", "2", "Hi."],
    ["translate", "-i", "/nonexistent.txt", "Hi."],
    ["train", "--threads", "-1"],
    ["models", "add", "/nonexistent", "--name", "x"],
    ["plot", "-m", "en-es", "--bogus"],
    ["translate", "--beam", "many"],
], ids=" ".join)
def test_errors_name_only_flags_the_command_has(args, run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("MTCLI_DATA", str(tmp_path / "missing.txt"))
    path = tuple(args[:2]) if tuple(args[:2]) in COMMANDS else tuple(args[:1])
    named = set(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", _one_error_line(run_cli(*args)))) - {"--bogus"}
    assert named <= _flags(path) | _flags(()), named


def test_evaluate_names_corpus_not_data_for_the_training_corpus(run_cli, monkeypatch):
    monkeypatch.delenv("MTCLI_DATA", raising=False)
    err = _one_error_line(run_cli("evaluate", "--corpus", "/nonexistent/spa.txt"))
    assert "--corpus" in err and "--data" not in err


@pytest.mark.parametrize("args, message", [
    (["translate", "--greedy", "--nbest", "3", "Hi."], "--greedy keeps one candidate"),
    (["translate", "--greedy", "--beam", "5", "Hi."], "--greedy is --beam 1"),
    (["translate", "--beam", "2", "--nbest", "3", "Hi."], "--nbest 3 needs --beam 3"),
    (["translate", "--scores", "--nbest", "2", "Hi."], "--scores"),
    (["translate", "--scores", "--json", "Hi."], "--scores"),
    (["translate", "--greedy", "--alpha", "0.6", "Hi."], "--alpha"),
    (["translate", "--beam", "1", "--alpha", "0.6", "Hi."], "--alpha"),
    (["translate", "-i", "english.txt", "Hi."], "not both"),
    (["evaluate", "--data", "x.tsv", "--split", "selection"], "--data"),
    (["evaluate", "--data", "x.tsv", "--corpus", "spa.txt"], "--data"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_contradictory_options_are_refused_in_one_line(args, message, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "english.txt").write_text("Hello.\n")
    assert message in _one_error_line(run_cli(*args))


def test_an_environment_default_is_no_contradiction(run_cli, monkeypatch):
    monkeypatch.setenv("MTCLI_BEAM", "5")
    assert run_cli("translate", "--greedy", "The plant is green.") == (0, "La planta es verde.\n", "")


@pytest.mark.parametrize("args", [["translate", "--gredy"], ["bogus"], ["train", "--threads", "x"],
                                  ["models", "add"], ["translate", "--beam"]], ids=" ".join)
def test_usage_errors_are_one_line_with_where_to_read(args, run_cli):
    assert "-h`" in _one_error_line(run_cli(*args))


# what a command loads when it needs it, never `mtcli --version`, `-h` or the CLI's import (Numba alone: ~1 s of CPU)
HEAVY = ("numba", "llvmlite", "starlette", "uvicorn", "pydantic", "docx", "lxml", "odf", "polib", "srt", "markdown_it",
         "matplotlib", "sacrebleu", "numpy", "tokenizers", "safetensors", "py3langid", "mpi4py")


def _imported(*args: str) -> tuple[str, set[str]]:
    """stdout of `python -X importtime ARGS` and the modules it imported, each by its top-level package's name and
    by its own (with no BLAS thread count in the environment: mtcli's own choice)."""
    from mtcli.__main__ import BLAS_THREADS

    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done.stdout, modules | {name.split(".")[0] for name in modules}


def test_importing_the_cli_loads_no_library_that_a_command_needs():
    _, names = _imported("-c", "import mtcli.cli")
    assert "typer" in names  # (the check sees imports)
    assert names.isdisjoint(HEAVY), sorted(names & set(HEAVY))


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_answers_before_the_cli_loads(flag):
    out, names = _imported("-m", "mtcli", flag)
    assert out == f"mtcli {version('mtcli')}\n"
    assert "mtcli" in names and names.isdisjoint({"typer", "rich", *HEAVY}), sorted(names & {"typer", "rich", *HEAVY})


def test_one_sentence_is_translated_without_numba():
    """A few sentences decode with the NumPy references (decode.Translator's choice): Numba is not even imported;
    nor pydantic (the command line coerced by mtcli.coercion, the model's records told valid by ranges.plain)."""
    out, names = _imported("-m", "mtcli", "translate", "The plant is green.")
    assert out.strip() and "numpy" in names and "typer" in names
    assert names.isdisjoint({"numba", "llvmlite", "starlette", "uvicorn", "lxml", "matplotlib", "pydantic"})
    # nor what a line or two does not show or need: rich (written to a pipe, without a warning: console.LazyConsole),
    # importlib.metadata (py3langid's version is its own attribute), the document formats, the model files' schema,
    # threadpoolctl (OpenBLAS started with one thread: decode.one_blas_thread), more than one decoding thread's pool
    assert names.isdisjoint({"rich", "importlib.metadata", "mtcli.text.formats", "mtcli.schema", "threadpoolctl",
                             "concurrent.futures"})


@pytest.mark.parametrize("told", [None, "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"])
def test_translate_starts_blas_with_one_thread_unless_told_otherwise(told):
    """`mtcli translate` starts OpenBLAS with one thread (decoding runs it on one thread per batch anyway); a thread
    count in the environment wins."""
    from mtcli.__main__ import BLAS_THREADS

    code = ("import sys\nsys.argv = ['mtcli', 'translate', '--greedy', 'The plant is green.']\n"
            "from mtcli.__main__ import main\ntry:\n    main()\nfinally:\n"
            "    from threadpoolctl import threadpool_info\n"
            "    print(sorted(p['num_threads'] for p in threadpool_info() if p['internal_api'] == 'openblas'))")
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS} | ({told: "2"} if told else {})
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and done.stdout.splitlines() == ["La planta es verde.", "[2]" if told else "[1]"], \
        done.stderr[-2000:]


@pytest.mark.parametrize("environ", [{}, {"FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "0"}, {"FORCE_COLOR": ""}])
@pytest.mark.parametrize("tty", [False, True], ids=["pipe", "tty"])
@pytest.mark.parametrize("stderr", [False, True])
def test_the_lazy_consoles_answer_as_rich_does(environ, tty, stderr, monkeypatch):
    """console.err and console.out tell a terminal from a pipe as rich's Console does, without making one where
    nothing rich reads can change the answer (then it is isatty()); everything else is the Console's."""
    import io
    import os

    from rich.console import Console

    from mtcli.console import RICH_VARIABLES, LazyConsole

    for name in RICH_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    if tty:
        leader, follower = os.openpty()
        stream = os.fdopen(follower, "w", encoding="utf-8")
    else:
        stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr" if stderr else "stdout", stream)
    lazy = LazyConsole(stderr=stderr)
    assert lazy.is_terminal == Console(stderr=stderr).is_terminal
    assert (lazy._console is None) == (not environ)  # (rich asked only where a variable may say otherwise)
    lazy.print("[bold]señor[/bold]", end="")
    assert isinstance(lazy.console, Console) and lazy.console.file is stream
    if tty:
        stream.close()
        os.close(leader)
    else:
        assert "señor" in stream.getvalue()


def test_a_spinner_shows_only_for_a_block_that_lasts(monkeypatch):
    """console.status on a terminal: rich's spinner once the block has run its delay, none (and no rich) for a
    shorter one; closed with the block either way."""
    import contextlib
    import threading
    import time

    from mtcli import console

    shown = []

    @contextlib.contextmanager
    def spinner(message):
        shown.append(message)
        yield
        shown.append("closed")

    monkeypatch.setattr(console, "err", type("Terminal", (), {"is_terminal": True, "status": staticmethod(spinner)})())
    with console.status("quick", delay=0.5):
        pass
    with console.status("slow", delay=0.01):
        time.sleep(0.3)
    time.sleep(0.6)  # (the first block's timer, had it not been stopped)
    assert shown == ["slow", "closed"]

    def broken(message):  # (a stderr that cannot take it): the block runs on, nothing raised in the timer's thread
        raise OSError("closed")

    raised = []
    monkeypatch.setattr(threading, "excepthook", raised.append)
    monkeypatch.setattr(console, "err", type("Terminal", (), {"is_terminal": True, "status": staticmethod(broken)})())
    with console.status("broken", delay=0.01):
        time.sleep(0.3)
    assert raised == []


def test_a_lazy_console_is_made_once_whichever_threads_first_use_it(monkeypatch):
    """console.LazyConsole makes one rich Console even when threads first use it at once (status's timer thread
    showing the spinner as the block warns): with two, the warning went past the spinner's live display."""
    import threading
    import time

    import rich.console

    from mtcli.console import LazyConsole

    made = []

    class Slow:  # (a Console that takes long to make: the threads meet inside it)
        def __init__(self, **kwargs):
            time.sleep(0.05)
            made.append(self)

    monkeypatch.setattr(rich.console, "Console", Slow)
    lazy, start, got = LazyConsole(stderr=True), threading.Barrier(8), []

    def use():
        start.wait()
        got.append(lazy.console)

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and all(c is made[0] for c in got) and len(got) == 8


@pytest.mark.parametrize("args", [["translate", "-h"], ["translate", "--gredy", "x"], ["info", "--bogus"],
                                  ["translat", "x"], ["models", "-h"], ["-h"]], ids=" ".join)
def test_a_command_runs_in_an_app_of_its_own_that_answers_as_the_whole(args, run_cli, monkeypatch):
    """The app called with a command's name makes that command alone (coercion.App.__call__: typer makes every
    command's parameters at each call); its help and its errors are the whole app's, word for word. A group's
    command, a misspelt one or none: the whole app."""
    import typer.main

    from mtcli.coercion import App

    made = []
    real = typer.main.get_command_from_info
    monkeypatch.setattr(typer.main, "get_command_from_info", lambda **k: made.append(k) or real(**k))
    alone = run_cli(*args)
    assert (len(made) == 1) == (args[0] in ("translate", "info"))
    monkeypatch.setattr(App, "__call__", typer.Typer.__call__)
    assert run_cli(*args) == alone and alone[0] in (0, 2)
