"""What mtcli writes for a user to read besides its results: the two consoles, one-line errors and warnings with
what a user typed shown escaped. cli.py's commands and session.py's translate runs share them."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.text import Text

err = Console(stderr=True)
out = Console()

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
    err.print(Text.assemble(("warning: ", "yellow"), escaped(message)), soft_wrap=True)
