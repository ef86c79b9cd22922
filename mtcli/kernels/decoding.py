"""The loops of a decoding step that BLAS does not cover: one query per hypothesis attending to its
cached keys, the log-softmax normaliser with the top-k continuations of each hypothesis, the tokens a
hypothesis may not produce (repeated n-grams) and the best candidates of each sentence's beam.

Keys are read through an index instead of being copied: key j of query a is k[key_rows[a, j], j]
(a beam hypothesis's past positions live in the cache rows of its ancestors, so reordering a beam
moves indices, never cached keys). key_rows of width 1 means every key of query a is in row
key_rows[a, 0] (cross-attention: the hypothesis's source sentence).
"""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mtcli.kernels.attention import attention_forward_ref
from mtcli.kernels.jit import FAST, exp_nonpos, kernel


def cached_attention_ref(q, k, v, key_rows, n_keys, n_heads, kept_slot, kept):
    """q (N, C) against k/v (R, T, C) through key_rows (N, T' or 1) -> (N, C); keys j >= n_keys[a]
    are not attended. The weights of each head h with kept_slot[h] >= 0 (n_heads, or shorter: the heads past
    its end are not kept) are written to kept[a, kept_slot[h], j] for j < n_keys[a] (kept (N, heads kept,
    >= max n_keys); a beam's coverage penalty reads them instead of a second pass); kept may be empty when
    no head is kept."""
    Tk = int(n_keys.max())
    rows = np.broadcast_to(key_rows, (len(q), max(key_rows.shape[1], Tk)))[:, :Tk]  # (N, Tk)
    ks, vs = k[rows, np.arange(Tk)], v[rows, np.arange(Tk)]  # (N, Tk, C)
    no_drop = np.zeros((0, 0, 0, 0), q.dtype)
    out, p = attention_forward_ref(q[:, None], ks, vs, n_keys, False, no_drop, n_heads)
    heads = np.flatnonzero(kept_slot >= 0)
    if len(heads):
        at = np.arange(Tk) < n_keys[:, None, None]  # (N, 1, Tk)
        kept[:, kept_slot[heads], :Tk] = np.where(at, p[:, heads, 0], kept[:, kept_slot[heads], :Tk])
    return out[:, 0]


@kernel(fastmath=FAST)
def _attend(q, a, k, v, key_rows, n_keys, n_heads, kept_slot, kept, out, scores):
    """Query row a of cached_attention into out[a]; scores: scratch (n_heads, >= n_keys[a]). Each key and value row
    is read once for every head (per head, each had been found and read again: ~10 % of the kernel); every sum is
    in the same order as per head."""
    D = out.shape[1] // n_heads
    scale = q.dtype.type(D**-0.5)
    one_row = key_rows.shape[1] == 1
    qa, oa, n = q[a], out[a], n_keys[a]
    for j in range(n):
        kr = k[key_rows[a, 0] if one_row else key_rows[a, j], j]
        for h in range(n_heads):
            c0 = h * D
            s = q.dtype.type(0.0)
            for d in range(D):
                s += qa[c0 + d] * kr[c0 + d]
            scores[h, j] = s * scale
    for h in range(n_heads):
        row = scores[h]
        m = q.dtype.type(-np.inf)
        for j in range(n):
            m = max(m, row[j])
        z = q.dtype.type(0.0)
        for j in range(n):
            e = exp_nonpos(row[j] - m)
            row[j] = e
            z += e
        for j in range(n):
            row[j] = row[j] / z
        if h < kept_slot.size and kept_slot[h] >= 0:
            for j in range(n):
                kept[a, kept_slot[h], j] = row[j]
    for j in range(n):
        vr = v[key_rows[a, 0] if one_row else key_rows[a, j], j]
        for h in range(n_heads):
            c0, w = h * D, scores[h, j]
            for d in range(D):
                oa[c0 + d] += w * vr[c0 + d]


@kernel(fastmath=FAST)
def cached_attention(q, k, v, key_rows, n_keys, n_heads, kept_slot, kept):
    """See cached_attention_ref. Serial (a decoding thread's whole step is one task, Translator),
    one query row at a time, heads as channel ranges of 1-D row views: the loops over a head's D
    channels vectorise (measured 5x the speed of per-head slices)."""
    out = np.zeros(q.shape, q.dtype)
    scores = np.empty((n_heads, k.shape[1]), q.dtype)  # scratch
    for a in range(q.shape[0]):
        _attend(q, a, k, v, key_rows, n_keys, n_heads, kept_slot, kept, out, scores)
    return out


