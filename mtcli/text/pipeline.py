"""Lines of real text in, one translation per line out, nothing lost: the steps of this package in order.

    line -> indentation kept, normalize -> sentences -> per sentence: spans to keep found, emoji and
    markup at its edges set aside, case and loose typing repaired, spans masked, cut to the model's
    length -> decode (all sentences of all lines in one call) -> placeholders restored (another
    placeholder, then translating around the spans, if the model lost one) -> upper case again for
    ALL CAPS input -> sentences joined.

The model is reached only through `Engine` (a decode function, the source tokenizer's encode and the
length limit), so the pipeline does not depend on how decoding works; `Engine.from_translator` wraps
an `mtcli.decode.Translator`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache

from mtcli.config import DEFAULTS
from mtcli.schema import MAX_LINE_CHARS
from mtcli.text import case, labels, protect
from mtcli.text.kinds import (EMOTICON, FOOTNOTE_REF, MONTHS, PRIVATE, PRIVATE_RANGES, SCRIPT, SCRIPT_ELEMENT, SCRIPT_OPEN, TITLE,
                              WEEKDAYS, WRITTEN_ANEW, in_spanish)
from mtcli.text.normalize import normalize
from mtcli.text.segment import fit, sentences

NBest = list[tuple[str, float]]
Decode = Callable[[list[str]], list[NBest]]  # sentences -> their n-best (text, score) lists, best first
UNK = 1  # mtcli.tokenizer.UNK (not imported: this package loads without the tokenizers library)
_LETTER = re.compile(r"[^\W\d_]")
_FIRST_WORD = re.compile(r"[^\W\d_]+")
_INDENT = re.compile(r"[ \t]*")  # kept as it is (not other whitespace: no line separators in the output)
# ... and after it a list's or a quote's mark, or a one-letter label: "- ", "* ", "• ", "1. ", "2) ", "(a) ",
# "> ", "# ", "Q: " (the model dropped them or moved them to the end: "1. Open it." -> "Ábrelo 1.")
_MARK = re.compile(r"[ \t]*(?:[-*•‣◦▪+>]{1,2}|#{1,6}|\d{1,3}[.)]|[A-Za-z][.)]|\((?:\d{1,3}|[A-Za-z])\)|[A-Z]:)[ \t]+(?=\S)")
# ... and inside a line, at a sentence's start: not a letter and a stop (an initial there: "I. M. Pei")
_INNER_MARK = re.compile(r"(?:[-*•‣◦▪+>]{1,2}|\d{1,3}[.)]|[A-Za-z]\)|\((?:\d{1,3}|[A-Za-z])\)|[A-Z]:) +(?=\S)")
# Lines of a file given to translate_lines at once: decoding sorts one call's sentences by length into
# full batches, and each call ends in a few small ones. Measured, greedy, CPU s: 2,000 unseen lines 11.9
# at 64 lines a call (batches of 64 sentences), 6.5 at 1,024 and 6.0 at 2,000 (of 2,048 tokens); 4,000
# lines 12.4 at 1,024, 11.3 at 2,000, 12.1 at 4,000.
LINES_PER_CALL = 2048


@dataclass(frozen=True)
class TextOptions:
    """Which steps run; all off is the raw model on each line (the benchmark's "before")."""

    segment: bool = True  # one sentence at a time
    protect: bool = True  # numbers, URLs, emoji, ... kept exactly
    case: bool = True  # ALL CAPS, lowercase, loose contractions
    punctuate: bool = True  # a missing final "?" or "." added (a question then comes out as ¿...?); off for
    # a fragment (a link's text): no final mark, no capital letter first
    keep_stop: bool = True  # off: a source without final punctuation gets a translation without a final "."
    # (documents: a heading, a cell, a link's text)


RAW = TextOptions(segment=False, protect=False, case=False, punctuate=False)


@dataclass
class Engine:
    decode: Decode
    encode: Callable[[str], list[int]]  # source ids, without start and end
    limit: int  # most source ids one decoded piece may have
    names: dict[str, str] = field(default_factory=dict)  # truecasing table (case.truecase_table)

    @classmethod
    def from_translator(cls, tr, beam: int = DEFAULTS.beam_size, nbest: int = DEFAULTS.num_hypotheses,
                        alpha: float = DEFAULTS.length_penalty, batch_size: int | None = None) -> Engine:
        """batch_size: sentences decoded together; None: TranslationOptions' batches of source tokens
        (benchmarks/decode.py's; measured 7 % less CPU than 64 sentences greedy on 2,000 unseen lines)."""
        from mtcli import kernels

        options = replace(DEFAULTS, beam_size=beam, num_hypotheses=nbest, length_penalty=alpha)
        if batch_size is not None:
            options = replace(options, max_batch_size=batch_size, batch_type="examples")

        def decode(lines: list[str]) -> list[NBest]:
            kernels.expect(len(lines))  # lines piped in: the compiled kernels once there are enough
            return [[(h.text, h.score) for h in r.hypotheses] for r in tr.translate_batch(lines, options)]

        src = [tr.src_tok.id_to_token(i) for i in range(tr.src_tok.vocab_size)]
        tgt = {tr.tgt_tok.id_to_token(i) for i in range(tr.tgt_tok.vocab_size)}
        return cls(decode, lambda text: tr.src_tok.pieces(tr.src_tok.encode(text)), tr.model.cfg.max_src_len - 2,
                   case.truecase_table(src, tgt))


@dataclass
class LineResult:
    """What became of one input line: its translations and what was done to get them."""

    line: int  # 1-based number of the input line
    nbest: NBest  # best first
    sentences: int = 0
    split: int = 0  # sentences too long for the model, translated in pieces
    kept: list[str] = field(default_factory=list)  # spans put back exactly as they came
    warnings: list[str] = field(default_factory=list)  # each about this line

    @property
    def text(self) -> str:
        return self.nbest[0][0]


@dataclass
class _Sentence:
    line: int  # index into the batch
    lead: str = ""  # emoji or markup set aside at the start, with its space
    trail: str = ""
    floating: list[tuple[float, str, bool]] = field(default_factory=list)  # emoji set aside inside the
    # sentence: (words before it / words of the sentence, the emoji, glued to the word before it)
    verbatim: str | None = None  # nothing to translate: this comes out as it is
    masked: protect.Masked | None = None
    shout: bool = False
    strip_stop: bool = False  # the source has no final punctuation: nor will the translation (documents)
    trails_off: bool = False  # the source ends in an ellipsis: so will the translation (the model made it ".")
    head: str = ""  # a chat's or a mail's head, in `lead`, kept
    lone: tuple[bool, bool] | None = None  # a word alone given the model as a fragment: (capitalised, not ALL CAPS)
    lower_first: bool = False  # the translation goes on after a quotation set aside in `lead`: no capital
    lower_start: bool = False  # the English starts lowercase: its first word, capitalised for the model, is no name
    trail_item: bool = False  # it ends in a quotation or aside set aside in `trail`: its ? or ! go after it
    attempt: int = 0  # index into protect.PLACEHOLDERS, or VERIFY, or AROUND
    pieces: list[str] = field(default_factory=list)  # what is decoded
    phrases: list[protect.Masked] = field(default_factory=list)  # AROUND: phrases of one span each
    counts: list[int] = field(default_factory=list)  # AROUND: pieces of each phrase
    out: NBest = field(default_factory=list)


def translate_lines(lines: Sequence[str], engine: Engine, options: TextOptions = TextOptions(), first: int = 1,
                    items: dict[str, tuple[str, ...]] | None = None,
                    rendered: dict[str, str] | None = None) -> list[LineResult]:
    """One LineResult per line, in order. `first` is the number of lines[0] (for warnings); `items`
    maps a private-use character standing in the text for markup (formats.py) to its parts: verbatim
    text and, at odd positions, text to translate ("**", "very", "**"). Given a `rendered` dict, the
    translations keep those characters and the dict receives what each stands for."""
    if items is None and options.segment and any("\t" in raw.strip(" \t") for raw in lines):
        return _in_cells(lines, engine, options, first)  # (each line with tabs inside, cell by cell)
    # (quotations and asides are added to it, in characters none of these lines has)
    items = items if isinstance(items, _Items) else _Items(items or {}, lines)
    engine = replace(engine, encode=_remembering(engine.encode))
    results = [LineResult(first + i, [("", 0.0)]) for i in range(len(lines))]
    unknown = _unknown(engine)
    indents, tails, todo, wraps, unwrapped = [], {}, [], {}, {}
    for i, raw in enumerate(lines):
        if len(raw) > MAX_LINE_CHARS:  # the model reads 54 tokens of a sentence: a 10 MB line is an attack or an error
            raw, tails[i] = _cut_long(raw)
            results[i].warnings.append(f"longer than {MAX_LINE_CHARS:,} characters: its first {len(raw):,} were "
                                       f"translated, the other {len(lines[i]) - len(raw):,} are kept as they came")
        indents.append(((_MARK.match(raw) if options.protect else None) or _INDENT.match(raw)).group())
        text = normalize(_spaced_dashes(raw[len(indents[i]):]) if "—" in raw else raw[len(indents[i]):])
        if items:  # markup around words ("is <b>green</b>") out of the way of the model: put back after
            text, wraps[i] = _unwrap(text, items)
            unwrapped[i] = text
        if options.case and _looks_spanish(text):
            results[i].warnings.append("this looks like Spanish already; it was translated as if it were English")
        parts = sentences(text) if options.segment else [text] if text else []
        for k, s in enumerate(parts):  # a line cut by _cut_long: its last sentence goes on in the rest kept
            # a label or a list mark inside the line too ("Q: Is it open? A: Yes.", "1) flour 2) eggs")
            label = _INNER_MARK.match(s) if k and options.protect else None
            s = s[label.end() :] if label else s
            s = _asides(s, items, quotes=not wraps.get(i)) if options.protect else s
            clauses = _clauses(s, unknown) if options.protect else [s]
            for c, clause in enumerate(clauses):  # each but the last ends in a colon, which it keeps
                last = c == len(clauses) - 1
                todo.append(_prepare(clause, i, engine, options if last else replace(options, keep_stop=False),
                                     unknown, items, cut=last and i in tails and k == len(parts) - 1))
                todo[-1].trail += "" if last else ":"
                todo[-1].lower_first |= c > 0 and (clause[:1].islower() or clause.startswith(("I ", "I'")))
            todo[-len(clauses)].lead = (label.group() if label else "") + todo[-len(clauses)].lead
            results[i].sentences += 1
    done = _render_items(todo, items, engine, options, results)
    if rendered is not None:
        rendered.update(done)
        done = {}
    _decode_all([s for s in todo if s.verbatim is None], engine, results, lambda t: _source(t, items))
    by_line: list[list[NBest]] = [[] for _ in lines]
    for s in todo:
        by_line[s.line].append(_finish(s, results[s.line], items))
    clues = _clues(unwrapped, wraps, items, engine, options)
    for i, outs in enumerate(by_line):
        tail = tails.get(i, "")
        if outs:
            nbest = _combine(outs)
            if wraps.get(i):  # (a document expands the best one's markup itself: `rendered`)
                nbest = [(_rewrap(t, wraps[i], clues, items, rendered if k == 0 else None), score)
                         for k, (t, score) in enumerate(nbest)]
            results[i].nbest = [(indents[i] + _join_tail(_expand(t, done), tail), score) for t, score in nbest]
        elif tail or indents[i].strip():  # (a mark before nothing to translate: "- \u200b")
            results[i].nbest = [((indents[i] + tail.lstrip()).rstrip(), 0.0)]
    return results


def _in_cells(lines: Sequence[str], engine: Engine, options: TextOptions, first: int) -> list[LineResult]:
    """Lines with tabs inside them (a spreadsheet's rows, pasted): each cell translated as a line of its own,
    the tabs kept (normalised to spaces, "Apple<TAB>Red<TAB>3" reached the model as one sentence and lost
    "Red"). The other lines as ever."""
    rows = [raw.split("\t") if "\t" in raw.strip(" \t") else None for raw in lines]
    # (a cell is a heading or a value more often than a sentence: no final stop it had not)
    cells = iter(translate_lines([c for row in rows if row for c in row], engine, replace(options, keep_stop=False)))
    others = iter(translate_lines([raw for raw, row in zip(lines, rows) if row is None], engine, options))
    results = []
    for i, row in enumerate(rows):
        if row is None:
            results.append(replace(next(others), line=first + i))
            continue
        done = [next(cells) for _ in row]
        results.append(LineResult(first + i, _combine([r.nbest for r in done], "\t"), sum(r.sentences for r in done),
                                  sum(r.split for r in done),
                                  [k for r in done for k in r.kept], [w for r in done for w in r.warnings]))
    return results


# words of Spanish that English text does not use (not "a", "no", "me", "son", "era", "hay", "solo", "al", ...)
_SPANISH = frozenset("el la los las del que y en es está están un una unos unas por para con pero muy qué cómo "
                     "dónde cuándo porque también su sus le les mi tu yo ella ellos nosotros somos fue hola gracias "
                     "este esta esto eso ese esa aquí allí ahora siempre nunca sí tiene tengo quiero puedo gusta de "
                     "se ya más".split())
_WORDS = re.compile(r"[^\W\d_]+")


def _looks_spanish(text: str) -> bool:
    """Spanish given by mistake: two different words and 40 % of them are Spanish's own, or carry ñ, an
    accent or an opening ¿ ¡ (the model makes nonsense of it: "El perro es grande." -> "Orpeólica.")."""
    words = _WORDS.findall(text[:2000].lower())
    if len(words) < 3:
        return False
    own = [w for w in words if w in _SPANISH or any(c in "ñáéíóú" for c in w)] + [c for c in text if c in "¿¡"]
    return len(set(own)) >= 2 and len(own) >= 0.4 * len(words)


# an aside in brackets inside a sentence: after a space (or first), before a space, a stop or the end; with a
# letter in it (not "f(x)", "friend(s)", "wiki/Foo_(bar)", "[text](url)", "(1)")
_ASIDE = re.compile(r"(?<![^\s\"'])(?:\(([^()]*[^\W\d_][^()]*)\)|\[([^\[\]]*[^\W\d_][^\[\]]*)\])(?=[\s.,;:!?\"']|$)")
# a quotation: after a space, a bracket or first, before a space, a stop, a bracket or the end, with no space
# inside either mark; a single quote's words may hold apostrophes ('I don't know.'), not its edges ("dogs'")
_QUOTE = re.compile(r"(?<![^\s(\[])(?:\"(?=\S)([^\"]+)(?<=\S)\"|«(?=\S)([^«»]+)(?<=\S)»"
                    r"|'(?=\S)((?:[^']|(?<=\w)'(?=\w))+)(?<=\S)')(?=[\s.,;:!?…)\]]|$)")
_QUOTE_MARKS = "\"'«"
# "said the teacher." after a quotation: a speech verb that rarely takes an object, then its subject: a
# pronoun, a name (capitalised words) or a determiner and up to two words; never an object ("said nothing")
_INVERTED_TAG = re.compile(
    r"^(said|asked|replied|whispered|shouted|cried|exclaimed|muttered|yelled|screamed|sighed|murmured) "
    r"(he|she|they|we|I|you|(?:(?:Mr|Mrs|Ms|Dr)\. )?[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}"
    r"|(?:the|his|her|my|your|our|their) (?!word\b|phone\b)[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)?)([.!?…]*)$")
_TWO_LETTERS = re.compile(r"[^\W\d_]{2}")
# single quotes that are apostrophes: a word's ("'em", "'cause", "'90s") or a plural's ("the kids' room")
_ELIDED = re.compile(r"'(?:em|cause|cos|coz|til|tis|twas|n|bout|round|\d)\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r" [^\W\d_]")  # after "s'"


class _Items(dict):
    """Markup characters -> their parts (formats.py's, taken from the bottom of the private-use ranges up),
    and the quotations and asides made here, from the top of plane 16 down: never a character the text
    has itself (an icon font's glyph), nor one past the ranges (then the quotation stays as it is)."""

    def __init__(self, items: dict[str, tuple[str, ...]], lines: Sequence[str]):
        super().__init__(items)
        self.own = set(PRIVATE.findall("".join(lines))) - set(items)
        self.next = PRIVATE_RANGES[2][-1]

    def new(self, parts: tuple[str, ...]) -> str | None:
        plane15, plane16 = PRIVATE_RANGES[1:]
        while self.next >= plane15.start:  # (from plane 16 on to the top of plane 15's: U+FFFFE, U+FFFFF no)
            c, self.next = chr(self.next), self.next - 1 if self.next != plane16.start else plane15[-1]
            if c not in self and c not in self.own:
                self[c] = parts
                return c
        return None


def _asides(sentence: str, items: _Items, quotes: bool = True) -> str:
    """Each quotation and each aside in brackets made an item (its text translated on its own, inside its
    marks). The vocabulary has no brackets, and the model garbled the sentence around them ("The meeting
    (on Monday) was long." -> "La reunión se asha de ( El lunes no fue largo de ) años."). Quotes it has
    seen in 290 pairs of 118,964: it dropped a closing one ('"I love cats."' -> '"Me encantan los
    gatos.'), a reply ('"Tom likes Mary." "Yeah, I know."' -> '"¿A quién le gusta Mary?" "Sí."') or a
    quoted word ('He answered with a "no."' -> '... con "hay".'). A sentence that is all one aside in
    brackets ("(Really?)") stays as it is; a quotation is an item even then. Not `quotes` in a line with
    markup around words: the markup is put back on the words of the line's translation."""
    def quotation(m: re.Match) -> str:
        words = m.group()[1:-1].rstrip(",;:")  # a clause's comma stays out of the translation, and goes after
        if (not _TWO_LETTERS.search(words) or PRIVATE.search(words)  # (markup inside stays with its words)
                or m.group()[0] == "'" and (_ELIDED.match(m.group()) or m.group().endswith("s'")
                                            and _POSSESSIVE.match(sentence, m.end()))):
            return m.group()
        return items.new((m.group()[0], words, m.group()[-1] + m.group()[1 + len(words) : -1])) or m.group()

    def aside(m: re.Match) -> str:
        if m.start() == 0 and not sentence[m.end():].strip(".,;:!?\"' "):
            return m.group()
        return items.new((m.group()[0], m.group()[1:-1], m.group()[-1])) or m.group()

    if quotes and ('"' in sentence or "'" in sentence or "«" in sentence):
        sentence = _QUOTE.sub(quotation, sentence)
    return _ASIDE.sub(aside, sentence) if "(" in sentence or "[" in sentence else sentence


def _cut_long(raw: str) -> tuple[str, str]:
    """A line over MAX_LINE_CHARS: the part translated (up to the last sentence end before the limit, else
    the last space, if there is one in its second half) and the rest, kept as it came (normalized: one
    line, single spaces)."""
    head = raw[: MAX_LINE_CHARS + 1]
    ends = [m.end() for m in _SENTENCE_END.finditer(head, MAX_LINE_CHARS // 2)]
    cut = ends[-1] if ends else head.rfind(" ", MAX_LINE_CHARS // 2)
    cut = cut if cut > 0 else MAX_LINE_CHARS
    return raw[:cut], (" " if raw[cut].isspace() else "") + normalize(raw[cut:])  # (a word cut in two stays one)


_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s)")


def _join_tail(text: str, tail: str) -> str:
    return text + tail if text else tail.lstrip()


def _source(text: str, items: dict[str, tuple[str, ...]]) -> str:
    """Text with each markup character as the document had it (for warnings). Only an item's text
    parts (odd positions) hold items; its verbatim parts are the document's own characters, which may
    be private-use ones (an icon font's glyph is an item standing for itself)."""
    if not items:
        return text

    def source(m: re.Match) -> str:
        parts = items.get(m.group())
        return m.group() if parts is None else "".join(
            _source(part, items) if k % 2 else part for k, part in enumerate(parts))

    return PRIVATE.sub(source, text)


def _remembering(encode: Callable[[str], list[int]]) -> Callable[[str], list[int]]:
    """`encode` keeping its last answer: a sentence is encoded to check its spelling (_unknown), then
    mostly the same text again to measure it (_fit)."""
    last: list = [None, None]

    def encode_last(text: str) -> list[int]:
        if text != last[0]:
            last[:] = text, encode(text)
        return last[1]

    return encode_last


def _unknown(engine: Engine) -> Callable[[str], bool]:
    @lru_cache(maxsize=4096)
    def short(piece: str) -> bool:
        # as a word, and glued to one ("?" is known after a word, not as a word of its own)
        return UNK in engine.encode(piece) and UNK in engine.encode("a" + piece)

    def unknown(piece: str) -> bool:
        return short(piece) if len(piece) <= 64 else UNK in engine.encode(piece)  # (no long keys kept)

    return unknown


def _prepare(text: str, line: int, engine: Engine, options: TextOptions, unknown, items: _Items,
             cut: bool = False) -> _Sentence:
    """`cut`: the sentence goes on in the rest of a line cut by _cut_long, kept as it came: it gets no
    final mark, nor keeps one the model adds (a "." mid-sentence, or inside a kept blob or URL); so does a
    sentence that ends in a quotation or an aside."""
    s = _Sentence(line)
    long_word = min(protect.LONG_WORD, engine.limit - 1)  # a word that long may not fit the model

    def spans_of(t: str) -> list[tuple[int, int]]:
        return protect.find_spans(t, unknown, long_word) if options.protect else []

    labelled = False
    # a chat's or a mail's head: a time stamp and the speaker after it, "Re:", "P.S." (the model dropped them:
    # "[10:32] John: hello there" -> "A los [10:32], ¿cuándo es así?")
    if options.protect and (head := _CHAT_HEAD.match(text) or _MAIL_HEAD.match(text)):
        s.lead, s.head, text = s.lead + head.group(), head.group().strip(), text[head.end() :]
    # a label: a heading word translated, a speaker or a title (before a capital) kept
    # (what follows a label is a value as often as a sentence: no stop it had not, "Cc: Tom" was "Cc: Tom.")
    elif options.protect and (label := labels.LABEL.match(text)) and labels.is_label(label, text):
        if spanish := labels.heading(label):
            s.lead += spanish
        else:
            s.lead, s.head = s.lead + label.group(), label.group().strip()
        text, labelled = text[label.end() :], True
        s.lower_first = text[:1].islower()  # "Note: the door is open." -> "Nota: la puerta está abierta."
        if labels.addresses(label, text):  # names and addresses ("Para: Mary Jones", was "Mary Jesúscula")
            s.verbatim, s.head = text, text
            return s
        if head := _MAIL_HEAD.match(text):  # "Subject: Re: hello"
            s.lead, s.head, text = s.lead + head.group(), head.group().strip(), text[head.end() :]
    spans = spans_of(text)
    # emoji and markup at the edges are set aside: the model translates the sentence without them
    if spans and spans[0][0] == 0 and _symbols(text[: spans[0][1]]):
        end = spans[0][1]
        s.lead, text = s.lead + text[:end] + text[end : len(text) - len(text[end:].lstrip())], text[end:].lstrip()
        # after a quotation the sentence goes on in lowercase ('"I love cats," she said.'): so will its translation
        # ('"No," Tom's mother said.' too: after a comma)
        quoted = [items[c] for c in PRIVATE.findall(s.lead) if c in items]
        s.lower_first |= bool(quoted) and (text[:1].islower() or quoted[-1][-1].endswith((",", ";", ":")))
        if quoted and quoted[-1][0] in _QUOTE_MARKS:  # a dialogue tag in a novel's order, alone, the model
            # garbled: "said the teacher." -> "Le paga al profesor."; "the teacher said." it knows
            text = _INVERTED_TAG.sub(lambda m: f"{m[2]} {m[1]}{m[3]}", text)
        spans = spans_of(text)
    if spans and spans[-1][1] == len(text) and (_symbols(text[spans[-1][0] :]) or _footnote(text, *spans[-1], items)):
        start = spans[-1][0]
        s.trail, text = text[len(text[:start].rstrip()) :], text[:start].rstrip()
        if PRIVATE.search(s.trail) and not _footnote(s.trail, 0, len(s.trail), items, glued=False):
            # a quotation or an aside ends it: the sentence's end, if any, is in there ('It means "don't walk."'),
            # and the mark before it stays out of the model's way ('says, "Do your best."': "dice, ¿verdad?")
            cut, s.trail, text = True, text[len(text.rstrip(",;:")) :] + s.trail, text.rstrip(",;:")
            s.trail_item = True
        spans = spans_of(text)
    # ... and emoji inside it too, put back at the same place among the words after: as a placeholder,
    # "The pizza 🍕 was great." came out "La pizza tenía 🍕 años.", "I love you ❤️ so much." lost "so much"
    inside = [(a, b) for a, b in spans if _symbols(text[a:b]) and not PRIVATE.search(text[a:b])
              or _footnote(text, a, b, items)]
    if inside and _LETTER.search(_drop_spans(text, spans)):
        text, s.floating = _set_aside(text, inside)
        spans = spans_of(text)
    s.lower_start = text[:1].islower()
    masked = protect.mask(text, spans, protect.PLACEHOLDERS[0])
    if not _LETTER.search(_drop_spans(text, spans)):
        s.verbatim, s.masked = text, masked  # numbers, symbols, punctuation: nothing for the model
        return s
    # a dash that sets a clause apart ("My brother - who lives in Boston - is a doctor.") is a comma to the
    # model: it dropped the commas' work ("Mi hermano que vive en Boston es médico.", "The answer—as you know—is
    # no." -> "La respuesta es que no conoce a mí"; with commas "La respuesta, como sabes, no es.")
    t = _CALENDAR_RANGE.sub(r"\1 to ", _DASH_CLAUSE.sub(", ", masked.text))
    # ... and so is an ellipsis inside a sentence: "I waited... and waited." came out "Esperé."; "I waited, and
    # waited." "Esperé, y esperé."
    t = _INNER_ELLIPSIS.sub(", ", t)
    s.trails_off = t.endswith("...")
    # a word alone, without a stop (a dictionary look-up, a table's cell): a fragment, given the model lowercase
    # and as it is. As a sentence it came out a command or noise: "Blue." -> "Apunta.", "Window." -> "Despierta.";
    # as a fragment "azul", "ventana" (of 30 common words, 19 nonsense as sentences, 5 as fragments)
    alone = bool(_LONE_WORD.fullmatch(t))
    if options.case and options.punctuate and alone and t.lower() not in engine.names \
            and not (options.keep_stop and t.lower() in _SENTENCE_WORDS):
        s.lone, t = (t[:1].isupper(), not t[1:].isupper()), t.lower()
        s.strip_stop = True
        s.masked, s.pieces = replace(masked, text=t), _fit(t, engine)
        return s
    if options.case:
        # decided on the words outside the spans: a span, or the currency word its mask adds ("$25.50" ->
        # "50 dollars"), neither makes nor breaks ALL CAPS
        s.shout = case.is_shouting(_drop_spans(text, spans))
        t = t.lower() if s.shout else t
        t = case.repair_contractions(t)
        t = case.truecase(t, engine.names, options.punctuate) if not any(c.isupper() for c in t) else _fix_i(t)
    # (nor a name alone: a signature, "John", was "John.")
    s.strip_stop = (cut or labelled or alone or not options.keep_stop) and not case.has_end_punctuation(t)
    if options.punctuate and not cut:
        t = case.end_punctuation(t)
    s.masked = replace(masked, text=t)
    s.pieces = _fit(t, engine)
    return s


# a time stamp ("[10:32] ", "10:32 PM - ", not a range: "12:00 - 13:00 lunch"), then a speaker ("John: ")
_CHAT_HEAD = re.compile(r"(?:\[\d{1,2}:\d\d(?::\d\d)?(?: ?[AaPp]\.?[Mm]\.?)?\]|\d{1,2}:\d\d(?::\d\d)?(?: ?[AaPp]\.?[Mm]\.?)?"
                        r" [-|])[ \t]+(?!\d)(?:[A-Z][\w'-]*(?: [A-Z][\w'-]*)?:[ \t]+)?(?=\S)")
_MAIL_HEAD = re.compile(r"(?:(?:Re|RE|Fwd|FWD|Fw|FW|AW|WG|PS):|P\.S\.|P\.P\.S\.)[ \t]+(?=\S)")
# (a label alone, "Tom: ", "Note: ": labels.py)

# a colon inside a sentence, between words: the model took it for a time ("I have a question: where is the
# station?" -> "¿Tengo una pregunta donde está la estación?"; 8 sentences of 8 lost words or garbled). The two
# sides go to the model apart ("Tengo una pregunta: ¿dónde está la estación?"); of 16 lists after a colon ("We
# visited three cities: Paris, Rome and Madrid."), beam 4: 11 whole so, 12 whole with the colon but 9 of them with
# made-up words ("ciudades a París"), 9 with a comma instead. Not a label's colon, nor one in a kept span (`a: b`)
_CLAUSE_COLON = re.compile(r"(?<=[^\W\d_]{2}): (?=\S)")


def _clauses(sentence: str, unknown) -> list[str]:
    """The sentence cut after each colon between two words or more, not a question, and more words."""
    if ": " not in sentence:
        return [sentence]
    head = _CHAT_HEAD.match(sentence) or _MAIL_HEAD.match(sentence) or labels.LABEL.match(sentence)
    skip = head.end() if head else 0
    spans = protect.find_spans(sentence, unknown)
    cuts = [m.end() for m in _CLAUSE_COLON.finditer(sentence, skip) if not any(a <= m.start() < b for a, b in spans)]
    pieces, start = [], 0
    for cut in cuts:
        clause, words = sentence[start : cut - 2], sentence[max(start, skip) : cut - 2].split()
        # ("Do you know what I want: a car?" is one)
        goes_on = _LETTER.search(sentence, cut) or PRIVATE.search(sentence, cut)  # (words, a quotation)
        if len(words) >= 2 and goes_on and not case.is_question(clause):
            pieces.append(clause)
            start = cut
    return pieces + [sentence[start:]]


_EM_DASH = re.compile(r"(?<=[^\W\d_])\s*—\s*(?=[^\W\d_])")  # unspaced too: normalize makes it a hyphen ("answer-as")
_TYPED = re.compile(r"[/@\\]|\w\.\w")  # ... not inside a URL, an address or a path
_LONE_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)?")
# ... but greetings and commands alone on a line come out right as sentences only ("Hello." -> "Hola.", "Wait." ->
# "Espera."; as fragments "aquí hola", "¿Colando?" for "run"): of 19 such words 13 right as sentences, 7 as
# fragments. (In a document a word alone is often a piece of a sentence cut by markup: a fragment still.)
_SENTENCE_WORDS = frozenset("hello hi thanks no sorry welcome help stop wait look listen run".split())
_INNER_ELLIPSIS = re.compile(r"(?<=[^\W\d_])\.{3,} (?=[^\W\d_])")
# between words, a clause going on in lowercase: not "9 - 5", "well-known", "Monday - Friday", "the -- flag"
_DASH_CLAUSE = re.compile(r"(?<=[^\W\d_]{2}) - (?=[a-z])")
# a range of days or months ("Monday–Friday", "January-March"): "to" to the model (it dropped the second: "Open
# Monday–Friday." -> "Abandona el lunes."; "January to March" -> "de enero a marzo")
_CALENDAR = "|".join([*(day.capitalize() for day in WEEKDAYS), *(month.capitalize() for month in MONTHS)])
_CALENDAR_RANGE = re.compile(rf"\b((?:{_CALENDAR})) ?- ?(?=(?:{_CALENDAR})\b)")


def _spaced_dashes(text: str) -> str:
    """Em dashes between words spaced ("answer—as" -> "answer — as"), but in what is typed (a URL)."""
    def spaced(m: re.Match) -> str:
        start, end = text.rfind(" ", 0, m.start()) + 1, text.find(" ", m.end())
        return m.group() if _TYPED.search(text[start : end if end >= 0 else len(text)]) else " — "

    return _EM_DASH.sub(spaced, text)


def _set_aside(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[tuple[float, str, bool]]]:
    """text without the spans (and a space beside each), and where each was among its words."""
    def words(t: str) -> int:  # (a mark left on its own, "job !", is no word)
        return len(_WORD.findall(t))

    # the space after one that follows an opening mark goes with it ('"🐱 I love' -> '"I love', not '" I love'),
    # not one after a closing mark ('car,<sup>1</sup> the' -> 'car, the')
    rest = _drop_spans(text, [(a, b + len(text[b:]) - len(text[b:].lstrip()) if a == 0 or text[a - 1] in _OPENING_MARKS
                               else b) for a, b in spans])
    n_words = max(words(rest), 1)
    places = [(words(_drop_spans(text[:a], [x for x in spans if x[1] <= a])) / n_words, text[a:b],
               a > 0 and not text[a - 1].isspace()) for a, b in spans]
    return re.sub(r"\s+(?=[.,;:!?…])", "", re.sub(r"\s+", " ", rest)).strip(), places


_WORD = re.compile(r"\S*\w\S*")


def _put_back(text: str, places: list[tuple[float, str, bool]]) -> str:
    """The emoji _set_aside took out, among the translation's words at the same share of them: glued
    to a word as it was, before a final punctuation mark rather than after it."""
    words = text.split(" ")  # (as _set_aside counted them: marks alone are no word)
    at = [i for i, w in enumerate(words) if _WORD.fullmatch(w)] or [len(words) - 1]
    before = []  # the emoji put before the first word
    for share, span, glued in places:  # in the sentence's order: each after the one before it
        k = round(share * len(at))
        if k >= len(at):  # after the last word: before its final mark ("perros 🐶.")
            last = words[at[-1]]
            body = last.rstrip(".!?…")
            words[at[-1]] = body + ("" if glued else " ") + span + last[len(body):]
        elif k == 0:
            before.append((span, glued))
        else:
            words[at[k - 1]] += ("" if glued else " ") + span
    if before:  # (after the marks opening the first word if the first was glued to a mark: '"🐱 Amo')
        first = words[at[0]]
        opening = len(first) - len(first.lstrip(_OPENING_MARKS)) if before[0][1] else 0
        words[at[0]] = first[:opening] + " ".join(span for span, _ in before) + " " + first[opening:]
    return " ".join(words)


_OPENING_MARKS = "\"'([{¿¡«“‘"


def _symbols(span: str) -> bool:
    """Emoji, emoticons (":D"), symbols and markup: no letter or digit of their own to translate or to place."""
    return all(not re.search(r"[A-Za-z0-9]", part) or EMOTICON.fullmatch(part) for part in span.split())


_NOTE = re.compile(rf"{SCRIPT_OPEN}|\[\^", re.IGNORECASE)  # a superscript, a subscript, a Markdown footnote ([^1])
_WHOLE_NOTE = re.compile(f"{FOOTNOTE_REF}|{SCRIPT_ELEMENT}", re.IGNORECASE)


def _is_note(parts: tuple[str, ...]) -> bool:
    """An item is a whole superscript, subscript or footnote reference, without markup inside."""
    if len(parts) == 3:
        return bool(SCRIPT.match(parts[0])) and not any(map(PRIVATE.search, parts))
    return len(parts) == 1 and bool(_WHOLE_NOTE.fullmatch(parts[0]))


def _footnote(text: str, a: int, b: int, items: dict[str, tuple[str, ...]], glued: bool = True) -> bool:
    """text[a:b] is a superscript or a footnote glued to the end of a word or a stop ("car<sup>1</sup>", "car.[^1]"):
    a footnote mark, set aside like an emoji. As a placeholder it was a number of the sentence ("cats 50 and
    dogs"), or lost."""
    if glued and (a == 0 or text[a - 1].isspace() or text[b : b + 1].isalnum()):
        return False
    return bool(_NOTE.match(text, a) or _NOTE.match(items.get(text[a : a + 1], ("",))[0]))


def _drop_spans(text: str, spans) -> str:
    return "".join(text[a:b] for a, b in zip([0] + [e for _, e in spans], [s for s, _ in spans] + [len(text)]))


_LOWER_I = re.compile(r"\bi(?=\b|')")


def _fix_i(text: str) -> str:
    return _LOWER_I.sub("I", text)


def _fit(text: str, engine: Engine) -> list[str]:
    return fit(text, lambda piece: len(engine.encode(piece)), engine.limit)


VERIFY = len(protect.PLACEHOLDERS)  # attempt: the sentence as it is, kept if every span comes back
AROUND = VERIFY + 1  # attempt: phrases of one span each (protect.one_span_phrases)


def _decode_all(todo: list[_Sentence], engine: Engine, results: list[LineResult],
                source: Callable[[str], str] = str) -> None:
    """Decode every sentence's pieces in one call. A sentence whose placeholders did not all come back
    is tried with the next placeholders, then unmasked (kept if the spans survive), and at last in
    phrases of one span each, where a span the model still loses is put at the phrase's edge: all its
    tries decoded in one more call (one call per try cost ~0.1 s CPU each for a few sentences), the
    first that works kept. `source` shows a span in a warning as the document had it (its markup)."""
    failed = [s for s, got in zip(todo, _decoded(todo, engine)) if not _took(s, got)]
    tries = [_fallbacks(s, engine) for s in failed]
    outs = iter(_decoded([t for ts in tries for t in ts], engine))
    for s, ts in zip(failed, tries):
        got = [next(outs) for _ in ts]
        vars(s).update(vars(next(t for t, g in zip(ts, got) if _took(t, g))))
        if s.attempt == AROUND:
            shown = ", ".join(repr(source(sp)) for sp in s.masked.spans)
            results[s.line].warnings.append(f"the model lost {shown} in translation; translated the sentence "
                                            "in phrases of one each instead")


def _decoded(todo: list[_Sentence], engine: Engine) -> list[list[NBest]]:
    """Each sentence's pieces' translations, all decoded in one call."""
    pieces = [p for s in todo for p in s.pieces]
    outs = iter(engine.decode(pieces) if pieces else [])
    return [[next(outs) for _ in s.pieces] for s in todo]


def _took(s: _Sentence, got: list[NBest]) -> bool:
    """Whether the translations of this try keep its spans; if so they are its output."""
    if s.attempt == AROUND:
        s.out = _phrases_joined(s, got)
        return True
    nbest = _combine(got)
    if s.shout:
        nbest = [(t.upper(), score) for t, score in nbest]
    if s.attempt == VERIFY:
        kept = [(protect.resign(t, s.masked), score) for t, score in nbest if protect.all_kept(t, s.masked)]
    else:
        kept = [(r, score) for t, score in nbest if (r := protect.restore(t, s.masked)) is not None]
    if kept and kept[0][1] == nbest[0][1]:  # the best one among them
        s.out = kept
        return True
    return False


def _fallbacks(s: _Sentence, engine: Engine) -> list[_Sentence]:
    """The tries after s's, in order: the next placeholders, the sentence unmasked, phrases of one span each."""
    tries, masked = [], s.masked
    for attempt in range(s.attempt + 1, VERIFY):
        masked = protect.remask(masked, protect.PLACEHOLDERS[attempt])
        tries.append(replace(s, attempt=attempt, masked=masked, pieces=_fit(masked.text, engine)))
    tries.append(replace(s, attempt=VERIFY, masked=masked, pieces=_fit(protect.unmasked(masked), engine)))
    phrases = protect.one_span_phrases(masked)
    fitted = [_fit(phrase.text, engine) for phrase in phrases]
    return tries + [replace(s, attempt=AROUND, masked=masked, phrases=phrases, counts=[len(f) for f in fitted],
                            pieces=[p for f in fitted for p in f])]


_INNER_END = re.compile(r"[.!?]+$")
_INNER_START = re.compile(r"^[¿¡]")


def _phrases_joined(s: _Sentence, got: list[NBest]) -> NBest:
    """The phrases' best translations with their spans, joined; only the last keeps its final stop and
    only the first its opening ¿ or ¡."""
    outs, texts, scores = iter(got), [], []
    for k, (phrase, n) in enumerate(zip(s.phrases, s.counts)):
        best = [next(outs)[0] for _ in range(n)]
        text = " ".join(t for t, _ in best)
        text = protect.placed(text.upper() if s.shout else text, phrase)
        if k + 1 < len(s.phrases) and not text.endswith(phrase.spans[0]):  # (a span's own stop: "5 p.m.")
            text = _INNER_END.sub("", text)
        if k:
            text = _INNER_START.sub("", text)
        texts.append(text)
        scores += [score for _, score in best]
    return [(" ".join(t for t in texts if t), sum(scores) / max(len(scores), 1))]


def _finish(s: _Sentence, result: LineResult, items: dict[str, tuple[str, ...]]) -> NBest:
    spans = s.masked.spans if s.masked else ()
    dates = {span: spanish for span in spans if (spanish := in_spanish(span)) != span}  # put back in Spanish
    result.kept.extend([s.head] if s.head else [])
    # (a date or a title written anew is not kept; the rest of its span is: "May 5, 2025 10:00" keeps "10:00",
    # "Mr. Brown" "Brown")
    parts = [p.strip(" ,") for span in spans for p in (WRITTEN_ANEW.sub("\0", span).split("\0")
                                                           if span in dates or TITLE.search(span)
                                                           else [span])]
    result.kept.extend(k for part in parts if part for k in _as_kept(part, items))
    if s.verbatim is not None:
        return [(_join(s.lead, _dated(s.verbatim, dates), s.trail), 0.0)]
    if len(s.pieces) > 1 and s.attempt < AROUND:
        result.split += 1
    out = [(_dated(t[:-1] if s.strip_stop and t.endswith(".") else t, dates), score) for t, score in s.out]
    if s.lone:  # as the word came: "red" -> "rojo", "Red" -> "Rojo", "RED" -> "ROJO"
        capital, lower = s.lone
        out = [(_as_fragment(t, s.masked.text), score) for t, score in out]
        out = [((t[:1].upper() + t[1:] if capital else t) if lower else t.upper(), score) for t, score in out]
    if s.trails_off:
        out = [(t + ".." if t.endswith(".") and not t.endswith("...") else t, score) for t, score in out]
    if s.lower_first:  # the first word's capital, not an acronym's ("ONU") nor a name's the English has ("Tom")
        names = set(_FIRST_WORD.findall(s.masked.text)[s.lower_start :])
        out = [(_FIRST_WORD.sub(lambda m: m.group().lower() if (m.group()[1:].islower() or len(m.group()) == 1)
                                and m.group() not in names else m.group(), t, count=1), score) for t, score in out]
    if s.floating:
        result.kept.extend(k for _, span, _ in s.floating for k in _as_kept(span, items))
        out = [(_put_back(t, s.floating), score) for t, score in out]
    if s.trail_item:  # a question's marks close the sentence, after the quotation: '¿Dijiste "sí"?'
        return [(_join(s.lead, t.rstrip("?!"), s.trail) + t[len(t.rstrip("?!")):], score) for t, score in out]
    return [(_join(s.lead, t, s.trail), score) for t, score in out]


def _dated(text: str, dates: dict[str, str]) -> str:
    """Each date kept in the text (as the English had it) written the Spanish way."""
    for span, spanish in dates.items():
        text = text.replace(span, spanish)
    return text


def _as_kept(span: str, items: dict[str, tuple[str, ...]]) -> list[str]:
    """A kept span as the text had it: markup kept whole written out ("<img src=x>"), markup whose text
    was translated (an aside, a link) left out, the span cut there; no placeholder character, ever (a
    document's own private-use character, an icon font's glyph, is its text and stays)."""
    def kept(m: re.Match) -> str:
        parts = items.get(m.group())
        if parts is None:
            return m.group()
        return "\0" if len(parts) > 1 else parts[0]  # (an item's verbatim parts are the document's own text)

    if not PRIVATE.search(span):
        return [span]
    return [k.strip() for k in PRIVATE.sub(kept, span).split("\0") if k.strip()]


def _join(lead: str, text: str, trail: str) -> str:
    return lead + text + trail


def _combine(outs: list[NBest], sep: str = " ") -> NBest:
    """Translations of consecutive pieces joined by sep: the k-th of the whole is the k-th of each piece (or
    its last), scored by their mean. Joined by spaces, an empty piece leaves none; by tabs (cells) it stays."""
    outs = [o or [("", 0.0)] for o in outs]
    n = max(len(o) for o in outs)
    combined = []
    for k in range(n):
        texts, scores = zip(*(o[min(k, len(o) - 1)] for o in outs))
        combined.append((sep.join(t for t in texts if t or sep != " "), sum(scores) / len(scores)))
    return combined


def _render_items(todo: list[_Sentence], items: dict[str, tuple[str, ...]], engine: Engine,
                  options: TextOptions, results: list[LineResult]) -> dict[str, str]:
    """Markup characters used in these sentences -> their text, the parts to translate translated (in
    one batch, through this same pipeline); their warnings go to the line that holds them."""
    if not items:  # plain lines (no markup): nothing to look for
        return {}
    used: dict[str, int] = {}
    for s in todo:
        kept = (s.lead, s.trail, s.verbatim or "", *(s.masked.spans if s.masked else ()), *(f[1] for f in s.floating))
        for c in PRIVATE.findall("".join(kept)):
            used.setdefault(c, s.line)
    used = {c: line for c, line in used.items() if c in items}
    holes = [(c, k) for c in used for k in range(1, len(items[c]), 2)]
    # a link's text is part of a sentence; a quotation that ends as a sentence does ('"i love cats."') is one;
    # one that does not ('"Yes," he said.') is given the model as one ("Yes." -> "Sí."), without its stop
    kinds = [0 if items[c][0] not in _QUOTE_MARKS else 2 if items[c][k].rstrip().endswith((".", "!", "?", "…"))
             else 1 for c, k in holes]
    done: list = [None] * len(holes)
    for kind, opts in enumerate((replace(options, punctuate=False, keep_stop=False), replace(options, keep_stop=False),
                                 options)):
        these = [j for j, w in enumerate(kinds) if w == kind]
        if these:
            for j, r in zip(these, translate_lines([items[holes[j][0]][holes[j][1]] for j in these], engine, opts,
                                                   items=items)):
                done[j] = r
    parts = {c: list(items[c]) for c in used}
    for (c, k), r, kind in zip(holes, done, kinds):
        hole = items[c][k]
        # the spaces around the text kept, but on one line: "<b>\n</b>" spread over two lines would make three
        flat = hole.replace("\n", " ")
        lead, trail = flat[: len(flat) - len(flat.lstrip())], flat[len(flat.rstrip()) :]
        text = r.text.strip() if kind == 2 else _as_fragment(r.text.strip(), hole)
        parts[c][k] = lead + text + trail if hole.strip() else flat
        results[used[c]].warnings += r.warnings
        results[used[c]].kept += r.kept
    return {c: "".join(p) for c, p in parts.items()}


# --- markup around words: the sentence translated without it, the markup put back around the words
# that translate its text. "The plant is <b>green</b>." with the markup as a placeholder (the model
# sees "The plant is 50."): "La planta tiene <b>el verde es verde</b> años."; unwrapped: "La planta es
# <b>verde</b>." Where the words went is told by two translations: of the words alone (a fragment, often
# poor: "green" -> "Grecia"), and of the line without them ("La planta es.": the words it lacks).
MAX_WRAPS_ALIGNED = 8  # markup in a line beyond which the line is not translated again without each


@dataclass
class _Wrap:
    mark: str  # the markup character: an item (open, text, close)
    start: int  # its text's place in the unwrapped line
    end: int


# markup characters left raw inside an item's words ("***both***" read as ** around "*both"): such an
# item stays a placeholder, as nested markup does; the model would garble them
_RAW_MARKUP = re.compile(r"[*_~`\[\]<>]")


_LAST_WORD = re.compile(r"(?<!\w)\w+$")


def _unwrap(text: str, items: _Items) -> tuple[str, list[_Wrap]]:
    """text with each item that wraps plain words (an emphasis, a link: three parts, no markup
    inside) replaced by its words; the items, in order. A superscript or a subscript glued to a word
    is a footnote mark (car<sup>1</sup>, cats[^1]) or part of it (H<sub>2</sub>O, x<sup>2</sup>): never
    translated ("x<sub>i</sub>" -> "x<sub>puedo</sub>"); a footnote mark goes after its word's translation
    (a wrap of its own, or of the link or emphasis it follows), the other is kept with its word."""
    wraps, out, last, at = [], [], 0, 0

    def wrap(start: int, end: int, mark: str, words: str) -> None:
        nonlocal last, at
        out.extend((text[last:start], words))
        at += start - last
        wraps.append(_Wrap(mark, at, at + len(words)))
        at += len(words)
        last = end

    for m in PRIVATE.finditer(text):
        parts = items.get(m.group(), ())
        if _is_note(parts) and (_glued(text, m) or m.start() == 0):  # (at the start: kept there)
            note, word = "".join(parts), _LAST_WORD.search(text, last, m.start())
            items[m.group()] = (note,)
            if wraps and last == m.start():  # after a link or an emphasis ("<i>cats</i><sup>4</sup>")
                open_, words, close = items[wraps[-1].mark]
                items[wraps[-1].mark] = (open_, words, close + note)
                last = m.end()
            elif word and not text[m.end() : m.end() + 1].isalnum():
                if len(word.group()) > 2 and not word.group().isdigit():  # a footnote mark
                    mark = items.new(("", word.group(), note))
                    if mark:
                        wrap(word.start(), m.end(), mark, word.group())
                else:  # a symbol's ("x<sup>2</sup>", "km<sup>2</sup>"): protect.find_spans keeps it whole
                    mark = items.new((word.group() + note,))
                    if mark:
                        out.extend((text[last : word.start()], mark))
                        at += word.start() - last + 1
                        last = m.end()
        elif len(parts) == 3 and parts[1].strip() and not PRIVATE.search(parts[1]) \
                and not _RAW_MARKUP.search(parts[1]):
            wrap(m.start(), m.end(), m.group(), parts[1].replace("\n", " "))  # (a line of its own: "<b>\nx</b>")
    return "".join(out) + text[last:], wraps


def _glued(text: str, m: re.Match) -> bool:
    """The item m is glued to what is before it, or to a word or another item after it."""
    before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
    return bool(before.strip()) or after.isalnum() or bool(PRIVATE.match(after))


def _without(text: str, w: _Wrap) -> str:
    return re.sub(r"\s+(?=[.,;:!?])", "", re.sub(r"\s+", " ", text[: w.start] + " " + text[w.end :])).strip()


@dataclass
class _Clues:
    fragments: list[str]  # its words' translations alone, and the words themselves
    missing: list[str] | None = None  # the line's words that its translation without them lacks
    at: float = 0.5  # where its text began in the source line (a fraction of its length)


def _clues(lines: dict[int, str], wraps: dict[int, list[_Wrap]], items, engine: Engine,
           options: TextOptions) -> dict[str, _Clues]:
    """What tells where each wrap's words went (see above), by its markup character."""
    marks = [(i, w) for i, ws in wraps.items() for w in ws]
    if not marks:
        return {}
    inner = replace(options, punctuate=False, keep_stop=False)
    alone = translate_lines([items[w.mark][1].strip() for _, w in marks], engine, inner)
    aligned = [(i, w) for i, w in marks if len(wraps[i]) <= MAX_WRAPS_ALIGNED]
    without = translate_lines([_without(lines[i], w) for i, w in aligned], engine, options)
    clues = {w.mark: _Clues([_as_fragment(t.strip(), items[w.mark][1]) for t, _ in r.nbest] + [items[w.mark][1].strip()],
                            at=w.start / max(len(lines[i]), 1)) for (i, w), r in zip(marks, alone)}
    for (_, w), r in zip(aligned, without):
        clues[w.mark].missing = _words(r.text)
    return clues


_EDGE = "¿?¡!.,;:\"'()«»“”‘’[]"


_GLUED_END = re.compile(f"[{re.escape(_EDGE)}{PRIVATE.pattern[1:-1]}]+$")


def _core(word: str) -> tuple[int, int]:
    """Where a word's text is in it: without the marks around it, nor markup glued to its end ("gatos<sup>4</sup>"
    is "gatos"), unless the word is markup."""
    start, end = len(word) - len(word.lstrip(_EDGE)), len(word.rstrip(_EDGE))
    bare = _GLUED_END.search(word, start)
    return start, bare.start() if bare and bare.start() > start else end


def _words(text: str) -> list[str]:
    return [w.strip(_EDGE).lower() for w in text.split() if w.strip(_EDGE)]


def _trigrams(text: str) -> set[str]:
    text = f"  {text.lower()} "
    return {text[k : k + 3] for k in range(len(text) - 2)}


def _dice(a: set, b: set, weight: Callable = lambda _: 1) -> float:
    total = sum(map(weight, a)) + sum(map(weight, b))
    return 2 * sum(map(weight, a & b)) / total if total else 0.0


def _rewrap(text: str, wraps: list[_Wrap], clues: dict[str, _Clues], items: dict[str, tuple[str, ...]],
            rendered: dict[str, str] | None) -> str:
    """text with each wrap's markup put back around the words of text that its clues point at (the
    most alike first; near where its words were in the source when nothing is alike): as its markup
    character, `rendered` told what it stands for, or else written out. No markup is ever lost."""
    spans = [(m.start() + a, m.start() + b) for m in re.finditer(r"\S+", text) for a, b in [_core(m.group())] if a < b]
    words = [text[a:b].lower() for a, b in spans]
    taken = [bool(PRIVATE.search(text[a:b])) for a, b in spans]  # (other markup stays outside,
    # and so does markup after a word: "gatos<sup>4</sup>" can end the words wrapped, not be inside them)
    marked_after = [bool(PRIVATE.search(text, b, spans[k + 1][0] if k + 1 < len(spans) else len(text)))
                    for k, (_, b) in enumerate(spans)]
    size, grams, missing = {}, {}, {}  # per wrap: its source words, its fragments' trigrams, the words
    for w in wraps:                    # the line lacks without them
        c = clues[w.mark]
        size[w.mark] = len(_words(c.fragments[-1])) or 1
        # (a fragment's translation twice as long as its source has gone astray: "el verde es verde")
        grams[w.mark] = [_trigrams(" ".join(_words(f))) for f in c.fragments if 0 < len(_words(f)) <= 2 * size[w.mark] + 1]
        missing[w.mark] = set(words) - set(c.missing) if c.missing is not None else set()
    span_grams = cache(lambda i, j: _trigrams(" ".join(words[i:j])))
    todo, chosen = list(wraps), []
    while todo:
        best = (-1.0, None, 0, 0)
        for w in todo:
            c = clues[w.mark]
            for i in range(len(words)):
                # (a footnote mark, a wrap that opens with nothing, follows one word: "parque<sup>9</sup>", not
                # "parque toda<sup>9</sup>")
                longest = i + (size[w.mark] + 2 if items[w.mark][0] else 1)
                for j in range(i + 1, min(len(words), longest) + 1):
                    if taken[j - 1] or j - 1 > i and marked_after[j - 2]:
                        break
                    like = max((_dice(span_grams(i, j), g) for g in grams[w.mark]), default=0.0)
                    if missing[w.mark]:  # (a long word tells more; "y", "es" or "el" nothing: the line without
                        # the words may have changed around them, "es" -> "está")
                        like = max(like, _dice(set(words[i:j]), missing[w.mark], lambda word: max(len(word) - 2, 0)))
                    like -= 0.1 * abs(j - i - size[w.mark])  # about as many words as the source had
                    like += 1e-3 * (1 - abs((i + 0.5) / len(words) - c.at))  # equally alike: the nearer
                    if not items[w.mark][0]:  # a footnote's one word: its clues are weak (the word alone, the line
                        like -= 0.3 * abs((i + 0.5) / len(words) - c.at)  # without it), where it was tells more
                    if like > best[0]:
                        best = (like, w, i, j)
        like, w, i, j = best
        if w is None or like < 0.35:  # nothing alike left: each where its text was, as many words
            w = todo[0]
            free = [k for k in range(len(words)) if not taken[k]]
            i = j = min(free, key=lambda k: abs(k / len(words) - clues[w.mark].at)) if free else len(words)
            while j < len(words) and not taken[j] and j - i < size[w.mark]:
                j += 1
        taken[i:j] = [True] * (j - i)
        todo.remove(w)
        chosen.append((i, j, w.mark))
    for i, j, mark in sorted(chosen, key=lambda c: (c[0], c[1]), reverse=True):
        if i == len(words):  # (no word left for it: at the end)
            start = end = len(text.rstrip(_EDGE + " "))
        else:
            start, end = spans[i][0], spans[j - 1][1]
        open_, source, close = items[mark]
        # the marks its words ended with, inside it again ("**Note:**" -> "**Nota:**", not "**Nota**:")
        stop = source[len(source.rstrip(_EDGE)) :]
        end += len(stop) if stop and text.startswith(stop, end) else 0
        marked = open_ + text[start:end] + close
        if rendered is not None:
            rendered[mark], marked = marked, mark
        text = text[:start] + marked + text[end:]
    return text


def _as_fragment(text: str, source: str) -> str:
    """A fragment's translation without the question or exclamation marks the model wrapped it in, and
    without the capital it gives every sentence ("the guide" -> "la guía")."""
    for opening, closing in (("¿", "?"), ("¡", "!")):
        if closing not in source and text.startswith(opening) and text.endswith(closing):
            text = text[1:-1].strip()
    word = text.split(" ", 1)[0]  # a sentence's capital ("La", "A"), not a name's or an acronym's ("MacBook", "ONU")
    if source.lstrip()[:1].islower() and text[:1].isupper() and (len(word) == 1 or word[1:].islower()):
        text = text[0].lower() + text[1:]
    return text


def _expand(text: str, rendered: dict[str, str]) -> str:
    return PRIVATE.sub(lambda m: rendered.get(m.group(), m.group()), text) if rendered else text
