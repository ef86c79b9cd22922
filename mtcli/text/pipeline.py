"""Lines of real text in, one translation per line out, nothing lost: the steps of this package in order.

    line -> indentation kept, normalize -> sentences -> per sentence: the STAGES below strip what the
    model must not see (heads, labels, emoji and markup at the edges and inside, spans masked, case and
    loose typing repaired), cut to the model's length -> decode (all sentences of all lines in one call)
    -> placeholders restored (another placeholder, then translating around the spans, if the model lost
    one: retry.py) -> the STAGES restore what they set aside, in reverse order -> sentences joined.

Every stage is one rule and both its halves (sentence.Stage): a module named for what it does holds it, with
the measured reason for it. The model is reached only through `Engine` (sentence.py).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from mtcli.ranges import MAX_LINE_CHARS
from mtcli.text import lines as line_steps
from mtcli.text import aligned, bidi, markup, nobreak, spanish, wholes
from mtcli.text.acronyms import Acronyms
from mtcli.text.budget import Budget, OverBudget, check
from mtcli.text.casing import Casing, Continuation, LoneWord
from mtcli.text.currencies import Currencies
from mtcli.text.edges import Edges
from mtcli.text.firstnames import FirstNames
from mtcli.text.floating import Floating
from mtcli.text.greetings import Greetings
from mtcli.text.heads import ChatHead, Label
from mtcli.text.already import Already, in_target
from mtcli.text.normalize import normalize
from mtcli.text.plurals import OptionalPlural
from mtcli.text.punctuation import DashClause, FinalStop, InnerEllipsis, ShortExclamation, clauses, spaced_dashes
from mtcli.text.quotes import Items, asides
from mtcli.text.records import entry
from mtcli.text.retry import AROUND, decode_all
from mtcli.text.rewrap import rewrap
from mtcli.text.replies import Opening
from mtcli.text.segment import sentences
from mtcli.text.shorthand import Shorthand
from mtcli.text.sentence import (RAW, Context, Engine, LineResult, NBest, Once, Sentence, Stage, TextOptions,
                                 combine, remembering, to_pieces, unknown_pieces)
from mtcli.text.spans import Spans
from mtcli.text.subject import DroppedSubject
from mtcli.text.terms import Terms
from mtcli.text.templates import breaks, only_placeholders, shield
from mtcli import lazy_re

__all__ = ["LINES_PER_CALL", "RAW", "Engine", "LineResult", "TextOptions", "translate_lines"]

# Lines of a file given to translate_lines at once: decoding sorts one call's sentences by length into
# full batches, and each call ends in a few small ones. Measured, greedy, CPU s: 2,000 unseen lines 11.9
# at 64 lines a call (batches of 64 sentences), 6.5 at 1,024 and 6.0 at 2,000 (of 2,048 tokens); 4,000
# lines 12.4 at 1,024, 11.3 at 2,000, 12.1 at 4,000.
LINES_PER_CALL = 2048

# Stripped in this order, restored in the reverse one: each restore sees the translation as the stages after it
# left it. Back, the final stop goes before dates and titles are written anew in Spanish (spans), those before
# the words before a glossary's targets are made to fit them (glossary), that before the first word loses its
# capital (continuation), that before the emoji go back among the words (floating emoji), and those before the lead
# and the trail (edges). A sentence the spans stage answers (spans only) is restored by both span stages.
TERMS, SPANS, NOBREAK, BIDI = Terms(), Spans(), nobreak.NoBreak(), bidi.Bidi()  # (no-break spaces: a stage of the line, around them all)
STAGES: tuple[Stage, ...] = (ChatHead(), Label(), Shorthand(), DroppedSubject(), Opening(), OptionalPlural(), Currencies(),
                             Edges(), Greetings(), Floating(), Continuation(), Acronyms(), FirstNames(), Already(), TERMS,
                             SPANS, DashClause(), InnerEllipsis(), ShortExclamation(), LoneWord(), Casing(), FinalStop())


def translate_lines(lines: Sequence[str], engine: Engine, options: TextOptions = TextOptions(), first: int = 1,
                    items: dict[str, tuple[str, ...]] | None = None,
                    rendered: dict[str, str] | None = None) -> list[LineResult]:
    """One LineResult per line, in order. `first` is the number of lines[0] (for warnings); `items`
    maps a private-use character standing in the text for markup (formats/) to its parts: verbatim
    text and, at odd positions, text to translate ("**", "very", "**"). Given a `rendered` dict, the
    translations keep those characters and the dict receives what each stands for."""
    if items is None and options.segment and any(map(line_steps.has_cells, lines)):  # (tabs inside: cell by cell)
        return line_steps.in_cells(lines, engine, options, first, translate_lines)
    for cut in (entry, breaks) if items is None and options.protect else ():  # (a record's value; a string's "\\n")
        if any(map(cut, lines)):
            return line_steps.in_cells(lines, engine, options, first, translate_lines, cut=cut)
    if items and not isinstance(items, Items):  # (the first call: inner ones are given Items)
        markup.check_depth(lines, items, lambda i: first + i)
    # (quotations and asides are added to it, in characters none of these lines has)
    items = items if isinstance(items, Items) else Items(items or {}, lines)
    engine = replace(engine, encode=remembering(engine.encode),
                     decode=engine.decode if isinstance(engine.decode, Once) else Once(engine.decode))
    results = [LineResult(first + i, [("", 0.0)]) for i in range(len(lines))]
    unknown = unknown_pieces(engine)
    indents, tails, todo, wraps, unwrapped, as_it_came, whole, parts_of = [], {}, [], {}, {}, [], {}, {}
    gaps: dict[int, tuple[list[nobreak.Gap], list[bidi.Mark]]] = {}  # (what the line stages took out of each line)
    budget = Budget(options.budget)
    for i, raw in enumerate(lines):
        started, deadline, before = time.monotonic(), budget.deadline(), len(todo)
        indent, text = _read(raw, i, options, items, results[i], tails, as_it_came, gaps)
        indents.append(indent)
        if items:  # markup around words ("is <b>green</b>") out of the way of the model: put back after
            text, wraps[i] = markup.unwrap(text, items)
            unwrapped[i] = text
        if options.case and options.source == "en" and line_steps.looks_spanish(text):
            results[i].warnings.append(line_steps.misread("Spanish", "English"))
        try:
            parts = _sentences(text, i, Context(engine, options, unknown, items, deadline), todo,
                               quotes=not wraps.get(i), cut=i in tails)
        except OverBudget:  # (its sentences so far dropped; the line passes through below)
            del todo[before:]
        else:
            results[i].sentences += len(parts)
            if wraps.get(i):  # (markup around whole sentences goes back around their translations)
                whole[i], wraps[i] = wholes.split(text, parts, wraps[i])
                parts_of[i] = parts
        budget.charge(i, time.monotonic() - started)
    todo = [s for s in todo if s.line not in budget.over]
    for i in budget.over:
        wraps.pop(i, None), unwrapped.pop(i, None), whole.pop(i, None)
    done = markup.render_items(todo, items, engine, options, results, translate_lines)
    if rendered is not None:
        rendered.update(done)
        done = {}
    decode_all([s for s in todo if s.verbatim is None], engine, results, lambda t: markup.as_written(t, items), budget)
    by_line: list[list[NBest]] = [[] for _ in lines]
    for s in todo:
        if s.line not in budget.over:
            by_line[s.line].append(_finish(s, results[s.line], items))
    placed = {i: wholes.place(outs, whole[i], items) if whole.get(i) else (combine(outs), None)
              for i, outs in enumerate(by_line) if outs}
    clues = _clues(unwrapped, wraps, parts_of, by_line, placed, items, engine, options)
    for i, outs in enumerate(by_line):
        tail = markup.as_written(tails.get(i, ""), items)  # (the rest of a cut line: its markup as written)
        if outs:
            nbest, stands = placed[i]
            if wraps.get(i):  # (a document expands the best one's markup itself: `rendered`)
                nbest = [(rewrap(t, wraps[i], clues, items, rendered if k == 0 else None), score)
                         for k, (t, score) in enumerate(nbest)]
            if stands and rendered is not None:
                rendered.update(stands[0])
            nbest = [(markup.expand(t, stands[k]) if stands and (k or rendered is None) else t, score)
                     for k, (t, score) in enumerate(nbest)]
            nbest = [(NOBREAK.restore(markup.expand(t, done), gaps[i][0]), score) for t, score in nbest]
            nbest = _put_marks(nbest, gaps[i][1], results[i])
            results[i].nbest = [(indents[i] + line_steps.join_tail(t, tail), score) for t, score in nbest]
        elif tail or indents[i].strip():  # (a mark before nothing to translate: "- \u200b")
            results[i].nbest = [((indents[i] + tail.lstrip()).rstrip(), 0.0)]
    for i in as_it_came:  # ("%s: %d", "{0}  {1}": not even respaced)
        results[i].nbest = [(markup.expand(nobreak.as_written(lines[i], items), done), 0.0)]
    for i in sorted(budget.over):  # (its markup as the document had it: no item of it was rendered)
        results[i].nbest = [(markup.as_written(lines[i], items), 0.0)]
        results[i].warnings.append(budget.warning())
    return results


def _put_marks(nbest: NBest, marks: list[bidi.Mark], result: LineResult) -> NBest:
    """Each translation with the line's bidirectional marks put back; those with no sure place in the best one named."""
    if not marks:
        return nbest
    placed = [BIDI.restore(t, marks) for t, _ in nbest]
    if placed[0][1]:
        result.warnings.append(f"bidirectional marks ({bidi.named(placed[0][1])}) had no sure place in the "
                               "translation: left out")
    return [(t, score) for (t, _), (_, score) in zip(placed, nbest)]


