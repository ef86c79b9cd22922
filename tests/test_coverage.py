"""The coverage penalty (decode.Coverage, TranslationOptions.coverage_penalty): the beam's finished hypotheses
ranked again by score + beta x their log coverage, coverage read as the check reads it."""

from dataclasses import replace

import numpy as np
import pytest

from mtcli.config import DEFAULTS
from mtcli.confidence import WORD, Vocab, word_coverage, words
from mtcli.decode import Translator, _padded, forced, search

LINES = ["I prefer to travel on my own.", "He called me twice yesterday afternoon.",
         "Could you lend me some money until next week?", "They arrived late because of the heavy rain.",
         "I bought 3 apples and 12 pears."]


@pytest.fixture(scope="module")
def tr(shipped_model):
    return Translator(shipped_model)


def _read_as_the_check_does(tr, sources, targets) -> np.ndarray:
    cov, vocab = tr.coverage, Vocab.of(tr)
    out = []
    for f in tr.force(sources, targets, cov.layer + 1, cov.heads):
        spans = words([vocab.src[i % vocab.src_size] for i in f.src[1:-1]])
        content = np.array([bool(WORD.search(w)) for _, _, w in spans])
        covered = word_coverage(f.attention, spans, cov.layer, cov.heads)
        out.append(np.log(np.clip(covered[content], 1e-3, 1.0)).sum())
    return np.array(out)


def _nbest(tr, beta):
    return [r.hypotheses for r in tr.translate_batch(LINES, replace(DEFAULTS, num_hypotheses=4, coverage_penalty=beta))]


def test_the_shipped_models_read_coverage_with_their_checks_head(tr):
    assert tr.coverage is not None and (tr.coverage.layer, tr.coverage.heads) == (0, (7,))


def test_log_coverage_is_what_the_check_reads(tr):
    nbest = _nbest(tr, 0.0)
    targets = [h.text for hs in nbest for h in hs]
    sources = [line for line, hs in zip(LINES, nbest) for _ in hs]
    readings = forced(tr.model, *_padded(tr.source_ids(sources)[0]), *_padded(tr.tgt_tok.encode_batch(targets)),
                      tr.coverage.layer + 1, tr.coverage.heads)
    mine = tr.coverage.log_coverage(readings)
    assert np.allclose(mine, _read_as_the_check_does(tr, sources, targets), atol=1e-4)
    assert (mine <= 0).all() and (mine < 0).any()


def test_the_beam_reads_coverage_from_its_steps_as_a_forced_pass_would(tr):
    """The weights each step kept (no second pass) are those of the hypothesis read again whole."""
    src, src_len = _padded(tr.source_ids(LINES)[0])
    found = [h for hs in search(tr.model, src, src_len, nbest=4, coverage=tr.coverage) for h in hs]
    at = np.repeat(np.arange(len(LINES)), 4)
    again = forced(tr.model, src[at], src_len[at], *_padded([h.tokens for h in found]), 1, tr.coverage.heads)
    for h, f in zip(found, again):
        assert h.reading.tgt == f.tgt == h.tokens and h.reading.src == f.src
        np.testing.assert_allclose(h.reading.attention, f.attention, atol=1e-5)  # (NaN where f has no head)
    assert np.allclose(tr.coverage.log_coverage([h.reading for h in found]), tr.coverage.log_coverage(again), atol=1e-5)
    # a file's translation reads the best's alone (Translator: readings=1): the others' are let go as each sentence
    # ends (a short line's 12 at beam 12 had stayed to the search's end), the hypotheses the same
    first = search(tr.model, src, src_len, nbest=4, coverage=tr.coverage, readings=1)
    assert [h.tokens for hs in first for h in hs] == [h.tokens for h in found]
    assert all(hs[0].reading.tgt == hs[0].tokens and all(h.reading is None for h in hs[1:]) for hs in first)


@pytest.mark.parametrize("beta", [0.05, 1.0])
def test_the_beam_ranks_its_finished_hypotheses_by_score_plus_beta_log_coverage(tr, beta):
    plain, ranked = _nbest(tr, 0.0), _nbest(tr, beta)
    changed = 0
    for line, hs, got in zip(LINES, plain, ranked):
        cp = _read_as_the_check_does(tr, [line] * len(hs), [h.text for h in hs])
        expected = [hs[i] for i in np.argsort(-(np.array([h.score for h in hs]) + beta * cp), kind="stable")]
        assert [h.text for h in got] == [h.text for h in expected]
        assert [h.score for h in got] == [h.score for h in expected]  # the scores reported stay the model's
        changed += got[0].text != hs[0].text
    assert changed >= (1 if beta == 1.0 else 0)


def test_off_is_the_plain_beam(tr, monkeypatch):
    plain = _nbest(tr, 0.0)
    monkeypatch.setattr(tr, "coverage", None)  # (a model without a fitted check: none to read coverage with)
    assert [[h.text for h in hs] for hs in _nbest(tr, 0.05)] == [[h.text for h in hs] for hs in plain]


def test_greedy_has_nothing_to_rank(tr):
    one = replace(DEFAULTS, beam_size=1)
    assert [r.hypotheses[0].text for r in tr.translate_batch(LINES, one)] == \
        [r.hypotheses[0].text for r in tr.translate_batch(LINES, replace(one, coverage_penalty=0.0))]
