"""Every kind of span the text pipeline keeps as it came (or writes anew in Spanish), defined once: the patterns below,
and KINDS, the table of rows built from them (sacrebleu's tokenizer_re style: one row a kind, one comment each).
protect.py finds, masks and restores spans by this table; normalize.py, segment.py, labels.py, the stages and the
format readers import the shared concepts (the private-use characters that stand for markup, superscripts, code,
emoticons) from here, the calendar's (months, weekdays, dates) from dates.py, numbers read by their language from
numerals.py. tests/text/test_kinds.py fails if another module of mtcli/text/ defines one again.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from mtcli.text.dates import (DATE, ES_DATE, WEEKDAYS, _MONTH_ALONE, _ES_MONTH_ALONE, _date_in_english,
                              _date_in_spanish, _dates, meses, month_in_english, month_in_spanish, months_alone)
from mtcli.text.numerals import EN_ORDINAL, ES_NUMBER, number_in_english, ordinal_in_spanish
from mtcli.text.spanish import NOT_NAMES
from mtcli import lazy_re

# private-use characters stand for markup (formats/, the pipeline's quotations and asides; a document's own
# are items too): the BMP's, then planes 15 and 16 (indexed, not listed: a string of all 137,000 cost every
# `mtcli translate` 30 ms to build)
PRIVATE_RANGES = (range(0xE000, 0xF900), range(0xF0000, 0xFFFFE), range(0x100000, 0x10FFFE))
PRIVATE = lazy_re.compile("[" + "".join(f"{chr(r[0])}-{chr(r[-1])}" for r in PRIVATE_RANGES) + "]")
# a superscript or a subscript: its opening tag, and the whole element without markup inside
SCRIPT_OPEN = r"<su[bp]\b"
SCRIPT = lazy_re.compile(SCRIPT_OPEN, re.IGNORECASE)
SCRIPT_TAG = r"<(?P<script>su[bp])\b[^<>]*>"
SCRIPT_CLOSE = r"</(?P=script)\s*>"
SCRIPT_ELEMENT = rf"{SCRIPT_TAG}[^<>]*{SCRIPT_CLOSE}"
FOOTNOTE_REF = r"\[\^[^\]\s]+\]"  # a Markdown footnote reference, [^1]
# Markdown's code span (CommonMark: a run of backticks closed by as many), taken out before any other markup
MARKDOWN_CODE = lazy_re.compile(r"(`+)(.+?)\1")
# `code` and ``code`` (which may hold a single backtick): their backticks are kept; not backticks typed as
# apostrophes inside words (Tom`s dog isn`t)
CODE_PAIR = lazy_re.compile(r"(?<![\w`])(?:`(?=[^`\s])(?:[^`]*[^`\s])?`|``(?=[^`\s])(?:(?:[^`]|`(?!`))*?[^`\s])?``)(?![\w`])")
# an emoticon: its marks are no sentence's (normalize leaves the spaces around it; protect.py keeps it), kept as an
# emoji is (the vocabulary has no brackets: ":-)" reached the model as ":-", ":P" as "P")
EMOTICON = lazy_re.compile(r"(?<![\w:;=^<>()-])(?:[:;=][-o^']?[)(\]\[DPpOo3/\\|*]|</?3|\^_?\^|-_-"
                           r"|[oO]_[oO]|T_T|xD|XD|:'[()])(?![\w()\[\]/\\|*^<>-])")

# an IPv6 address ("2001:db8::1", "::1", "::ffff:1.2.3.4", "fe80::1%eth0", "[::1]:80"), kept: its numbers alone were
_H, _V4 = "[0-9a-fA-F]{1,4}", r"(?:\d{1,3}\.){3}\d{1,3}"  # (its case its own: OWN_STOP reads it without flags)
_IP6 = (rf"(?:(?:{_H}:){{7}}{_H}|(?:{_H}:){{1,4}}:{_V4}|::(?:ffff(?::0{{1,4}})?:)?{_V4}|(?:{_H}:){{1,7}}:|:(?::{_H}){{1,7}}|::"
        + "".join(rf"|(?:{_H}:){{1,{k}}}(?::{_H}){{1,{7 - k}}}" for k in range(6, 0, -1)) + r")(?:%[\w.-]*\w)?")
IPV6 = lazy_re.compile(rf"(?<![\w:.\[])(?:{_IP6}|\[{_IP6}\](?::\d{{1,5}})?)(?![\w:])", re.IGNORECASE)
_URL = r"(?:(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://|www\.)[^\s<>\"]+"
_EMAIL = r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
# a run of number-ish characters holding a digit: 25.50, 7:15, 12/05/2023, 50%, -5°C, 3rd, MP3, COVID-19, 5$;
# a currency sign before it stays outside, for the model to translate ("$50" -> "50 dólares")
# (and an en dash: normalize keeps a range's, "10–20")
_NUMBER = r"(?:(?<![\w-])[+-])?(?<!\w)(?:\w+-)*\w*\d[\w%°.,:/+\-–$\u00a2-\u00a5\u20a0-\u20cf]*"
# an amount with its currency after it ("20 €", "25 USD", "800 euros": a word both languages spell alike; a sign
# before it too, "€50 euros", which came out "50 euros euros") or its code before it ("USD 5", "US$10"): kept whole
# (the model made "20 €" twenty dollars; it dropped "USD", "1 euro"; "800 euros" came out "800 ebrio", "30 European")
_CODES = "USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|MXN|CNY|INR|BRL|ARS|COP|CLP|PEN|RUB|KRW|SEK|NOK|DKK|PLN"
_AMOUNT = r"\d(?:[\d.,]*\d)?"
# A minus before either is the amount's ("-5 €"), so is one around a sign or a code ("-$5.00", "$-5", "USD -200": the
# model lost "USD"; a sign's amount is else the model's, "$50" -> "50 dólares", and it lost the minus)
_MINUS = r"(?:[-−](?=[\d$€£¥A-Z]))?"
_MONEY = (rf"(?<![\w.,]){_MINUS}(?-i:{_CODES}|(?:US|C|A|NZ|HK|S|R|MX|NT)\$) ?[-−]?{_AMOUNT}(?![\w.,]*\d)"
          rf"|(?<![\w.,]){_MINUS}(?:[$€£¥] ?)?{_AMOUNT} ?(?:[€£¥¢₹₽₩]|(?-i:{_CODES}|euros?|EUROS?|Euros?)\b)"
          rf"|(?<![\w.,])(?:[-−][$€£¥]|[$€£¥][-−]) ?{_AMOUNT}(?![\w.,]*\d)")
# an amount in euros ("5 euros", "1 euro", "20 €", "€50 euros"; in a translation "€5" too): tried first as typed
# (spans.py, retry.OWN), where the model writes it itself; as a placeholder alone it changed the sentence ("It
# costs 50." -> "Se cuesta 50.", was "Cuesta 5 euros.")
EUROS = lazy_re.compile(rf"(?<![\w.,])(?:€ ?)?({_AMOUNT}) ?(?:€|(?i:euros?|EUR)\b)|(?<![\w.,])€ ?({_AMOUNT})(?![\d.,]*\d)")
MONEY = lazy_re.compile(_MONEY)  # (a span that holds its currency)
_NOT_DIGITS = lazy_re.compile(r"\D")


_WHOLE_EUROS = lazy_re.compile(r"\d+ (?i:euros?)")


def as_shown(amount: str, source: str) -> str:
    """An amount in euros as retry.OWN's sentence shows it the model: as typed if a whole number before the word ("5
    euros", "1 euro") or in Spanish, else as one it reads ("3,50 euros", "20 €", "€50 euros" typed came out "Cuesta 30
    y 50.", "Tiene 20 $30.", "Cuesta 90 90."; in Spanish "50 euros" wrote worse: benchmarks/prices.py)."""
    return amount if source != "en" or _WHOLE_EUROS.fullmatch(amount) else "50 euros"


