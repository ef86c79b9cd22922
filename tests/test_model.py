"""Numeric core: parameter counts, per-layer and whole-model gradient checks, padding invariance."""

from dataclasses import replace

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
from mtcli.model import Model, count_params, init_params, param_shapes, views
from mtcli.stats import Stats
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


def test_embedding_with_case_factors_grad_and_reference():
    """Ids carrying a factor (id = row + V * factor): W[row] * sqrt(d) + PE + F[factor], and both tables'
    gradients, repeated rows and factors accumulating."""
    ids = np.array([[1, 7, 12, 0], [3, 6, 0, 0]])  # V = 5: rows 1, 2, 2, 0 / 3, 1, 0, 0; factors 0, 1, 2, 0 / 0, 1, 0, 0
    pe = positional_encoding(8, 6, np.float64)
    w, factor_w = randn(5, 6), randn(3, 6)
    out, _ = embedding_forward(ids, w, pe, factor_w=factor_w)
    np.testing.assert_allclose(out, w[ids % 5] * np.sqrt(6) + pe[:4] + factor_w[ids // 5])
    fwd = lambda w, f: embedding_forward(ids, w, pe, factor_w=f)  # noqa: E731

    def bwd(d, c, g):
        embedding_backward(d, c, g["w"], g["f"])
        return {}

    assert check_layer(fwd, bwd, {}, {"w": w, "f": factor_w}) < TOL


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


def test_whole_model_gradient_with_case_factors():
    """The English ids carry case factors: the factor table's gradient too, beside every other tensor."""
    model, batch = tiny_model(case_factors=True), tiny_batch()
    batch = replace(batch, src=batch.src + 11 * (np.arange(batch.src.shape[1]) % 3) * (batch.src > 3))
    model.params["src_case"]["w"][...] = randn(3, 8)  # (they start at zero)
    stats = model.forward_backward(batch, rng=None, smoothing=0.1)
    f = lambda: model._loss(batch, None, 0.1, backward=False).loss / stats.n_tokens  # noqa: E731
    tensors = {f"{g}.{n}": t for g, ts in model.params.items() for n, t in ts.items()}
    analytic = {f"{g}.{n}": t for g, ts in model.grads.items() for n, t in ts.items()}
    errors = check(f, tensors, analytic)
    worst = max(errors, key=errors.get)
    assert errors[worst] < TOL, (worst, errors[worst])
    assert len(errors) == 89 and np.linalg.norm(analytic["src_case.w"]) > 100 * FLOOR


def test_a_new_case_factor_table_leaves_the_models_function_as_it_was():
    """It starts at zero: a model given another's weights (--init-from) with it added scores every
    casing's factors exactly as the model without them scores the pieces."""
    plain, factored = tiny_model(), tiny_model(case_factors=True)
    assert not factored.params["src_case"]["w"].any()
    for group, ts in plain.params.items():
        for n, t in ts.items():
            factored.params[group][n][...] = t
    batch = tiny_batch()
    with_factors = replace(batch, src=batch.src + 11 * (batch.src > 3) * 2)
    assert plain.evaluate(batch) == factored.evaluate(with_factors)


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


# --- from the mutation run over mtcli/model.py (issue 21): what its surviving mutants changed ---------


def test_initialisation_a_seed_gives():
    """Drawn in buffer order from the seed: N(0, d^-1/2) embeddings, Glorot-uniform matrices (limit
    sqrt(6 / (fan_in + fan_out))), unit layer-norm gains, zero biases; float32 (the default) is the
    same draws rounded."""
    cfg = tiny_model().cfg
    rng, expected = np.random.default_rng(5), []
    for name, shape in param_shapes(cfg).items():
        group, short = name.rsplit(".", 1)
        if group.endswith("_emb"):
            t = rng.normal(0.0, 8**-0.5, shape)
        elif short == "g":
            t = np.ones(shape)
        elif len(shape) == 2:
            limit = np.sqrt(6.0 / (shape[0] + shape[1]))
            t = rng.uniform(-limit, limit, shape)
        else:
            t = np.zeros(shape)
        expected.append(t.ravel())
    expected = np.concatenate(expected)
    np.testing.assert_array_equal(init_params(cfg, 5, np.float64), expected)
    model = Model(cfg, seed=5)
    assert model.flat.dtype == np.float32
    np.testing.assert_array_equal(model.flat, expected.astype(np.float32))
    assert model.params["dec.1.ln3"]["g"].tolist() == [1.0] * 8


def test_views_lay_the_tensors_end_to_end_in_buffer_order():
    """The model file's layout: each tensor right after the one before it, none overlapping."""
    cfg = tiny_model().cfg
    n = count_params(cfg)
    groups = views(np.arange(n), cfg)
    np.testing.assert_array_equal(np.concatenate([t.ravel() for ts in groups.values() for t in ts.values()]),
                                  np.arange(n))
    assert groups["tgt_emb"]["w"][0, 0] == 11 * 8 and groups["out"]["b"].tolist() == list(range(n - 13, n))


def test_a_model_built_from_weights_uses_them():
    """Loaded weights (checkpoint.py passes them in) are what the model scores with, not a fresh init."""
    trained, batch = tiny_model(), tiny_batch()
    loaded = Model(trained.cfg, trained.flat.copy())
    assert loaded.evaluate(batch) == trained.evaluate(batch)


def test_weights_of_another_size_are_refused_with_both_counts():
    cfg = tiny_model().cfg
    with pytest.raises(ValueError, match=rf"^weights hold 5 values, config needs {count_params(cfg)}$"):
        Model(cfg, np.zeros(5))


def test_the_gradient_goes_into_the_given_buffer():
    """distributed.Replicas gives each thread's model its own row of one gradient array."""
    model, batch = tiny_model(), tiny_batch()
    model.forward_backward(batch, None, 0.1)
    g = np.zeros_like(model.flat)
    Model(model.cfg, model.flat, grad=g).forward_backward(batch, None, 0.1)
    assert np.count_nonzero(g) > 0
    np.testing.assert_array_equal(g, model.grad)


def test_shards_with_n_total_add_up_to_the_whole_batch_gradient():
    """train_step's shards (threads, MPI ranks) each add their part of the whole batch's mean loss."""
    whole, parts, batch = tiny_model(), tiny_model(), tiny_batch()
    expected = whole.forward_backward(batch, None, 0.1)
    total = Stats.zero()
    for rows in (slice(0, 2), slice(2, 3)):
        shard = Batch(src=batch.src[rows], src_len=batch.src_len[rows], tgt_in=batch.tgt_in[rows],
                      tgt_out=batch.tgt_out[rows], tgt_len=batch.tgt_len[rows])
        total += parts.forward_backward(shard, None, 0.1, n_total=batch.n_tokens)
    assert total.n_tokens == expected.n_tokens == 11
    assert total.loss == pytest.approx(expected.loss, rel=1e-12)
    for name, g in whole.grads.items():
        for short, t in g.items():
            np.testing.assert_allclose(parts.grads[name][short], t, rtol=1e-10, atol=1e-14, err_msg=f"{name}.{short}")


def test_evaluate_scores_plain_cross_entropy_and_leaves_the_gradient_alone():
    """Its loss is scores.json's "loss" (no label smoothing); and Replicas' threads keep their gradient
    buffers across an evaluation, so it must add nothing to them."""
    model, batch = tiny_model(), tiny_batch()
    s = model.evaluate(batch)
    assert s.loss == s.nll and s.n_tokens == 11
    assert np.count_nonzero(model.grad) == 0


def test_evaluate_counts_the_tokens_whose_argmax_is_the_target():
    model, batch = tiny_model(), tiny_batch()
    memory, _ = model.encode(batch.src, batch.src_len)
    y, _ = model.decode(batch.tgt_in, batch.tgt_len, memory, batch.src_len)
    pred = (y @ model.params["out"]["w"] + model.params["out"]["b"]).argmax(-1)  # (B, T)
    valid = batch.tgt_out != 0
    # every other target token replaced by the model's own choice, so some are right and some wrong
    tgt_out = np.where(valid & (np.arange(5) % 2 == 0) & (pred != 0), pred, batch.tgt_out)
    expected = int(((pred == tgt_out) & valid).sum())
    assert 0 < expected < 11
    scored = Batch(src=batch.src, src_len=batch.src_len, tgt_in=batch.tgt_in, tgt_out=tgt_out, tgt_len=batch.tgt_len)
    assert model.evaluate(scored).correct == expected


class _CountingRng:
    """A generator that counts the seeds drawn from it: one per dropout mask (layers._seed)."""

    def __init__(self, seed):
        self.rng, self.draws = np.random.default_rng(seed), 0

    def integers(self, *args, **kw):
        self.draws += 1
        return self.rng.integers(*args, **kw)


@pytest.mark.parametrize("dropout,attn_dropout,masks", [(0.3, 0.0, 12), (0.0, 0.3, 6), (0.3, 0.3, 18)])
def test_training_drops_out_at_every_place(dropout, attn_dropout, masks):
    """Two blocks each side: residual dropout on both embeddings and after each sub-layer (2 + 2 * 2 +
    2 * 3 = 12 masks), attention dropout in each attention (2 * 1 + 2 * 2 = 6)."""
    model, batch = tiny_model(dropout=dropout, attn_dropout=attn_dropout), tiny_batch()
    rng = _CountingRng(1)
    model.forward_backward(batch, rng, 0.1)
    assert rng.draws == masks
    if not dropout:  # attention dropout alone changes the training loss too
        assert model.forward_backward(batch, np.random.default_rng(2)).nll != model.evaluate(batch).nll


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embeddings_add_the_positional_table_in_the_models_dtype(dtype):
    """W[ids] * sqrt(d) + PE, both in the model's dtype: whole sequences (training, encoding) and one
    position per row (decoding steps)."""
    model = tiny_model(dtype)
    ids, start, scale = np.array([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]]), np.array([0, 3]), dtype(np.sqrt(8))
    pe = positional_encoding(8, 8, dtype)
    for table, model_pe in (("src_emb", model.pe_src), ("tgt_emb", model.pe_tgt)):
        w = model.params[table]["w"]
        x, _, _ = model._embed(ids, table, model_pe, None)
        assert x.dtype == dtype
        np.testing.assert_array_equal(x, w[ids] * scale + pe[None, :5], err_msg=table)
        x, _, _ = model._embed(ids[:, :1], table, model_pe, None, start)
        assert x.dtype == dtype
        np.testing.assert_array_equal(x, w[ids[:, :1]] * scale + pe[start][:, None], err_msg=table)
