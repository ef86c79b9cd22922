"""The stand-in the model sees in a kept span's place, by what the span holds, where the engine's ladder (protect.py)
is not the best for it; the tries after the first (retry.py) are the ladder's, as before. Each stand-in goes back
through protect.restore like any placeholder (each exactly once, unchanged). Two tables:

- a template's variable by its name, else its conversion (ROWS): a person's a name, a count's a number. One stand-in
  for every variable wrote badly around some: "Hello {name}." masked "Hello 50." came out "Holanda 50.", and the
  name "Tom" is copied less often than "50" over all spans (protect.py: 77 % against 90 %). Measured:
  docs/text-pipeline.md#software-strings, benchmarks/software_strings.py.
- a number's by its source language (STAND_INS): the Spanish-English model's ladder is a name ("Tom"), which it made
  the sentence's subject ("Tiene Tom años." -> "Tom is old.": "Tiene 30 años." had come out "30 is old.", "La maleta
  pesa 20 kg." "20 kg's suitcase is heavy."). Measured: benchmarks/standins.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mtcli.text.kinds import KIND, ROMAN_NUMERAL, TEMPLATE
from mtcli import lazy_re

NAMES = ("Tom", "Mary", "John")  # the corpus's most frequent names: the models copy them (spans.py)


@dataclass(frozen=True)
class Row:
    kind: str
    words: str  # a pattern over the variable's name, lowercase, its words and dotted parts joined by "_"
    # the stand-in by source language: the variable opening its sentence (its subject, mostly), anywhere else; a
    # name is one of NAMES the sentence lacks, None the ladder's (Engine.placeholders: "50"; es-en's "Tom")
    first: dict[str, str | None]
    inside: dict[str, str | None]


EN, ES = "en", "es"
# in this order, the first row whose words the name has wins ("num_files", "username_len" counts, "file_name" a file,
# "user_email" an address); a printf conversion or a format spec with no name is a number's ("%d", "%.2f", "{0:d}");
# any other variable is "other" ("%s", "{0}", "{team}"). Chosen on the software strings written before them
# (benchmarks/software_strings.py --old --kind K --stand-in K=TEXT), stand-ins copied back on the first try:
ROWS = (
    # "50", as before (the ladder's); es-en "12" 15/19 lines, "5" 14/19, its ladder's "Tom" 14/19 with the worse
    # English ("Tienes Tom mensajes" -> "Tom has messages"; "Tienes 12 ..." -> "You have 12 ...")
    Row("count", r"counts?|n|num|nums|number|total|totals|amount|qty|quantity|max|min|limit|size|len|length|days?|"
        r"hours?|minutes?|seconds?|percent|unread|remaining|left|index|page|pages|port|age|price|balance|votes?|"
        r"likes?|views?|items|results|seats|points|score|level|version|year|id",
        {EN: "50", ES: "12"}, {EN: "50", ES: "12"}),
    # "tom@example.com" 0/4 lines, "50" 3/4
    Row("email", r"e?mail|email_address|e_mail", {EN: None, ES: None}, {EN: None, ES: None}),
    # "example.com" 0/5 lines, "www.example.com" 0/5, "50" 5/5 (es-en: its ladder's 2/2)
    Row("url", r"url|uri|link|href|website|site|domain|host|hostname|server|homepage",
        {EN: None, ES: None}, {EN: None, ES: None}),
    # "notes.txt" 0/7, "report.pdf" 0/7, "50" 6/7: the model translates a file's name ("Las notas no pudieron ...");
    # es-en "notes.txt" 0/4, its ladder's 4/4
    Row("file", r"file|filename|file_name|path|filepath|pathname|dir|directory|folder|document|attachment",
        {EN: None, ES: None}, {EN: None, ES: None}),
    # "Tom" 39/40, "50" 33/40 ("Hello 50, ..." -> "Sal de 50, ...", "Hello Tom, ..." -> "Hola a Tom, ..."); es-en's
    # ladder shows "Tom" already (10/14): one name for each person. A "name" alone is "other": as often a file's or
    # a project's ("Could not open {name}." had come out "No podía abrir a {name}.", a person's "a")
    Row("person", r"user|username|user_name|first_name|firstname|last_name|lastname|full_name|fullname|"
        r"display_name|displayname|nickname|author|owner|sender|recipient|receiver|friend|player|member|customer|"
        r"contact|person|assignee|reviewer|creator|inviter|invitee|follower|buyer|seller|admin|who|from|to",
        {EN: NAMES[0], ES: NAMES[0]}, {EN: NAMES[0], ES: NAMES[0]}),
    # "Tom" 93/97, "50" 76/97; but a name inside the sentence brought Spanish's "a" for a person ("No podía leer a
    # %s", "Corre a $(whoami)"), and opening it wrote the verb better ("{app} necesita acceso a tu cámara", "Hay 50
    # acceso ..."): a name first, the number elsewhere; es-en its ladder's ("Tom" 15/17, "5" 14/17)
    Row("other", r".*", {EN: NAMES[0], ES: None}, {EN: None, ES: None}),
)
_ROW = {row.kind: row for row in ROWS}
_WORDS = {row.kind: lazy_re.compile(rf"(?:^|_)(?:{row.words})(?:_|$)") for row in ROWS}

# the variable's name in each template syntax: "{name}", "{{ user.first_name }}", "%(username)s", ":author",
# "${count}", "#{name}", "{$name}", "$name", "<%= user.name %>"; no name: "{0}", "{}", "%s", "%1$s"
_NAME = lazy_re.compile(r"^(?:\{\{\{?|\{%|<%[=-]?|[$#%]?\{\$?|%\(|:|\$)\s*([A-Za-z_][\w.\-]*)")
_NUMBER_CONVERSION = lazy_re.compile(r"%(?:\d+\$)?[-+0#']*\d*(?:\.\d+)?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgG]$"
                                     r"|\{\w*:[^}]*[dfeEgGn%]\}$")
_NOT_A_VARIABLE = lazy_re.compile(r"&|\\|%%|\{%|<%[^=-]")  # an entity, an escape, a percent sign, a tag ("{% if x %}")
_LETTER = lazy_re.compile(r"[^\W\d_]")
# a greeting opening the sentence: a variable right after it is a person's (a vocative, "Welcome back, {0}!"), given
# the model with a comma ("Hello Tom." came out "Hola a Tom.", "Hello, Tom." "Hola, Tom."; "Hi Tom, your invoice ..."
# "Hola a Tom, ...", "Hi, Tom, ..." "Hola, Tom, ...")
_GREETING = lazy_re.compile(r"[¿¡\"'(]*(?:hello|hi|hey|good (?:morning|afternoon|evening|night)|welcome(?: back)?|"
                            r"thanks|thank you|goodbye|bye|congratulations|happy birthday)", re.IGNORECASE)
# after a variable that opens the sentence, "not" and no verb: a thing's heading ("%s not found." given "Tom not
# found." had come out "%s no encontró.", "%s did not find", unflagged), the number inside a sentence's
_UNSAID = lazy_re.compile(r" not (?!be\b|have\b)[a-z]")
# a Spanish greeting opening the text (its comma or none), then a name (one to three capitalised words) and its comma
_ES_GREETING = (r"^[¿¡\"'(]*(?i:hola|buen[oa]s(?: (?:días|tardes|noches))?|gracias|muchas gracias|adiós|"
                r"hasta (?:luego|mañana|pronto)|bienvenid[oa]s?|felicidades|feliz cumpleaños)")
_ES_GREETED = lazy_re.compile(_ES_GREETING + r",?(?= (?:[A-ZÁÉÍÓÚÑ][^\W\d_]*(?: |,)){1,3}(?<=,))")
_ES_GREETED_STOP = lazy_re.compile(_ES_GREETING + r"\. ")
_STOP_AFTER_GREETING = lazy_re.compile(r"^([^.!?]{1,24})\. (?=(?:[^\sa-z][^\s,]*(?: |,)){1,3}(?<=,))")
_CAMEL = lazy_re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def kind(placeholder: str) -> str | None:
    """The kind of value a template's placeholder holds (a row of ROWS), by its name's words, dotted parts too
    ("user.email" an address, "file.name" a file, "user.name" a person), else by its conversion ("%d" a count); None: no variable (an entity, an escape, "%%", a tag)."""
    if not TEMPLATE.fullmatch(placeholder) or _NOT_A_VARIABLE.match(placeholder):
        return None
    m = _NAME.match(placeholder)
    if m:
        name = _CAMEL.sub("_", m.group(1)).replace(".", "_").replace("-", "_").lower()
        return next(row.kind for row in ROWS if _WORDS[row.kind].search(name))
    return "count" if _NUMBER_CONVERSION.search(placeholder) else "other"


def stand_ins(text: str, spans: list[tuple[int, int]], items: dict[str, tuple[str, ...]], seq: tuple[str, ...],
              source: str) -> tuple[str, ...]:
    """Each span's placeholder: a template variable's its kind's stand-in (ROWS) where the text (`text` without its
    `spans`) does not have it already, nor another span (restore would take theirs for it), distinct names for
    distinct people; any other span `seq`'s, by its place, as protect.mask gives it."""
    letter = _LETTER.search(text)  # (a span before the first letter opens the sentence)

    def wanted(s: int, e: int) -> str | None:
        parts = items.get(text[s:e], ()) if e - s == 1 else ()
        row = _ROW.get(kind(parts[0])) if len(parts) == 1 else None
        row = _ROW["person"] if row and row.kind == "other" and _greeted(text, s) else row
        inside = letter and letter.start() < s or row and row.kind == "other" and _UNSAID.match(text, e)
        return row and (row.inside if inside else row.first).get(source)

    wants = [wanted(s, e) for s, e in spans]
    words = "".join(text[a:b] for a, b in zip([0] + [e for _, e in spans], [s for s, _ in spans] + [len(text)])).lower()
    taken = set(re.findall(r"\w+", words)) | {seq[i % len(seq)].lower() for i, w in enumerate(wants) if w is None}
    taken |= {w for w in set(wants) - {None} if w.lower() in words}  # ("example.com" in "see example.com.")
    names = iter(n for n in NAMES if n.lower() not in taken)
    out = []
    for i, chosen in enumerate(wants):
        if chosen in NAMES:
            chosen = next(names, None)
        elif chosen in taken:
            chosen = None
        out.append(chosen or seq[i % len(seq)])
    return tuple(out) or seq  # (none: seq, which protect's patterns need)