def euros_as_typed(text: str, amounts: list[str], shown: tuple[str, ...] = ()) -> str:
    """The text with the model's writing of each amount in euros (`amounts`, as typed, in order; as the model was
    `shown` them, if not so) as it was typed: the same digits with a euro word or € ("5 €", "€5" for "5 euros")."""
    found: dict[str, list[re.Match]] = {}  # the model's amounts by their digits, in order (one pass: linear time)
    for m in EUROS.finditer(text):
        found.setdefault(_NOT_DIGITS.sub("", m[1] or m[2]), []).append(m)
    pieces, at = [], 0
    for amount, form in zip(amounts, shown or amounts):
        ms = found.get(_NOT_DIGITS.sub("", form), [])
        if (k := bisect.bisect_left(ms, at, key=re.Match.start)) < len(ms):
            pieces += [text[at : ms[k].start()], amount]
            at = ms[k].end()
    return "".join(pieces) + text[at:]
# a quantity with a unit's symbol apart from it ("10 km", "3 kg", "20 MB", "180 °C", "5-10 min"): kept whole (the
# model dropped "km", "min" and "MB", made "kg" "kara", "ml" "micro" and "cm" "cima"); units it can spell out ("5
# miles") it translates. A symbol as written or shouted ("10 KM"); not "in", nor "Mi"
_UNITS = ("km/h|m/s|kWh|mAh|Mbps|Gbps|kcal|km²|cm²|m²|m³|GHz|MHz|kHz|min|hrs|sec|mph|kph|lbs|°C|°F|km|cm|mm|µm|nm|"
          "kg|mg|µg|ml|cl|dl|hr|ms|kW|MW|Hz|KB|MB|GB|TB|Kb|Mb|Gb|oz|lb|ft|yd|mi|px|pt|dB|cal|ha")
