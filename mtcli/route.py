"""Which way each line goes: its language told from the text (mtcli.langid) or given (--from/--to), the
line sent to the model of its direction, and a line already in the target language kept as it came.

    lines -> language of each (a document: of its text as a whole; a stream: line by line, the running
    majority breaking ties) -> lines grouped by direction -> text.pipeline.translate_lines per group
    (one engine each, built on first use) -> results back in input order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mtcli.confidence import LineCheck
from mtcli.config import DEFAULT_DIRECTION, Options
from mtcli.errors import UserError
from mtcli.langid import without_markup
from mtcli.text.lines import misread
from mtcli.text.pipeline import Engine, LineResult, translate_lines
from mtcli import lazy_re

LANGUAGES = ("en", "es")
NAMES = {"en": "English", "es": "Spanish"}
AUTO = "auto"
MAJORITY = 0.8  # a line counts towards the stream's running majority when told at least this surely
# A language given (--from, or -m's direction) is questioned, never overruled, by a detection this sure of the
# other one, on a text of at least SURE_WORDS words of two letters or more: on 4,000 corpus lines of each language
# no line was told the wrong way even at 0.9 and one word; these leave room for what the corpus lacks (names,
# software strings) and still warn on 95 % of lines given the wrong way (docs/langid.md, benchmarks/wrong_source.py)
SURE, SURE_WORDS = 0.99, 3
# A part of a document (a paragraph, a cell, a JSON string) told the target language this surely, with the
# document's language as its prior, is kept as it came: "Hola amigo" in an English PO file is told Spanish at 0.97,
# "Instalación rápida" in an English guide 1.00; of 30 short English UI strings and headings tried none reached 0.9
# (most 0.7-0.84: "Quit" 0.73, "Print" 0.71 Spanish), and a part told so less surely is translated with a warning
KEEP_SURE = 0.95
# Lines of a call (a chunk of a file: text.pipeline.LINES_PER_CALL) from which the loaded directions none of them
# takes are let go before it is decoded (Router.forget): the corpus's English sides, shuffled, tell 3 of 100,000
# lines Spanish (the first at line 26,514), and the Spanish model the first loaded stayed resident through every
# later chunk's decoding (+23 MB at their peak, default beam). A language that comes back loads again (~0.13 s of
# CPU; a chunk at beam 4 takes ~23 s); a line typed at the prompt lets nothing go. The language identifier's mapped
# pages its lines visited go too (Router.told), read again from the cache file's pages by the next chunk's lines
LET_GO_LINES = 1024
_WORD = lazy_re.compile(r"[^\W\d_]{2,}")


def other(language: str) -> str:
    return LANGUAGES[1 - LANGUAGES.index(language)]


def already(language: str, confidence: float, what: str = "this") -> str:
    """The warning for a text told to be in the target language already (it is kept as it came)."""
    return f"{what} is {NAMES[language]} already (confidence {confidence:.2f}); kept as it came"


def contradicted(text: str, given: str, detect, what: str = "this") -> str | None:
    """The warning for a text given as `given` that is surely the other language: told so at least SURE, on at least
    SURE_WORDS words (`detect(text)`: language or None, confidence 0-1), else None."""
    if len(_WORD.findall(text)) < SURE_WORDS:
        return None
    told, confidence = detect(text)
    return misread(NAMES[told], NAMES[given], what) if told not in (None, given) and confidence >= SURE else None


def document_language(parts: Sequence[str], detect) -> tuple[str | None, float]:
    """A document's language: what most of it is, each part's told language (`detect(text)`: language or None,
    confidence 0-1) weighted by its words and that confidence; and the share of the weight it has. Told as one
    text, a JSON file of four short English strings and two long Spanish ones was Spanish ("Meeting notes" ->
    "Meeting didn't go"), a PO file of five English buttons and "Hola amigo" too."""
    votes: Counter = Counter()
    for part in parts:
        told, confidence = detect(part)
        if told is not None:
            votes[told] += max(1, len(_WORD.findall(part))) * confidence
    if not votes:
        return None, 0.0
    language = max(votes, key=votes.__getitem__)
    return language, votes[language] / sum(votes.values())


def judged_parts(source: str, target: str, detect) -> Judge:
    """For a document translated from `source` (told, not given) to `target`, what each part's own language asks
    (`detect(text, prior)`: language or None, confidence 0-1, the document's language the prior of a part of a few
    words): a part told `target` at KEEP_SURE or more is kept as it came, with a warning; one told `target` less
    surely is translated, with a warning naming it. Each part's answer is (the warning for keeping it, the warning
    for translating it); the same text is told once."""
    what = "this part of the document"
    said: dict[str, tuple[str | None, str | None]] = {}

    def judge(text: str) -> tuple[str | None, str | None]:
        if text not in said:
            told, confidence = detect(text, source)
            said[text] = (None, None) if told != target else (already(told, confidence, what), None) \
                if confidence >= KEEP_SURE else (None, misread(NAMES[told], NAMES[source], what))
        return said[text]
    return judge


Judge = Callable[[str], "tuple[str | None, str | None]"]


def plan(parts: Sequence[str], detect, source: str | None, target: str | None,
         fallback: str) -> tuple[str, str, Judge | None, str | None]:
    """A document's direction, from its parts' text, and what each part asks (judged_parts): the source given (the
    user's word stands: no part judged; the document warned once as a whole, Router.questioned), else the other of
    the target given, else what most of the document is (document_language; `fallback` when it has nothing to tell);
    and the warning for keeping the whole as it came when every part is in the target language already (else None).
    `detect(text, prior)`: language or None, confidence 0-1."""
    if source:
        return source, target or other(source), None, None
    language, confidence = document_language(parts, lambda text: detect(text, None))
    target = target or other(language or fallback)
    judge = judged_parts(other(target), target, detect)
    whole = bool(parts) and all(judge(part)[0] for part in parts)
    return other(target), target, judge, already(target, confidence, "the document") if whole else None


@dataclass(frozen=True)
class Languages:
    """What the user asked: a source and a target language, None where mtcli decides (the source told
    from the text; the target the other language)."""

    source: str | None = None
    target: str | None = None

    @classmethod
    def parse(cls, source: str | None, target: str | None) -> Languages:
        """From --from (en, es or auto) and --to (en, es or none); contradictions refused in one line."""
        source = None if source in (None, "", AUTO) else source
        target = target or None
        for option, value in (("--from", source), ("--to", target)):
            if value is not None and value not in LANGUAGES:
                raise UserError(f"{option} {value}: mtcli translates {' and '.join(LANGUAGES)}; choose one of them"
                                + (" or auto" if option == "--from" else ""))
        if source is not None and source == target:
            raise UserError(f"--from {source} --to {target}: the same language; nothing to translate")
        return cls(source, target if target is not None else other(source) if source else None)

    def direction(self) -> str | None:
        """The one direction both ends fix, else None (told line by line)."""
        if self.source is None and self.target is None:
            return None
        source = self.source or other(self.target)
        return f"{source}-{self.target or other(source)}"

    def agree(self, direction: str, model: str) -> None:
        """A model of one direction given with -m: --from/--to must not ask for another."""
        src, tgt = direction.split("-")
        if (self.source or src) != src or (self.target or tgt) != tgt:
            asked = " ".join(f"{o} {v}" for o, v in (("--from", self.source), ("--to", self.target)) if v)
            raise UserError(f"{model} translates {NAMES[src]} to {NAMES[tgt]} ({direction}), not as {asked} asks; "
                            "drop -m to use the model of that direction")


@dataclass
class CheckedLine(LineResult):
    check: LineCheck | None = None  # how sure each sentence's translation is (mtcli.confidence); None: not checked


@dataclass
class Router:
    """Lines to the engine of their direction. `engine_for(direction)` builds an engine (called once
    per direction, on first use). `fixed`: every line goes that way (a model given with -m, or --from);
    else each line's language is told from its text. `detect(text, prior)` -> (language or None,
    confidence 0-1): mtcli.langid.detect unless a test gives another. `checker_for(direction)`: an
    mtcli.confidence.Checker of that direction's translations (None: none checked), built on first use.
    `options`: the run's (config.Options); each line's text steps are those of its source language."""

    engine_for: Callable[[str], Engine]
    languages: Languages = field(default_factory=Languages)
    fixed: str | None = None
    detect: Callable | None = None
    seen: Counter = field(default_factory=Counter)  # languages of the lines so far: the running majority
    checker_for: Callable | None = None
    options: Options = Options()
    forget: Callable[[str], None] | None = None  # lets a direction's model go (None: kept for the whole run)
    told: Callable[[], None] | None = None  # called once a call of LET_GO_LINES lines or more is told (langid.let_go)
    _engines: dict[str, Engine] = field(default_factory=dict)
    _checkers: dict = field(default_factory=dict)

    def __post_init__(self):
        self.fixed = self.fixed or (self.languages.direction() if self.languages.source else None)
        if self.detect is None:
            from mtcli.langid import detect, let_go

            self.detect, self.told = lambda text, prior: _pair(detect(text, prior=prior)), let_go

    def engine(self, direction: str) -> Engine:
        if direction not in self._engines:
            self._engines[direction] = self.engine_for(direction)
        return self._engines[direction]

    @property
    def prior(self) -> str | None:
        return self.seen.most_common(1)[0][0] if self.seen else None

    def checker(self, direction: str):
        if self.checker_for is None:
            return None
        if direction not in self._checkers:
            self._checkers[direction] = self.checker_for(direction)
        return self._checkers[direction]

    def translate(self, lines: Sequence[str], first: int = 1) -> list[CheckedLine]:
        """One result per line, in order, each with the language it was read as and, given a checker, how
        sure its translation is."""
        told = [self._tell(line) for line in lines]
        results: list[CheckedLine | None] = [None] * len(lines)
        groups: dict[str, list[int]] = {}
        for i, (language, confidence) in enumerate(told):
            target = self.languages.target or other(language)
            if language == target:  # (only with --to: the other direction is never forced on a line)
                results[i] = CheckedLine(first + i, [(lines[i], 0.0)], warnings=[already(language, confidence)])
            else:
                groups.setdefault(f"{language}-{target}", []).append(i)
        if len(lines) >= LET_GO_LINES:
            self._let_go(set(groups))
            if self.told:
                self.told()
        for direction, rows in groups.items():
            source = direction.split("-")[0]
            sources = [lines[i] for i in rows]
            checker = self.checker(direction)  # (before decoding: it keeps what the check reads again)
            text = self.options.text_for(source)
            done = translate_lines(sources, self.engine(direction), text)
            # (what was kept as it came, the glossary's terms: no warning names them)
            spans = [[*r.kept, *(line[a:b] for a, b, _ in (text.glossary.find(line) if text.glossary else ()))]
                     for line, r in zip(sources, done)]
            checks = checker.check(sources, [r.nbest for r in done], spans=spans) if checker else [None] * len(rows)
            for i, r, check in zip(rows, done, checks):
                results[i] = CheckedLine(**{**vars(r), "line": first + i}, check=check)
        for r, line, (language, confidence) in zip(results, lines, told):
            r.language, r.confidence = language, confidence
            if (why := self.questioned(line)) and why not in r.warnings:  # (the English rules may have said it)
                r.warnings.append(why)
        return results

    def _let_go(self, needed: set[str]) -> None:
        """The loaded directions not `needed` forgotten: their engines, checkers and models."""
        if self.forget is None:
            return
        for direction in [d for d in self._engines if d not in needed]:
            del self._engines[direction]
            self._checkers.pop(direction, None)
            self.forget(direction)

    def questioned(self, text: str, what: str = "this") -> str | None:
        """With the source language given (--from, -m): a warning when `text` is surely the other language
        (SURE, SURE_WORDS), else None. Never a refusal: the text is translated as it was asked."""
        return contradicted(text, self.fixed.split("-")[0], lambda t: self.detect(t, None), what) if self.fixed else None

    def plan(self, parts: Sequence[str]) -> tuple[str, str, Judge | None, str | None]:
        """A document's direction and what each part asks (route.plan), the source and target given or told."""
        source, target = self.fixed.split("-") if self.fixed else (None, self.languages.target)
        return plan(parts, self.detect, source, target, self.prior or DEFAULT_DIRECTION.split("-")[0])

    def translate_document(self, lines: list[str], fmt: str) -> tuple[list[str], list[LineResult]]:
        """A document (srt, markdown, html) whole, in the direction of its text's language (Router.plan)."""
        from mtcli.text.formats import blocks_of, translate_document

        source, target, judge, whole = self.plan(blocks_of(lines, fmt))
        if whole:
            return list(lines), [LineResult(1, [("", 0.0)], warnings=[whole])]
        out, results = translate_document(lines, fmt, self.engine(f"{source}-{target}"),
                                          self.options.text_for(source), judge)
        text = "\n".join(lines)
        return out, results + self._once(without_markup(text) if fmt == "html" else text)

    def translate_file(self, data: bytes, fmt: str, name: str, settings=None) -> tuple[bytes, list[LineResult]]:
        """A document read and written as bytes (formats.DOCUMENTS: docx, odt, po, xliff, json) whole, in the
        direction of its text's language (Router.plan); one LineResult per text translated."""
        from mtcli.text.formats import Settings, read_file

        units, write = read_file(data, fmt, name, settings or Settings())
        source, target, judge, whole = self.plan(units.plain_texts())
        if whole:
            return data, [LineResult(1, [("", 0.0)], warnings=[whole])]
        results = units.translate(self.engine(f"{source}-{target}"), self.options.text_for(source), judge)
        return write(target), results + self._once("\n".join(units.plain_texts()))

    def _once(self, text: str) -> list[LineResult]:
        """A document given in the other language than the one asked: one warning for the whole of it."""
        why = self.questioned(text, "the document")
        return [LineResult(1, [("", 0.0)], warnings=[why])] if why else []

    def _tell(self, line: str) -> tuple[str, float | None]:
        """A line's language and the detector's confidence (None: fixed, not told). A line with nothing to
        tell (digits, a URL) goes with the running majority: the pipeline keeps such spans as they are."""
        if self.fixed:
            return self.fixed.split("-")[0], None
        language, confidence = self.detect(line, self.prior)
        if language is None:
            return self.prior or (self.languages.target and other(self.languages.target)) or "en", confidence
        if confidence >= MAJORITY:
            self.seen[language] += 1
        return language, confidence


def _pair(detection) -> tuple[str | None, float]:
    return detection.language, detection.confidence