def _greeted(text: str, at: int) -> bool:
    """A greeting, alone, opens the text before `at` ("Hello ", "Welcome back, ")."""
    m = _GREETING.match(text)
    return bool(m) and text[m.end() : at] in (" ", ", ")


def addressed(shown: str, text: str, spans: list[tuple[int, int]], seq: tuple[str, ...],
              items: dict[str, tuple[str, ...]], source: str) -> str:
    """`shown` (the text masked with `seq`) with a comma after a greeting that opens it before a person's variable,
    its first span, in English ("Hello {name}." -> "Hello, Tom."): Spanish writes the vocative's comma, and the model
    wrote the personal "a" without it ("Hola a {name}."). Typed names are left as typed. In Spanish a greeting
    before the name of the person greeted, typed or a variable's, and its comma, is given the model as a sentence of
    its own (`joined` takes its stop away again): it made the name the subject, with a comma too ("Hola Ana, tienes
    3 mensajes." had come out "Hi, Ana has 3 messages.", "Buenos días Pedro, te llamo luego." "Good morning, Pedro
    called you later."; "Hola. Ana, tienes ..." "Hi. Ana, you have ...")."""
    if source == ES:
        return _ES_GREETED.sub(lambda m: m.group().rstrip(",") + ".", shown, 1)
    s, e = spans[0] if spans else (0, 0)
    parts = items.get(text[s:e], ()) if e - s == 1 else ()
    m = _GREETING.match(shown)
    if source != EN or len(parts) != 1 or not kind(parts[0]) or not m or seq[0] not in NAMES \
            or not shown.startswith(" " + seq[0], m.end()) or not _greeted(text, s):
        return shown
    return shown[: m.end()] + "," + shown[m.end() :]