# (a minus or a plus its own, "-5 °C"; a unit per another, "0.5 mg/kg": both had been lost)
_UNIT = (rf"(?<![\w.,])(?:[-−+±](?=\d))?\d(?:[\d.,–-]*\d)? ?(?-i:{_UNITS}|{_UNITS.upper()}|°|[mglLhWV])"
         rf"(?:/(?-i:{_UNITS}|[mglLhsd]|day|dose))?(?![\w°²³/'])")
# a title before a name ("Mr. Brown", "Dr Smith", "MRS. JONES"): kept with the name, which the model translated or
# dropped ("I met Mr. Brown yesterday." -> "Ayer me encontré marrón.", "Mrs. Jones" -> "Jesús"), the title written
# as Spanish abbreviates it ("Sr. Brown"); the name as it came (an apostrophe's "s" is the sentence's: "Dr. Lee's")
TITLES = {"Mr": "Sr.", "Mrs": "Sra.", "Ms": "Sra.", "Dr": "Dr.", "Prof": "Prof."}
# after a title, no name: a new sentence ("Thank you, Dr. I will call."), an office ("Mr. President"), a day, a title
_NOT_A_NAME = ("i he she it we you they the a an this that these those there here what who where when why how yes no "
               "not now then please thanks thank my your his her its our their and but or so if as at in on to of for "
               "with by from is are was were be do does did can will would should could may might must let "
               "president chairman chairwoman speaker mayor secretary ambassador minister governor senator justice "
               "right").split() + [*WEEKDAYS] + "mr mrs ms dr prof".split()
_CAPITAL = "A-ZÀ-ÖØ-Þ"
_NAME_REST = r"(?:\w|[-'’](?=\w)(?![sS]\b))*(?!\w)"  # "Smith-Jones", "O'Neil"; not "Lee's", "Brown--the"
# a Capitalised name after a title as written ("Mr. Brown", "Dr Smith"), one word, or two when the second is
# Capitalised too ("Mary Ann", "John O'Neil"); an ALL CAPS one after an ALL CAPS title with its stop ("MR. BROWN";
# "MS Word", "DR Congo" are no titles); not a file's name ("Smith.pdf")


def _titles(as_written: str, shouted: str, not_a_name: list[str], article: str = "") -> tuple[re.Pattern, re.Pattern]:
    """A language's TITLE (a title before a capital, an `article` before it) and TITLED (and the name after it)."""
    # (a word that is no name starts one before an apostrophe and a capital: Spanish's "o" in "Sr. O'Neil")
    not_name = rf"(?!(?i:{'|'.join(not_a_name)})\b(?!['’][{_CAPITAL}]))"
    title = rf"(?<![\w.]){article}(?-i:{as_written}|{shouted})(?= (?-i:[{_CAPITAL}]))"
    titled = (rf"(?<![\w.]){article}(?-i:{as_written} {not_name}[{_CAPITAL}]{_NAME_REST}"
              rf"(?: {not_name}[{_CAPITAL}](?=[a-zß-öø-ÿ'’]){_NAME_REST})?"
              rf"|{shouted} {not_name}[{_CAPITAL}][{_CAPITAL}'’-]*(?!\w))(?!\.\w)")
    return lazy_re.compile(title), lazy_re.compile(titled)