def _clues(unwrapped: dict[int, str], wraps: dict[int, list], parts: dict[int, wholes.Parts],
           by_line: list[list[NBest]], placed: dict[int, tuple[NBest, list | None]], items: Items, engine: Engine,
           options: TextOptions) -> dict:
    """Where each wrap inside a sentence went: by the model's word links where the engine has them (one forced
    pass), the rest by translating its words alone and the line without them (markup.clues)."""
    linked = aligned.clues(unwrapped, {i: ws for i, ws in wraps.items() if ws and i in placed}, parts, by_line,
                           {i: placed[i][0][0][0] for i in placed}, engine.align) if engine.align else {}
    rest = {i: [w for w in ws if w.mark not in linked] for i, ws in wraps.items()}
    return linked | markup.clues(unwrapped, rest, items, engine, options, translate_lines)


def _read(raw: str, i: int, options: TextOptions, items: Items, result: LineResult, tails: dict[int, str],
          as_it_came: list[int], gaps: dict[int, tuple[list[nobreak.Gap], list[bidi.Mark]]]) -> tuple[str, str]:
    """Line i's indent (or list mark) and its text as the stages read it: cut if too long (the rest in tails[i]),
    its no-break spaces made plain and its bidirectional marks taken out (where they were in gaps[i]), a template's placeholders made items (a line of
    them only listed in as_it_came), normalised."""
    if len(raw) > MAX_LINE_CHARS:  # the model reads 54 tokens of a sentence: a 10 MB line is an attack or an error
        whole = len(raw)
        raw, tails[i] = line_steps.cut_long(raw)
        result.warnings.append(f"longer than {MAX_LINE_CHARS:,} characters: its first {len(raw):,} were "
                               f"translated, the other {whole - len(raw):,} are kept as they came")
    raw, marks = BIDI.strip(raw)
    as_it_came += [i] if marks and not raw.strip() and i not in tails else []  # (marks alone: nothing to translate)
    raw, spaces = NOBREAK.strip(raw, items)
    gaps[i] = spaces, marks
    if options.protect:  # a template's placeholders and ICU messages made items before anything reads the line
        raw, shielded = shield(raw, items), raw
        as_it_came += [i] if raw != shielded and i not in tails and only_placeholders(raw, items) else []
    indent = ((line_steps.MARK.match(raw) if options.protect else None) or line_steps.INDENT.match(raw)).group()
    text = raw[len(indent) :]
    text = spanish.dialogue(text) if options.source == "es" and options.protect else text
    return indent, normalize(spaced_dashes(text) if "—" in text else text)


