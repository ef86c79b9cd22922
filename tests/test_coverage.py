"""The coverage penalty (decode.Coverage, TranslationOptions.coverage_penalty): the beam's finished hypotheses
ranked again by score + beta x their log coverage, coverage read as the check reads it."""

from dataclasses import replace

import numpy as np
import pytest

from mtcli.config import DEFAULTS
from mtcli.confidence import WORD, Vocab, word_coverage, words
from mtcli.decode import Hypothesis, Translator

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
    hyps = [Hypothesis(ids, 0.0, 0.0) for ids in tr.tgt_tok.encode_batch(targets)]
    seqs, _ = tr.source_ids(sources)
    src = np.zeros((len(seqs), max(map(len, seqs))), np.int64)
    for row, s in enumerate(seqs):
        src[row, : len(s)] = s
    src_len = np.array([len(s) for s in seqs])
    memory = tr.model.encode(src, src_len)[0]
    mine = tr.coverage.log_coverage(tr.model, memory, src, src_len, hyps)
    assert np.allclose(mine, _read_as_the_check_does(tr, sources, targets), atol=1e-4)
    assert (mine <= 0).all() and (mine < 0).any()


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