TITLE, TITLED = _titles(rf"(?:{'|'.join(TITLES)})\.?", rf"(?:{'|'.join(t.upper() for t in TITLES)})\.", _NOT_A_NAME)
# Spanish's titles, written in English without the article Spanish puts before them ("El Sr. López
# vino." -> "Mr. López came."; "Dra. Ruiz" had come out "Dr. Ru", the article "The Mr. López"): "D." only with its
# stop and not after an initial ("J. D. Salinger"), not before a word that is no name ("Sra. Presidenta")
ES_TITLES = {"Sr": "Mr.", "Sra": "Mrs.", "Srta": "Miss", "Dr": "Dr.", "Dra": "Dr.", "D": "Don", "Dña": "Doña",
             "Prof": "Prof.", "Profa": "Prof."}
_ES_DOTTED = "|".join(sorted((t for t in ES_TITLES if t != "D"), key=len, reverse=True))
ES_TITLE, ES_TITLED = _titles(rf"(?:(?<![A-Z]\. )D\.|(?:{_ES_DOTTED})\.?)",
                              rf"(?:{'|'.join(sorted((t.upper() for t in ES_TITLES), key=len, reverse=True))})\.",
                              [*NOT_NAMES, *map(str.lower, ES_TITLES)], r"(?:(?:[Ee]l|[Ll]as?|EL|LAS?) )?")
# feet and inches, inches (5'11", 27"): one span, marks included (the model made "5'11\"" "511")
_FEET = r"(?<![\w\"'])(?:\d+'(?:\d+(?:\.\d+)?\")?(?![\w'])|\d+(?:\.\d+)?\"(?=[\s.,;:!?)]|$))"  # (not '"5"', "'3'")
FEET = lazy_re.compile(_FEET)
# a Roman numeral of two letters or more, up to 89, after a word not in capitals ("Chapter IV", "World War II", "Louis
# XIV", "chapter IV", "siglo XXI"): the model made them words ("Lee Cámele", "capítulo primero", "19th century"); not
# "a CD", "Never MIX", "DC", "LO VI"
ROMAN_NUMERAL = r"(?=[LXVI]{2,}\b)(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(?![\w'-])"
ROMAN = lazy_re.compile(rf"\b[^\W\d_]*[a-zß-ÿ] ({ROMAN_NUMERAL})")
MAYBE_ROMAN = lazy_re.compile(r"\b[LXVI]{2,}\b")
# a clock time with a.m./p.m. apart from its number ("5 p.m.": the model drops "p.m.")
_TIME = r"\d{1,2}(?::\d\d)?\s?(?:[ap]\.m\.|[ap]m)(?!\w|-[^\W\d])"  # (a range: "10 am-2 pm" lost "pm")
# what is typed, not written: `code`, an HTML tag, @mentions and #hashtags, a path (/usr/bin, ~/.bashrc,
# ./run.sh, C:\Program Files), a bare domain or a file name (example.org/path, README.md, config.yaml)
_CODE = r"(?<!\w)(?:``(?:[^`]|`(?!`))+``|`[^`]+`)(?!\w)"  # not a backtick used as an apostrophe (Tom`s)
_TAG = rf"</?[a-z][\w:-]*(?:\s[^<>]*)?/?>|{FOOTNOTE_REF}"  # (and a Markdown footnote reference, [^1])
_HANDLE = r"(?<![\w@#&/])[@#]\w+"
_PATH = r"(?<![\w/.~-])(?:~|\.{1,2})?/[\w.@%+~-]+(?:/[\w.@%+~-]*)*|[^\s\\]{0,255}\\\S*"
_TLDS = ("com org net edu gov mil int io co uk de fr es eu ca au ru cn jp br mx ar cl nl se ch info biz dev app ai "
         "tv ly gg xyz online site tech blog cloud shop store news")