def _sentences(text: str, i: int, c: Context, todo: list[Sentence], quotes: bool, cut: bool) -> wholes.Parts:
    """The sentences of line i's text prepared (each clause one) into todo; each sentence with how many it put
    there. `cut`: the line was cut by cut_long: its last sentence goes on in the rest kept."""
    options = c.options
    parts = sentences(text, options.source) if options.segment else [text] if text else []
    out = []
    for k, part in enumerate(parts):
        s = part
        # a label or a list mark inside the line too ("Q: Is it open? A: Yes.", "1) flour 2) eggs")
        label = line_steps.INNER_MARK.match(s) if k and options.protect else None
        s = s[label.end() :] if label else s
        s = asides(s, c.items, quotes=quotes, source=options.source,
                   target=lambda words: in_target(words, c.engine)) if options.protect else s
        pieces = clauses(s, c.unknown, options.source) if options.protect else [s]
        for n, clause in enumerate(pieces):  # each but the last ends in a colon, which it keeps
            last = n == len(pieces) - 1
            todo.append(_prepare(clause, i, c if last else replace(c, options=replace(options, keep_stop=False)),
                                 cut=last and cut and k == len(parts) - 1))
            todo[-1].trail += "" if last else ":"
            todo[-1].lower_first |= n > 0 and (clause[:1].islower() or clause.startswith(("I ", "I'")))
        todo[-len(pieces)].lead = (label.group() if label else "") + todo[-len(pieces)].lead
        out.append((part, len(pieces)))
    return out


