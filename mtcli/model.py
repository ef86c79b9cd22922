"""The thesis's encoder-decoder Transformer (ch. 3): parameters, forward and backward.

Every parameter is a view into one flat buffer (and every gradient into a second one), so Adam, the
gradient norm, checkpoints and an MPI allreduce each touch a single contiguous array. Each block is
written once (encoder_block, decoder_block); a step of incremental decoding, one new position against
key/value caches, is decode.py's (_block_step: the same operations, fused), with the search that drives it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mtcli import kernels
from mtcli.attention import AttentionCache, mha_backward, mha_forward
from mtcli.config import ModelConfig
from mtcli.layers import (
    DropoutCache,
    EmbeddingCache,
    FFNCache,
    LayerNormCache,
    dropout_backward,
    dropout_forward,
    embedding_backward,
    embedding_forward,
    ffn_backward,
    ffn_forward,
    layernorm_backward,
    layernorm_forward,
    positional_encoding,
    residual_dropout_forward,
)
from mtcli.stats import Stats
from mtcli.tokenizer import CASE_FACTORS, PAD


def _attn(C):
    return {"wq": (C, C), "bq": (C,), "wk": (C, C), "bk": (C,), "wv": (C, C), "bv": (C,),
            "wo": (C, C), "bo": (C,)}


def param_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """All parameter names and shapes, in buffer order."""
    C, F = cfg.d_model, cfg.d_ff
    ln = {"g": (C,), "b": (C,)}  # "g" (the gain) is the name stored in model files, kept so existing files load
    ffn = {"w1": (C, F), "b1": (F,), "w2": (F, C), "b2": (C,)}
    groups = {"src_emb": {"w": (cfg.src_vocab, C)}, "tgt_emb": {"w": (cfg.tgt_vocab, C)}}
    if cfg.case_factors:
        groups["src_case"] = {"w": (CASE_FACTORS, C)}
    for i in range(cfg.n_layers):
        groups |= {f"enc.{i}.attn": _attn(C), f"enc.{i}.ln1": ln, f"enc.{i}.ffn": ffn, f"enc.{i}.ln2": ln}
    for i in range(cfg.n_layers):
        groups |= {f"dec.{i}.self": _attn(C), f"dec.{i}.ln1": ln, f"dec.{i}.cross": _attn(C),
                   f"dec.{i}.ln2": ln, f"dec.{i}.ffn": ffn, f"dec.{i}.ln3": ln}
    groups["out"] = {"w": (C, cfg.tgt_vocab), "b": (cfg.tgt_vocab,)}
    return {f"{group}.{n}": s for group, shapes in groups.items() for n, s in shapes.items()}


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
    zero biases and case-factor embeddings (a model starts blind to case), unit layer-norm gains."""
    rng = np.random.default_rng(seed)
    flat = np.zeros(count_params(cfg), dtype=dtype)
    for group, params in views(flat, cfg).items():
        for short, t in params.items():
            if group == "src_case":
                continue
            if group.endswith("_emb"):
                t[...] = rng.normal(0.0, cfg.d_model**-0.5, t.shape)
            elif short == "g":
                t[...] = 1.0
            elif t.ndim == 2:
                limit = np.sqrt(6.0 / (t.shape[0] + t.shape[1]))
                t[...] = rng.uniform(-limit, limit, t.shape)
    return flat


class ResidualCache(NamedTuple):
    """Of out = LN(x + Dropout(sub)), the post-norm residual connection (thesis 3.2 III. Addition layer +
    IV. Normalization layer)."""

    drop: DropoutCache | None  # dropout of sub (B, T, C); None: off
    ln: LayerNormCache  # of x + Dropout(sub), (B*T, C) rows
    name: str  # the layer norm's parameter group, e.g. "dec.0.ln1"


class EncoderBlockCache(NamedTuple):
    attn: AttentionCache  # self-attention of x (B, S, C)
    res1: ResidualCache
    ffn: FFNCache  # of (B*S, C) rows
    res2: ResidualCache


class DecoderBlockCache(NamedTuple):
    self_attn: AttentionCache | None  # masked self-attention of y (B, T, C); None: decoding step
    res1: ResidualCache
    cross_attn: AttentionCache | None  # y (B, T, C) attending to memory (B, S, C); None: decoding step
    res2: ResidualCache
    ffn: FFNCache  # of (B*T, C) rows
    res3: ResidualCache


class StackCache(NamedTuple):
    """The encoder's or the decoder's: its input embedding and each block's cache."""

    embedding: EmbeddingCache  # ids (B, T)
    drop: DropoutCache | None  # dropout of the embedded input (B, T, C)
    blocks: list  # per block, bottom first: EncoderBlockCache or DecoderBlockCache


