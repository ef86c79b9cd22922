"""Emoji, emoticons and markup at a sentence's edges set aside: the model translates the sentence without
them, and they go back around its translation (with the lead and the trail the other stages set aside)."""

from __future__ import annotations

import re

from mtcli.text.kinds import EMOTICON, FOOTNOTE_REF, PRIVATE, SCRIPT, SCRIPT_ELEMENT, SCRIPT_OPEN
from mtcli.text.quotes import QUOTE_MARKS
from mtcli.text.sentence import Context, NBest, Sentence
from mtcli import lazy_re

# "said the teacher." after a quotation: a speech verb that rarely takes an object, then its subject: a
# pronoun, a name (capitalised words) or a determiner and up to two words; never an object ("said nothing")
INVERTED_TAG = lazy_re.compile(
    r"^(said|asked|replied|whispered|shouted|cried|exclaimed|muttered|yelled|screamed|sighed|murmured) "
    r"(he|she|they|we|I|you|(?:(?:Mr|Mrs|Ms|Dr)\. )?[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}"
    r"|(?:the|his|her|my|your|our|their) (?!word\b|phone\b)[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)?)([.!?…]*)$")


class Edges:
    """Emoji and markup at the start go to the lead, at the end (and a footnote mark) to the trail. After a
    quotation the sentence goes on in lowercase ('"I love cats," she said.'): so will its translation ('"No,"
    Tom's mother said.' too: after a comma). A quotation or an aside that ends the sentence holds its end, if
    any ('It means "don't walk."'), and the mark before it stays out of the model's way ('says, "Do your
    best."': "dice, ¿verdad?"); a question's marks then close the sentence after it: '¿Dijiste "sí"?'."""

    name = "edges"

    def strip(self, s: Sentence, c: Context) -> bool:
        text, items = s.text, c.items
        s.spans = spans = c.spans(text)  # (the spans of what the heads left)
        if spans and spans[0][0] == 0 and symbols(text[: spans[0][1]]) and not words(text[: spans[0][1]], items):
            end = spans[0][1]
            s.lead, text = s.lead + text[:end] + text[end : len(text) - len(text[end:].lstrip())], text[end:].lstrip()
            quoted = [items[ch] for ch in PRIVATE.findall(s.lead) if ch in items]
            s.lower_first |= bool(quoted) and (text[:1].islower() or quoted[-1][-1].rstrip("\"'»").endswith((",", ";", ":")))
            if quoted and quoted[-1][0] in QUOTE_MARKS:  # a dialogue tag in a novel's order, alone, the model
                # garbled: "said the teacher." -> "Le paga al profesor."; "the teacher said." it knows
                text = INVERTED_TAG.sub(lambda m: f"{m[2]} {m[1]}{m[3]}", text)
            s.spans = spans = c.spans(text)
        if spans and spans[-1][1] == len(text) and not words(text[spans[-1][0] :], items) \
                and (symbols(text[spans[-1][0] :]) or footnote(text, *spans[-1], items)):
            start = spans[-1][0]
            s.trail, text = text[len(text[:start].rstrip()) :], text[:start].rstrip()
            if PRIVATE.search(s.trail) and not footnote(s.trail, 0, len(s.trail), items, glued=False):
                s.cut, s.trail, text = True, text[len(text.rstrip(",;:")) :] + s.trail, text.rstrip(",;:")
                s.aside[self.name] = True  # (its ? or ! go after the trail)
            s.spans = c.spans(text)
        elif spans and spans[-1][1] == len(text) and (colon := _COLON_LAST.search(text, 0, spans[-1][0])):
            # a colon, then a span ending the sentence ("Can't open '%s': %s", "Saved to: /tmp/x"): the colon and
            # the span follow the translation; the model had read "50: 50" as a time ("... a las %s")
            s.trail, text = text[colon.start() :] + s.trail, text[: colon.start()]
            s.aside[self.name], s.spans = "colon", c.spans(text)
        s.text = text
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if s.aside.get(self.name) == "colon":  # (the stop the model was given goes: the colon's span ends it)
            return [(s.lead + t.removesuffix(".") + s.trail, score) for t, score in out]
        if s.aside.get(self.name):  # a question's marks close the sentence, after the quotation: '¿Dijiste "sí"?'
            return [(s.lead + t.rstrip("?!") + s.trail + t[len(t.rstrip("?!")):], score) for t, score in out]
        return [(s.lead + t + s.trail, score) for t, score in out]


def symbols(span: str) -> bool:
    """Emoji, emoticons (":D"), symbols and markup: no letter or digit of their own to translate or to place."""
    return all(not re.search(r"[A-Za-z0-9]", part) or EMOTICON.fullmatch(part) for part in span.split())


def words(span: str, items) -> bool:
    """The span holds a template's placeholder (quotes.Items.words): the model sees it as a word, wherever it is."""
    return bool(items.words) and any(c in items.words for c in PRIVATE.findall(span))


_COLON_LAST = lazy_re.compile(r"(?<=[^\s:]):\s+$")  # (a word's or a span's colon before the last span)
_NOTE = lazy_re.compile(rf"{SCRIPT_OPEN}|\[\^", re.IGNORECASE)  # a superscript, a subscript, a Markdown footnote ([^1])
_WHOLE_NOTE = lazy_re.compile(f"{FOOTNOTE_REF}|{SCRIPT_ELEMENT}", re.IGNORECASE)


def is_note(parts: tuple[str, ...]) -> bool:
    """An item is a whole superscript, subscript or footnote reference, without markup inside."""
    if len(parts) == 3:
        return bool(SCRIPT.match(parts[0])) and not any(map(PRIVATE.search, parts))
    return len(parts) == 1 and bool(_WHOLE_NOTE.fullmatch(parts[0]))


def footnote(text: str, a: int, b: int, items: dict[str, tuple[str, ...]], glued: bool = True) -> bool:
    """text[a:b] is a superscript or a footnote glued to the end of a word or a stop ("car<sup>1</sup>", "car.[^1]"):
    a footnote mark, set aside like an emoji. As a placeholder it was a number of the sentence ("cats 50 and
    dogs"), or lost."""
    if glued and (a == 0 or text[a - 1].isspace() or text[b : b + 1].isalnum()):
        return False
    return bool(_NOTE.match(text, a) or _NOTE.match(items.get(text[a : a + 1], ("",))[0]))
