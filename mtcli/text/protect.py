"""Spans the model must not touch (numbers, times, prices, dates, URLs, e-mail addresses, emoji, anything
its vocabulary cannot spell, markup) replaced by placeholders before decoding and put back after.

The placeholder is a number the shipped model copies reliably. Measured on 300 corpus sentences with
numbers (greedy and beam 4): a span's placeholder came back exactly for "50" in 90 % of sentences,
"12" 80 %, "5" 84 %, "X"/"XYZ"/"N" 0 %, the name "Tom" 77 %, and the original numbers themselves 53 %;
"50" and then "12, 50" (first span 12, second 50, ...) together 96.7 %. What still fails is translated
around its spans (pipeline.py), so a span is never lost.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from mtcli.text.normalize import EMOTICON

# placeholder sequences tried in turn: span i gets seq[i % len(seq)]
PLACEHOLDERS: tuple[tuple[str, ...], ...] = (("50",), ("12", "50"))
LONG_WORD = 40  # characters: no English word is this long (a hash, a base64 blob): kept as it is

_URL = r"(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>\"]+"
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
# a run of number-ish characters holding a digit: 25.50, 7:15, 12/05/2023, 50%, -5°C, 3rd, MP3, COVID-19, 5$;
# a currency sign before it stays outside, for the model to translate ("$50" -> "50 dólares")
# (and an en dash: normalize keeps a range's, "10–20")
_NUMBER = r"(?:(?<![\w-])[+-])?(?:\w+-)*\w*\d[\w%°.,:/+\-–$\u00a2-\u00a5\u20a0-\u20cf]*"
# an amount with its currency after it ("20 €", "25 USD") or its code before it ("USD 5"): kept whole (the model
# made "20 €" twenty dollars; it dropped "USD")
_CODES = "USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|MXN|CNY|INR|BRL|ARS|COP|CLP|PEN|RUB|KRW|SEK|NOK|DKK|PLN"
_MONEY = (rf"(?<![\w.,])(?-i:{_CODES}) ?\d(?:[\d.,]*\d)?(?![\w.,]*\d)"
          rf"|(?<![\w.,])\d(?:[\d.,]*\d)? ?(?:[€£¥¢₹₽₩]|(?-i:{_CODES})\b)")
# a quantity with a unit's symbol apart from it ("10 km", "3 kg", "20 MB", "180 °C", "5-10 min"): kept whole (the
# model dropped "km", "min" and "MB", made "kg" "kara", "ml" "micro" and "cm" "cima"); units it can spell out ("5
# miles") it translates. A symbol as written or shouted ("10 KM"); not "in", nor "Mi"
_UNITS = ("km/h|m/s|kWh|mAh|Mbps|Gbps|kcal|km²|cm²|m²|m³|GHz|MHz|kHz|min|hrs|sec|mph|kph|lbs|°C|°F|km|cm|mm|µm|nm|"
          "kg|mg|µg|ml|cl|dl|hr|ms|kW|MW|Hz|KB|MB|GB|TB|Kb|Mb|Gb|oz|lb|ft|yd|mi|px|pt|dB|cal|ha")
_UNIT = rf"(?<![\w.,])\d(?:[\d.,–-]*\d)? ?(?-i:{_UNITS}|{_UNITS.upper()}|°|[mglLhWV])(?![\w°²³/'])"
# a date with its month's name ("May 5, 2025", "12 March 1990", "the 3rd of July", "June 2020"): one span, put back
# in Spanish ("5 de mayo de 2025"): the model dropped the month ("It happened in May 2020." -> "Ocurrió en 2020.",
# "See you on Monday, June 3." -> "Te veo el lunes, 3.")
MONTHS = dict(zip("january february march april may june july august september october november december".split(),
                  "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split()))
_MONTH = "|".join([*(m.capitalize() for m in MONTHS), *(m.upper() for m in MONTHS),
                   *(f"{m[:3].capitalize()}\\.?" for m in MONTHS if m != "may"), "Sept\\.?"])
_ORDINAL = "(?:st|nd|rd|th|ST|ND|RD|TH)"
_DAY = rf"(?:[12]\d|3[01]|0?[1-9]){_ORDINAL}?(?:[–-](?:[12]\d|3[01]|0?[1-9]){_ORDINAL}?)?"  # (May 5–7)
_YEAR = r"(?:1[5-9]|2[01])\d\d"
_DATE_PARTS = (rf"(?P<m1>{_MONTH}) (?P<d1>{_DAY})(?:,? (?P<y1>{_YEAR}))?"  # May 5, 2025
               rf"|(?P<d2>{_DAY})(?: of)? (?P<m2>{_MONTH})(?:,? (?P<y2>{_YEAR}))?"  # 12 March 1990, 3rd of July
               rf"|(?P<m3>{_MONTH}),? (?P<y3>{_YEAR})")  # June 2020
DATE = re.compile(rf"(?<![\w.,])(?:{_DATE_PARTS})(?![\w:/.-]\d|\w)")
# a month and a number without a year or an ordinal are a date after a word that leads to one or before a mark,
# not "WE MARCH 10 MILES", "I called April 3 times", "May 2 of us come in?", "Step 2 May Fail"
_LEADS_TO_DATE = re.compile(r"(?:\b(?:on|by|since|until|till|from|before|after|through|between|to|and|of|in|the|"
                            r"every|each|next|last|this)|[,(])\s*$", re.IGNORECASE)
_ENDS_DATE = re.compile(r"\s*(?:[.,;:!?)\]\"'–—-]|$|(?:and|or|to|through|until|at)\b)", re.IGNORECASE)
_TYPED_SPAN = re.compile(r"[`<>\"=/\\@]")  # code, markup, a path: no date in it is written out
# a title before a name ("Mr. Brown", "Dr Smith", "MRS. JONES"): kept with the name, which the model translated or
# dropped ("I met Mr. Brown yesterday." -> "Ayer me encontré marrón.", "Mrs. Jones" -> "Jesús"), the title written
# as Spanish abbreviates it ("Sr. Brown"); the name as it came (an apostrophe's "s" is the sentence's: "Dr. Lee's")
TITLES = {"Mr": "Sr.", "Mrs": "Sra.", "Ms": "Sra.", "Dr": "Dr.", "Prof": "Prof."}
# words after a title that are no name: a new sentence ("Thank you, Dr. I will call."), an office ("Mr. President"),
# a day, another title
_NOT_A_NAME = ("i he she it we you they the a an this that these those there here what who where when why how yes no "
               "not now then please thanks thank my your his her its our their and but or so if as at in on to of for "
               "with by from is are was were be do does did can will would should could may might must let "
               "president chairman chairwoman speaker mayor secretary ambassador minister governor senator justice "
               "right monday tuesday wednesday thursday friday saturday sunday mr mrs ms dr prof").split()
_CAPITAL = "A-ZÀ-ÖØ-Þ"
_NOT_NAME = rf"(?!(?i:{'|'.join(_NOT_A_NAME)})\b)"
_NAME_REST = r"(?:\w|[-'’](?=\w)(?![sS]\b))*(?!\w)"  # "Smith-Jones", "O'Neil"; not "Lee's", "Brown--the"
# a Capitalised name after a title as written ("Mr. Brown", "Dr Smith"), one word, or two when the second is
# Capitalised too ("Mary Ann", "John O'Neil"); an ALL CAPS one after an ALL CAPS title with its stop ("MR. BROWN";
# "MS Word", "DR Congo" are no titles); not a file's name ("Smith.pdf")
_AS_WRITTEN = rf"(?:{'|'.join(TITLES)})\.?"
_SHOUTED = rf"(?:{'|'.join(t.upper() for t in TITLES)})\."
_TITLE = rf"(?<![\w.])(?-i:{_AS_WRITTEN}|{_SHOUTED})(?= (?-i:[{_CAPITAL}]))"
_TITLED = (rf"(?<![\w.])(?-i:{_AS_WRITTEN} {_NOT_NAME}[{_CAPITAL}]{_NAME_REST}"
           rf"(?: {_NOT_NAME}[{_CAPITAL}](?=[a-zß-öø-ÿ'’]){_NAME_REST})?"
           rf"|{_SHOUTED} {_NOT_NAME}[{_CAPITAL}][{_CAPITAL}'’-]*(?!\w))(?!\.\w)")
TITLE, TITLED = re.compile(_TITLE), re.compile(_TITLED)
WRITTEN_ANEW = re.compile(f"{DATE.pattern}|{_TITLE}")  # what in_spanish rewrites: not kept as it came
# an emoticon, kept as an emoji is (the vocabulary has no brackets: ":-)" reached the model as ":-", ":P" as "P")
_EMOTICON = EMOTICON.pattern
# feet and inches, inches (5'11", 27"): one span, marks included (the model made "5'11\"" "511")
_FEET = r"(?<![\w\"'])(?:\d+'(?:\d+(?:\.\d+)?\")?(?![\w'])|\d+(?:\.\d+)?\"(?=[\s.,;:!?)]|$))"  # (not '"5"', "'3'")
FEET = re.compile(_FEET)
# a Roman numeral of two letters or more, up to 89, after a capitalised word ("Chapter IV", "World War II", "Louis
# XIV"): the model made them words ("Lee Cámele"); not "a CD", "Never MIX", "DC"
_ROMAN = re.compile(r"\b[A-Z][a-z]+ ((?=[LXVI]{2,}\b)(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3}))(?![\w'-])")
_MAYBE_ROMAN = re.compile(r"\b[LXVI]{2,}\b")
# a clock time with a.m./p.m. apart from its number ("5 p.m.": the model drops "p.m.")
_TIME = r"\d{1,2}(?::\d\d)?\s?(?:[ap]\.m\.|[ap]m)(?!\w|-[^\W\d])"  # (a range: "10 am-2 pm" lost "pm")
# what is typed, not written: `code`, an HTML tag, @mentions and #hashtags, a path (/usr/bin, ~/.bashrc,
# ./run.sh, C:\Program Files), a bare domain or a file name (example.org/path, README.md, config.yaml)
_CODE = r"(?<!\w)(?:``(?:[^`]|`(?!`))+``|`[^`]+`)(?!\w)"  # not a backtick used as an apostrophe (Tom`s)
_TAG = r"</?[a-z][\w:-]*(?:\s[^<>]*)?/?>|\[\^[^\]\s]+\]"  # (and a Markdown footnote reference, [^1])
_HANDLE = r"(?<![\w@#&/])[@#]\w+"
_PATH = r"(?<![\w/.~-])(?:~|\.{1,2})?/[\w.@%+~-]+(?:/[\w.@%+~-]*)*|[^\s\\]*\\\S*"
_TLDS = ("com org net edu gov mil int io co uk de fr es eu ca au ru cn jp br mx ar cl nl se ch info biz dev app ai "
         "tv ly gg xyz online site tech blog cloud shop store news")
_EXTENSIONS = ("txt md rst py js ts jsx tsx json csv tsv pdf doc docx xls xlsx ppt pptx odt png jpg jpeg gif svg webp "
               "bmp ico html htm css scss xml yaml yml toml ini cfg conf log zip tar gz tgz bz2 xz 7z rar exe dll "
               "dylib sh bash zsh bat ps1 c h cpp hpp cc java jar rs rb php pl sql db sqlite mp3 mp4 wav flac ogg "
               "avi mkv mov srt vtt ipynb lock env bak tmp iso dmg apk deb rpm whl")
_NAME = (r"(?<![\w@./-])[\w-]+(?:\.[\w-]+)*\.(?-i:" + "|".join(sorted(set((_TLDS + " " + _EXTENSIONS).split()),
                                                                        key=len, reverse=True))
         + r")(?![\w-])(?::\d+)?(?:/[^\s<>\"]*)?")
# the model rarely saw "$50" but often "50 dollars" (measured: "I paid $50 for..." -> "Pagué 90.")
CURRENCIES = {"$": "dollars", "€": "euros", "£": "pounds", "¥": "yen"}
# the Spanish for each: a translation without it keeps the sign on the number instead ("50 e-ciles" -> "€50")
_CURRENCY_WORDS = {"$": r"d[oó]lar", "€": r"euro", "£": r"libra|esterlina", "¥": r"\byen"}
_TRAILING = ".,;:!?)]}'\""  # sentence punctuation after a span belongs to the sentence
_OPENING = {")": "(", "]": "[", "}": "{"}  # ... but not the bracket that closes one of the span's own
_NUMBER_ONLY = re.compile(_NUMBER)
_NOT_A_NUMBER = re.compile(f"{_URL}|{_EMAIL}|{_NAME}", re.IGNORECASE)
_WORDS_AFTER = re.compile(r"(?<=\d)(?:\.{2,}|…|[,;:])(?=[^\W\d_]{2})")  # (not "." : "2.0.beta", "5.4.RELEASE")
SPAN = re.compile(rf"{_URL}|{_EMAIL}|{_CODE}|{_TAG}|{_HANDLE}|{_PATH}|{_NAME}|{_TIME}|{_MONEY}|{_UNIT}|{_FEET}|{_TITLED}|{_NUMBER}|{_EMOTICON}",
                  re.IGNORECASE)
# in every SPAN match (most sentences have none)
_MAYBE_SPAN = re.compile(r"\d|@|://|www\.|[`<#/\\]|[\w-]\.[a-z]|[:;=][-o^']?[)(\]\[DPpOo3/|*]|[\^_]"
                         rf"|xD|XD|{_TITLE}", re.IGNORECASE)
_NONSPACE = re.compile(r"\S+")
_LONG = re.compile(rf"\S{{{LONG_WORD}}}")
# how the tokenizer cuts a word: letter/digit runs, other characters; each with the combining marks on it
# (NFC leaves some: "H̸̡̪e̷l̴l̵o̶" is one word to keep, not five letters to translate between marks)
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f"
_WORD_RUNS = re.compile(rf"[\w{_MARKS}]+|[^\w\s][{_MARKS}]*")
# private-use characters: markup that formats.py stands in the text with (a document's own are items too)
PRIVATE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")


_AM_PM = re.compile(r"[ap]\.m$", re.IGNORECASE)


def _closes_its_own(span: str) -> bool:
    """The span ends in a bracket it opened itself (http://en.wikipedia.org/wiki/Foo_(bar))."""
    opening = _OPENING.get(span[-1])
    return opening is not None and span.count(opening) >= span.count(span[-1])


@dataclass(frozen=True)
class Masked:
    text: str  # the sentence with each span replaced by a placeholder
    spans: tuple[str, ...]  # the original spans, in order
    seq: tuple[str, ...]  # the placeholder sequence used
    signs: tuple[str, ...] = ()  # each span's currency sign made a word after it ("$25" -> "50 dollars"), or ""
    # each span's attachment to a word ("<i>car", "car<img>": no space between): "<" glued to the word
    # before it, ">" to the word after it, "" neither; its placeholder was set apart by a space all the same
    glued: tuple[str, ...] = ()


_JOINING = " +-–=*/&|^~×÷→·"  # spans apart by these only are one: "Ctrl+C", "x² + y² = z²", "9 - 5"


def in_spanish(span: str) -> str:
    """A span with each date in it written as Spanish writes it ("May 5, 2025" -> "5 de mayo de 2025"), in its
    case ("MAY 5" -> "5 DE MAYO"), and a title before a name ("Mr. Brown" -> "Sr. Brown"); any other span as it is."""
    def spanish(m: re.Match) -> str:
        k = next(k for k in "123" if m[f"m{k}"])
        month, day, year = m[f"m{k}"], m[f"d{k}"] if k != "3" else None, m[f"y{k}"]
        name = next(es for en, es in MONTHS.items() if en.startswith(month.rstrip(".").lower()))
        out = " de ".join(p for p in (day and re.sub(rf"(?<=\d){_ORDINAL}", "", day), name, year) if p)
        return out.upper() if month.isupper() and len(month) > 1 else out

    def title(m: re.Match) -> str:
        out = TITLES[next(t for t in TITLES if t.lower() == m.group().rstrip(".").lower())]
        out = out if m.group().endswith(".") else out.rstrip(".")  # ("Dr Pepper")
        return out.upper() if m.group()[1:2].isupper() else out

    if _TYPED_SPAN.search(span):
        return span
    return TITLE.sub(title, DATE.sub(spanish, span) if any(c.isdigit() for c in span) else span)


def _dates(text: str) -> list[tuple[int, int]]:
    """Where the text has dates (DATE, and a bare "Month 5" only where it reads as one)."""
    found, at = [], 0
    while m := DATE.search(text, at):
        k = next(k for k in "123" if m[f"m{k}"])
        if m[f"y{k}"] or re.search(f"{_ORDINAL}$", m[f"d{k}"] or "") or _ENDS_DATE.match(text, m.end()) \
                or _LEADS_TO_DATE.search(text, 0, m.start()):
            found.append(m.span())
            at = m.end()
        else:
            at = m.start() + 1  # ("Apollo 11 July 20, 1969": "11 July" is none, "July 20, 1969" is one)
    return found


def find_spans(text: str, unknown: Callable[[str], bool], long_word: int = LONG_WORD) -> list[tuple[int, int]]:
    """(start, end) of every span to keep, in order, none overlapping; spans separated by spaces or
    operators only are one span ("$25.50 🙂", "<kbd>Ctrl</kbd>+<kbd>C</kbd>"). `unknown(piece)` says whether the vocabulary cannot spell a piece; a
    word of `long_word` characters or more is kept too (it could not fit the model whole)."""
    long = _LONG if long_word == LONG_WORD else re.compile(rf"\S{{{long_word}}}")
    found = []
    for m in SPAN.finditer(text) if _MAYBE_SPAN.search(text) else ():
        s, e = m.span()
        if _NUMBER_ONLY.fullmatch(m.group()) and not _NOT_A_NUMBER.fullmatch(m.group()):
            words = _WORDS_AFTER.search(m.group())  # "5...or maybe", "300,and then": the words are the sentence's
            e = s + words.start() if words else e
        while e > s and text[e - 1] in _TRAILING and not _closes_its_own(text[s:e]) \
                and not (EMOTICON.fullmatch(m.group()) or FEET.fullmatch(m.group())):
            e -= 1
        if _AM_PM.search(text, s, e) and text[e : e + 2] == ". ":
            e += 1  # "at 5 p.m. today": the stop is the time's (at the sentence's end it is the sentence's)
        if re.search(r"[\d@/.`<>#\\]", text[s:e]) or EMOTICON.fullmatch(text, s, e) or TITLED.fullmatch(text, s, e):
            found.append((s, e))
    if _MAYBE_ROMAN.search(text):
        found += [m.span(1) for m in _ROMAN.finditer(text)]
    found += _dates(text) if found else []  # (a date holds a number)
    words = _NONSPACE.finditer(text)
    if not (PRIVATE.search(text) or long.search(text) or unknown(text)):
        words = ()  # (most sentences: every word spelled, no markup)
    for m in words:
        for r in _WORD_RUNS.finditer(m.group()):
            s, e = m.start() + r.start(), m.start() + r.end()
            if PRIVATE.search(r.group()) or len(r.group()) >= long_word or unknown(r.group()):
                found.append((s, e))
    merged = _merge(text, found)
    if "<" in text or PRIVATE.search(text):
        merged = _merge(text, [_whole_word(text, s, e) for s, e in merged])
    return merged


def _merge(text: str, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for s, e in sorted(found):
        if merged and (s <= merged[-1][1] or _joins(text[merged[-1][1] : s])):
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


def _joins(gap: str) -> bool:
    """Spans apart by this are one: spaces, operators, symbols ("(╯°□°)╯": the "°" the vocabulary knows)."""
    return all(c in _JOINING or unicodedata.category(c) == "So" for c in gap)  # (not "€": "€5 / €10" are two)


_WORD_BEFORE = re.compile(r"\w*$")
_WORD_AFTER = re.compile(r"\w*")
_MARKUP = re.compile(rf"<|{PRIVATE.pattern}")
SCRIPT = re.compile(r"<su[bp]\b", re.IGNORECASE)  # a superscript or a subscript


def _whole_word(text: str, s: int, e: int) -> tuple[int, int]:
    """A span of markup inside a word made the whole word: "H<sub>2</sub>O", "x<sup>2</sup>", "km<sup>2</sup>"
    cut apart lost their letters ("El agua es <sub>2</sub>."). Not markup before a word ("<i>car") nor after
    one of three letters or more (a footnote mark, "car<sup>1</sup>"): the word is translated, the markup
    stays glued to it."""
    before, after = _WORD_BEFORE.search(text, 0, s).group(), _WORD_AFTER.match(text, e).group()
    inside = before and after and _MARKUP.search(text, s, e)
    a_symbols = not after and 0 < len(before) <= 2 and (SCRIPT.match(text, s) or PRIVATE.match(text, s))
    return (s - len(before), e + len(after)) if inside or a_symbols else (s, e)


def mask(text: str, spans: Sequence[tuple[int, int]], seq: tuple[str, ...]) -> Masked:
    """Each span replaced by its placeholder, set apart by a space from what it was glued to; a currency
    sign before it becomes a word after it ("$25.50" -> "50 dollars"), which the model translates."""
    out, last, signs, glued = [], 0, [], []
    for i, (s, e) in enumerate(spans):
        sign = text[s - 1] if s > last and text[s - 1] in CURRENCIES else ""
        signs.append(sign)
        out.append(text[last : s - len(sign)])
        at = s - len(sign)
        before = " " if at and not text[at - 1].isspace() and text[at - 1] not in "([{\"'¿¡" else ""
        after = " " if e < len(text) and (text[e].isalnum() or text[e] == "_") else ""
        glued.append(("<" if before and (text[at - 1].isalnum() or text[at - 1] == "_") else "") + (">" if after else ""))
        out.append(before + seq[i % len(seq)] + (" " + CURRENCIES[sign] if sign else "") + after)
        last = e
    out.append(text[last:])
    return Masked("".join(out), tuple(text[s:e] for s, e in spans), seq, tuple(signs), tuple(glued))


def _pattern(seq: tuple[str, ...]) -> re.Pattern:
    alts = "|".join(sorted(map(re.escape, set(seq)), key=len, reverse=True))
    return re.compile(rf"(?<![\w.,:/])(?:{alts})(?![\w]|[.,:/]\d)")


def restore(output: str, masked: Masked) -> str | None:
    """The output with its placeholders replaced by the spans, or None if the model did not copy each
    placeholder exactly once (the k-th '50' of the output is the k-th span that became '50') or made up
    a number of its own ("500", "Bla0": a placeholder half copied)."""
    if not masked.spans:
        return output
    want = [masked.seq[i % len(masked.seq)] for i in range(len(masked.spans))]
    found = _pattern(masked.seq).findall(output)
    if sorted(found) != sorted(want) or _made_up_digits(output, masked):
        return None
    glued = masked.glued or ("",) * len(masked.spans)
    queues = {p: [(sp, sign, g, at) for sp, w, sign, g, at in zip(masked.spans, want, _signs(masked), glued,
                                                                  _places(masked)) if w == p] for p in set(want)}
    order, pieces, last = [], [], 0  # the spans in the order they come in the output, for resign

    for m in _pattern(masked.seq).finditer(output):
        span, sign, glue, place = queues[m.group()].pop(0)
        order.append((span, sign))
        start, end = m.start(), m.end()
        # "a las 5 p.m.." -> "a las 5 p.m." (only after the span itself: another span may hold "5 p.m..")
        span = span[:-1] if span.endswith(".") and output.startswith(".", end) else span
        # glued to a word as it was ("<i>car" -> "<i>coche"), when it keeps its place among the words
        # (first, inside or last): the space before the placeholder was only the model's
        if glue and _place(output, start, end) == place:
            if "<" in glue and start - 1 > last and output[start - 1] == " " and output[start - 2].isalnum():
                start -= 1
            if ">" in glue and output[end : end + 1] == " " and output[end + 1 : end + 2].isalnum():
                end += 1
        pieces += [output[last:start], span]
        last = end
    restored = "".join(pieces) + output[last:]
    return resign(restored, replace(masked, spans=tuple(sp for sp, _ in order), signs=tuple(g for _, g in order)))


_LETTERS = re.compile(r"[^\W\d_]")


def _place(text: str, start: int, end: int) -> str:
    """Where text[start:end] is among the words: "first" (no letter before it), "last", "inside", "alone"."""
    before, after = _LETTERS.search(text, 0, start), _LETTERS.search(text, end)
    return "inside" if before and after else "last" if before else "first" if after else "alone"


def _places(masked: Masked) -> list[str]:
    """Where each span's placeholder is among the words of the masked text."""
    places = [_place(masked.text, m.start(), m.end()) for m in _pattern(masked.seq).finditer(masked.text)]
    return places if len(places) == len(masked.spans) else [""] * len(masked.spans)


def _signs(masked: Masked) -> tuple[str, ...]:
    return masked.signs or ("",) * len(masked.spans)


def _made_up_digits(output: str, masked: Masked) -> bool:
    """Digits in the output besides its placeholders, where the source has none besides its own."""
    pattern = _pattern(masked.seq)
    return bool(re.search(r"\d", pattern.sub("", output))) and not re.search(r"\d", pattern.sub("", masked.text))


def resign(output: str, masked: Masked) -> str:
    """The output (spans in place, in masked's order) with the currency sign back on each span whose
    currency the translation lost ("Pagué 50 e-ciles" -> "Pagué €50 e-ciles"): a price keeps its currency."""
    at = 0
    for span, sign in zip(masked.spans, _signs(masked)):
        found = output.find(span, at)
        if found < 0:
            continue
        if sign and not re.search(_CURRENCY_WORDS[sign], output, re.IGNORECASE) and output[found - 1 : found] != sign:
            output = output[:found] + sign + output[found:]
            found += len(sign)
        at = found + len(span)
    return output


def remask(masked: Masked, seq: tuple[str, ...]) -> Masked:
    """The same masked text with the placeholder sequence `seq` instead."""
    k = iter(range(len(masked.spans)))
    text = _pattern(masked.seq).sub(lambda m: seq[next(k) % len(seq)], masked.text)
    return replace(masked, text=text, seq=seq)


def unmasked(masked: Masked) -> str:
    """The masked text with its spans back in place (after case repairs made on the masked text)."""
    spans = iter(masked.spans)
    return _pattern(masked.seq).sub(lambda m: next(spans), masked.text)


def all_kept(output: str, masked: Masked) -> bool:
    """Every span in the output, in order, each whole: not inside a longer word or number ("5" is not
    kept in "59", nor "5" and "11" in "511")."""
    at = 0
    for span in masked.spans:
        found = re.compile(("(?<!\\w)" if span[:1].isalnum() else "") + re.escape(span)
                           + ("(?!\\w)" if span[-1:].isalnum() else "")).search(output, at)
        if not found:
            return False
        at = found.end()
    return True


# a phrase that holds one span starts at one of these words ("I paid $50 | for 3 books | on 12/05/2023")
_PHRASE_START = re.compile(r"\s(?=(?:for|on|in|at|to|from|with|by|and|but|or|of|after|before|until|since|because|"
                           r"when|while|than|per|about|around|between|during|into|over|under)\b)", re.IGNORECASE)


def one_span_phrases(masked: Masked) -> list[Masked]:
    """The sentence cut into phrases that each hold one span (the model copies one placeholder far more
    reliably than several): each cut is at the last phrase-starting word between two spans, else right
    after the first of them."""
    found = list(_pattern(masked.seq).finditer(masked.text))
    cuts = [0]
    for a, b, sign in zip(found, found[1:], _signs(masked)):
        starts = [m.start() for m in _PHRASE_START.finditer(masked.text, a.end(), b.start())]
        # (after a price's currency word, not between: "$100, $50" cut "100 | dollars, 50" came out "$100 dólares")
        cuts.append(starts[-1] if starts else a.end() + (len(" " + CURRENCIES[sign]) if sign else 0))
    cuts.append(len(masked.text))
    phrases = []
    for k, (s, e) in enumerate(zip(cuts, cuts[1:])):
        text = _pattern(masked.seq).sub(PLACEHOLDERS[0][0], masked.text[s:e]).strip()
        phrases.append(Masked(text, masked.spans[k : k + 1], PLACEHOLDERS[0], _signs(masked)[k : k + 1],
                              masked.glued[k : k + 1]))
    return phrases


def placed(output: str, phrase: Masked) -> str:
    """A phrase's translation with its span: restored in place, or if the model lost the placeholder, put
    at the end of the translation, before its final stop (or at the start, if it opened the phrase, after
    an opening ¿ or ¡): "Tengo gatos 3.", not "Tengo gatos. 3"."""
    restored = restore(output, phrase)
    if restored is not None:
        return restored
    bare = _pattern(phrase.seq).sub("", output)
    if _made_up_digits(bare, phrase):  # what is left of a placeholder ("Bla0"), or a number made up
        bare = re.sub(r"\d", "", bare)
    bare = " ".join(bare.split())
    span = phrase.spans[0]
    first = phrase.text.startswith(phrase.seq[0])
    if first:
        opening = len(bare) - len(bare.lstrip("¿¡"))
        return resign(f"{bare[:opening]}{span} {bare[opening:]}", phrase).strip()
    end = len(bare.rstrip(".!?…"))
    return resign(f"{bare[:end].rstrip()} {span}{bare[end:]}", phrase).strip()
