"""Decoding: beam 1 is greedy, the KV cache changes nothing, n-best lists are sorted; the vectorised\nrepeat guard, the decoding kernels and the batching against their plain specs."""

from types import SimpleNamespace

import numpy as np
import pytest

from mtcli.config import ModelConfig
from mtcli.decode import (
    MIN_BATCH_TOKENS,
    TranslationOptions,
    Translator,
    ALWAYS_BANNED,
    _max_len,
    _repeats,
    beam_search,
    decode_step,
    encode,
    greedy,
    reorder_state,
    search,
    start_decoding,
)
from mtcli.errors import UserError
from mtcli.kernels.decoding import (
    advance_beams,
    advance_beams_ref,
    banned_ngrams,
    banned_ngrams_ref,
    cached_attention,
    cached_attention_ref,
    log_softmax_topk,
    log_softmax_topk_ref,
    self_attention_step,
    self_attention_step_ref,
    top_candidates,
    top_candidates_ref,
)
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
            logits = y[0, -1] @ m.params["out"]["w"] + m.params["out"]["b"]
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


BANNED = pytest.mark.parametrize("banned", [banned_ngrams, banned_ngrams_ref], ids=["kernel", "reference"])


@BANNED
def test_banned_is_repeats_for_all_rows_at_once(banned):
    rng = np.random.default_rng(0)
    for t in range(9):
        seqs = rng.integers(4, 7, (40, t))  # three ids: many repeated n-grams
        found = banned(seqs, np.full(40, t), 4, ALWAYS_BANNED)
        np.testing.assert_array_equal(found, banned_ngrams_ref(seqs, np.full(40, t), 4, ALWAYS_BANNED))
        for row, b in zip(seqs, found):
            assert set(b[b >= 0]) == {PAD, BOS} | set(_repeats(list(row)))


@BANNED
def test_banned_reads_each_row_to_its_own_length(banned):
    """Rows of sentences at different steps: what lies past a row's length is not its own."""
    rng = np.random.default_rng(1)
    seqs, length = rng.integers(4, 7, (60, 12)), rng.integers(0, 13, 60)
    for n in (1, 2, 4):
        for row, end, b in zip(seqs, length, banned(seqs, length, n, ALWAYS_BANNED)):
            assert set(b[b >= 0]) == {PAD, BOS} | set(_repeats(list(row[:end]), n))


def test_top_candidates_match_their_reference():
    """Sentences of 0 to K live rows, in no order, ties and -inf among the totals: the 2K best of each, ties
    in the order of their rows and continuations."""
    rng = np.random.default_rng(3)
    B, K = 6, 3
    rows = rng.permutation([r for s in range(1, B) for r in range(s * K, s * K + rng.integers(1, K + 1))])
    scores = rng.integers(-3, 0, len(rows)).astype(float)  # (whole numbers: many ties)
    values = np.where(rng.random((len(rows), 2 * K)) < 0.2, -np.inf, rng.integers(-4, 0, (len(rows), 2 * K)))
    ids, paid = rng.integers(0, 50, values.shape), rng.random(values.shape)
    got, want = top_candidates(rows, scores, values, ids, paid, B, K), top_candidates_ref(rows, scores, values, ids, paid, B, K)
    np.testing.assert_array_equal(got[0], want[0])
    live = np.isfinite(want[0])
    assert live.sum() > 2 * K and not live[0].any()  # (sentence 0 holds no row)
    for a, b in zip(got[1:], want[1:]):
        np.testing.assert_array_equal(a[live], b[live])


