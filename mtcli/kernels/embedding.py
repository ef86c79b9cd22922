"""Token embedding: W[ids] * scale + positional table, and the gradient scatter-add into W."""

import numpy as np
from numba import njit, prange

from mtcli.kernels.elementwise import JIT, PARALLEL_MIN_WORK, ROWS_PER_CHUNK, chunk_rows


def embedding_forward_ref(ids, w, scale, pe):
    """ids (B, T), w (V, C), pe (T_max, C) -> (B, T, C)."""
    return w[ids] * scale + pe[None, : ids.shape[1]]


def embedding_backward_ref(dout, ids, dw, scale):
    """Accumulates dw[ids] += scale * dout in place; repeated ids add up."""
    np.add.at(dw, ids.reshape(-1), scale * dout.reshape(-1, dout.shape[-1]))


@njit(**JIT)
def _forward_rows(ids, w, scale, pe, out, rows):
    """out[b, t] = w[ids[b, t]] * scale + pe[t] for the given flat rows b * T + t of out."""
    for i in rows:
        b, t = divmod(i, ids.shape[1])
        wi, pt, o = w[ids[b, t]], pe[t], out[i]
        for c in range(o.size):
            o[c] = wi[c] * scale + pt[c]


@njit(**JIT, parallel=True)
def embedding_forward(ids, w, scale, pe):
    """ids (B, T), w (V, C), pe (T_max, C) -> (B, T, C)."""
    B, T = ids.shape
    C = w.shape[1]
    out = np.empty((B, T, C), w.dtype)
    flat_out = out.reshape(B * T, C)
    n_chunks = (B * T + ROWS_PER_CHUNK - 1) // ROWS_PER_CHUNK
    if B * T * C < PARALLEL_MIN_WORK:
        for ch in range(n_chunks):
            _forward_rows(ids, w, scale, pe, flat_out, chunk_rows(ch, B * T))
    else:
        for ch in prange(n_chunks):
            _forward_rows(ids, w, scale, pe, flat_out, chunk_rows(ch, B * T))
    return out


COLS_PER_TASK = 32  # embedding_backward: parallel over column blocks, so no two tasks hit one entry


@njit(**JIT)
def _backward_cols(dout, ids, dw, scale, block):
    """dw[ids, c] += scale * dout[:, c] for the columns c of the given block."""
    c0, c1 = block * COLS_PER_TASK, min(dw.shape[1], (block + 1) * COLS_PER_TASK)
    for b in range(ids.shape[0]):
        for t in range(ids.shape[1]):
            wi, d = dw[ids[b, t]], dout[b, t]
            for c in range(c0, c1):
                wi[c] += scale * d[c]


@njit(**JIT, parallel=True)
def embedding_backward(dout, ids, dw, scale):
    """Accumulates dw[ids] += scale * dout in place; repeated ids add up."""
    n_blocks = (dw.shape[1] + COLS_PER_TASK - 1) // COLS_PER_TASK
    for blk in prange(n_blocks):
        _backward_cols(dout, ids, dw, scale, blk)
