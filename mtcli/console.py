"""What mtcli writes for a user to read besides its results: the two consoles, one-line errors and warnings with
what a user typed shown escaped. cli.py's commands and session.py's translate runs share them."""

from __future__ import annotations

import builtins
import os
import sys
import threading

import typer

RICH_VARIABLES = {"TTY_COMPATIBLE", "FORCE_COLOR", "FORCE_TERMINAL"}  # (FORCE_TERMINAL: rich's older releases)


class LazyConsole:
    """A rich Console made at its first use, not at import: rich costs a one-sentence translation ~25 ms of CPU, and
    one with nothing to warn of shows it nothing of rich's (no colours; no spinner: status). Everything but
    is_terminal goes to the Console itself; what hands a console to rich (Progress, a render) hands it `console`."""

    def __init__(self, stderr: bool = False):
        self.__dict__.update(_stderr=stderr, _console=None, _making=threading.Lock())

    @property
    def console(self):
        if self._console is None:
            with self._making:  # (one Console: status's timer thread may make it as a warning does)
                if self._console is None:
                    from rich.console import Console

                    self.__dict__["_console"] = Console(stderr=self._stderr)
        return self._console

    @property
    def is_terminal(self) -> bool:
        """rich's answer, told without rich where nothing rich reads can change it: then it is the stream's isatty()
        (no variable rich reads: rich 15's TTY_COMPATIBLE, FORCE_COLOR; no IPython, no IDLE, which rich tells apart)."""
        stream = sys.stderr if self._stderr else sys.stdout
        if self._console is None and not RICH_VARIABLES & os.environ.keys() and not hasattr(builtins, "get_ipython") \
                and not getattr(sys.stdin, "__module__", "").startswith("idlelib"):
            try:
                return bool(stream.isatty())
            except (AttributeError, ValueError):  # no stream, or a closed one: rich's own answer
                pass
        return self.console.is_terminal

    def __getattr__(self, name: str):
        return getattr(self.console, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self.console, name, value)


err = LazyConsole(stderr=True)
out = LazyConsole()

# line breaks and other control characters a user typed (a model name, a path) shown escaped, as
# repr shows them: a message stays one line and cannot move the terminal's cursor; lone surrogates (an
# argument that is no UTF-8) too, which no stream can encode
ESCAPED = {c: repr(chr(c))[1:-1] for c in (*range(32), *range(127, 160), 0x2028, 0x2029, *range(0xD800, 0xE000))}


def escaped(message: str) -> str:
    return message.translate(ESCAPED)


# the MTCLI_* variables the config file set (cli.main), each with the file: an error about one names the file, as
# the user never set the variable
FROM_CONFIG_FILE: dict[str, object] = {}


def error_line(message: str) -> None:
    # soft_wrap: one line however narrow the terminal (or 80 columns when piped); a stderr that
    # cannot be written (guarded_stdio) drops it, and the exit code still tells
    named = [variable for variable in FROM_CONFIG_FILE if variable in message]
    if named:
        message += f" ({', '.join(named)} from the config file {FROM_CONFIG_FILE[named[0]]})"
    from rich.text import Text

    try:
        err.print(Text.assemble(("error: ", "bold red"), escaped(message)), soft_wrap=True)
    except OSError:
        pass


def fail(message: str, code: int = 2) -> None:
    """The one-line error, and the command ends with `code`."""
    error_line(message)
    raise typer.Exit(code)


STATUS_DELAY = 0.25  # seconds a block runs before its spinner shows: a shorter one shows none (nor loads rich)


def status(message: str, delay: float = STATUS_DELAY):
    """rich's spinner with `message` on a terminal's stderr once a block has run `delay` seconds; elsewhere nothing, as
    rich would show nothing there. A translator's load (~50 ms from the cached weights) shows none: rich and its
    live display cost a one-sentence translation on a terminal ~60 ms of CPU, more than the load."""
    from contextlib import nullcontext

    return _Delayed(message, delay) if err.is_terminal else nullcontext()


class _Delayed:
    """err.status(message), entered by a timer `delay` seconds after the block began, if it has not ended."""

    def __init__(self, message: str, delay: float):
        self.message, self.lock, self.shown, self.done = message, threading.Lock(), None, False
        self.timer = threading.Timer(delay, self._show)
        self.timer.daemon = True

    def _show(self) -> None:
        with self.lock:
            if self.done:
                return
            try:
                shown = err.status(self.message)
                shown.__enter__()
            except Exception:  # (in the timer's thread: a spinner that cannot show is no error of the block's)
                return
            self.shown = shown

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.cancel()
        with self.lock:
            self.done = True
            if self.shown is not None:
                self.shown.__exit__(*exc)


def warning(message: str) -> None:
    from rich.text import Text

    err.print(Text.assemble(("warning: ", "yellow"), escaped(message)), soft_wrap=True)