def joined(shown: str, translation: str) -> str:
    """The translation of a text `addressed` gave a Spanish greeting's stop without it ("Hi. Ana, ..." -> "Hi Ana, ...")."""
    return _STOP_AFTER_GREETING.sub(r"\1 ", translation, 1) if _ES_GREETED_STOP.match(shown) else translation


# -- a number's stand-in, by source language

# the kinds that hold a number's value (a Roman numeral's too: "siglo XXI" had come out "19th century")
NUMBER_KINDS = ("time", "money", "feet and inches", "ratio", "ordinal", "número", "number")
_NUMBER = lazy_re.compile("|".join(f"(?:{KIND[k].pattern})" for k in NUMBER_KINDS), re.IGNORECASE)
_QUANTITY = lazy_re.compile(KIND["quantity"].pattern, re.IGNORECASE)  # (a number with a unit's symbol: "3,5 kg")
_ROMAN = lazy_re.compile(ROMAN_NUMERAL)
# source language -> each kind's stand-in (a kind not here: the ladder's)
STAND_INS = {"es": {"number": "12", "quantity": "12", "roman": "12"}}


def number_kind(span: str) -> str | None:
    """The span's kind if it is a number: "quantity" ("3,5 kg"), "number" ("20 €", "7:30", "1/2"), "roman" ("XXI")."""
    return next((k for k, p in (("quantity", _QUANTITY), ("number", _NUMBER), ("roman", _ROMAN)) if p.fullmatch(span)), None)


def stood_in(spans: tuple[str, ...], seq: tuple[str, ...], source: str, words: str) -> tuple[str, ...]:
    """`seq` (the ladder's first rung, span i gets seq[i % len(seq)]) with the source's stand-in for each span of a kind
    it has one for, one per span; `seq` where it has none, or the sentence (`words`: without its spans) writes one."""
    table = STAND_INS.get(source, {})
    kinds = [table.get(number_kind(span)) for span in spans]
    if not any(kinds) or any(re.search(rf"(?<![\w.,]){k}(?![\w]|[.,]\d)", words) for k in set(kinds) if k):
        return seq
    return tuple(k or seq[i % len(seq)] for i, k in enumerate(kinds))