def _prepare(text: str, line: int, c: Context, cut: bool = False) -> Sentence:
    """The sentence through the stages, up to the one that answers it. `cut`: the sentence goes on in the rest
    of a line cut by cut_long, kept as it came: it gets no final mark, nor keeps one the model adds (a "."
    mid-sentence, or inside a kept blob or URL); so does a sentence that ends in a quotation or an aside."""
    s = Sentence(line, text, cut=cut)
    for stage in STAGES:
        check(c.deadline)
        if not stage.strip(s, c):
            break
    if s.verbatim is None:
        s.masked = replace(s.masked, text=s.text)
        s.pieces = to_pieces(s.text, c.engine)
    return s


def _finish(s: Sentence, result: LineResult, items: dict[str, tuple[str, ...]]) -> NBest:
    """The sentence's translations with what the stages set aside put back, in their reverse order; a sentence
    with nothing to translate as it came (its dates in Spanish) between its lead and trail."""
    s.kept = [s.head] if s.head else []
    result.warnings += s.notes
    if s.verbatim is not None:
        ((text, _),) = TERMS.restore(s, SPANS.restore(s, [(s.verbatim, 0.0)], items), items)
        result.kept += s.kept
        return [(s.lead + text + s.trail, 0.0)]
    if len(s.pieces) > 1 and s.attempt < AROUND:
        result.split += 1
    out = s.out
    for stage in reversed(STAGES):
        out = stage.restore(s, out, items)
    result.kept += s.kept
    return [(_opened(t, s.text), score) for t, score in out]


# a word put after an opening ¿ or ¡ with a space ("Yes or no?" -> "¿ sí o no?", attack 2026-12-03's Z): Spanish
# writes none, and a sentence that opens so has its capital after the mark
_OPEN_SPACE = lazy_re.compile(r"(?<!\S)([¿¡]) +(?=\S)")


def _opened(text: str, source: str) -> str:
    if "¿ " not in text and "¡ " not in text:
        return text
    text = _OPEN_SPACE.sub(r"\1", text)
    capital = text[:1] in "¿¡" and text[1:2].islower() and source.lstrip()[:1].isupper()
    return text[0] + text[1].upper() + text[2:] if capital else text
