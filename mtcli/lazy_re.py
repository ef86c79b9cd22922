"""Regular expressions compiled where a text first needs them, not when their module loads.

mtcli's modules define ~200 at module level (the text pipeline's span table, its stages, language identification);
compiling them all at import cost a one-sentence translation ~0.07 s of CPU, and one sentence uses a few of them.
`compile(pattern, flags)` stands for `re.compile(pattern, flags)`: its `pattern` is there at once (larger
expressions are built from it), the rest (search, sub, groupindex, ...) at the first use, from then on as fast as the
compiled expression's own.
"""

from __future__ import annotations

import re

_COMPILED = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner", "flags",
             "groups", "groupindex")


class Pattern:
    """re.compile(pattern, flags), compiled at the first use of anything but `pattern`."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self._flags = pattern, flags

    def __getattr__(self, name: str):  # (called only for what the instance does not hold yet)
        if name.startswith("__"):  # (copy, pickle and the like ask for these: none here)
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for attribute in _COMPILED:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __reduce__(self):
        return Pattern, (self.pattern, self._flags)

    def __repr__(self) -> str:
        return f"lazy_re.compile({self.pattern!r}, {self._flags})"


def compile(pattern: str, flags: int = 0) -> Pattern:  # noqa: A001 (as re names it: a drop-in for re.compile)
    return Pattern(pattern, flags)
