"""Case and informal typing, on the input side: what the model was trained on is cased, punctuated,
apostrophed English, so text typed otherwise is brought to that form first.

- ALL CAPS: lowercased, truecased, translated, and the translation upper-cased.
- all lowercase: truecased (first letter, "i", and names from a table built from the vocabulary).
- loose contractions ("dont", "im", "cant") get their apostrophe; "its" only where it is clearly "it's".
- no final punctuation: "?" if the sentence opens like a question (so the Spanish is ¿...?), else ".".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from mtcli import lazy_re

SPACE = "▁"  # the tokenizers' word-start marker

# typed without the apostrophe; none of these is an English word of its own except as noted
CONTRACTIONS = {
    "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't", "couldnt": "couldn't",
    "wont": "won't", "wouldnt": "wouldn't", "shouldnt": "shouldn't", "isnt": "isn't", "arent": "aren't",
    "wasnt": "wasn't", "werent": "weren't", "havent": "haven't", "hasnt": "hasn't", "hadnt": "hadn't",
    "mustnt": "mustn't", "neednt": "needn't", "aint": "ain't", "im": "I'm", "ive": "I've", "youre": "you're",
    "youve": "you've", "youll": "you'll", "youd": "you'd", "theyre": "they're", "theyve": "they've",
    "theyll": "they'll", "weve": "we've", "itll": "it'll", "thats": "that's", "whats": "what's",
    "wheres": "where's", "whos": "who's", "hows": "how's", "theres": "there's", "heres": "here's",
    "shes": "she's", "hes": "he's", "lets": "let's",  # "lets" only at the start: see _repair
}
# "its" is "it's" before these (a possessive "its" is followed by a noun)
_ITS_IS = frozenset("a an the not very too so really just only also always never still my your his her our their "
                    "this that been being going gonna getting coming raining snowing ok okay fine true false over "
                    "here there late early cold hot time all easy hard impossible possible".split())
AUXILIARIES = frozenset("am is are was were do does did have has had can could will would shall should may might "
                        "must need dare isn't aren't wasn't weren't don't doesn't didn't haven't hasn't hadn't "
                        "can't couldn't won't wouldn't shouldn't mustn't".split())
WH_WORDS = frozenset("what where when why who whom whose which how".split())
SUBJECTS = frozenset("i you he she it we they".split())
_WORD = lazy_re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_WORD_OR_NUMBER = lazy_re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|\d+")
_ANY_WORD = lazy_re.compile(r"[^\W\d_]+")  # (a Spanish name: "maría")
_FINAL = lazy_re.compile(r"[.!?…:;][\"')\]»]*$")


def truecase_table(vocab: Iterable[str], target: Iterable[str] = ()) -> dict[str, str]:
    """lowercase word -> its cased form, for words the source vocabulary holds as whole words only
    capitalised (▁Boston, ▁English, ▁OK), or capitalised first (a lower id: learnt as the more frequent
    form) when the target vocabulary holds them capitalised too, as names are (▁Tom; ▁tom is "tomato")."""
    vocab = {t: i for i, t in enumerate(vocab)} if not isinstance(vocab, dict) else vocab
    target = set(target)
    table = {}
    for token, i in vocab.items():
        word = token[1:]
        if not (token.startswith(SPACE) and len(word) > 1 and word.isalpha() and not word.islower()):
            continue
        lower = vocab.get(SPACE + word.lower())
        if lower is None or (i < lower and token in target):
            table[word.lower()] = word
    return table


def is_shouting(text: str) -> bool:
    """ALL CAPS: at least two cased letters, none lowercase."""
    return text == text.upper() and sum(c != c.lower() for c in text[:1000]) >= 2


def _shape(word: str, like: str) -> str:
    return word[0].upper() + word[1:] if like[0].isupper() else word


def repair_contractions(text: str) -> str:
    words = list(_WORD.finditer(text))
    out, last = [], 0
    for k, m in enumerate(words):
        w = m.group()
        low = w.lower()
        fixed = CONTRACTIONS.get(low)
        if low == "lets" and k > 0:
            fixed = None  # "he lets me": the verb
        if low == "its" and k + 1 < len(words) and words[k + 1].group().lower() in _ITS_IS:
            fixed = "it's"
        if fixed:
            out.append(text[last : m.start()] + (fixed if fixed[0] == "I" else _shape(fixed, w)))
            last = m.end()
    return "".join(out) + text[last:]


def truecase(text: str, table: dict[str, str], first: bool = True, english: bool = True) -> str:
    """Names from the table, "i" -> "I" (`english`), and (if `first`) a capital first letter."""
    def word(m: re.Match) -> str:
        w = m.group()
        low = w.lower()
        if english and (low == "i" or low.startswith("i'")):
            return "I" + w[1:]
        return table.get(low, w)

    text = (_WORD if english else _ANY_WORD).sub(word, text)
    if not first:
        return text
    m = re.search(r"\w", text)  # the first word: a capital if it is a word, not if it is a number
    return text[: m.start()] + text[m.start()].upper() + text[m.end():] if m and m.group().isalpha() else text


def is_question(text: str) -> bool:
    """Opens like a question: an auxiliary ("do you", "is it", "can we"), or a wh-word not opening a
    clause ("where is", "what happened"; not "when I was young" nor "what a day")."""
    cased = _WORD_OR_NUMBER.findall(text)  # a number is a word here: "5 is less than 8", "is 2+2=4"
    words = [w.lower() for w in cased]
    if not words:
        return False
    first, second = words[0], words[1] if len(words) > 1 else ""
    name = len(cased) > 1 and cased[1][0].isupper()  # after truecasing: "does Tom know"
    if first in WH_WORDS:
        return not (second in SUBJECTS and first != "how" or first == "what" and second in ("a", "an", "such"))
    if first in ("do", "have", "don't"):  # also imperatives: "do it now", "have a seat", "don't worry"
        # (not "someone", "everyone": "have someone call me", "do everyone a favour")
        return second in SUBJECTS - {"it"} or second in ("there", "anyone", "anybody") or name
    if first in AUXILIARIES and first.endswith("n't") and first != "don't":  # without a subject after it, a report
        # ("Can't open '%s': %s" had been asked "¿No puedes abrir ...?"; "Doesn't work", "Couldn't find the file")
        return second in SUBJECTS or second in ("there", "this", "that", "anyone", "anybody") or name
    return first in AUXILIARIES and bool(second)


def has_end_punctuation(text: str) -> bool:
    return bool(_FINAL.search(text))


def end_punctuation(text: str) -> str:
    """`text` with a final "?" or "." if it had no final punctuation."""
    if not text or has_end_punctuation(text):
        return text
    return text + ("?" if is_question(text) else ".")