_EXTENSIONS = ("txt md rst py js ts jsx tsx json csv tsv pdf doc docx xls xlsx ppt pptx odt png jpg jpeg gif svg webp "
               "bmp ico html htm css scss xml yaml yml toml ini cfg conf log zip tar gz tgz bz2 xz 7z rar exe dll "
               "dylib sh bash zsh bat ps1 c h cpp hpp cc java jar rs rb php pl sql db sqlite mp3 mp4 wav flac ogg "
               "avi mkv mov srt vtt ipynb lock env bak tmp iso dmg apk deb rpm whl")
_NAME = (r"(?<![\w@./-])[\w-]+(?:\.[\w-]+)*\.(?-i:" + "|".join(sorted(set((_TLDS + " " + _EXTENSIONS).split()),
                                                                        key=len, reverse=True))
         + r")(?![\w-])(?::\d+)?(?:/[^\s<>\"]*)?")

# a template's placeholders (software strings: printf, Python, .NET, ICU, Mustache and Jinja, JavaScript, Ruby,
# shell, Rails and Express routes), kept byte for byte. templates.py finds them in the raw line, before normalize
# (which would respace "{{ name }}" and "Total: %.2f") and the sentence splitter see it; never in SPAN
# {{ name }}, {{{html}}}, {% if x %}, ERB's and EJS's <%= user.name %>
_DOUBLE_BRACES = r"\{\{\{[^{}\n]*\}\}\}|\{\{[^{}\n]*\}\}|\{%[^{}\n]*%\}|<%[=-]?[^%\n]*%>"
# {name}, {0}, {}, { count }, {user.name}, {0:.2f}, {name!r}: one name or none (not "{very rough}", "{ name")
_BRACES = r"\{ *(?:[A-Za-z_][\w.\-]*(?:\[\w+\])?|\d+)? *(?:![rsa])?(?::[^{}\s]*)? *\}"
# printf's %s, %d, %1$s, %-5.2f, %ld, %@, %% and Python's %(name)s (not after a digit, "/" or "=": "50%d" is a number's, "/%E2" a URL's); Windows' %APPNAME% (3 characters or more: no URL's "%E2%"), Qt's %1, %L1
_PRINTF = (r"%%|(?<![\w%])%[A-Z][A-Z_][A-Z0-9_]+%(?!\w)|(?<![\w%])%L?[1-9]\d?(?![\w$])|(?<![\d/=])%(?:\d+\$)?[-+0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcCsSpn@]"
           r"|%\(\w[\w.\-]*\)[-+0#]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")
_INTERPOLATION = r"[$#%]\{[^{}\n]+\}|\{\$\w[\w.\[\]>-]*\}|\$\w*\((?:[^()\n]|\([^()\n]*\))+\)|\$[A-Za-z_]\w*"  # ${amount}, #{name}, Ruby's %{name}, PHP's {$name}, $(whoami), i18next's $t(key), $HOME
# :name after a space, a slash or a bracket (Laravel's ":attribute", a route's "/users/:id"): a template's only in a
# line that is one (templates.py: another placeholder, or a route); "Note: x", "3:15", "std::map", ":P" are none
COLON_NAME = r"(?<![^\s/(\[])(?<!::):[A-Za-z_]\w*(?!\w)"
_ENTITY = r"&(?:amp;)?(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});"  # &nbsp; &amp; &#39; &#x27;; a page about them: &amp;lt;
# a newline, a tab, a return, a backslash or a character written as a backslash sequence (a JSON or a .strings
# file's); not in a Windows path ("C:\new\table", "\\server\share": templates.py)
ESCAPED_BREAK = r"(?<!\\)\\[ntr]"  # (not "\\\\n": an escaped backslash, then an "n")
ESCAPE = rf"\\\\|{ESCAPED_BREAK}|\\u[0-9A-Fa-f]{{4}}"


