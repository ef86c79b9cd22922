"""Decoding: beam 1 is greedy, the KV cache changes nothing, n-best lists are sorted."""

import numpy as np

from mtcli.config import ModelConfig
from mtcli.decode import _max_len, _repeats, beam_search, greedy
from mtcli.model import Model
from mtcli.tokenizer import BOS, EOS, PAD


def model():
    cfg = ModelConfig(src_vocab=20, tgt_vocab=24, d_model=16, d_ff=32, n_heads=2, n_layers=2,
                      max_src_len=12, max_tgt_len=16)
    return Model(cfg, seed=3, dtype=np.float64)


SRC = np.array([[BOS, 5, 6, 7, 8, EOS], [BOS, 9, 10, EOS, 0, 0], [BOS, 11, EOS, 0, 0, 0]])
SRC_LEN = np.array([6, 4, 3])


def test_beam_one_equals_greedy():
    m = model()
    g = greedy(m, SRC, SRC_LEN)
    b = beam_search(m, SRC, SRC_LEN, beam=1)
    assert [h.tokens for h in g] == [hs[0].tokens for hs in b]
    assert any(h.tokens for h in g)


def test_greedy_with_cache_equals_full_prefix_recompute():
    """The same search rules, recomputing the whole prefix at every step instead of caching."""
    m = model()
    memory, _ = m.encode(SRC, SRC_LEN)
    limit = _max_len(m, SRC_LEN)
    for b, hyp in enumerate(greedy(m, SRC, SRC_LEN)):
        prefix = [BOS]
        while True:
            y, _ = m.decode(np.array([prefix]), np.array([len(prefix)]), memory[b : b + 1], SRC_LEN[b : b + 1])
            logits = y[0, -1] @ m.p["out"]["w"] + m.p["out"]["b"]
            logits[[PAD, BOS] + _repeats(prefix[1:])] = -np.inf
            tok = EOS if len(prefix) >= limit[b] else logits.argmax()
            if tok == EOS:
                break
            prefix.append(int(tok))
        assert hyp.tokens == prefix[1:]


def test_nbest_sorted_and_distinct():
    m = model()
    for hs in beam_search(m, SRC, SRC_LEN, beam=5, nbest=5):
        scores = [h.score for h in hs]
        assert scores == sorted(scores, reverse=True) and len(hs) >= 2
        assert len({tuple(h.tokens) for h in hs}) == len(hs)


def test_batched_beam_equals_one_at_a_time():
    m = model()
    together = beam_search(m, SRC, SRC_LEN, beam=3)
    for b in range(3):
        n = SRC_LEN[b]
        alone = beam_search(m, SRC[b : b + 1, :n], SRC_LEN[b : b + 1], beam=3)
        assert alone[0][0].tokens == together[b][0].tokens
