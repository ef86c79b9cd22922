"""The prose of a document as a format reads it: the document's lines, the blocks of prose found in them, and
the items standing in the prose for markup (kinds.PRIVATE's characters the document does not have itself)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mtcli.errors import UserError
from mtcli.text.kinds import PRIVATE, PRIVATE_RANGES
from mtcli import lazy_re

MAX_ITEMS = sum(map(len, PRIVATE_RANGES))
_WORD_BREAK = lazy_re.compile(r"<wbr\s*/?>", re.IGNORECASE)  # where a line may break, in a word: no space
_WORD_EDGES = "\"'.,;:!?()[]{}¿¡"  # (a word's own punctuation: "(Super<wbr>man)." is the word Superman)


@dataclass
class Prose:
    lines: list[str]
    blocks: list[list[tuple[int, int, int]]] = field(default_factory=list)  # slots: (line, start, end)
    texts: list[str] = field(default_factory=list)  # each block's text to translate
    items: dict[str, tuple[str, ...]] = field(default_factory=dict)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of prose left as it is
    # each block's words that had a <wbr> inside, as the model sees them -> as written ({"Don'tbreak": "Don't<wbr>break"})
    joined: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self):
        self.own = set(PRIVATE.findall("\n".join(self.lines)))  # the document's own (an icon font's glyphs)
        self.next = 0  # index of the next markup character to try
        self.breaks: set[str] = set()  # the items that stand for a <wbr>

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
                if len(parts) == 1 and _WORD_BREAK.fullmatch(parts[0]):
                    self.breaks.add(c)
                return c

    def add(self, slots: list[tuple[int, int, int]], text: str) -> None:
        if text.strip():
            text, joined = self._whole_words(text)
            self.blocks.append(slots)
            self.texts.append(text)
            self.joined.append(joined)

    def _whole_words(self, text: str) -> tuple[str, dict[str, str]]:
        """text with each <wbr> inside a word taken out, the word whole for the model: an item there had cut it in
        two ("Don't<wbr>break" -> "Son esta palabra t<wbr>break."); and those words, to be written back as they
        were where the translation keeps them (a URL, a name). A <wbr> between a word and a space stays an item."""
        if not self.breaks:
            return text, {}
        joined, out = {}, []
        for token in re.split(r"(\s+)", text):
            inner = token.strip(_WORD_EDGES)
            if len(inner) > 2 and any(c in self.breaks for c in inner[1:-1]):
                whole = inner[0] + "".join(c for c in inner[1:-1] if c not in self.breaks) + inner[-1]
                joined[whole] = "".join(self.items[c][0] if c in self.breaks else c for c in inner)
                token = token.replace(inner, whole, 1)
            out.append(token)
        return "".join(out), joined

    def rejoin(self, block: int, text: str) -> str:
        """A block's translation with its words that had a <wbr> (Prose.joined) as written where they came back as
        they went."""
        words = self.joined[block]
        if not words:
            return text
        found = re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(map(re.escape, sorted(words, key=len, reverse=True))))
        return found.sub(lambda m: words[m.group()], text)
