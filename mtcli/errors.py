"""The exception types users see: printed as a single line, exit code 2, no traceback."""


class UserError(Exception):
    """Bad input, a missing or damaged file, or a mismatched model."""

    exit_code = 2


class OutputError(UserError):
    """Standard output (or a named output) could not be written: a closed pipe, a full disk."""


def quoted(text: str) -> str:
    """A user's text in a message, in single quotes, as they wrote it: what no terminal shows as it is (control,
    private-use and unassigned characters, lone surrogates) escaped as Python writes it ("\\uf8ff"); a backslash
    stays one (repr doubled it: a string's "\\n" was shown "\\\\n")."""
    return "'" + "".join(c if c == "\\" or c.isprintable() else repr(c)[1:-1] for c in text) + "'"
