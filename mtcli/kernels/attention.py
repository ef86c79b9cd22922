"""Scaled dot-product attention over all heads at once, forward and backward.

Heads are read straight out of the (B, T, C) projections (head h owns channels h*D:(h+1)*D), so no
transpose copies are made. Key padding is given as lengths (padding always sits at the end), which
also covers the causal decoder: query i sees keys j <= i and j < k_len.
"""

import numpy as np

from mtcli.kernels.jit import FAST, PARALLEL_MIN_WORK, exp_nonpos, kernel, prange


def _mask(B, Tq, Tk, k_len, causal):
    allowed = np.arange(Tk)[None, None, :] < k_len[:, None, None]  # (B, 1, Tk)
    if causal:
        allowed = allowed & (np.arange(Tk)[None, :] <= np.arange(Tq)[:, None])[None]  # (B, Tq, Tk)
    return np.broadcast_to(allowed, (B, Tq, Tk))[:, None]  # (B, 1, Tq, Tk)


def _heads(x, n_heads):
    B, T, C = x.shape
    return x.reshape(B, T, n_heads, C // n_heads).transpose(0, 2, 1, 3)  # (B, H, T, D)


def attention_forward_ref(q, k, v, k_len, causal, drop, n_heads):
    """q (B, Tq, C), k/v (B, Tk, C), k_len (B,), drop: (B, H, Tq, Tk) scaled keep-mask or size 0.
    Returns out (B, Tq, C) and the softmax weights p (B, H, Tq, Tk) before dropout."""
    B, Tq, C = q.shape
    Tk = k.shape[1]
    qh, kh, vh = _heads(q, n_heads), _heads(k, n_heads), _heads(v, n_heads)
    s = qh @ kh.transpose(0, 1, 3, 2) * (C // n_heads) ** -0.5  # (B, H, Tq, Tk)
    s = np.where(_mask(B, Tq, Tk, k_len, causal), s, -np.inf)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    pd = p * drop if drop.size else p
    out = (pd @ vh).transpose(0, 2, 1, 3).reshape(B, Tq, C)  # (B, Tq, C)
    return out.astype(q.dtype), p.astype(q.dtype)


def attention_backward_ref(dout, q, k, v, p, drop, n_heads):
    """Gradients (dq, dk, dv) of attention_forward_ref's out given dout (B, Tq, C)."""
    B, Tq, C = q.shape
    qh, kh, vh, doh = (_heads(x, n_heads) for x in (q, k, v, dout))
    pd = p * drop if drop.size else p
    dvh = pd.transpose(0, 1, 3, 2) @ doh  # (B, H, Tk, D)
    dpd = doh @ vh.transpose(0, 1, 3, 2)  # (B, H, Tq, Tk)
    dp = dpd * drop if drop.size else dpd
    ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * (C // n_heads) ** -0.5  # softmax backward
    dqh = ds @ kh
    dkh = ds.transpose(0, 1, 3, 2) @ qh
    merge = lambda x: x.transpose(0, 2, 1, 3).reshape(x.shape[0], x.shape[2], C)  # noqa: E731
    return merge(dqh), merge(dkh), merge(dvh)


# Inlined by Numba itself (inline="always"): as calls, which LLVM did not inline across Numba's modules,
# each (query, key) pair paid four calls' overhead on D = 32 channels; inlined, the attention backward of a
# Large half-batch runs 2.3x, the forward 1.4x as fast, with bit-identical results (benchmarks/kernels.py).
@kernel(fastmath=FAST, inline="always")
def _dot(x, y):
    acc = x.dtype.type(0.0)
    for d in range(x.size):
        acc += x[d] * y[d]
    return acc


@kernel(fastmath=FAST, inline="always")
def _axpy(a, x, y):
    """y += a * x"""
    for d in range(y.size):
        y[d] += a * x[d]


@kernel(fastmath=FAST, inline="always")
def _softmax_scores(qi, keys, k0, n_keys, scale, prow):
    """prow[:n_keys] <- the softmax of the scaled scores of query qi (D,) against keys[j, k0 : k0 + D], j < n_keys."""
    D, zero = qi.size, qi.dtype.type(0.0)
    m = zero
    for j in range(n_keys):
        s = _dot(qi, keys[j, k0 : k0 + D]) * scale
        prow[j] = s
        m = s if j == 0 else max(m, s)
    z = zero
    for j in range(n_keys):
        e = exp_nonpos(prow[j] - m)
        prow[j] = e
        z += e
    inv_z = qi.dtype.type(1.0) / z  # inf for a row without keys, multiplying nothing
    for j in range(n_keys):
        prow[j] = prow[j] * inv_z


@kernel()
def _pair(q, k, H, bh):
    """Task bh is batch row b = bh // H, head h = bh % H, which owns channels c0:c1 (D of them).
    Returns Tq, Tk, b, h, c0, c1 and the score scale D**-0.5."""
    Tq, C = q.shape[1:]
    D = C // H
    b, h = bh // H, bh % H
    return Tq, k.shape[1], b, h, h * D, (h + 1) * D, q.dtype.type(D**-0.5)


@kernel(fastmath=FAST)
def _forward_pair(q, k, v, k_len, causal, drop_flat, H, bh, out, p):
    """Fills out[b, :, c0:c1] and p[b, h] for the task bh (see _pair)."""
    Tq, Tk, b, h, c0, c1, scale = _pair(q, k, H, bh)
    zero = q.dtype.type(0.0)
    for i in range(Tq):
        n_keys = min(Tk, k_len[b], i + 1) if causal else min(Tk, k_len[b])
        prow = p[b, h, i]
        _softmax_scores(q[b, i, c0:c1], k[b], c0, n_keys, scale, prow)
        prow[n_keys:] = zero
        oi = out[b, i, c0:c1]
        oi[:] = zero
        row_drop = (bh * Tq + i) * Tk
        for j in range(n_keys):
            w = prow[j] * drop_flat[row_drop + j] if drop_flat.size else prow[j]
            _axpy(w, v[b, j, c0:c1], oi)


@kernel(parallel=True)
def attention_forward(q, k, v, k_len, causal, drop, n_heads):
    """q (B, Tq, C), k/v (B, Tk, C), k_len (B,), drop: (B, H, Tq, Tk) scaled keep-mask or size 0.
    Returns out (B, Tq, C) and the softmax weights p (B, H, Tq, Tk) before dropout.
    One (batch, head) pair per parallel task, run serially when small (decoding steps). Allowed
    keys form a prefix of each row, so masking is by loop bounds (no -inf); a row with no allowed
    key gets zero weights and output (the reference: NaN)."""
    B, Tq, C = q.shape
    Tk = k.shape[1]
    drop_flat = drop.reshape(drop.size)
    out = np.empty((B, Tq, C), q.dtype)
    p = np.empty((B, n_heads, Tq, Tk), q.dtype)
    if B * Tq * Tk * C < PARALLEL_MIN_WORK:
        for bh in range(B * n_heads):
            _forward_pair(q, k, v, k_len, causal, drop_flat, n_heads, bh, out, p)
    else:
        for bh in prange(B * n_heads):
            _forward_pair(q, k, v, k_len, causal, drop_flat, n_heads, bh, out, p)
    return out, p


def self_attention_ref(qkv, k_len, n_heads):
    """Self-attention at inference (an encoder block's): qkv (B, T, 3C) the fused query/key/value projection, keys
    j >= k_len[b] padding -> (B, T, C), attention_forward_ref's output without dropout."""
    C = qkv.shape[2] // 3
    no_drop = np.zeros((0, 0, 0, 0), qkv.dtype)
    return attention_forward_ref(qkv[..., :C], qkv[..., C : 2 * C], qkv[..., 2 * C :], k_len, False, no_drop, n_heads)[0]


@kernel(fastmath=FAST)
def self_attention(qkv, k_len, n_heads):
    """See self_attention_ref: attention_forward's loops (so its floats, bit for bit) reading the three
    projections from one array and keeping no weights (the decoder's encoder wrote (B, H, T, T) of them it never
    read), serial (each decoding thread is one task: a parallel region from two threads at once cost ~10-100 us)."""
    B, T, C3 = qkv.shape
    C = C3 // 3
    D = C // n_heads
    scale, zero = qkv.dtype.type(D**-0.5), qkv.dtype.type(0.0)
    out = np.empty((B, T, C), qkv.dtype)
    prow = np.empty(T, qkv.dtype)  # scratch: a query's weights
    for b in range(B):
        n_keys = min(T, k_len[b])
        for h in range(n_heads):
            c0 = h * D
            for i in range(T):
                _softmax_scores(qkv[b, i, c0 : c0 + D], qkv[b], C + c0, n_keys, scale, prow)
                oi = out[b, i, c0 : c0 + D]
                oi[:] = zero
                for j in range(n_keys):
                    _axpy(prow[j], qkv[b, j, 2 * C + c0 : 2 * C + c0 + D], oi)
    return out


@kernel(fastmath=FAST)
def _backward_pair(dout, q, k, v, p, drop_flat, H, bh, dq, dk, dv, dp):
    """Fills dq, dk, dv[b, :, c0:c1] for the task bh (see _pair); dp: scratch of size Tk.
    Per query row only the keys up to the last nonzero weight are visited (masked weights are 0)."""
    Tq, Tk, b, h, c0, c1, scale = _pair(q, k, H, bh)
    zero, one = q.dtype.type(0.0), drop_flat.dtype.type(1.0)
    dq[b, :, c0:c1] = zero
    dk[b, :, c0:c1] = zero
    dv[b, :, c0:c1] = zero
    for i in range(Tq):
        prow = p[b, h, i]
        n_keys = Tk
        while n_keys > 0 and prow[n_keys - 1] == 0:
            n_keys -= 1
        doi = dout[b, i, c0:c1]
        row_drop = (bh * Tq + i) * Tk
        pdp = zero  # sum_j p_j dp_j
        for j in range(n_keys):
            keep = drop_flat[row_drop + j] if drop_flat.size else one
            _axpy(prow[j] * keep, doi, dv[b, j, c0:c1])
            dpj = _dot(doi, v[b, j, c0:c1]) * keep
            dp[j] = dpj
            pdp += prow[j] * dpj
        qi, dqi = q[b, i, c0:c1], dq[b, i, c0:c1]
        for j in range(n_keys):
            ds = prow[j] * (dp[j] - pdp) * scale
            _axpy(ds, k[b, j, c0:c1], dqi)
            _axpy(ds, qi, dk[b, j, c0:c1])


@kernel(parallel=True)
def attention_backward(dout, q, k, v, p, drop, n_heads):
    """Gradients (dq, dk, dv) of attention_forward's out given dout (B, Tq, C)."""
    B, Tk = k.shape[:2]
    drop_flat = drop.reshape(drop.size)
    dq, dk, dv = np.empty_like(q), np.empty_like(k), np.empty_like(v)
    dp = np.empty((B * n_heads, Tk), q.dtype)  # scratch, one row per (batch, head) pair
    for bh in prange(B * n_heads):
        _backward_pair(dout, q, k, v, p, drop_flat, n_heads, bh, dq, dk, dv, dp[bh])
    return dq, dk, dv