def _retitled(pattern: re.Pattern, titles: dict[str, str]) -> Callable[[str], str]:
    """A span's title before a name as the other language abbreviates it ("Mr. Brown" -> "Sr. Brown")."""
    def title(m: re.Match) -> str:
        written = m.group().split(" ")[-1]  # (without an article)
        out = titles[next(t for t in titles if t.lower() == written.rstrip(".").lower())]
        out = out if written.endswith(".") else out.rstrip(".")  # ("Dr Pepper")
        return out.upper() if written[1:2].isupper() else out

    return lambda span: pattern.sub(title, span)


# "No. 5", "n.º 5": a number's sign, not a reply ("No. 5 is my favorite." came out "No hay 5 es mi favorito.")
_NUMBER_SIGN = {"en": r"(?<![\w.])(?-i:No|NO)\. ?(?=\d)",  # (capital: "Say no. 5 people said yes." is two)
                 "es": r"(?<![\w.])(?:n\.? ?º|núm\.|nro\.) ?(?=\d)"}
_NUMBER_SIGNED = {lang: rf"{sign}\d+(?![\w,.]\d)" for lang, sign in _NUMBER_SIGN.items()}


def _number_sign_in_spanish(span: str) -> str:
    return re.sub(_NUMBER_SIGN["en"], lambda m: ("N" if m[0][0] == "N" else "n") + ".º ", span, flags=re.IGNORECASE)


def _number_sign_in_english(span: str) -> str:
    return re.sub(_NUMBER_SIGN["es"], "No. ", span, flags=re.IGNORECASE)


# a Spanish ordinal number ("1.º", "2.ª", "3.er"): kept, written the English way ("1st", "2nd", "3rd")
_ES_ORDINAL = r"(?<![\w.,])(\d{1,4})\.?(?:[ºª]|(?-i:er))(?!\w)"


def _ordinal_in_english(span: str) -> str:
    def english(m: re.Match) -> str:
        n = int(m[1])
        return f"{n}{'th' if n % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"

    return re.sub(_ES_ORDINAL, english, span)


def _romans(text: str) -> list[tuple[int, int]]:
    """A Roman numeral's place (ROMAN's group 1, after a word not in capitals)."""
    return [m.span(1) for m in ROMAN.finditer(text)] if MAYBE_ROMAN.search(text) else []


LANGUAGES = ("en", "es")  # source languages
EN, ES = frozenset({"en"}), frozenset({"es"})


@dataclass(frozen=True)
class Kind:
    name: str  # what the span is
    pattern: str  # what it looks like (in SPAN's alternation, case-insensitive, unless it has `find`)
    own_stop: bool = False  # the marks after it are its own, not the sentence's (":-)", 5'11")
    rewrite: Callable[[str], str] | None = None  # written anew in Spanish; None: back exactly as it came
    find: Callable[[str], list[tuple[int, int]]] | None = None  # its spans in a text, by a search of its own (a
    # guard, a group), not in SPAN's alternation
    hint: str = r"\d"  # what every match of it holds: SPAN is searched only in text holding a row's hint
    languages: frozenset[str] = frozenset(LANGUAGES)  # the source languages the row serves
    template: bool = False  # a template's placeholder: found in the raw line by templates.py, not in a Table's span