def self_attention_step_ref(qkv, k, v, key_rows, n_keys, n_heads):
    """A decoding step's self-attention: qkv (N, 3C) holds each hypothesis's new query, key and value; its key
    and value go to its new position t = n_keys[a] - 1, in cache row key_rows[a, t] of k/v (R, T, C), then its
    query attends as cached_attention_ref's -> (N, C)."""
    C, t = qkv.shape[1] // 3, n_keys - 1
    at = key_rows[np.arange(len(qkv)), t], t
    k[at], v[at] = qkv[:, C : 2 * C], qkv[:, 2 * C :]
    none = np.full(0, -1), np.zeros((0, 0, 0), qkv.dtype)
    return cached_attention_ref(np.ascontiguousarray(qkv[:, :C]), k, v, key_rows, n_keys, n_heads, *none)


@kernel(fastmath=FAST)
def self_attention_step(qkv, k, v, key_rows, n_keys, n_heads):
    """See self_attention_step_ref: one call where the key/value writes and the query's copy had taken
    NumPy's fancy indexing (~20 us a block at beam 4)."""
    N, C = qkv.shape[0], qkv.shape[1] // 3
    for a in range(N):
        t = n_keys[a] - 1
        k[key_rows[a, t], t] = qkv[a, C : 2 * C]
        v[key_rows[a, t], t] = qkv[a, 2 * C :]
    out = np.zeros((N, C), qkv.dtype)
    scores = np.empty((n_heads, k.shape[1]), qkv.dtype)
    no_slot, no_kept = np.full(0, -1), np.zeros((0, 0, 0), qkv.dtype)
    q = np.ascontiguousarray(qkv[:, :C])  # (a strided view's loops over a head's channels did not vectorise: 3x the time)
    for a in range(N):
        _attend(q, a, k, v, key_rows, n_keys, n_heads, no_slot, no_kept, out, scores)
    return out


def log_softmax_topk_ref(logits, b, banned, k):
    """logits (N, V) + b (V,): the k largest log-probabilities of each row and their ids, largest
    first (ties: smaller id first), over the ids not in banned (N, M) (-1 entries ban nothing).
    The normaliser covers every id, banned ones too. Returns (values (N, k), ids (N, k))."""
    x = logits.astype(np.float64) + b  # (N, V)
    m = x.max(-1, keepdims=True)
    logp = x - (m + np.log(np.exp(x - m).sum(-1, keepdims=True)))
    rows = np.broadcast_to(np.arange(len(x))[:, None], banned.shape)
    logp[rows[banned >= 0], banned[banned >= 0]] = -np.inf
    return np.take_along_axis(logp, (ids := _top(-logp, k)), 1).astype(logits.dtype), ids


def _top(v, k: int) -> np.ndarray:
    """Each row's ids of its k smallest values (ties: smaller id first; NaN last), in that order: a stable sort of
    the ids no larger than the row's k-th smallest value alone (the whole row's sort cost a beam-4 step 3 ms)."""
    k = min(k, v.shape[1])
    kth = np.partition(v, k - 1, axis=-1)[:, k - 1]  # (NaN sorts last; a NaN kth takes the whole row)
    ids = np.empty((len(v), k), np.intp)
    for i, (row, bound) in enumerate(zip(v, kth)):
        candidates = np.flatnonzero(~(row > bound))  # (in id order, for the stable sort)
        ids[i] = candidates[np.argsort(row[candidates], kind="stable")[:k]]
    return ids


# Ids per chunk of a row: the bias pass keeps each chunk's largest logit, so that the top-k pass reads only
# the few chunks that can hold one of the k largest.
CHUNK = 64


