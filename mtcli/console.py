"""What mtcli writes for a user to read besides its results: the two consoles, one-line errors and warnings with
what a user typed shown escaped. cli.py's commands and session.py's translate runs share them."""

from __future__ import annotations

import os
import sys

import typer


class LazyConsole:
    """A rich Console made at its first use, not at import: rich costs a one-sentence translation ~25 ms of CPU,
    and one written to a pipe shows it nothing of rich's (no spinner, no colours). Everything but is_terminal goes
    to the Console itself; what hands a console to rich (Progress, a render) hands it `console`, the Console."""

    def __init__(self, stderr: bool = False):
        self.__dict__["_stderr"], self.__dict__["_console"] = stderr, None

    @property
    def console(self):
        if self._console is None:
            from rich.console import Console

            self.__dict__["_console"] = Console(stderr=self._stderr)
        return self._console

    @property
    def is_terminal(self) -> bool:
        """rich's answer, told without rich where it is plainly no: a stream that is no terminal, and none of the
        variables rich reads to say otherwise (rich 15: TTY_COMPATIBLE, FORCE_COLOR)."""
        stream = sys.stderr if self._stderr else sys.stdout
        try:
            plain = not stream.isatty() and not {"TTY_COMPATIBLE", "FORCE_COLOR", "FORCE_TERMINAL"} & os.environ.keys()
        except (AttributeError, ValueError):  # no stream, or a closed one: rich's own answer
            plain = False
        return False if plain else self.console.is_terminal

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


def status(message: str):
    """rich's spinner with `message` on a terminal's stderr while a block runs; elsewhere nothing, as rich would
    show nothing there (its live display cost a one-sentence translation ~15 ms to load)."""
    from contextlib import nullcontext

    return err.status(message) if err.is_terminal else nullcontext()


def warning(message: str) -> None:
    from rich.text import Text

    err.print(Text.assemble(("warning: ", "yellow"), escaped(message)), soft_wrap=True)