# in SPAN's order: the first alternative that matches at a place wins
KINDS = (
    Kind("ipv6 address", IPV6.pattern, own_stop=True, hint=r"::|[0-9a-f]:[0-9a-f]"),  # ("2001:db8::" lost its "::")
    Kind("url", _URL, hint=r"://|www\."),
    Kind("email", _EMAIL, hint="@"),
    Kind("code", _CODE, hint="`"),
    Kind("tag", _TAG, hint=r"<|\^"),
    Kind("keys", r"(?<![\w+])(?:(?:ctrl|alt|shift|cmd|command|option|meta|super|win|fn|[⌘⌥⇧⌃])(?:\+(?:\w+|[^\w\s]))+"
         r"|[⌘⌥⇧⌃]+\w+)(?!\w)", hint=r"\+|[⌘⌥⇧⌃]"),  # Ctrl+S, ⌘+C, ⇧⌘S
    # a name of capitals around an ampersand ("AT&T", "H&M", "R&D"): the "&" alone was kept and "AT", "T" translated
    Kind("ampersand name", r"(?<![\w&])(?-i:[A-Z][A-Za-z]{0,3}&[A-Z][A-Za-z]{0,3})(?![\w&;])", hint="&"),
    # a name of a capital, an apostrophe and a Capitalised word ("O'Brien", "D'Angelo"): the tokenizer cuts it at
    # the apostrophe and only "Brien" was kept ("O'Brien is here." -> "Los Brien están aquí."); not "O'Brien's" "'s"
    Kind("apostrophe name", r"(?<![\w'’])(?-i:[A-Z]['’][A-Z][a-zß-öø-ÿ]+)(?!\w)", hint="['’]"),
    Kind("handle", _HANDLE, hint="[@#]"),
    Kind("path", _PATH, hint=r"[/\\]"),
    Kind("file or domain", _NAME, hint=r"[\w-]\.[a-z]"),
    Kind("number sign", _NUMBER_SIGNED["en"], rewrite=_number_sign_in_spanish, languages=EN),
    Kind("signo de número", _NUMBER_SIGNED["es"], rewrite=_number_sign_in_english, languages=ES),
    Kind("time", _TIME),
    Kind("money", _MONEY),
    Kind("quantity", _UNIT),
    Kind("feet and inches", _FEET, own_stop=True),
    # a ratio with a space before its colon ("3 :1", "2 : 1"; "3:1" is a number's): the model lost the colon between
    # two numbers' placeholders ("La rata es 3 1."); not a label's colon, which has none before it ("Step 3: 1 cup")
    Kind("ratio", r"(?<![\w.,:])\d+(?:[.,]\d+)? : ?\d+(?:[.,]\d+)?(?![\w:]|[.,]\d)", hint=" :"),
    Kind("date", DATE.pattern, rewrite=_date_in_spanish, find=_dates, languages=EN),  # (before the title's rewrite)
    Kind("title and name", TITLED.pattern, rewrite=_retitled(TITLE, TITLES), hint=TITLE.pattern, languages=EN),
    Kind("month", _MONTH_ALONE.pattern, rewrite=month_in_spanish, find=months_alone, languages=EN),
    Kind("fecha", ES_DATE.pattern, rewrite=_date_in_english, languages=ES),
    Kind("mes", _ES_MONTH_ALONE.pattern, rewrite=month_in_english, find=meses, languages=ES),
    Kind("título y nombre", ES_TITLED.pattern, rewrite=_retitled(ES_TITLE, ES_TITLES), hint=ES_TITLE.pattern, languages=ES),
    Kind("ordinal", _ES_ORDINAL, rewrite=_ordinal_in_english, languages=ES),
    Kind("ordinal (en)", EN_ORDINAL, rewrite=ordinal_in_spanish, languages=EN),  # ("el 3rd piso" -> "el 3.º piso")
    Kind("número", ES_NUMBER, rewrite=number_in_english, languages=ES),  # ("3.000" -> "3,000": numerals.py)
    Kind("number", _NUMBER),
    Kind("emoticon", EMOTICON.pattern, own_stop=True, hint=r"[:;=][-o^']?[)(\]\[DPpOo3/|*]|[\^_]|xD|XD"),
    Kind("roman numeral", ROMAN.pattern, find=_romans),
    # (a template's, in this order: the first that matches at a place wins; ICU messages are icu.py's)
    Kind("template braces", _DOUBLE_BRACES, template=True, hint=r"\{"),
    Kind("template interpolation", _INTERPOLATION, template=True, hint=r"[$#%][{(]|\{\$|\$\w"),
    Kind("template brace", _BRACES, template=True, hint=r"\{"),
    Kind("printf placeholder", _PRINTF, template=True, hint="%"),
    Kind("html entity", _ENTITY, template=True, hint="&"),
    Kind("escape", ESCAPE, template=True, hint=r"\\"),
    Kind("colon name", COLON_NAME, template=True, hint=":"),
)
KIND = {k.name: k for k in KINDS}
TEMPLATE = lazy_re.compile("|".join(f"(?P<k{n}>{k.pattern})" for n, k in enumerate(KINDS) if k.template))  # (case matters)
MAYBE_TEMPLATE = lazy_re.compile("|".join(k.hint for k in KINDS if k.template))
OWN_STOP = lazy_re.compile("|".join(k.pattern for k in KINDS if k.own_stop))
