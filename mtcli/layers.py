"""Layers as forward/backward pairs (thesis ch. 4-5).

`<layer>_forward(...) -> (out, cache)` keeps in `cache` (a NamedTuple) only what `<layer>_backward`
needs; `<layer>_backward(dout, cache, <grads>)` returns the input gradient and adds (`+=`) into the
parameter gradients it is given, so shared buffers accumulate across uses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mtcli import kernels


class LinearCache(NamedTuple):
    x: np.ndarray  # (..., Cin): the input
    w: np.ndarray  # (Cin, Cout)


def linear_forward(x, w, b):
    """x (..., Cin) @ w (Cin, Cout) + b (Cout,)."""
    out = x.reshape(-1, x.shape[-1]) @ w  # (N, Cout)
    out += b
    return out.reshape(*x.shape[:-1], w.shape[1]), LinearCache(x, w)


def linear_backward(dout, cache, dw, db):
    x = cache.x.reshape(-1, cache.x.shape[-1])  # (N, Cin)
    dout2 = dout.reshape(-1, dout.shape[-1])  # (N, Cout)
    dw += x.T @ dout2
    db += dout2.sum(0)
    return (dout2 @ cache.w.T).reshape(*dout.shape[:-1], cache.w.shape[0])


class LayerNormCache(NamedTuple):
    xhat: np.ndarray  # (N, C): the input normalised, rows flattened
    rstd: np.ndarray  # (N,): 1 / standard deviation of each row
    gain: np.ndarray  # (C,)


def layernorm_forward(x, gain, b):
    """(x - mean) / std * gain + b over the last axis."""
    shape = x.shape
    out, xhat, rstd = kernels.layernorm_forward(np.ascontiguousarray(x).reshape(-1, shape[-1]), gain, b)
    return out.reshape(shape), LayerNormCache(xhat, rstd, gain)


def layernorm_backward(dout, cache, dgain, db):
    dx = kernels.layernorm_backward(
        np.ascontiguousarray(dout).reshape(cache.xhat.shape), cache.xhat, cache.rstd, cache.gain, dgain, db
    )
    return dx.reshape(dout.shape)


class DropoutCache(NamedTuple):
    rate: float
    seed: int  # the keep decisions follow from it (kernels/elementwise.py)


def _seed(rng) -> int:
    """A fresh seed for one dropout call's keep decisions."""
    return int(rng.integers(2**63))


def dropout_forward(x, rate, rng):
    """Inverted dropout; rng None (inference) or rate 0 is the identity (cache None)."""
    if rng is None or rate == 0.0:
        return x, None
    cache = DropoutCache(rate, _seed(rng))
    return kernels.dropout(np.ascontiguousarray(x), cache.rate, cache.seed), cache


def residual_dropout_forward(x, sub, rate, rng):
    """x + Dropout(sub), the residual connection around a sub-layer, in one pass."""
    if rng is None or rate == 0.0:
        return x + sub, None
    cache = DropoutCache(rate, _seed(rng))
    return kernels.dropout_add(np.ascontiguousarray(x), np.ascontiguousarray(sub), cache.rate, cache.seed), cache


def dropout_mask(shape, rate, rng, dtype):
    """Keep-mask of inverted dropout: 0 with probability rate, else 1 / (1 - rate)."""
    mask = np.empty(shape, dtype)
    kernels.dropout_mask(mask, rate, _seed(rng))
    return mask


def dropout_backward(dout, cache):
    """Gradient of dropout_forward and, for dsub, of residual_dropout_forward (whose dx is dout)."""
    return dout if cache is None else kernels.dropout(np.ascontiguousarray(dout), cache.rate, cache.seed)


class FFNCache(NamedTuple):
    x: np.ndarray  # (N, C): the input, rows flattened
    h: np.ndarray  # (N, F): ReLU(x W1 + b1)
    w1: np.ndarray  # (C, F)
    w2: np.ndarray  # (F, C)


def ffn_forward(x, params):
    """ReLU(x W1 + b1) W2 + b2 (thesis 3.2 V. Perceptron layer)."""
    shape = x.shape
    x2 = x.reshape(-1, shape[-1])  # (N, C)
    h = x2 @ params["w1"]  # (N, F)
    kernels.bias_relu(h, params["b1"])
    out = h @ params["w2"]  # (N, C)
    out += params["b2"]
    return out.reshape(shape), FFNCache(x2, h, params["w1"], params["w2"])


def ffn_backward(dout, cache, grads):
    dout2 = dout.reshape(-1, dout.shape[-1])  # (N, C)
    grads["w2"] += cache.h.T @ dout2
    grads["b2"] += dout2.sum(0)
    dh = dout2 @ cache.w2.T  # (N, F)
    kernels.relu_backward(dh, cache.h, grads["b1"])
    grads["w1"] += cache.x.T @ dh
    return (dh @ cache.w1.T).reshape(dout.shape)


def positional_encoding(n_pos, d_model, dtype=np.float32):
    """Fixed sinusoidal table (Vaswani et al.; thesis 3.2 I. Embedding layer): (n_pos, d_model)."""
    pos = np.arange(n_pos)[:, None]
    i = np.arange(d_model)[None, :]
    angle = pos / 10000.0 ** (2 * (i // 2) / d_model)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle)).astype(dtype)


class EmbeddingCache(NamedTuple):
    ids: np.ndarray  # (B, T) rows of the table
    scale: np.floating  # sqrt(C), in the weights' dtype
    factors: np.ndarray | None  # (B, T) each id's case factor; None: the ids carry none


def embedding_forward(ids, w, pe, start=0, factor_w=None):
    """W[ids] * sqrt(d) + PE; ids (B, T) at positions start, ..., start + T - 1 -> (B, T, C). start may
    be each row's own (B,) for one position each (T = 1: sentences at different steps of decoding).
    factor_w (F, C): the ids carry a factor, id = row + V * factor, whose embedding is added (Marian's
    factored vocabulary, summed)."""
    scale = w.dtype.type(np.sqrt(w.shape[1]))
    factors = None
    if factor_w is not None:
        factors, ids = np.divmod(ids, w.shape[0])
    if np.max(start) + ids.shape[1] > pe.shape[0]:
        raise ValueError(f"sequence of {np.max(start) + ids.shape[1]} tokens exceeds the model's {pe.shape[0]} positions")
    if np.ndim(start):
        out = w[ids] * scale + pe[start][:, None]  # (B, 1, C)
    else:
        out = kernels.embedding_forward(ids, w, scale, pe[start:])
    if factors is not None:
        out += factor_w[factors]
    return out, EmbeddingCache(ids, scale, factors)


def embedding_backward(dout, cache, dw, dfactor_w=None):
    dout = np.ascontiguousarray(dout)
    kernels.embedding_backward(dout, cache.ids, dw, cache.scale)
    if cache.factors is not None:  # the same scatter-add (np.add.at took ~4.5 ms of Large's 130 per thread)
        kernels.embedding_backward(dout, cache.factors, dfactor_w, cache.scale.dtype.type(1.0))


def log_softmax(logits):
    """Log-probabilities over the last axis; overwrites logits."""
    logits -= logits.max(-1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(-1, keepdims=True))
