"""Layers and multi-head attention (mtcli/layers.py, mtcli/attention.py), from the mutation run over
both modules (issue 21): what their surviving mutants changed and no test noticed. Dropout at rate 0
draws no seed (the other masks of a training run stay the same), the attention masks' values, shape
and dtype, the positional table's values, embeddings up to the table's last position and at each
row's own position (beam search), the FFN's gradients added into the buffer training steps with,
and a log-softmax that stays finite for far-apart logits. Gradients are checked by tests/gradcheck.py."""

import numpy as np
import pytest

from mtcli.attention import NO_DROP, attention_dropout_mask, mha_forward
from mtcli.config import ModelConfig
from mtcli.data import Batch
from mtcli.kernels.attention import attention_forward_ref
from mtcli.kernels.elementwise import keep_ref
from mtcli.layers import (
    dropout_forward,
    embedding_forward,
    ffn_backward,
    ffn_forward,
    log_softmax,
    positional_encoding,
    residual_dropout_forward,
)
from mtcli.model import Model, views
from tests.gradcheck import check

TOL = 1e-5  # as tests/test_model.py: largest relative error against float64 central differences
F32 = np.dtype(np.float32)


def _first_seed(seed: int) -> int:
    """The seed a dropout call draws first from np.random.default_rng(seed) (layers._seed)."""
    return int(np.random.default_rng(seed).integers(2**63))


# ---- dropout -------------------------------------------------------------------------------------


def test_dropout_at_rate_zero_is_the_identity_and_draws_no_seed():
    """--dropout 0 with attention dropout on: the embedding and residual dropouts must leave the
    training generator alone, or every attention mask after them (and so the run) changes."""
    x, sub, rng = np.arange(6.0).reshape(2, 3), np.ones((2, 3)), np.random.default_rng(3)
    out, cache = dropout_forward(x, 0.0, rng)
    assert out is x and cache is None
    out, cache = residual_dropout_forward(x, sub, 0.0, rng)
    assert out.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] and cache is None
    assert rng.integers(2**63) == _first_seed(3)


@pytest.mark.parametrize("training", [False, True])
def test_no_attention_dropout_is_the_empty_mask_of_the_models_dtype(training):
    """Inference (no generator) and --attn-dropout 0: no mask and no seed drawn; the empty mask in
    float32 for a float32 model (a float64 one makes the kernels' float32 gradients round otherwise)."""
    rng = np.random.default_rng(3) if training else None
    assert attention_dropout_mask((2, 2, 3, 3), 0.0, rng, np.float32) is NO_DROP[F32]
    if training:
        assert rng.integers(2**63) == _first_seed(3)


def test_attention_dropout_mask_is_the_seeds_keep_decisions_in_the_models_dtype():
    """0 where the seed's hash drops a weight, 1 / (1 - rate) where it keeps it, in the model's
    float32 (a float64 mask rounds the float32 attention and its gradients otherwise)."""
    mask = attention_dropout_mask((2, 2, 3, 4), 0.3, np.random.default_rng(5), np.float32)
    keep = keep_ref(_first_seed(5), 48, 0.3).reshape(2, 2, 3, 4)
    assert mask.dtype == np.float32
    np.testing.assert_array_equal(mask, np.where(keep, np.float32(1 / 0.7), np.float32(0.0)))
    assert 0 < keep.sum() < 48


def test_mha_forward_drops_attention_weights_per_query_and_key():
    """Training (a generator, attention dropout 0.5): one scaled keep-mask entry per batch row, head,
    query and key (B, H, Tq, Tk), here with Tk = 5 keys unlike the width C = 8; the output is the
    reference attention with that mask. Without a generator: no mask."""
    r = np.random.default_rng(0)
    C, H, B, Tq, Tk = 8, 2, 2, 3, 5
    p = {n: r.standard_normal((C, C) if n[0] == "w" else C).astype(np.float32)
         for n in ("wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo")}
    xq, xkv = r.standard_normal((B, Tq, C)).astype(np.float32), r.standard_normal((B, Tk, C)).astype(np.float32)
    k_len = np.array([5, 3])
    out, cache = mha_forward(xq, xkv, k_len, False, p, H, attn_dropout=0.5, rng=np.random.default_rng(9))
    keep = keep_ref(_first_seed(9), B * H * Tq * Tk, 0.5).reshape(B, H, Tq, Tk)
    mask = np.where(keep, np.float32(2.0), np.float32(0.0))
    assert cache.drop.dtype == np.float32
    np.testing.assert_array_equal(cache.drop, mask)
    a, _ = attention_forward_ref(xq @ p["wq"] + p["bq"], xkv @ p["wk"] + p["bk"], xkv @ p["wv"] + p["bv"], k_len,
                                 False, mask, H)
    np.testing.assert_allclose(out, a @ p["wo"] + p["bo"], rtol=1e-5, atol=1e-5)
    _, cache = mha_forward(xq, xkv, k_len, False, p, H, attn_dropout=0.5)
    assert cache.drop is NO_DROP[F32]


# ---- embedding and positional table --------------------------------------------------------------


