"""Multi-head attention (thesis 3.3): projections by BLAS, the attention itself by a Numba kernel."""

from __future__ import annotations

import numpy as np

from mtcli import kernels
from mtcli.layers import dropout_mask, linear_backward, linear_forward

NO_DROP = {np.dtype(np.float32): np.zeros((0, 0, 0, 0), np.float32),
           np.dtype(np.float64): np.zeros((0, 0, 0, 0), np.float64)}


def attention_dropout_mask(shape, p, rng, dtype):
    if rng is None or p == 0.0:
        return NO_DROP[np.dtype(dtype)]
    return dropout_mask(shape, p, rng, dtype)


def mha_forward(xq, xkv, k_len, causal, p, n_heads, attn_dropout=0.0, rng=None):
    """xq (B, Tq, C) attends to xkv (B, Tk, C); keys j >= k_len[b] are padding."""
    q, cq = linear_forward(xq, p["wq"], p["bq"])  # (B, Tq, C)
    k, ck = linear_forward(xkv, p["wk"], p["bk"])  # (B, Tk, C)
    v, cv = linear_forward(xkv, p["wv"], p["bv"])  # (B, Tk, C)
    B, Tq, _ = q.shape
    drop = attention_dropout_mask((B, n_heads, Tq, k.shape[1]), attn_dropout, rng, q.dtype)
    a, probs = kernels.attention_forward(q, k, v, k_len, causal, drop, n_heads)  # (B, Tq, C)
    out, co = linear_forward(a, p["wo"], p["bo"])  # (B, Tq, C)
    return out, (cq, ck, cv, co, q, k, v, probs, drop, n_heads)


def mha_backward(dout, cache, g):
    """Returns (dxq, dxkv); for self-attention the caller adds the two."""
    cq, ck, cv, co, q, k, v, probs, drop, n_heads = cache
    da = linear_backward(dout, co, g["wo"], g["bo"])
    dq, dk, dv = kernels.attention_backward(np.ascontiguousarray(da), q, k, v, probs, drop, n_heads)
    dxq = linear_backward(dq, cq, g["wq"], g["bq"])
    dxkv = linear_backward(dk, ck, g["wk"], g["bk"]) + linear_backward(dv, cv, g["wv"], g["bv"])
    return dxq, dxkv