class Model:
    def __init__(self, cfg: ModelConfig, flat: np.ndarray | None = None, seed: int = 0, dtype=np.float32,
                 grad: np.ndarray | None = None):
        self.cfg = cfg
        self.flat = init_params(cfg, seed, dtype) if flat is None else flat
        if self.flat.shape != (count_params(cfg),):
            raise ValueError(f"weights hold {self.flat.size} values, config needs {count_params(cfg)}")
        self.dtype = self.flat.dtype
        self.params = views(self.flat, cfg)
        # np.zeros, not zeros_like: its pages are mapped only when written, so a model that only translates
        # costs no memory or time for a gradient (2 x 28 MB and ~50 ms for the shipped ensemble)
        self.grad = np.zeros(self.flat.shape, self.dtype) if grad is None else grad
        self.grads = views(self.grad, cfg)
        self.pe_src = positional_encoding(cfg.max_src_len, cfg.d_model, self.dtype)
        self.pe_tgt = positional_encoding(cfg.max_tgt_len, cfg.d_model, self.dtype)

    def __reduce__(self):
        """Pickled (e.g. broadcast to MPI ranks) as config + flat buffer, so views stay views."""
        return Model, (self.cfg, self.flat)

    # ---- sub-layers ---------------------------------------------------------------------------
    def _residual_ln(self, x, sub, name, rng):
        """LN(x + Dropout(sub)) of the post-norm blocks (thesis 3.2 III. Addition layer + IV. Normalization
        layer)."""
        s, drop = residual_dropout_forward(x, sub, self.cfg.dropout, rng)
        out, ln = layernorm_forward(s, self.params[name]["g"], self.params[name]["b"])
        return out, ResidualCache(drop, ln, name)

    def _residual_ln_backward(self, dout, cache: ResidualCache):
        """Returns (dx, dsub) for out = LN(x + Dropout(sub)). Without dropout they are one array:
        callers add into dx only once they are done with dsub."""
        dx = layernorm_backward(dout, cache.ln, self.grads[cache.name]["g"], self.grads[cache.name]["b"])
        return dx, dropout_backward(dx, cache.drop)

    def _attention(self, name, xq, xkv, k_len, causal, rng):
        """Attention sub-layer `name` over whole sequences, with its cache for the backward."""
        return mha_forward(xq, xkv, k_len, causal, self.params[name], self.cfg.n_heads, self.cfg.attn_dropout, rng)

    def _ffn_backward(self, name, dx, ffn: FFNCache, res: ResidualCache):
        """Through the sub-layer LN(x + Dropout(FFN(x))): returns dx."""
        dx, df = self._residual_ln_backward(dx, res)
        dx += ffn_backward(df, ffn, self.grads[name])
        return dx

    def _self_attention_backward(self, name, dx, attn: AttentionCache, res: ResidualCache):
        """Through the sub-layer LN(x + Dropout(SelfAttention(x))): returns dx."""
        dx, da = self._residual_ln_backward(dx, res)
        dxq, dxkv = mha_backward(da, attn, self.grads[name])
        dx += dxq
        dx += dxkv
        return dx

    # ---- blocks -------------------------------------------------------------------------------
    def encoder_block(self, i, x, src_len, rng):
        """Block i: self-attention, then the FFN, each as LN(x + Dropout(sub-layer(x))); x (B, S, C)."""
        a, attn = self._attention(f"enc.{i}.attn", x, x, src_len, False, rng)
        x, res1 = self._residual_ln(x, a, f"enc.{i}.ln1", rng)
        f, ffn = ffn_forward(x, self.params[f"enc.{i}.ffn"])
        x, res2 = self._residual_ln(x, f, f"enc.{i}.ln2", rng)
        return x, EncoderBlockCache(attn, res1, ffn, res2)

    def encoder_block_backward(self, i, dx, cache: EncoderBlockCache):
        dx = self._ffn_backward(f"enc.{i}.ffn", dx, cache.ffn, cache.res2)
        return self._self_attention_backward(f"enc.{i}.attn", dx, cache.attn, cache.res1)

    def decoder_block(self, i, y, memory, src_len, tgt_len, rng=None):
        """Block i: masked self-attention, attention to memory (B, S, C), then the FFN, each as
        LN(y + Dropout(sub-layer(y))); y (B, T, C). (A decoding step's, one position against cached keys and
        values: decode._block_step.)"""
        s, self_attn = self._attention(f"dec.{i}.self", y, y, tgt_len, True, rng)
        y, res1 = self._residual_ln(y, s, f"dec.{i}.ln1", rng)
        c, cross_attn = self._attention(f"dec.{i}.cross", y, memory, src_len, False, rng)
        y, res2 = self._residual_ln(y, c, f"dec.{i}.ln2", rng)
        f, ffn = ffn_forward(y, self.params[f"dec.{i}.ffn"])
        y, res3 = self._residual_ln(y, f, f"dec.{i}.ln3", rng)
        return y, DecoderBlockCache(self_attn, res1, cross_attn, res2, ffn, res3)

    def decoder_block_backward(self, i, dy, cache: DecoderBlockCache):
        """Returns (dy, dmemory)."""
        dy = self._ffn_backward(f"dec.{i}.ffn", dy, cache.ffn, cache.res3)
        dy, dc = self._residual_ln_backward(dy, cache.res2)
        dyq, dmemory = mha_backward(dc, cache.cross_attn, self.grads[f"dec.{i}.cross"])
        dy += dyq
        return self._self_attention_backward(f"dec.{i}.self", dy, cache.self_attn, cache.res1), dmemory

    # ---- stacks -------------------------------------------------------------------------------
    def _embed(self, ids, table, pe, rng, start=0):
        """Dropout(embedding) of ids (B, T) at positions start, ...: the input of either stack. English
        ids carry case factors in a model with cfg.case_factors."""
        factor_w = self.params["src_case"]["w"] if table == "src_emb" and self.cfg.case_factors else None
        x, embedding = embedding_forward(ids, self.params[table]["w"], pe, start, factor_w)
        x, drop = dropout_forward(x, self.cfg.dropout, rng)
        return x, embedding, drop

    def encode(self, src, src_len, rng=None, keep: bool = True):
        """src (B, S) -> encoder output (B, S, C). rng None means inference (no dropout); keep False: each
        block's activations are dropped as soon as the next block has its input (decoding needs none of them:
        kept, a batch of 2,048 source tokens held ~85 MB at once), and the cache returned has no blocks."""
        x, embedding, drop = self._embed(src, "src_emb", self.pe_src, rng)
        blocks = []
        for i in range(self.cfg.n_layers):
            x, block = self.encoder_block(i, x, src_len, rng)
            if keep:
                blocks.append(block)
        return x, StackCache(embedding, drop, blocks)

    def encode_backward(self, dx, cache: StackCache):
        for i in reversed(range(self.cfg.n_layers)):
            dx = self.encoder_block_backward(i, dx, cache.blocks[i])
        embedding_backward(dropout_backward(dx, cache.drop), cache.embedding, self.grads["src_emb"]["w"],
                           self.grads["src_case"]["w"] if self.cfg.case_factors else None)

    def decode(self, tgt_in, tgt_len, memory, src_len, rng=None):
        """tgt_in (B, T) attends causally to itself and to memory (B, S, C) -> (B, T, C)."""
        y, embedding, drop = self._embed(tgt_in, "tgt_emb", self.pe_tgt, rng)
        blocks = []
        for i in range(self.cfg.n_layers):
            y, block = self.decoder_block(i, y, memory, src_len, tgt_len, rng)
            blocks.append(block)
        return y, StackCache(embedding, drop, blocks)

    def decode_backward(self, dy, cache: StackCache):
        """Returns the gradient with respect to memory (the encoder output)."""
        dmemory = 0.0  # summed over the blocks' cross-attentions
        for i in reversed(range(self.cfg.n_layers)):
            dy, dmemory_i = self.decoder_block_backward(i, dy, cache.blocks[i])
            dmemory += dmemory_i
        embedding_backward(dropout_backward(dy, cache.drop), cache.embedding, self.grads["tgt_emb"]["w"])
        return dmemory

    # ---- loss ---------------------------------------------------------------------------------
    def _loss(self, batch, rng, smoothing, backward, n_total=None):
        memory, enc_cache = self.encode(batch.src, batch.src_len, rng)
        y, dec_cache = self.decode(batch.tgt_in, batch.tgt_len, memory, batch.src_len, rng)
        valid = batch.tgt_out != PAD  # (B, T)
        h = y[valid]  # (N, C): the output layer runs on real target tokens only
        w, b = self.params["out"]["w"], self.params["out"]["b"]
        logits = h @ w  # (N, V); the kernel adds the bias
        n = int(valid.sum())
        db = self.grads["out"]["b"] if backward else np.zeros_like(b)
        loss, nll, correct = kernels.cross_entropy(logits, b, batch.tgt_out[valid], smoothing, 1.0 / (n_total or n), db)
        stats = Stats(float(loss.sum()), float(nll.sum()), int(correct.sum()), n)
        if backward:
            dy = np.zeros_like(y)
            # the kernel left the scaled gradient in the logits buffer
            self.grads["out"]["w"] += h.T @ logits
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
