"""mtcli.confidence.repair: a sentence named as leaving words out retried in clauses, with a fake model that drops a
sentence's "if" clause when it sees the whole sentence and a fake check that names the source words missing."""

import re
from dataclasses import replace

from mtcli.config import DEFAULTS, Options
from mtcli.confidence import LineCheck, SentenceCheck, sentence_pairs
from mtcli.confidence.repair import bare, clauses, joined
from mtcli.route import Languages, Router
from mtcli.text.pipeline import Engine

WORD = re.compile(r"[^\W_]+")


def engine(clause_drops: bool = False) -> Engine:
    """Copies each piece, but a whole sentence loses its "if" clause; with clause_drops a lone clause loses its
    last word too (a retry worse than the first try)."""
    def decode(lines):
        out = []
        for line in lines:
            whole = re.sub(r",? if [^.]*", "", line) if re.search(r"\w \w+,? if ", line) else line
            out.append([(" ".join(whole.split()[:-1]) if clause_drops and whole == line else whole, -1.0)])
        return out

    return Engine(decode, lambda t: [5] * len(t.split()), 54)


class Checker:
    """Confidence: the share of source words the translation has; flagged under 0.9, the missing ones named."""

    def __init__(self):
        self.calls = 0

    def check(self, sources, nbests):
        self.calls += 1
        return [LineCheck([self._one(s, t) for s, t in sentence_pairs(src, nb[0][0])]) for src, nb in zip(sources, nbests)]

    @staticmethod
    def _one(source, translation):
        words = WORD.findall(source)
        missing = [w for w in words if w.lower() not in WORD.findall(translation.lower())]
        c = 1 - len(missing) / len(words)
        return SentenceCheck(source, translation, c, c < 0.9, omitted=[" ".join(missing)] if missing else [])


def translate(lines, repair=True, clause_drops=False):
    checker = Checker()
    options = Options(decoding=replace(DEFAULTS, repair=repair))
    router = Router(lambda d: engine(clause_drops), Languages("en", "es"), checker_for=lambda d: checker,
                    options=options)
    return router.translate(lines), checker


def test_a_sentence_that_left_a_clause_out_is_translated_again_in_clauses_and_kept():
    [out], checker = translate(["Hello there. I will come tomorrow, if it does not rain."])
    assert out.text == "Hello there. I will come tomorrow, if it does not rain."
    assert [s.flagged for s in out.check.sentences] == [False, False] and out.check.confidence == 1.0
    assert checker.calls == 2  # (the check, then one check of every retry)


def test_without_the_setting_or_when_the_retry_is_worse_the_first_translation_stays():
    [out], checker = translate(["I will come tomorrow, if it does not rain."], repair=False)
    assert out.text == "I will come tomorrow." and out.check.flagged and checker.calls == 1
    [out], _ = translate(["I will come tomorrow, if it does not rain."], clause_drops=True)
    assert out.text == "I will come tomorrow." and out.check.flagged
    assert out.check.sentences[0].omitted == ["if it does not rain"]


def test_a_line_never_loses_text_and_unflagged_lines_are_not_retried():
    lines = ["  Good morning. I will come, if it rains.  ", "It rains.", "Tom, if you can."]
    out, checker = translate(lines)
    first, _ = translate(lines, repair=False)
    assert first[0].text == "  Good morning. I will come."  # (the pipeline keeps a line's leading spaces)
    assert [o.text for o in out] == ["  Good morning. I will come, if it rains.", "It rains.", "Tom, if you can."]
    assert checker.calls == 2


def test_clauses_and_their_translations_joined():
    assert clauses("I will come tomorrow, if it does not rain.") == ["I will come tomorrow,", "if it does not rain."]
    assert clauses("Tom and Mary left because it rained.") == ["Tom and Mary left", "because it rained."]
    assert bare("I will come tomorrow,") == "I will come tomorrow"
    assert clauses("Yes, I can.") == ["Yes, I can."]  # (a piece of one word stays with its neighbour)
    assert joined(["I will come,", "if it rains."], ["Vendré.", "Si llueve."]) == "Vendré, si llueve."
    assert joined(["Come", "if you can?"], ["¿Ven?", "¿Si puedes?"]) == "¿Ven si puedes?"
    assert joined(["If it rains,", "I'll stay."], ["Si llueve.", "Me quedaré."]) == "Si llueve, me quedaré."
    assert joined(["If it rains,", "Tom stays."], ["Si llueve", "Tom se queda."]) == "Si llueve, Tom se queda."
