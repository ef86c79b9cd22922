"""Where the phrase retry (retry.py: protect.one_span_phrases) cuts a sentence between two of its spans, and what
the model's case does to a phrase that opens in lowercase.

A phrase starts at a word that opens one ("I paid $50 | for 3 books | on 12/05/2023"), or after the punctuation that
closes the phrase before it: cut before the comma of "Ella quedó 1.ª, él 2.º", the next phrase opened ", él" and the
Spanish-English model wrote "HAVE" for it. That mark is the sentence's, not the phrase's: the model is given the
phrase without it ("Ella quedó 1.ª," came back "She stayed, 1st."), and it goes back after the translation. A phrase
from inside a sentence starts in lowercase, and the model copies that into its words: "y yo 23.º." came back "i and
23rd."; an English "I" is never lowercase.
"""

from __future__ import annotations

import re

from mtcli import lazy_re

PHRASE_START = lazy_re.compile(r"(?<=[,;:])\s|\s(?=(?:for|on|in|at|to|from|with|by|and|but|or|of|after|before|until|"
                               r"since|because|when|while|than|per|about|around|between|during|into|over|under)\b)",
                               re.IGNORECASE)
_LOWER_I = lazy_re.compile(r"(?<![\w'’(-])i(?=[ '’]|[.,;:!?]*(?!\S))")


def capital_i(translation: str) -> str:
    """A phrase's translation with its lone "i" (the pronoun the model wrote in lowercase) made "I"."""
    return _LOWER_I.sub("I", translation) if "i" in translation else translation


def _closing(text: str) -> tuple[int, int]:
    """Where the mark closing a phrase (a final comma, semicolon or colon) and the spaces before it start and end;
    (len, len) when there is none. By hand, not a regex: a search for "\\s*[,;:]$" restarts at every space of a
    long run and takes quadratic time."""
    body = text.removesuffix("\n")  # ("$" matches before a final newline too; it stays)
    if not body or body[-1] not in ",;:":
        return len(text), len(text)
    return len(body[:-1].rstrip()), len(body)


def bare(phrase: str) -> str:
    """The phrase as the model is given it: without the mark that closes it."""
    start, end = _closing(phrase)
    return phrase[:start] + phrase[end:]


def closed(translation: str, phrase: str) -> str:
    """The phrase's translation ending in the phrase's closing mark (if it has one), in place of the model's."""
    start, end = _closing(phrase)
    if start == end or not translation:
        return translation
    return bare(translation) + phrase[start:end].strip()
