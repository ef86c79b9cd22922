"""Repair where it is cheap (issue 41): a flagged sentence whose check names source words as left out ("may have
left out: 'next week'") is translated again in clauses (cut after a comma, semicolon or colon and before a
conjunction), their translations joined; the retry is kept only if the check is surer of it and none of the
named words is named again. Everything else of the line stays as it was, so a retry never loses text."""

from __future__ import annotations

import re
from dataclasses import replace

from mtcli.confidence import LineCheck, SentenceCheck
from mtcli import lazy_re

# where a clause may start: after , ; : or before a conjunction that opens one (each side two words or more)
_CUT = lazy_re.compile(r"(?<=[,;:])\s+|\s+(?=(?:and|but|because|if|when|unless|although|while|before|after|until|"
                       r"y|pero|porque|si|cuando|aunque|mientras|antes|después|hasta)\s)", re.IGNORECASE)
_END = lazy_re.compile(r"[.!?]+$")
_WORD = lazy_re.compile(r"[^\W_]+")
_I = lazy_re.compile(r"I\b")  # English "I" opening a clause is no capital of a sentence


def clauses(sentence: str) -> list[str]:
    """The sentence cut at clause boundaries; a piece of fewer than two words stays with the one before."""
    out: list[str] = []
    for part in _CUT.split(sentence.strip()):
        if out and min(len(out[-1].split()), len(part.split())) < 2:
            out[-1] += " " + part
        elif part:
            out.append(part)
    return out


def joined(parts: list[str], translations: list[str]) -> str:
    """The clauses' translations (each of its clause without the mark that closes it: `bare`) as one sentence:
    inner ones end with their clause's , ; or : and no stop, only the first keeps its opening ¿ or ¡, and a later
    one starts in lowercase where its clause did (or with "I")."""
    out = []
    for k, (src, text) in enumerate(zip(parts, translations)):
        text = text.strip()
        if k + 1 < len(parts):
            text = _END.sub("", text).rstrip(",;:") + src[len(bare(src)):]
        if k:
            text = text.lstrip("¿¡")
            if (src[:1].islower() or _I.match(src)) and text[:1].isupper() and not text[1:2].isupper():
                text = text[0].lower() + text[1:]
        out.append(text)
    return " ".join(t for t in out if t)


def bare(clause: str) -> str:
    """A clause as the model is given it: without a closing , ; or : (alone, one ending in a comma came back as a
    tag question: "Incluso si llueve, ¿cierto?")."""
    return clause.rstrip(",;:").rstrip()


def _words(runs: list[str]) -> set[str]:
    return {w.lower() for r in runs for w in _WORD.findall(r)}


def better(old: SentenceCheck, new: SentenceCheck) -> bool:
    """Whether the retry is kept: surer, and none of the words named as left out named again."""
    return (new.confidence is not None and old.confidence is not None and new.confidence > old.confidence
            and not _words(old.omitted) & _words(new.omitted))


def repair(checker, engine, options, results: list, checks: list[LineCheck | None]) -> int:
    """Retry each flagged sentence with words named as left out, in clauses (one pipeline call for them all,
    one check of the retries); a kept retry replaces the sentence in its line's best translation (results,
    text.sentence.LineResult) and check. Returns how many were kept."""
    from mtcli.text.pipeline import translate_lines

    todo = [(k, j, parts) for k, c in enumerate(checks) if c for j, s in enumerate(c.sentences)
            if s.flagged and s.omitted and len(parts := clauses(s.source)) > 1]
    if not todo:
        return 0
    inner = replace(options, punctuate=False, keep_stop=False)  # (a clause is a fragment: no stop added)
    done = iter(translate_lines([bare(p) for _, _, parts in todo for p in parts], engine, inner))
    tries = []
    for k, j, parts in todo:
        got = [next(done).nbest[0] for _ in parts]
        tries.append((joined(parts, [t for t, _ in got]), sum(score for _, score in got) / len(got)))
    again = checker.check([checks[k].sentences[j].source for k, j, _ in todo], [[t] for t in tries])
    kept = 0
    for (k, j, _), (text, score), new in zip(todo, tries, again):
        old = checks[k].sentences[j]
        if new is None or len(new.sentences) != 1 or not better(old, new.sentences[0]):
            continue
        checks[k].sentences[j] = replace(new.sentences[0], source=old.source)
        line, rest = results[k].nbest[0][0], results[k].nbest[1:]
        whole = " ".join(s.translation for s in checks[k].sentences)
        results[k].nbest = [(line.replace(old.translation, text, 1) if old.translation in line else whole, score),
                            *rest]
        kept += 1
    return kept