def test_positional_table_is_the_sinusoids_of_vaswani_et_al():
    """Row p of a table 4 wide: sin(p), cos(p), sin(p / 100), cos(p / 100), as 10000^(2i/d) gives
    1 and 100; in the dtype asked for (the model's)."""
    expected = np.array([[np.sin(p), np.cos(p), np.sin(p / 100), np.cos(p / 100)] for p in range(3)])
    np.testing.assert_allclose(positional_encoding(3, 4, np.float64), expected, rtol=1e-14, atol=0)
    pe32 = positional_encoding(3, 4, np.float32)
    assert pe32.dtype == np.float32
    np.testing.assert_array_equal(pe32, expected.astype(np.float32))


PE = positional_encoding(8, 4, np.float64)  # 8 positions, a model narrower than that (d = 4)
W = np.arange(20.0).reshape(5, 4)  # 5 ids; scale sqrt(4) = 2


def test_a_sequence_may_fill_the_positional_table():
    """A source of max_src_len ids (a line cut to the model's length: BOS + max_src_len - 2 pieces +
    EOS) uses every position of the table; the width (4) does not limit the length."""
    ids = np.array([[1, 2, 3, 4, 0, 1, 2, 3]])
    x, _ = embedding_forward(ids, W, PE, 0)
    np.testing.assert_array_equal(x, W[ids] * 2.0 + PE[None])


def test_each_row_at_its_own_position():
    """Beam search feeds each sentence's rows at the sentence's own step (start (N,)), up to the
    table's last position: W[id] * sqrt(d) + PE[start] per row."""
    x, _ = embedding_forward(np.array([[3], [1], [4]]), W, PE, np.array([7, 0, 2]))
    expected = np.stack([W[3] * 2.0 + PE[7], W[1] * 2.0 + PE[0], W[4] * 2.0 + PE[2]])[:, None]
    assert x.shape == (3, 1, 4)
    np.testing.assert_array_equal(x, expected)


def test_a_sequence_longer_than_the_table_is_refused():
    """Tokenized data cut at longer limits than the model's (mtcli.data.prepare(max_src_len=...),
    then `mtcli train --prepared`) reach it; unchecked, the kernel reads past the table's end."""
    message = r"^sequence of 9 tokens exceeds the model's 8 positions$"
    with pytest.raises(ValueError, match=message):
        embedding_forward(np.zeros((1, 9), np.int64), W, PE, 0)
    with pytest.raises(ValueError, match=message):
        embedding_forward(np.zeros((2, 1), np.int64), W, PE, np.array([3, 8]))


# ---- feed-forward gradients ----------------------------------------------------------------------


def test_ffn_backward_adds_into_the_arrays_it_is_given():
    """The gradients go into the given arrays (+=), not into new ones put in their place: the model's
    are views of one flat buffer."""
    r = np.random.default_rng(1)
    p = {"w1": r.standard_normal((6, 10)), "b1": r.standard_normal(10), "w2": r.standard_normal((10, 6)),
         "b2": r.standard_normal(6)}
    x = r.standard_normal((2, 4, 6))
    out, cache = ffn_forward(x, p)
    d = r.standard_normal(out.shape)
    given = {n: np.ones_like(t) for n, t in p.items()}
    held = dict(given)  # the same array objects
    ffn_backward(d, cache, given)
    assert all(given[n] is held[n] for n in p)
    errors = check(lambda: float((ffn_forward(x, p)[0] * d).sum()), p, {n: held[n] - 1.0 for n in p})
    assert max(errors.values()) < TOL, errors


def test_the_flat_gradient_holds_the_ffn_gradients():
    """Adam steps with model.grad, the flat buffer: after forward_backward its FFN sections hold the
    gradient of the mean token loss (float64 central differences), in both stacks."""
    cfg = ModelConfig(src_vocab=11, tgt_vocab=13, d_model=8, d_ff=12, n_heads=2, n_layers=1, max_src_len=8,
                      max_tgt_len=8, dropout=0.0, attn_dropout=0.0)
    model = Model(cfg, seed=1, dtype=np.float64)
    src = np.array([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])
    tgt = np.array([[2, 5, 6, 7, 8, 3], [2, 9, 10, 3, 0, 0]])
    tgt_len = (tgt[:, 1:] != 0).sum(1)
    batch = Batch(src=src, src_len=(src != 0).sum(1), tgt_in=tgt[:, :-1] * (np.arange(5) < tgt_len[:, None]),
                  tgt_out=tgt[:, 1:], tgt_len=tgt_len)
    n = model.forward_backward(batch, None).n_tokens
    flat = views(model.grad, cfg)
    names = [(g, t) for g in ("enc.0.ffn", "dec.0.ffn") for t in ("w1", "b1", "w2", "b2")]
    errors = check(lambda: model.evaluate(batch).loss / n, {f"{g}.{t}": model.params[g][t] for g, t in names},
                   {f"{g}.{t}": flat[g][t] for g, t in names})
    assert max(errors.values()) < TOL, errors


# ---- log-softmax ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype,far", [(np.float32, 60.0), (np.float64, 400.0)])
def test_log_softmax_is_finite_for_far_apart_logits(dtype, far):
    """Each row shifted by its own maximum (decoding's rows, an ensemble's mean): neither overflows
    (exp of twice the maximum) nor, far below another row, underflows to log(0)."""
    logits = np.array([[far, far - 1, 0.0], [-far, -far - 1, -2 * far]], dtype)
    lse = np.log1p(np.exp(-1.0))
    expected = [[-lse, -1 - lse, -far - lse]] * 2
    np.testing.assert_allclose(log_softmax(logits), expected, rtol=1e-6 if dtype == np.float32 else 1e-14)
