"""Multi-head attention (thesis 3.2 II. Multi-head attention): projections by BLAS, the attention itself
by a Numba kernel.

mha_forward/mha_backward run on whole sequences (training, a forced reading); a decoding step's, one new
position per hypothesis against the cached keys/values of earlier steps, is decode._block_step's."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mtcli import kernels
from mtcli.layers import LinearCache, dropout_mask, linear_backward, linear_forward

NO_DROP = {np.dtype(np.float32): np.zeros((0, 0, 0, 0), np.float32),
           np.dtype(np.float64): np.zeros((0, 0, 0, 0), np.float64)}


def attention_dropout_mask(shape, rate, rng, dtype):
    if rng is None or rate == 0.0:
        return NO_DROP[np.dtype(dtype)]
    return dropout_mask(shape, rate, rng, dtype)


class AttentionCache(NamedTuple):
    q_proj: LinearCache  # input xq (B, Tq, C), weight wq (C, C)
    k_proj: LinearCache  # input xkv (B, Tk, C), weight wk (C, C)
    v_proj: LinearCache  # input xkv (B, Tk, C), weight wv (C, C)
    out_proj: LinearCache  # input: the heads' outputs side by side (B, Tq, C), weight wo (C, C)
    q: np.ndarray  # (B, Tq, C): head h in channels h*D:(h+1)*D
    k: np.ndarray  # (B, Tk, C)
    v: np.ndarray  # (B, Tk, C)
    probs: np.ndarray  # (B, H, Tq, Tk): softmax weights before dropout
    drop: np.ndarray  # (B, H, Tq, Tk): scaled keep-mask, or (0, 0, 0, 0): no dropout
    n_heads: int


def mha_forward(xq, xkv, k_len, causal, params, n_heads, attn_dropout=0.0, rng=None):
    """xq (B, Tq, C) attends to xkv (B, Tk, C); keys j >= k_len[b] are padding."""
    q, q_proj = linear_forward(xq, params["wq"], params["bq"])  # (B, Tq, C)
    k, k_proj = linear_forward(xkv, params["wk"], params["bk"])  # (B, Tk, C)
    v, v_proj = linear_forward(xkv, params["wv"], params["bv"])  # (B, Tk, C)
    B, Tq, _ = q.shape
    drop = attention_dropout_mask((B, n_heads, Tq, k.shape[1]), attn_dropout, rng, q.dtype)
    a, probs = kernels.attention_forward(q, k, v, k_len, causal, drop, n_heads)  # (B, Tq, C)
    out, out_proj = linear_forward(a, params["wo"], params["bo"])  # (B, Tq, C)
    return out, AttentionCache(q_proj, k_proj, v_proj, out_proj, q, k, v, probs, drop, n_heads)


def mha_backward(dout, cache, grads):
    """Returns (dxq, dxkv); for self-attention the caller adds the two."""
    da = linear_backward(dout, cache.out_proj, grads["wo"], grads["bo"])
    dq, dk, dv = kernels.attention_backward(np.ascontiguousarray(da), cache.q, cache.k, cache.v, cache.probs,
                                            cache.drop, cache.n_heads)
    dxq = linear_backward(dq, cache.q_proj, grads["wq"], grads["bq"])
    dxkv = linear_backward(dk, cache.k_proj, grads["wk"], grads["bk"])
    dxkv += linear_backward(dv, cache.v_proj, grads["wv"], grads["bv"])
    return dxq, dxkv