@kernel(fastmath=FAST)
def _chunk_max_bits(bits, chunk_bits, shift):
    """Each chunk's largest float of a row, read as integers of its width (bits: the row's floats as ints, so
    int32 for float32; shift: their width - 1) into chunk_bits (chunk_max's floats as such ints). A float's bits
    flipped below the sign where it is negative order as the floats do, and an integer maximum vectorises where
    LLVM left the float one scalar (the bias pass over a row of 6,134: ~4.5 -> ~2 us)."""
    low = np.int64(-1) << shift  # (below every float's key)
    mask = (np.int64(1) << shift) - 1
    full = bits.size // CHUNK
    for c in range(chunk_bits.size):
        seg = bits[c * CHUNK : min(bits.size, (c + 1) * CHUNK)]
        m = low
        if c < full:
            for j in range(CHUNK):  # (a fixed count: the loop vectorises)
                v = np.int64(seg[j])
                m = max(m, v ^ ((v >> 63) & mask))
        else:
            for j in range(seg.size):
                v = np.int64(seg[j])
                m = max(m, v ^ ((v >> 63) & mask))
        chunk_bits[c] = m ^ ((m >> 63) & mask)  # (the flip undone)


@kernel(fastmath=FAST)
def _max_plus(x, b, chunk_max):
    """x += b; each chunk's maximum in chunk_max; returns the row's."""
    for j in range(x.size):
        x[j] += b[j]
    if x.itemsize == 4:
        _chunk_max_bits(x.view(np.int32), chunk_max.view(np.int32), 31)
    else:
        _chunk_max_bits(x.view(np.int64), chunk_max.view(np.int64), 63)
    return chunk_max.max()


@kernel(fastmath=FAST)
def _sum_exp(x, m):
    """The sum of exp(x - m), in float64 (6,000+ terms), each exp in x's precision, in one loop that LLVM
    vectorises (a row of 6,134: 8.8 -> 4 us, where each chunk's exps had been written out before they were summed;
    the sum's order is LLVM's, so the float64 sum may differ from that loop's in its last bits)."""
    z = 0.0
    for j in range(x.size):
        z += exp_nonpos(x[j] - m)
    return z


@kernel()
def _entry_bound(chunk_max, best):
    """A value the k-th largest allowed id of the row reaches: the smallest of the len(best) = k + len(banned)
    largest chunk maxima (each banned id spoils one at most); -inf with fewer chunks. best: scratch."""
    n = best.size
    if chunk_max.size < n:
        return -np.inf
    best[:] = -np.inf
    for v in chunk_max:
        if v <= best[n - 1]:
            continue
        i = n - 1
        while i > 0 and best[i - 1] < v:
            best[i] = best[i - 1]
            i -= 1
        best[i] = v
    return best[n - 1]


@kernel()
def _topk_row(x, chunk_max, banned, lse, values, ids, best):
    """Insertion into a sorted buffer of k, of the ids (in order) at or above _entry_bound: the few chunks
    that hold them, one comparison per id of these."""
    k = values.size
    for j in range(k):
        values[j], ids[j] = -np.inf, -1
    low = _entry_bound(chunk_max, best)
    for c in range(chunk_max.size):
        if chunk_max[c] < low:
            continue
        for j in range(c * CHUNK, min(x.size, (c + 1) * CHUNK)):
            if x[j] < low or x[j] <= values[k - 1]:
                continue
            skip = False
            for i in range(banned.size):
                skip |= banned[i] == j
            if skip:
                continue
            i = k - 1
            while i > 0 and values[i - 1] < x[j]:
                values[i], ids[i] = values[i - 1], ids[i - 1]
                i -= 1
            values[i], ids[i] = x[j], j
    for j in range(k):
        values[j] -= lse