def test_advance_beams_matches_its_reference():
    """Sentences inactive, done by K ended, done for want of refills, going on: what ends, what goes on
    (parents overwritten by their children: the histories copied out first) and the in-place arrays."""
    rng = np.random.default_rng(4)
    B, K, T = 7, 3, 9
    W = 2 * K
    for _ in range(20):
        cand = rng.normal(size=(B, W))
        cand[rng.random((B, W)) < 0.15] = -np.inf
        cand = -np.sort(-cand, 1)
        cand_tok = np.where(rng.random((B, W)) < 0.3, EOS, rng.integers(4, 30, (B, W)))
        parent = np.arange(B)[:, None] * K + rng.integers(0, K, (B, W))
        active = rng.random(B) < 0.8
        t, seqs, history = rng.integers(1, T, B), rng.integers(4, 30, (B * K, T)), rng.integers(0, B * K, (B * K, T))
        count = rng.integers(0, K, B)
        ended = (rng.integers(0, 9, (B, 3 * K, T)), rng.integers(0, 9, (B, 3 * K, T)), rng.integers(0, 9, (B, 3 * K)),
                 rng.normal(size=(B, 3 * K)), rng.normal(size=(B, 3 * K)), count)
        cand_paid, divisor = rng.random((B, W)), rng.random(B) + 1
        got_state, want_state = [[a.copy() for a in (seqs, history, *ended)] for _ in range(2)]
        got = advance_beams(cand, cand_tok, cand_paid, parent, active, K, EOS, divisor, t, *got_state[:2], tuple(got_state[2:]))
        want = advance_beams_ref(cand, cand_tok, cand_paid, parent, active, K, EOS, divisor, t, *want_state[:2],
                                 tuple(want_state[2:]))
        for a, b in zip((*got, *got_state), (*want, *want_state)):
            np.testing.assert_array_equal(a, b)
    assert want[-1].any() and not want[-1].all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_decoding_kernels_match_references(dtype):
    rng = np.random.default_rng(1)
    N, R, T, C, H = 7, 5, 6, 16, 4
    q, k, v = (rng.normal(size=s).astype(dtype) for s in ((N, C), (R, T, C), (R, T, C)))
    n_keys = rng.integers(1, T + 1, N)
    slot = np.array([-1, 1, -1, 0])  # heads 3 and 1 kept, in that order
    for key_rows in (rng.integers(0, R, (N, T)), rng.integers(0, R, (N, 1))):
        want_kept, kept = np.full((N, 2, T + 1), 7.0, dtype), np.full((N, 2, T + 1), 7.0, dtype)
        want = cached_attention_ref(q, k, v, key_rows, n_keys, H, slot, want_kept)
        np.testing.assert_allclose(cached_attention(q, k, v, key_rows, n_keys, H, slot, kept), want, rtol=1e-5, atol=1e-6)
        for none in (np.full(H, -1), np.full(0, -1)):  # no head kept: every slot -1, or none given
            got = cached_attention(q, k, v, key_rows, n_keys, H, none, np.zeros((0, 0, 0), dtype))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(kept, want_kept, rtol=1e-5, atol=1e-6)
        unwritten = np.arange(T + 1) >= n_keys[:, None, None]  # (N, 1, T + 1): keys past n_keys left alone
        assert (want_kept[np.broadcast_to(unwritten, kept.shape)] == 7.0).all()
        np.testing.assert_allclose(np.where(unwritten, 0, want_kept).sum(-1), 1.0, rtol=1e-5)
    logits, bias = rng.normal(size=(N, 50)).astype(dtype), rng.normal(size=50).astype(dtype)
    logits[:, 7] = logits[:, 8]  # a tie: the smaller id comes first
    banned = np.where(rng.random((N, 3)) < 0.5, rng.integers(0, 50, (N, 3)), -1)
    want_values, want_ids = log_softmax_topk_ref(logits.copy(), bias, banned, 6)
    values, ids = log_softmax_topk(logits.copy(), bias, banned, 6)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_allclose(values, want_values, rtol=1e-5)
    assert not any(np.isin(i, b).any() for i, b in zip(ids, banned))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_self_attention_step_matches_its_reference(dtype):
    """Each hypothesis writes its new key/value in its own cache row at its own position (of sentences at
    different steps), read back through rows of ancestors, then attends: the writes and the output as the
    reference's."""
    rng = np.random.default_rng(2)
    N, T, C, H = 6, 7, 16, 4
    qkv = rng.normal(size=(N, 3 * C)).astype(dtype)
    n_keys = rng.integers(1, T + 1, N)
    key_rows = rng.integers(0, N, (N, T))
    key_rows[np.arange(N), n_keys - 1] = np.arange(N)  # (decoder_hidden's history: a row's new position is its own)
    k, v = (rng.normal(size=(N, T, C)).astype(dtype) for _ in range(2))
    want_k, want_v = k.copy(), v.copy()
    want = self_attention_step_ref(qkv, want_k, want_v, key_rows, n_keys, H)
    np.testing.assert_allclose(self_attention_step(qkv, k, v, key_rows, n_keys, H), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(k, want_k)
    np.testing.assert_array_equal(v, want_v)
    np.testing.assert_array_equal(k[np.arange(N), n_keys - 1], qkv[:, C : 2 * C])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_decoders_encoder_is_model_encode_bit_for_bit(dtype):
    """decode.encode (fused projections and kernels) gives the training forward's floats exactly, padding included:
    the text of a translation cannot depend on which of the two encoded its source."""
    m = Model(model().cfg, seed=3, dtype=dtype)
    m.flat += np.random.default_rng(0).normal(0, 0.1, m.flat.shape).astype(dtype)  # (no norm's gain 1 and bias 0)
    np.testing.assert_array_equal(encode(m, SRC, SRC_LEN), m.encode(SRC, SRC_LEN)[0])


def test_sentences_joining_a_decoding_state_are_encoded_with_its_projections_made_once(monkeypatch):
    """A decoding state makes each encoder layer's fused query/key/value projection once (DecoderState.enc_qkv):
    the sentences that join it later (attend_to: a server's decoder, one sentence at a time) are encoded with them,
    none made again, to the same floats as Model.encode."""
    import mtcli.decode as decode

    m = Model(model().cfg, seed=3)
    state = decode.empty_decoding(m, len(SRC), 1, SRC.shape[1], m.cfg.max_tgt_len)
    assert len(state.enc_qkv) == m.cfg.n_layers
    made = []
    monkeypatch.setattr(decode, "_fused", lambda *args: made.append(args) or pytest.fail("a projection made again"))
    memory = decode.attend_to(m, state, np.arange(1, 3), SRC[1:], SRC_LEN[1:])
    assert not made
    np.testing.assert_array_equal(memory, m.encode(SRC[1:], SRC_LEN[1:])[0])


@pytest.mark.parametrize("budget", [TranslationOptions(max_batch_size=60), TranslationOptions(max_batch_size=3, batch_type="examples")])
def test_sentences_join_a_search_within_the_budget_and_decode_as_alone(budget, monkeypatch):
    """Continuous batching (search given a budget): the sentences decoded at once never exceed max_batch_size
    sentences, or padded source tokens times the beam (one sentence alone may), more than one is decoded at once
    somewhere, every sentence is found, and each one's hypotheses are those it gets alone."""
    from mtcli import decode

    m, rng = model(), np.random.default_rng(0)
    lengths = np.sort(rng.integers(3, 12, 14))
    src = np.full((len(lengths), lengths.max()), PAD)
    for row, n in enumerate(lengths):
        src[row, :n] = [BOS, *rng.integers(4, 20, n - 2), EOS]
    held, ended, lengths_of = [], [], {}  # (sentences decoded, their longest source) at each step; slot -> length
    step, add = decode.BeamSearch.step, decode.BeamSearch.add

    def counted(self):
        live = np.flatnonzero(self.active)
        held.append((len(live), max(lengths_of[s] for s in live.tolist())))
        return step(self)

    def noted(self, src, src_len, *rest):
        slots = add(self, src, src_len, *rest)
        lengths_of.update(zip(slots.tolist(), src_len.tolist()))
        return slots

    monkeypatch.setattr(decode.BeamSearch, "step", counted)
    monkeypatch.setattr(decode.BeamSearch, "add", noted)
    found = search(m, src, lengths, 2, 2, batch=budget, done=ended.append)
    monkeypatch.undo()
    for count, longest in held:
        size = count if budget.batch_type == "examples" else count * longest * 2
        assert size <= budget.max_batch_size or count == 1
    assert max(count for count, _ in held) > 1 and sum(ended) == len(lengths)
    alone = [search(m, src[i : i + 1, : lengths[i]], lengths[i : i + 1], 2, 2)[0] for i in range(len(lengths))]
    assert [[h.tokens for h in hs] for hs in found] == [[h.tokens for h in hs] for hs in alone]


def test_threads_share_the_token_budget_down_to_a_floor():
    """Two threads decode two batches at once: greedy, each gets half the tokens; at beam 4 the budget is already
    MIN_BATCH_TOKENS source tokens a batch, which it keeps; sentences counted (--batch-size) stay as asked."""
    def shared(threads, **options):
        return Translator._shared(SimpleNamespace(inter_threads=threads), TranslationOptions(**options)).max_batch_size

    assert shared(2, beam_size=1) == 1024 and shared(1, beam_size=1) == 2048 and shared(8, beam_size=1) == MIN_BATCH_TOKENS
    assert shared(2) == shared(1) == 2048  # (beam 4: 512 source tokens a batch)
    assert shared(2, max_batch_size=64, batch_type="examples") == 64


def test_options_reject_nonsense():
    for bad in (dict(beam_size=0), dict(num_hypotheses=0), dict(max_batch_size=0), dict(batch_type="words")):
        with pytest.raises(UserError):
            TranslationOptions(**bad)


def test_reorder_state_keeps_each_hypothesis_history():
    """Duplicating and permuting rows (as a beam does) then stepping equals stepping the rows alone."""
    m = model()
    tgt = np.array([[BOS, 5, 6, 7], [BOS, 9, 9, 4], [BOS, 8, 5, 5]])
    state = start_decoding(m, SRC, SRC_LEN)
    for t in range(2):
        _, state = decode_step(m, state, tgt[:, t])
    index = np.array([2, 0, 0])  # same number of rows: indices only
    moved = reorder_state(state, index)
    grown = reorder_state(reorder_state(start_decoding(m, SRC, SRC_LEN), np.arange(3)), np.arange(3))
    for t in range(2):
        _, grown = decode_step(m, grown, tgt[:, t])
    grown = reorder_state(grown, np.array([2, 0, 0, 1]))  # more rows: caches copied
    for t in range(2, 4):
        logp, moved = decode_step(m, moved, tgt[index, t])
        logp_grown, grown = decode_step(m, grown, np.r_[tgt[index, t], tgt[1, t]])
        fresh = start_decoding(m, SRC[index], SRC_LEN[index])
        for s in range(t + 1):
            want, fresh = decode_step(m, fresh, tgt[index, s])
        np.testing.assert_allclose(logp, want, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(logp_grown[:3], want, rtol=1e-10, atol=1e-10)


def test_progress_is_reported_as_the_main_pass_decodes_and_never_goes_back(shipped_model):
    """A progress bar over a file moves as the sentences of the main pass over its lines are decoded
    (decode.progress), not once per call; a smaller call before it (quotations) does not move it, nor do the calls after it (retries,
    a round trip); outside the block nothing is told."""
    from dataclasses import replace

    from mtcli import kernels
    from mtcli.decode import DEFAULTS, Translator, progress

    tr = Translator(shipped_model, inter_threads=2)
    options = replace(DEFAULTS, beam_size=1, num_hypotheses=1, max_batch_size=3, batch_type="examples")
    lines = [f"I have {n} cats." for n in range(2, 11)] + [""]  # 9 sentences, 3 at once; an empty line is none
    seen = []
    with kernels.references():
        with progress(seen.append, len(lines)):
            tr.translate_batch(lines[:4], options)  # fewer sentences than half the lines: not the main pass
            tr.translate_batch(lines, options)
            tr.translate_batch(lines[:6], options)  # 1/2 (below 1) and 1: nothing new
        tr.translate_batch(lines, options)
    assert len(seen) > 1 and seen[-1] == 1.0 and np.all(np.diff(seen) > 0)
    assert np.allclose(np.array(seen) * 9, np.round(np.array(seen) * 9))  # (sentences decoded, of 9)


def test_the_translator_chooses_the_kernels_from_the_work_it_is_given(shipped_model, monkeypatch):
    """As in a new process (Numba not loaded): the NumPy references while the work so far (sentences x beam, over
    calls: lines piped in) stays under decode.COMPILED_MIN_WORK, a teacher-forced reading with them too; the compiled
    kernels from the call that reaches it on. A process that loaded the compiled kernels keeps them."""
    from dataclasses import replace

    from mtcli import decode, kernels
    from mtcli.decode import DEFAULTS, Translator
    from mtcli.kernels import attention, decoding

    tr, beam4 = Translator(shipped_model), replace(DEFAULTS, beam_size=4)
    used = []
    for module, name in ((decoding, "log_softmax_topk_ref"), (attention, "attention_forward_ref")):
        monkeypatch.setattr(module, name, lambda *a, _ref=getattr(module, name), _name=name: used.append(_name) or _ref(*a))
    monkeypatch.setattr(decode, "_decoded", [0])
    monkeypatch.setattr(kernels, "loaded", lambda: False)
    tr.translate_batch(["Where is the station?"] * (decode.COMPILED_MIN_WORK // 4 - 1), beam4)
    tr.force(["Where is the station?"], ["¿Dónde está la estación?"])
    assert set(used) == {"log_softmax_topk_ref", "attention_forward_ref"}
    used.clear()
    tr.translate_batch(["Where is the station?"], beam4)  # 16 x 4: enough
    tr.translate_batch(["Hello."], replace(DEFAULTS, beam_size=1))
    tr.force(["Hello."], ["Hola."])
    assert used == []
    monkeypatch.setattr(decode, "_decoded", [0])
    monkeypatch.setattr(kernels, "loaded", lambda: True)
    tr.translate_batch(["Hello."], beam4)
    assert used == []
