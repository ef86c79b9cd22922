"""Fakes shared by the tests of the text pipeline: a tokenizer, an Engine around any decode function, and
models that answer in known ways."""

import re

from mtcli.text.pipeline import Engine


WORD = re.compile(r"\w+|[^\w\s]")


def encode(text: str) -> list[int]:
    """A fake WordPiece: a token per word or mark; UNK (1) for what is not Latin script."""
    return [1 if any(ord(c) > 0x24F for c in t) else 5 for t in WORD.findall(text)]


def engine(decode, limit: int = 54) -> Engine:
    return Engine(decode, encode, limit, {"tom": "Tom", "boston": "Boston"})


def upper(lines):  # a "model" that keeps every placeholder
    return [[(line.upper(), -0.5), (line.upper() + " (2)", -0.9)] for line in lines]


def answers(table: dict[str, str | list[str]], seen: list | None = None, default=None):
    """A model that answers each sentence from a table (a list: its n best), else `default(sentence)`
    (else the sentence as it is); `seen` receives what it was asked."""
    def decode(lines):
        if seen is not None:
            seen.extend(lines)
        out = []
        for line in lines:
            got = table.get(line, default(line) if default else line)
            out.append([(t, -1.0 - k) for k, t in enumerate([got] if isinstance(got, str) else got)])
        return out
    return decode