@kernel()
def log_softmax_topk(logits, b, banned, k):
    """See log_softmax_topk_ref; adds b into logits in place. Three passes over each row, which
    stays in L1: bias and maximum (each chunk's too), the exp sum, the top k over the chunks that can
    hold it. Serial, as cached_attention."""
    N, V = logits.shape
    values = np.empty((N, k), logits.dtype)
    ids = np.empty((N, k), np.int64)
    chunk_max = np.empty((V + CHUNK - 1) // CHUNK, logits.dtype)
    best = np.empty(k + banned.shape[1], logits.dtype)
    for a in range(N):
        x = logits[a]
        m = _max_plus(x, b, chunk_max)
        _topk_row(x, chunk_max, banned[a], m + np.log(_sum_exp(x, m)), values[a], ids[a], best)
    return values, ids


def banned_ngrams_ref(seqs, length, n, always):
    """seqs (N, T), whose first length[r] (N,) tokens are row r's so far -> (N, M) ids each row may not
    produce next, -1 padded: `always` (A,) and each token that would complete an n-gram already in the row
    (decode._repeats, the spec), for all rows at once."""
    fixed = np.broadcast_to(always, (len(seqs), len(always)))
    top = int(length.max(initial=0))
    if n <= 0 or top < n:
        return np.ascontiguousarray(fixed)
    windows = sliding_window_view(seqs[:, : top - 1], n - 1, axis=1)  # (N, top-n+1, n-1): j, ..., j+n-2
    last = np.take_along_axis(seqs, np.maximum(length[:, None] + np.arange(1 - n, 0), 0), 1)  # (N, n-1)
    # window j is followed by token j+n-1, which must be one of the row's own
    match = (windows == last[:, None]).all(-1) & (np.arange(n - 1, top) < length[:, None])
    return np.concatenate([fixed, np.where(match, seqs[:, n - 1 : top], -1)], 1)


@kernel()
def banned_ngrams(seqs, length, n, always):
    """See banned_ngrams_ref: each row's windows compared in place (NumPy's views, comparisons and
    concatenation had cost ~0.1 ms a step)."""
    N, A = seqs.shape[0], always.size
    top = length.max() if N else 0
    out = np.full((N, A + (top - n + 1 if 0 < n <= top else 0)), -1, np.int64)
    for r in range(N):
        out[r, :A] = always
        if out.shape[1] == A:
            continue
        end = length[r]
        for j in range(n - 1, end):  # token j follows the window j-n+1, ..., j-1
            same = True
            for d in range(n - 1):
                same &= seqs[r, j - n + 1 + d] == seqs[r, end - n + 1 + d]
            if same:
                out[r, A + j - n + 1] = seqs[r, j]
    return out


def top_candidates_ref(rows, scores, values, ids, paid, B, K):
    """The best 2K candidates of each of B sentences, best first: sentence s's live cache rows r (rows (n,)
    with r // K == s) hold totals scores (n,), to which each row's 2K continuations `values` (n, 2K) of
    tokens `ids` add (their penalties `paid` (n, 2K)). Returns the 2K best totals (B, 2K) (-inf past a
    sentence's candidates; ties: the earlier row and continuation first), their tokens, penalties and parent
    cache rows."""
    grid, grid_ids, grid_paid = np.full((B, K, 2 * K), -np.inf), np.zeros((B, K, 2 * K), np.int64), np.zeros((B, K, 2 * K))
    at = rows // K, rows % K
    grid[at], grid_ids[at], grid_paid[at] = scores[:, None] + values, ids, paid
    flat = grid.reshape(B, -1)
    order = np.argsort(-flat, axis=1, kind="stable")[:, : 2 * K]  # (B, 2K)
    cand = np.take_along_axis(flat, order, 1)
    cand_tok = np.take_along_axis(grid_ids.reshape(B, -1), order, 1)
    cand_paid = np.take_along_axis(grid_paid.reshape(B, -1), order, 1)
    return cand, cand_tok, cand_paid, np.arange(B)[:, None] * K + order // (2 * K)


@kernel()
def top_candidates(rows, scores, values, ids, paid, B, K):
    """See top_candidates_ref: insertion into each sentence's sorted 2K, its rows taken in the order of
    their cache rows (a stable sort's order for ties)."""
    W = 2 * K
    cand = np.full((B, W), -np.inf)
    cand_tok, cand_paid = np.zeros((B, W), np.int64), np.zeros((B, W))
    parent = np.repeat(np.arange(B) * K, W).reshape(B, W)  # (places left at -inf: any row of theirs)
    filled = np.zeros(B, np.int64)
    for a in np.argsort(rows):
        r = rows[a]
        s = r // K
        for c in range(W):
            x = scores[a] + values[a, c]
            f = filled[s]
            if f == W and not x > cand[s, W - 1]:
                continue
            i = min(f, W - 1)
            while i > 0 and cand[s, i - 1] < x:
                cand[s, i], cand_tok[s, i], cand_paid[s, i], parent[s, i] = (
                    cand[s, i - 1], cand_tok[s, i - 1], cand_paid[s, i - 1], parent[s, i - 1])
                i -= 1
            cand[s, i], cand_tok[s, i], cand_paid[s, i], parent[s, i] = x, ids[a, c], paid[a, c], r
            filled[s] = min(f + 1, W)
    return cand, cand_tok, cand_paid, parent


def advance_beams_ref(cand, cand_tok, cand_paid, parent, active, K, eos, divisor, t, seqs, history, ended):
    """A beam step's outcome from each of B sentences' 2K best candidates (top_candidates'), looked at in
    order: an EOS ends its hypothesis, the others refill the beam up to K; fewer than K refills before a
    candidate, or it is not looked at. A candidate that ends goes into `ended` (decode._Ended's arrays: seqs,
    history, length, logprob, score, count, in place): its parent's tokens (seqs (N, T)) and cache rows
    (history (N, T)), t[s] (B,) tokens, cand + cand_paid log-probability, cand / divisor[s] score. A
    sentence is done (active and) once K have ended, or none refills. The refills of the others become
    its cache rows s*K, ...: their histories and tokens copied from their parents', in place. Returns
    (rows, from_rows, tokens, scores, paid) of the hypotheses that go on, and done (B,)."""
    e_seqs, e_history, e_length, e_logprob, e_score, e_count = ended
    live = np.isfinite(cand)
    grows = live & (cand_tok != eos)
    looked = np.cumsum(grows, 1) - grows < K  # fewer than K refills before it
    ends = live & looked & ~grows
    sb, sc = np.nonzero(ends)
    slot = e_count[sb] + (np.cumsum(ends, 1) - 1)[sb, sc]
    e_seqs[sb, slot] = seqs[parent[sb, sc]]  # whole rows: the ended's length says what is read
    e_history[sb, slot] = history[parent[sb, sc]]
    e_length[sb, slot] = t[sb]
    e_logprob[sb, slot] = cand[sb, sc] + cand_paid[sb, sc]
    e_score[sb, slot] = cand[sb, sc] / divisor[sb]
    e_count += ends.sum(1)
    done = active & (e_count >= K)
    keeps = grows & looked & ~done[:, None]
    done |= active & ~keeps.any(1)  # nothing left to grow: done with what ended
    kb, kc = np.nonzero(keeps)
    rows = kb * K + (np.cumsum(keeps, 1) - 1)[kb, kc]
    from_rows = parent[kb, kc]
    history[rows] = history[from_rows]
    seqs[rows] = seqs[from_rows]
    tokens = seqs[rows, t[kb]] = cand_tok[kb, kc]
    return rows, from_rows, tokens, cand[kb, kc], cand_paid[kb, kc], done


@kernel()
def advance_beams(cand, cand_tok, cand_paid, parent, active, K, eos, divisor, t, seqs, history, ended):
    """See advance_beams_ref: one pass over each sentence's candidates (the reference's ~30 NumPy calls had
    cost ~0.15 ms a step)."""
    e_seqs, e_history, e_length, e_logprob, e_score, e_count = ended
    B, W = cand.shape
    done = np.zeros(B, np.bool_)
    keep = np.zeros((B, W), np.bool_)
    n = 0
    for s in range(B):
        refills = 0
        for c in range(W):
            if not np.isfinite(cand[s, c]):
                continue
            if cand_tok[s, c] != eos:
                keep[s, c] = refills < K
                refills += 1
            elif refills < K:
                e, p = e_count[s], parent[s, c]
                e_seqs[s, e], e_history[s, e] = seqs[p], history[p]
                e_length[s, e] = t[s]
                e_logprob[s, e] = cand[s, c] + cand_paid[s, c]
                e_score[s, e] = cand[s, c] / divisor[s]
                e_count[s] += 1
        done[s] = active[s] and e_count[s] >= K
        if done[s]:
            keep[s] = False
        elif active[s] and not keep[s].any():
            done[s] = True
        n += keep[s].sum()
    rows, from_rows, tokens = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    scores, paid = np.empty(n), np.empty(n)
    a = 0
    for s in range(B):
        first = a
        for c in range(W):
            if keep[s, c]:
                rows[a], from_rows[a], tokens[a] = s * K + a - first, parent[s, c], cand_tok[s, c]
                scores[a], paid[a] = cand[s, c], cand_paid[s, c]
                a += 1
        # a sentence's parents are among its own rows, which it overwrites: copied out first
        past_seqs, past_history = seqs[from_rows[first:a]].copy(), history[from_rows[first:a]].copy()
        for i in range(a - first):
            seqs[rows[first + i]], history[rows[first + i]] = past_seqs[i], past_history[i]
            seqs[rows[first + i], t[s]] = tokens[first + i]
    return rows, from_rows, tokens, scores, paid, done
