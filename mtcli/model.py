"""The thesis's encoder-decoder Transformer (ch. 3): parameters, forward and backward.

Every parameter is a view into one flat buffer (and every gradient into a second one), so Adam, the
gradient norm, checkpoints and an MPI allreduce each touch a single contiguous array.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from mtcli import kernels
from mtcli.attention import mha_backward, mha_forward
from mtcli.config import ModelConfig
from mtcli.layers import (
    dropout_backward,
    dropout_forward,
    embedding_backward,
    embedding_forward,
    ffn_backward,
    ffn_forward,
    layernorm_backward,
    layernorm_forward,
    linear_forward,
    positional_encoding,
    residual_dropout_forward,
)
from mtcli.stats import Stats
from mtcli.tokenizer import PAD


def _attn(C):
    return {"wq": (C, C), "bq": (C,), "wk": (C, C), "bk": (C,), "wv": (C, C), "bv": (C,),
            "wo": (C, C), "bo": (C,)}


def param_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """All parameter names and shapes, in buffer order."""
    C, F = cfg.d_model, cfg.d_ff
    ln = {"g": (C,), "b": (C,)}
    ffn = {"w1": (C, F), "b1": (F,), "w2": (F, C), "b2": (C,)}
    groups = {"src_emb": {"w": (cfg.src_vocab, C)}, "tgt_emb": {"w": (cfg.tgt_vocab, C)}}
    for i in range(cfg.n_layers):
        groups |= {f"enc.{i}.attn": _attn(C), f"enc.{i}.ln1": ln, f"enc.{i}.ffn": ffn, f"enc.{i}.ln2": ln}
    for i in range(cfg.n_layers):
        groups |= {f"dec.{i}.self": _attn(C), f"dec.{i}.ln1": ln, f"dec.{i}.cross": _attn(C),
                   f"dec.{i}.ln2": ln, f"dec.{i}.ffn": ffn, f"dec.{i}.ln3": ln}
    groups["out"] = {"w": (C, cfg.tgt_vocab), "b": (cfg.tgt_vocab,)}
    return {f"{g}.{n}": s for g, params in groups.items() for n, s in params.items()}


def count_params(cfg: ModelConfig) -> int:
    return sum(int(np.prod(s)) for s in param_shapes(cfg).values())


def views(flat: np.ndarray, cfg: ModelConfig) -> dict[str, dict[str, np.ndarray]]:
    """{"enc.0.attn": {"wq": view, ...}, ...}: each group's tensors as views into `flat`."""
    groups: dict[str, dict[str, np.ndarray]] = {}
    offset = 0
    for name, shape in param_shapes(cfg).items():
        size = int(np.prod(shape))
        group, short = name.rsplit(".", 1)
        groups.setdefault(group, {})[short] = flat[offset : offset + size].reshape(shape)
        offset += size
    return groups


def init_params(cfg: ModelConfig, seed: int = 0, dtype=np.float32) -> np.ndarray:
    """Glorot-uniform matrices, N(0, d^-1/2) embeddings (unit variance after the sqrt(d) scale),
    zero biases, unit layer-norm gains."""
    rng = np.random.default_rng(seed)
    flat = np.zeros(count_params(cfg), dtype=dtype)
    for group, params in views(flat, cfg).items():
        for short, t in params.items():
            if group.endswith("_emb"):
                t[...] = rng.normal(0.0, cfg.d_model**-0.5, t.shape)
            elif short == "g":
                t[...] = 1.0
            elif t.ndim == 2:
                limit = np.sqrt(6.0 / (t.shape[0] + t.shape[1]))
                t[...] = rng.uniform(-limit, limit, t.shape)
    return flat


def _linear(x, p, name):
    """Inference-only projection with weights p["w" + name], p["b" + name]."""
    return linear_forward(x, p["w" + name], p["b" + name])[0]


def _fused(p, names):
    """The projections p["w" + n] for n in names as one matrix (one GEMM instead of several)."""
    return {"w" + names: np.concatenate([p["w" + n] for n in names], 1),
            "b" + names: np.concatenate([p["b" + n] for n in names])}


