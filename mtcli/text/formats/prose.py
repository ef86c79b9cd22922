"""The prose of a document as a format reads it: the document's lines, the blocks of prose found in them, and
the items standing in the prose for markup (kinds.PRIVATE's characters the document does not have itself)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mtcli.errors import UserError
from mtcli.text.kinds import PRIVATE, PRIVATE_RANGES

MAX_ITEMS = sum(map(len, PRIVATE_RANGES))


@dataclass
class Prose:
    lines: list[str]
    blocks: list[list[tuple[int, int, int]]] = field(default_factory=list)  # slots: (line, start, end)
    texts: list[str] = field(default_factory=list)  # each block's text to translate
    items: dict[str, tuple[str, ...]] = field(default_factory=dict)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of prose left as it is

    def __post_init__(self):
        self.own = set(PRIVATE.findall("\n".join(self.lines)))  # the document's own (an icon font's glyphs)
        self.next = 0  # index of the next markup character to try

    def item(self, *parts: str) -> str:
        """A private-use character standing for markup: never one the document has itself, which
        stays in its text as it is (the pipeline keeps such characters as it keeps emoji)."""
        while True:
            k = self.next
            if k >= MAX_ITEMS:
                raise UserError(f"too much markup in one document (over {MAX_ITEMS:,} tags, links and marks)")
            self.next += 1
            for codes in PRIVATE_RANGES:
                if k < len(codes):
                    break
                k -= len(codes)
            c = chr(codes[k])
            if c not in self.own:
                self.items[c] = parts
                return c

    def add(self, slots: list[tuple[int, int, int]], text: str) -> None:
        if text.strip():
            self.blocks.append(slots)
            self.texts.append(text)
