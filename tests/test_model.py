"""Numeric core: parameter counts, per-layer and whole-model gradient checks, padding invariance."""

import numpy as np
import pytest

from mtcli.attention import mha_backward, mha_forward
from mtcli.config import ModelConfig, model_config
from mtcli.data import Batch
from mtcli.decode import decode_step, start_decoding
from mtcli.layers import (
    embedding_backward,
    embedding_forward,
    ffn_backward,
    ffn_forward,
    layernorm_backward,
    layernorm_forward,
    linear_backward,
    linear_forward,
    positional_encoding,
)
from mtcli.model import Model, count_params, param_shapes
from tests.gradcheck import FLOOR, check, check_layer

TOL = 1e-5  # gradient checks: largest relative error of a hand-written backward pass against float64 central differences
rng = np.random.default_rng(0)


def randn(*shape):
    return rng.standard_normal(shape)


@pytest.mark.parametrize("preset,expected", [("small", 1_166_966), ("medium", 2_822_902), ("large", 6_950_390)])
def test_parameter_counts_match_thesis(preset, expected):
    assert count_params(model_config(preset, src_vocab=4562, tgt_vocab=6134)) == expected


def test_linear_grad():
    fwd = lambda x, w, b: linear_forward(x, w, b)  # noqa: E731
    bwd = lambda d, c, g: {"x": linear_backward(d, c, g["w"], g["b"])}  # noqa: E731
    assert check_layer(fwd, bwd, {"x": randn(2, 3, 5)}, {"w": randn(5, 4), "b": randn(4)}) < TOL


def test_layernorm_grad():
    bwd = lambda d, c, g: {"x": layernorm_backward(d, c, g["gain"], g["b"])}  # noqa: E731
    assert check_layer(layernorm_forward, bwd, {"x": randn(2, 3, 6)}, {"gain": randn(6), "b": randn(6)}) < TOL


def test_ffn_grad():
    fwd = lambda x, **p: ffn_forward(x, p)  # noqa: E731
    bwd = lambda d, c, g: {"x": ffn_backward(d, c, g)}  # noqa: E731
    p = {"w1": randn(6, 10), "b1": randn(10), "w2": randn(10, 6), "b2": randn(6)}
    assert check_layer(fwd, bwd, {"x": randn(2, 4, 6)}, p) < TOL


def test_embedding_grad():
    ids = np.array([[1, 2, 2, 0], [3, 1, 0, 0]])  # repeated ids must accumulate
    pe = positional_encoding(8, 6, np.float64)
    fwd = lambda w: embedding_forward(ids, w, pe)  # noqa: E731

    def bwd(d, c, g):
        embedding_backward(d, c, g["w"])
        return {}

    assert check_layer(fwd, bwd, {}, {"w": randn(5, 6)}) < TOL


@pytest.mark.parametrize("causal", [False, True])
def test_attention_grad(causal):
    C, H = 8, 2
    k_len = np.array([5, 3])  # second sequence has two padding keys
    p = {n: randn(C, C) if n[0] == "w" else randn(C) for n in ("wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo")}
    fwd = lambda xq, xkv, **p: mha_forward(xq, xkv, k_len, causal, p, H)  # noqa: E731

    def bwd(d, c, g):
        dxq, dxkv = mha_backward(d, c, g)
        return {"xq": dxq, "xkv": dxkv}

    Tq = 5 if causal else 4
    assert check_layer(fwd, bwd, {"xq": randn(2, Tq, C), "xkv": randn(2, 5, C)}, p) < TOL


def tiny_batch():
    """Three pairs of different lengths, so both sides carry padding."""
    src = np.array([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0], [2, 4, 9, 3, 0]])
    tgt = np.array([[2, 5, 6, 7, 8, 3], [2, 9, 3, 0, 0, 0], [2, 4, 10, 11, 3, 0]])
    tgt_len = (tgt[:, 1:] != 0).sum(1)
    return Batch(src=src, src_len=(src != 0).sum(1), tgt_in=tgt[:, :-1] * (np.arange(5) < tgt_len[:, None]),
                 tgt_out=tgt[:, 1:], tgt_len=tgt_len)


def tiny_model(dtype=np.float64, **kw):
    kw = {"dropout": 0.0, "attn_dropout": 0.0, **kw}
    cfg = ModelConfig(src_vocab=11, tgt_vocab=13, d_model=8, d_ff=12, n_heads=2, n_layers=2,
                      max_src_len=8, max_tgt_len=8, **kw)
    return Model(cfg, seed=1, dtype=dtype)


@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_whole_model_gradient(dropout):
    """Every parameter tensor of a two-block model, padding present, label smoothing on; with
    dropout too: its keep decisions follow from seeds, so a generator in the same state repeats them."""
    model, batch = tiny_model(dropout=dropout, attn_dropout=dropout), tiny_batch()
    same_masks = lambda: np.random.default_rng(7) if dropout else None  # noqa: E731
    stats = model.forward_backward(batch, rng=same_masks(), smoothing=0.1)
    f = lambda: model._loss(batch, same_masks(), 0.1, backward=False).loss / stats.n_tokens  # noqa: E731
    tensors = {f"{g}.{n}": t for g, ts in model.params.items() for n, t in ts.items()}
    analytic = {f"{g}.{n}": t for g, ts in model.grads.items() for n, t in ts.items()}
    errors = check(f, tensors, analytic)
    worst = max(errors, key=errors.get)
    assert errors[worst] < TOL, (worst, errors[worst])
    assert len(errors) == len(param_shapes(model.cfg)) == 88
    # the error floor only forgives noise: every weight matrix has a gradient far above it
    assert min(np.linalg.norm(a) for a in analytic.values() if a.ndim == 2) > 100 * FLOOR


def test_padding_does_not_change_the_loss():
    """The key-padding mask makes a padded batch score each sentence exactly as it scores alone."""
    model, batch = tiny_model(), tiny_batch()
    together = model.evaluate(batch)
    alone = [model.evaluate(Batch(src=batch.src[i:i + 1, : batch.src_len[i]], src_len=batch.src_len[i:i + 1],
                                  tgt_in=batch.tgt_in[i:i + 1, : batch.tgt_len[i]],
                                  tgt_out=batch.tgt_out[i:i + 1, : batch.tgt_len[i]],
                                  tgt_len=batch.tgt_len[i:i + 1])) for i in range(3)]
    assert together.nll == pytest.approx(sum(s.nll for s in alone), rel=1e-12)
    assert together.n_tokens == sum(s.n_tokens for s in alone)


def test_incremental_decoding_matches_full_decoder():
    model, batch = tiny_model(), tiny_batch()
    memory, _ = model.encode(batch.src, batch.src_len)
    y, _ = model.decode(batch.tgt_in, np.full(3, 5), memory, batch.src_len)
    full = y @ model.params["out"]["w"] + model.params["out"]["b"]  # (B, T, V)
    state = start_decoding(model, batch.src, batch.src_len)
    for t in range(5):
        logp, state = decode_step(model, state, batch.tgt_in[:, t])
        ref = full[:, t] - np.log(np.exp(full[:, t]).sum(-1, keepdims=True))
        np.testing.assert_allclose(logp, ref, rtol=1e-10, atol=1e-10)


def test_dropout_is_off_at_inference_and_on_in_training():
    model = tiny_model(dropout=0.3, attn_dropout=0.3)
    batch = tiny_batch()
    assert model.evaluate(batch).nll == model.evaluate(batch).nll
    a = model.forward_backward(batch, np.random.default_rng(1)).nll
    b = model.forward_backward(batch, np.random.default_rng(2)).nll
    assert a != b
