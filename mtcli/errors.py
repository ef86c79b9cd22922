"""The exception types users see: printed as a single line, exit code 2, no traceback."""


class UserError(Exception):
    """Bad input, a missing or damaged file, or a mismatched model."""

    exit_code = 2


class OutputError(UserError):
    """Standard output (or a named output) could not be written: a closed pipe, a full disk."""
