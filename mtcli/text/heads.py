"""Heads a sentence opens with, set aside in its lead: a chat's or a mail's head (kept as it came), or a label
(a heading word in Spanish, a speaker or a title kept; labels.py)."""

from __future__ import annotations

from mtcli.text import labels
from mtcli.text.sentence import Context, NBest, Sentence
from mtcli import lazy_re

# a time stamp ("[10:32] ", "10:32 PM - ", not a range: "12:00 - 13:00 lunch"), then a speaker ("John: ")
CHAT_HEAD = lazy_re.compile(r"(?:\[\d{1,2}:\d\d(?::\d\d)?(?: ?[AaPp]\.?[Mm]\.?)?\]|\d{1,2}:\d\d(?::\d\d)?(?: ?[AaPp]\.?[Mm]\.?)?"
                             r" [-|])[ \t]+(?!\d)(?:[A-Z][\w'-]*(?: [A-Z][\w'-]*)?:[ \t]+)?(?=\S)")
MAIL_HEAD = lazy_re.compile(r"(?:(?:Re|RE|Fwd|FWD|Fw|FW|AW|WG|PS):|P\.S\.|P\.P\.S\.)[ \t]+(?=\S)")
# (a label alone, "Tom: ", "Note: ": labels.py)
# a sentence of short labels only ("Q: Q: Q:", "A: A:", "Re: Re: Re:"): nothing to translate, kept as it came (the
# model made up times for it)
LABEL_RUN = lazy_re.compile(r"(?:[^\W\d_]{1,3}:[ \t]*){2,}|[^\W\d_]{1,2}:")


def chat_head(text: str):
    """CHAT_HEAD's match, looked for only where one can start (its expression costs ~5 ms of CPU to compile)."""
    return CHAT_HEAD.match(text) if text[:1] == "[" or text[:1].isdecimal() else None


class ChatHead:
    """A chat's or a mail's head: a time stamp and the speaker after it, "Re:", "P.S." (the model dropped them:
    "[10:32] John: hello there" -> "A los [10:32], ¿cuándo es así?"). Kept in the lead."""

    name = "chat head"

    def strip(self, s: Sentence, c: Context) -> bool:
        if c.options.protect and LABEL_RUN.fullmatch(s.text):
            s.verbatim = s.text
            return False
        if c.options.protect and (head := chat_head(s.text) or MAIL_HEAD.match(s.text)):
            s.lead, s.head, s.text = s.lead + head.group(), head.group().strip(), s.text[head.end() :]
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out  # (the lead goes back with the sentence's edges)


class Label:
    """A label, when no head came first: a heading word translated, a speaker or a title (before a capital) kept.
    What follows a label is a value as often as a sentence: no stop it had not ("Cc: Tom" was "Cc: Tom.")."""

    name = "label"

    def strip(self, s: Sentence, c: Context) -> bool:
        text = s.text
        if s.head or not c.options.protect or not (label := labels.LABEL.match(text)) \
                or not labels.is_label(label, text):
            return True
        if spanish := labels.heading(label):
            s.lead += spanish
        else:
            s.lead, s.head = s.lead + label.group(), label.group().strip()
        text, s.labelled = text[label.end() :], True
        s.lower_first = text[:1].islower()  # "Note: the door is open." -> "Nota: la puerta está abierta."
        if labels.addresses(label, text):  # names and addresses ("Para: Mary Jones", was "Mary Jesúscula")
            s.text, s.verbatim, s.head = text, text, text
            return False
        if head := MAIL_HEAD.match(text):  # "Subject: Re: hello"
            s.lead, s.head, text = s.lead + head.group(), head.group().strip(), text[head.end() :]
        s.text = text
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out  # (the lead goes back with the sentence's edges)