@dataclass
class DecoderState:
    """Incremental decoding of N hypotheses ("rows") of B source sentences. Row r's keys/values for
    position j sit in cache row history[r, j]: a beam hypothesis reads its past from its ancestors'
    rows, so reordering a beam copies indices, never caches."""

    self_qkv: list[dict]  # per layer: fused query/key/value projection {"wqkv": (C, 3C), "bqkv": (3C,)}
    self_k: list[np.ndarray]  # per layer (N, T, C): key of position j, written once, at step j
    self_v: list[np.ndarray]  # per layer (N, T, C)
    cross_k: list[np.ndarray]  # per layer (B, S, C): encoder-side keys, projected once per sentence
    cross_v: list[np.ndarray]  # per layer (B, S, C)
    src_len: np.ndarray  # (B,)
    sentence: np.ndarray  # (N,): each row's source sentence
    history: np.ndarray  # (N, T): the cache row holding each position of each row's hypothesis
    t: int  # positions fed so far


class Model:
    def __init__(self, cfg: ModelConfig, flat: np.ndarray | None = None, seed: int = 0, dtype=np.float32,
                 grad: np.ndarray | None = None):
        self.cfg = cfg
        self.flat = init_params(cfg, seed, dtype) if flat is None else flat
        if self.flat.shape != (count_params(cfg),):
            raise ValueError(f"weights hold {self.flat.size} values, config needs {count_params(cfg)}")
        self.dtype = self.flat.dtype
        self.p = views(self.flat, cfg)
        self.grad = np.zeros_like(self.flat) if grad is None else grad
        self.g = views(self.grad, cfg)
        self.pe_src = positional_encoding(cfg.max_src_len, cfg.d_model, self.dtype)
        self.pe_tgt = positional_encoding(cfg.max_tgt_len, cfg.d_model, self.dtype)

    def __reduce__(self):
        """Pickled (e.g. broadcast to MPI ranks) as config + flat buffer, so views stay views."""
        return Model, (self.cfg, self.flat)

    # ---- blocks -------------------------------------------------------------------------------
    def _residual_ln(self, x, sub, ln, rng):
        """LN(x + Dropout(sub)) of the post-norm blocks (thesis 3.5)."""
        s, drop = residual_dropout_forward(x, sub, self.cfg.dropout, rng)
        out, cache = layernorm_forward(s, self.p[ln]["g"], self.p[ln]["b"])
        return out, (drop, cache, ln)

    def _residual_ln_backward(self, dout, cache):
        """Returns (dx, dsub) for out = LN(x + Dropout(sub))."""
        drop, ln_cache, ln = cache
        d = layernorm_backward(dout, ln_cache, self.g[ln]["g"], self.g[ln]["b"])
        return d, dropout_backward(d, drop)

    def _mha(self, name, xq, xkv, k_len, causal, rng):
        return mha_forward(xq, xkv, k_len, causal, self.p[name], self.cfg.n_heads,
                           self.cfg.attn_dropout, rng)

    def encode(self, src, src_len, rng=None):
        """src (B, S) -> encoder output (B, S, C). rng None means inference (no dropout)."""
        x, emb_cache = embedding_forward(src, self.p["src_emb"]["w"], self.pe_src)
        x, drop = dropout_forward(x, self.cfg.dropout, rng)
        caches = []
        for i in range(self.cfg.n_layers):
            a, c_attn = self._mha(f"enc.{i}.attn", x, x, src_len, False, rng)
            x, c_res1 = self._residual_ln(x, a, f"enc.{i}.ln1", rng)
            f, c_ffn = ffn_forward(x, self.p[f"enc.{i}.ffn"])
            x, c_res2 = self._residual_ln(x, f, f"enc.{i}.ln2", rng)
            caches.append((c_attn, c_res1, c_ffn, c_res2))
        return x, (emb_cache, drop, caches)

    def encode_backward(self, dx, cache):
        emb_cache, drop, caches = cache
        for i in reversed(range(self.cfg.n_layers)):
            c_attn, c_res1, c_ffn, c_res2 = caches[i]
            dx, df = self._residual_ln_backward(dx, c_res2)
            dx = dx + ffn_backward(df, c_ffn, self.g[f"enc.{i}.ffn"])
            dx, da = self._residual_ln_backward(dx, c_res1)
            dq, dkv = mha_backward(da, c_attn, self.g[f"enc.{i}.attn"])
            dx = dx + dq + dkv
        embedding_backward(dropout_backward(dx, drop), emb_cache, self.g["src_emb"]["w"])

    def decode(self, tgt_in, tgt_len, memory, src_len, rng=None):
        """tgt_in (B, T) attends causally to itself and to memory (B, S, C) -> (B, T, C)."""
        y, emb_cache = embedding_forward(tgt_in, self.p["tgt_emb"]["w"], self.pe_tgt)
        y, drop = dropout_forward(y, self.cfg.dropout, rng)
        caches = []
        for i in range(self.cfg.n_layers):
            s, c_self = self._mha(f"dec.{i}.self", y, y, tgt_len, True, rng)
            y, c_res1 = self._residual_ln(y, s, f"dec.{i}.ln1", rng)
            c, c_cross = self._mha(f"dec.{i}.cross", y, memory, src_len, False, rng)
            y, c_res2 = self._residual_ln(y, c, f"dec.{i}.ln2", rng)
            f, c_ffn = ffn_forward(y, self.p[f"dec.{i}.ffn"])
            y, c_res3 = self._residual_ln(y, f, f"dec.{i}.ln3", rng)
            caches.append((c_self, c_res1, c_cross, c_res2, c_ffn, c_res3))
        return y, (emb_cache, drop, caches)

    def decode_backward(self, dy, cache):
        """Returns the gradient with respect to memory (the encoder output)."""
        emb_cache, drop, caches = cache
        dmemory = 0.0
        for i in reversed(range(self.cfg.n_layers)):
            c_self, c_res1, c_cross, c_res2, c_ffn, c_res3 = caches[i]
            dy, df = self._residual_ln_backward(dy, c_res3)
            dy = dy + ffn_backward(df, c_ffn, self.g[f"dec.{i}.ffn"])
            dy, dc = self._residual_ln_backward(dy, c_res2)
            dq, dmem = mha_backward(dc, c_cross, self.g[f"dec.{i}.cross"])
            dy, dmemory = dy + dq, dmemory + dmem
            dy, ds = self._residual_ln_backward(dy, c_res1)
            dq, dkv = mha_backward(ds, c_self, self.g[f"dec.{i}.self"])
            dy = dy + dq + dkv
        embedding_backward(dropout_backward(dy, drop), emb_cache, self.g["tgt_emb"]["w"])
        return dmemory

    # ---- loss ---------------------------------------------------------------------------------
    def _loss(self, batch, rng, smoothing, backward, n_total=None):
        memory, enc_cache = self.encode(batch.src, batch.src_len, rng)
        y, dec_cache = self.decode(batch.tgt_in, batch.tgt_len, memory, batch.src_len, rng)
        valid = batch.tgt_out != PAD  # (B, T)
        h = y[valid]  # (N, C): the output layer runs on real target tokens only
        w, b = self.p["out"]["w"], self.p["out"]["b"]
        logits = h @ w  # (N, V); the kernel adds the bias
        n = int(valid.sum())
        db = self.g["out"]["b"] if backward else np.zeros_like(b)
        loss, nll, correct = kernels.cross_entropy(logits, b, batch.tgt_out[valid], smoothing, 1.0 / (n_total or n), db)
        stats = Stats(float(loss.sum()), float(nll.sum()), int(correct.sum()), n)
        if backward:
            dy = np.zeros_like(y)
            # the kernel left the scaled gradient in the logits buffer
            self.g["out"]["w"] += h.T @ logits
            dy[valid] = logits @ w.T
            dmemory = self.decode_backward(dy, dec_cache)
            self.encode_backward(dmemory, enc_cache)
        return stats

    def forward_backward(self, batch, rng, smoothing=0.0, n_total: int | None = None) -> Stats:
        """Adds the gradient of the mean (smoothed) token loss to self.grad; rng drives dropout.
        n_total: divide the summed loss by this many target tokens instead of the batch's own, so
        that data-parallel ranks, each holding a shard of one batch, add up to its mean."""
        return self._loss(batch, rng, smoothing, backward=True, n_total=n_total)

    def evaluate(self, batch) -> Stats:
        """Teacher-forced loss and accuracy with dropout off (the thesis's error and accuracy)."""
        return self._loss(batch, None, 0.0, backward=False)

    # ---- incremental decoding -----------------------------------------------------------------
    def start_decoding(self, src, src_len, slots_per_sentence: int = 1, max_len: int | None = None) -> DecoderState:
        """Encode once, project the cross-attention keys/values of every layer once per sentence, and
        preallocate the self-attention caches: `slots_per_sentence` hypotheses (beam) per sentence,
        `max_len` positions (default: the model's)."""
        memory, _ = self.encode(src, src_len)  # (B, S, C)
        B, C, L = src.shape[0], self.cfg.d_model, self.cfg.n_layers
        N, T = B * slots_per_sentence, max_len or self.cfg.max_tgt_len
        cross_kv = [_linear(memory, _fused(self.p[f"dec.{i}.cross"], "kv"), "kv") for i in range(L)]  # (B, S, 2C)
        return DecoderState(
            self_qkv=[_fused(self.p[f"dec.{i}.self"], "qkv") for i in range(L)],
            self_k=[np.empty((N, T, C), self.dtype) for _ in range(L)],
            self_v=[np.empty((N, T, C), self.dtype) for _ in range(L)],
            cross_k=[np.ascontiguousarray(kv[..., :C]) for kv in cross_kv],
            cross_v=[np.ascontiguousarray(kv[..., C:]) for kv in cross_kv],
            src_len=src_len, sentence=np.repeat(np.arange(B), slots_per_sentence),
            history=np.zeros((N, T), np.int64), t=0)

    def decoder_hidden(self, state: DecoderState, tokens, rows):
        """The decoder blocks at position state.t for the hypotheses in cache rows `rows` (N,), fed
        tokens (N,): writes their keys/values at that position and returns the top block's output
        (N, C). The caller advances state.t once all rows of the step are done."""
        t, C, H = state.t, self.cfg.d_model, self.cfg.n_heads
        if t >= state.history.shape[1]:
            raise ValueError(f"output longer than the decoder's {state.history.shape[1]} positions")
        y = self.p["tgt_emb"]["w"][tokens] * self.dtype.type(np.sqrt(C)) + self.pe_tgt[t]  # (N, C)
        state.history[rows, t] = rows
        self_rows, n_self = state.history[rows, : t + 1], np.full(len(rows), t + 1)  # (N, t+1)
        cross_rows = state.sentence[rows][:, None]  # (N, 1)
        n_cross = state.src_len[cross_rows[:, 0]]
        for i in range(self.cfg.n_layers):
            qkv = _linear(y, state.self_qkv[i], "qkv")  # (N, 3C)
            state.self_k[i][rows, t] = qkv[:, C : 2 * C]
            state.self_v[i][rows, t] = qkv[:, 2 * C :]
            a = kernels.cached_attention(np.ascontiguousarray(qkv[:, :C]), state.self_k[i], state.self_v[i],
                                         self_rows, n_self, H)
            y = self._sublayer_ln(y, _linear(a, self.p[f"dec.{i}.self"], "o"), f"dec.{i}.ln1")
            p = self.p[f"dec.{i}.cross"]
            a = kernels.cached_attention(_linear(y, p, "q"), state.cross_k[i], state.cross_v[i], cross_rows,
                                         n_cross, H)
            y = self._sublayer_ln(y, _linear(a, p, "o"), f"dec.{i}.ln2")
            y = self._sublayer_ln(y, ffn_forward(y, self.p[f"dec.{i}.ffn"])[0], f"dec.{i}.ln3")
        return y

    def _sublayer_ln(self, y, sub, ln):
        """LN(y + sub) at inference (no dropout)."""
        return layernorm_forward(y + sub, self.p[ln]["g"], self.p[ln]["b"])[0]

    def decode_step(self, state: DecoderState, tokens):
        """Feed one token per cache row (N,) at position state.t; returns log-probs (N, V) and the
        state, advanced (in place) by one position."""
        y = self.decoder_hidden(state, tokens, np.arange(len(tokens)))
        logits = _linear(y, self.p["out"], "")  # (N, V)
        logits -= logits.max(-1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        state.t += 1
        return logp, state

    @staticmethod
    def reorder_state(state: DecoderState, index, same_sources=False) -> DecoderState:
        """Select/duplicate hypotheses: row i of the result continues row index[i]. Past keys/values
        stay where they are (history points at them); only a change in the number of rows copies
        them, into fresh caches. same_sources is accepted for compatibility (sources never move)."""
        index = np.asarray(index)
        history = state.history[index]
        if len(index) == len(state.history):
            return dataclasses.replace(state, history=history, sentence=state.sentence[index])
        N, t, positions = len(index), state.t, np.arange(state.t)

        def moved(cache):
            new = np.empty((N, *cache.shape[1:]), cache.dtype)
            new[:, :t] = cache[history[:, :t], positions]
            return new

        return dataclasses.replace(state, self_k=[moved(k) for k in state.self_k],
                                   self_v=[moved(v) for v in state.self_v], sentence=state.sentence[index],
                                   history=np.broadcast_to(np.arange(N)[:, None], history.shape).copy())
