"""Batched beam search (greedy is beam 1) over Model's incremental decoder, and the Translator API.

Every sentence x beam of a batch is one row of the decoder state; a step feeds only the live rows,
takes the top 2k continuations of each row in one pass over its logits (kernels.log_softmax_topk),
and then the 2k best of each sentence's k x 2k candidates in one sort. Finished hypotheses are kept in
fixed arrays, and beam reordering moves indices into the key/value caches, never the caches.
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mtcli import kernels
from mtcli.attention import KVCache
from mtcli.checkpoint import SRC_TOK, TGT_TOK, check_tokenizers, load_ensemble
from mtcli.config import DEFAULTS, SENTENCES_PER_BATCH, TranslationOptions  # decoding's defaults (kept light)
from mtcli.errors import UserError
from mtcli.layers import linear_forward, log_softmax
from mtcli.model import Model
from mtcli.tokenizer import BOS, EOS, PAD, Tokenizer


@dataclass
class Hypothesis:
    tokens: list[int]  # Spanish ids without BOS/EOS
    score: float  # length-normalised log-probability (what the beam ranks by)
    logprob: float  # total log-probability


@dataclass
class TranslationHypothesis:
    tokens: list[str]  # Spanish pieces
    text: str
    score: float
    logprob: float


@dataclass
class TranslationResult:
    hypotheses: list[TranslationHypothesis] = field(default_factory=list)  # best first
    truncated: bool = False  # the source was cut to the model's length


def _max_len(model: Model, src_len: np.ndarray, a: float = DEFAULTS.max_decoding_length_a,
             b: int = DEFAULTS.max_decoding_length_b) -> np.ndarray:
    """Most tokens each output may have, its EOS included."""
    return np.minimum(a * src_len + b, model.cfg.max_tgt_len).astype(np.int64)


def _repeats(seq: list[int], n: int = DEFAULTS.no_repeat_ngram_size) -> list[int]:
    """Tokens that would complete an n-gram already present in seq (the spec of _banned)."""
    if len(seq) < n:
        return []
    prefix = tuple(seq[len(seq) - n + 1 :])
    return [seq[i + n - 1] for i in range(len(seq) - n + 1) if tuple(seq[i : i + n - 1]) == prefix]


def _banned(seqs: np.ndarray, n: int) -> np.ndarray:
    """seqs (N, t) -> (N, M) ids each row may not produce next, -1 padded: PAD, BOS and what
    _repeats forbids, for all rows at once."""
    always = np.broadcast_to(np.array([PAD, BOS]), (len(seqs), 2))
    t = seqs.shape[1]
    if n <= 0 or t < n:
        return np.ascontiguousarray(always)
    windows = sliding_window_view(seqs[:, : t - 1], n - 1, axis=1)  # (N, t-n+1, n-1)
    match = (windows == seqs[:, None, t - n + 1 :]).all(-1)
    return np.concatenate([always, np.where(match, seqs[:, n - 1 :], -1)], 1)


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


def _fused(params, names):
    """The projections params["w" + n] for n in names as one matrix (one GEMM instead of several)."""
    return {"w" + names: np.concatenate([params["w" + n] for n in names], 1),
            "b" + names: np.concatenate([params["b" + n] for n in names])}


def start_decoding(model: Model, src, src_len, slots_per_sentence: int = 1, max_len: int | None = None) -> DecoderState:
    """Encode once, project the cross-attention keys/values of every layer once per sentence, and
    preallocate the self-attention caches: `slots_per_sentence` hypotheses (beam) per sentence,
    `max_len` positions (default: the model's)."""
    memory, _ = model.encode(src, src_len)  # (B, S, C)
    B, C, L = src.shape[0], model.cfg.d_model, model.cfg.n_layers
    N, T = B * slots_per_sentence, max_len or model.cfg.max_tgt_len
    cross = [_fused(model.params[f"dec.{i}.cross"], "kv") for i in range(L)]
    cross_kv = [linear_forward(memory, kv["wkv"], kv["bkv"])[0] for kv in cross]  # (B, S, 2C)
    return DecoderState(
        self_qkv=[_fused(model.params[f"dec.{i}.self"], "qkv") for i in range(L)],
        self_k=[np.empty((N, T, C), model.dtype) for _ in range(L)],
        self_v=[np.empty((N, T, C), model.dtype) for _ in range(L)],
        cross_k=[np.ascontiguousarray(kv[..., :C]) for kv in cross_kv],
        cross_v=[np.ascontiguousarray(kv[..., C:]) for kv in cross_kv],
        src_len=src_len, sentence=np.repeat(np.arange(B), slots_per_sentence),
        history=np.zeros((N, T), np.int64), t=0)


def decoder_hidden(model: Model, state: DecoderState, tokens, rows):
    """The decoder at position state.t for the hypotheses in cache rows `rows` (N,), fed tokens (N,):
    writes their keys/values at that position and returns the top block's output (N, C). The caller
    advances state.t once all rows of the step are done."""
    t = state.t
    if t >= state.history.shape[1]:
        raise ValueError(f"output longer than the decoder's {state.history.shape[1]} positions")
    state.history[rows, t] = rows
    self_rows, n_self = state.history[rows, : t + 1], np.full(len(rows), t + 1)  # (N, t+1), (N,)
    cross_rows = state.sentence[rows][:, None]  # (N, 1)
    n_cross = state.src_len[cross_rows[:, 0]]
    kv = [(KVCache(state.self_k[i], state.self_v[i], self_rows, n_self, state.self_qkv[i]),
           KVCache(state.cross_k[i], state.cross_v[i], cross_rows, n_cross, None)) for i in range(model.cfg.n_layers)]
    y, _ = model.decode(tokens[:, None], None, None, None, kv=kv, start=t)  # (N, 1, C)
    return y[:, 0]


def decode_step(model: Model, state: DecoderState, tokens):
    """Feed one token per cache row (N,) at position state.t; returns log-probs (N, V) and the
    state, advanced (in place) by one position."""
    y = decoder_hidden(model, state, tokens, np.arange(len(tokens)))
    logits = linear_forward(y, model.params["out"]["w"], model.params["out"]["b"])[0]  # (N, V)
    state.t += 1
    return log_softmax(logits), state


def reorder_state(state: DecoderState, index) -> DecoderState:
    """Select/duplicate hypotheses: row i of the result continues row index[i]. Past keys/values
    stay where they are (history points at them); only a change in the number of rows copies
    them, into fresh caches."""
    index = np.asarray(index)
    history = state.history[index]
    if len(index) == len(state.history):
        return replace(state, history=history, sentence=state.sentence[index])
    N, t, positions = len(index), state.t, np.arange(state.t)

    def moved(cache):
        new = np.empty((N, *cache.shape[1:]), cache.dtype)
        new[:, :t] = cache[history[:, :t], positions]
        return new

    return replace(state, self_k=[moved(k) for k in state.self_k], self_v=[moved(v) for v in state.self_v],
                   sentence=state.sentence[index], history=np.broadcast_to(np.arange(N)[:, None], history.shape).copy())


@dataclass
class _Ended:
    """The finished hypotheses of B sentences, F slots each (see search), in fixed arrays."""

    seqs: np.ndarray  # (B, F, T) Spanish ids
    length: np.ndarray  # (B, F) tokens of each, EOS not counted
    logprob: np.ndarray  # (B, F) total log-probability
    score: np.ndarray  # (B, F) logprob / (length + 1) ** alpha; -inf in unused slots
    count: np.ndarray  # (B,) slots used

    @classmethod
    def empty(cls, B: int, F: int, T: int) -> _Ended:
        return cls(np.zeros((B, F, T), np.int64), np.zeros((B, F), np.int64), np.full((B, F), -np.inf),
                   np.full((B, F), -np.inf), np.zeros(B, np.int64))

    def add(self, ends, cand, parent, seqs, t: int, alpha: float) -> None:
        """Candidates ends (B, 2K) end at step t: their parents' tokens, cand's log-probabilities."""
        sb, sc = np.nonzero(ends)
        slot = self.count[sb] + (np.cumsum(ends, 1) - 1)[sb, sc]
        self.seqs[sb, slot, :t] = seqs[parent[sb, sc], :t]
        self.length[sb, slot] = t
        self.logprob[sb, slot] = cand[sb, sc]
        self.score[sb, slot] = cand[sb, sc] / (t + 1) ** alpha
        self.count += ends.sum(1)

    def best(self, nbest: int) -> list[list[Hypothesis]]:
        """The nbest best of each sentence, best first (one empty hypothesis if none ended)."""
        results = []
        for s in range(len(self.count)):
            order = np.argsort(-self.score[s, : self.count[s]], kind="stable")[:nbest]
            results.append([Hypothesis(self.seqs[s, i, : self.length[s, i]].tolist(), float(self.score[s, i]),
                                       float(self.logprob[s, i])) for i in order]
                           or [Hypothesis([], -np.inf, -np.inf)])
        return results


def _ranked(grid, grid_ids, rows, scores, values, ids):
    """Each sentence's K x 2K candidates (its live rows' totals `scores` (n,) + `values` (n, 2K) of
    tokens `ids`) as one row, best first: the 2K best totals (B, 2K), their tokens and parent rows."""
    B, K = grid.shape[:2]
    grid.fill(-np.inf)
    grid[rows // K, rows % K], grid_ids[rows // K, rows % K] = scores[:, None] + values, ids
    flat = grid.reshape(B, -1)
    order = np.argsort(-flat, axis=1, kind="stable")[:, : 2 * K]  # (B, 2K)
    cand = np.take_along_axis(flat, order, 1)
    cand_tok = np.take_along_axis(grid_ids.reshape(B, -1), order, 1)
    return cand, cand_tok, np.arange(B)[:, None] * K + order // (2 * K)  # parents: cache rows


def _next_logprobs(models: list[Model], states: list[DecoderState], tokens, rows):
    """An ensemble's next-token log-probabilities for cache rows `rows` (n, V): the mean of its
    models' log-probabilities (renormalised by the top-k kernel after)."""
    total = 0.0
    for model, state in zip(models, states):
        y = decoder_hidden(model, state, tokens, rows)  # (n, C)
        state.t += 1
        total = total + log_softmax(linear_forward(y, model.params["out"]["w"], model.params["out"]["b"])[0])
    return (total / len(models)).astype(models[0].dtype)


def search(model: Model | list[Model], src: np.ndarray, src_len: np.ndarray, beam: int = DEFAULTS.beam_size,
           nbest: int = DEFAULTS.num_hypotheses, alpha: float = DEFAULTS.length_penalty,
           max_len_a: float = DEFAULTS.max_decoding_length_a, max_len_b: int = DEFAULTS.max_decoding_length_b,
           ngram: int = DEFAULTS.no_repeat_ngram_size) -> list[list[Hypothesis]]:
    """Beam search for a padded batch src (B, S) of lengths (B,); the `nbest` best per sentence.
    `model` may be a list: an ensemble, whose log-probabilities are averaged at every step.

    Candidates rank by total log-probability; the best 2 * beam of each sentence are looked at in
    order: an EOS ends a hypothesis (scored logprob / (tokens + 1) ** alpha), the others refill the
    beam up to `beam`. A sentence is done once `beam` hypotheses have ended (so beam 1 is greedy)."""
    models = model if isinstance(model, list) else [model]
    model = models[0]
    B, K = len(src), beam
    limit = _max_len(model, src_len, max_len_a, max_len_b)  # (B,)
    T = int(limit.max())
    states = [start_decoding(m, src, src_len, K, T) for m in models]
    state = states[0]
    w, b = model.params["out"]["w"], model.params["out"]["b"]
    no_bias = np.zeros_like(b)
    rows = np.arange(B) * K  # live cache rows; at first one per sentence
    tokens = np.full(B, BOS)
    scores = np.zeros(B)  # total log-probability of each live row
    seqs = np.zeros((B * K, T), np.int64)  # each row's tokens so far
    ended = _Ended.empty(B, 3 * K, T)  # per sentence: < K end before the step that completes it, <= 2K in that step
    done = np.zeros(B, bool)
    grid, grid_ids = np.empty((B, K, 2 * K)), np.empty((B, K, 2 * K), np.int64)
    for t in range(T):
        if len(models) == 1:  # (the output layer's bias added in the kernel)
            y = decoder_hidden(model, state, tokens, rows)  # (n, C)
            state.t += 1
            values, ids = kernels.log_softmax_topk(y @ w, b, _banned(seqs[rows, :t], ngram), 2 * K)  # (n, 2K)
        else:
            logp = _next_logprobs(models, states, tokens, rows)  # (n, V)
            values, ids = kernels.log_softmax_topk(logp, no_bias, _banned(seqs[rows, :t], ngram), 2 * K)
        forced = t + 1 >= limit[rows // K]  # out of budget: EOS with log-probability 0
        values[forced], ids[forced, 0], values[forced, 0] = -np.inf, EOS, 0.0
        cand, cand_tok, parent = _ranked(grid, grid_ids, rows, scores, values, ids)
        live = np.isfinite(cand) & ~done[:, None]
        grows = live & (cand_tok != EOS)
        looked = np.cumsum(grows, 1) - grows < K  # fewer than K refills before it
        ended.add(live & looked & ~grows, cand, parent, seqs, t, alpha)
        done |= ended.count >= K
        keeps = grows & looked & ~done[:, None]
        kb, kc = np.nonzero(keeps)
        rows = kb * K + (np.cumsum(keeps, 1) - 1)[kb, kc]
        from_rows = parent[kb, kc]
        for st in states:
            st.history[rows] = st.history[from_rows]
        seqs[rows] = seqs[from_rows]
        tokens = seqs[rows, t] = cand_tok[kb, kc]
        scores = cand[kb, kc]
        if not len(rows):
            break
    return ended.best(min(nbest, K))


def greedy(model: Model, src: np.ndarray, src_len: np.ndarray) -> list[Hypothesis]:
    """src (B, S) padded English ids with BOS/EOS -> one hypothesis per sentence."""
    return [hs[0] for hs in search(model, src, src_len, beam=1)]


def beam_search(model: Model, src: np.ndarray, src_len: np.ndarray, beam: int = DEFAULTS.beam_size,
                nbest: int = DEFAULTS.num_hypotheses, alpha: float = DEFAULTS.length_penalty) -> list[list[Hypothesis]]:
    """The `nbest` best hypotheses per sentence, best first (see search)."""
    return search(model, src, src_len, beam, nbest, alpha)


def batches(lengths: np.ndarray, options: TranslationOptions) -> list[np.ndarray]:
    """Indices of sentences grouped by source length (shortest first), each group within
    options.max_batch_size sentences or padded source tokens."""
    order = np.argsort(lengths, kind="stable")
    groups, start = [], 0
    while start < len(order):
        end = start + 1
        while end < len(order) and (end + 1 - start if options.batch_type == "examples"
                                    else (end + 1 - start) * lengths[order[end]]) <= options.max_batch_size:
            end += 1
        groups.append(order[start:end])
        start = end
    return groups


def _spread(groups: list[np.ndarray], n: int) -> list[np.ndarray]:
    """At least n groups where the sentences allow: the largest halved until then."""
    groups = list(groups)
    while len(groups) < n and max(len(g) for g in groups) > 1:
        big = max(range(len(groups)), key=lambda i: len(groups[i]))
        g = groups.pop(big)
        groups[big:big] = [g[: len(g) // 2], g[len(g) // 2 :]]
    return groups


@functools.cache
def _blas():
    """The BLAS thread pools, found once (threadpoolctl's lookup costs milliseconds)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _padded(seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(B, S) ids padded with PAD, and the lengths (B,)."""
    lengths = np.array([len(s) for s in seqs], np.int64)
    src = np.full((len(seqs), int(lengths.max())), PAD, np.int64)
    for row, s in enumerate(seqs):
        src[row, : len(s)] = s
    return src, lengths


class Translator:
    """A loaded model directory: English lines in, Spanish lines out, in batches."""

    def __init__(self, model_dir, inter_threads: int | None = None):
        """inter_threads: batches decoded at once, each by one thread with single-threaded BLAS
        (default: one per core). Measured on a shared 2-core machine, two threads that each run
        their own GEMMs beat one batch split over two BLAS threads that meet at every product."""
        self.inter_threads = inter_threads or len(os.sched_getaffinity(0))
        self.models, self.meta = load_ensemble(model_dir)  # (one model, unless an ensemble)
        self.model = self.models[0]
        check_tokenizers(model_dir, self.meta)
        self.src_tok = Tokenizer.load(Path(model_dir) / SRC_TOK)
        self.tgt_tok = Tokenizer.load(Path(model_dir) / TGT_TOK)
        cfg = self.model.cfg
        if (self.src_tok.vocab_size, self.tgt_tok.vocab_size) != (cfg.src_vocab, cfg.tgt_vocab):
            raise UserError(f"{model_dir}: tokenizers do not match the model's vocabulary sizes")

    def source_ids(self, lines: list[str]) -> tuple[list[list[int]], list[bool]]:
        """Source ids with BOS/EOS, cut to the model's length, and which lines were cut."""
        room = self.model.cfg.max_src_len - 2
        ids = self.src_tok.encode_batch(lines)
        return [[BOS, *s[:room], EOS] for s in ids], [len(s) > room for s in ids]

    def encode(self, lines: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
        """Padded source ids (B, S), lengths (B,), and how many lines were truncated."""
        seqs, cut = self.source_ids(lines)
        return *_padded(seqs), sum(cut)

    def translate_batch(self, lines: list[str], options: TranslationOptions = DEFAULTS) -> list[TranslationResult]:
        """One result per line, in input order; an empty line gets one empty hypothesis."""
        results = [TranslationResult([TranslationHypothesis([], "", 0.0, 0.0)]) for _ in lines]
        todo = [i for i, line in enumerate(lines) if line.strip()]
        if not todo:
            return results
        seqs, cut = self.source_ids([lines[i] for i in todo])
        groups = _spread(batches(np.array([len(s) for s in seqs]), options), self.inter_threads)

        def run(group):
            return search(self.models, *_padded([seqs[j] for j in group]), options.beam_size, options.num_hypotheses,
                          options.length_penalty, options.max_decoding_length_a, options.max_decoding_length_b,
                          options.no_repeat_ngram_size)

        with _blas().limit(limits=1, user_api="blas"):
            if len(groups) == 1 or self.inter_threads == 1:
                found = [run(group) for group in groups]
            else:
                with ThreadPoolExecutor(min(self.inter_threads, len(groups)), "mtcli-decode") as pool:
                    found = list(pool.map(run, groups))
        for group, hyps_of_group in zip(groups, found):
            for j, hyps in zip(group, hyps_of_group):
                texts = self.tgt_tok.decode_batch([h.tokens for h in hyps])
                results[todo[j]] = TranslationResult(
                    [TranslationHypothesis([self.tgt_tok.id_to_token(i) for i in h.tokens], text, h.score, h.logprob)
                     for h, text in zip(hyps, texts)], cut[j])
        return results

    def translate(self, lines: list[str], beam: int = DEFAULTS.beam_size, nbest: int = DEFAULTS.num_hypotheses,
                  alpha: float = DEFAULTS.length_penalty, batch_size: int = SENTENCES_PER_BATCH) -> tuple[list[list[tuple[str, float]]], int]:
        """n-best (text, score) lists per line, in input order; empty lines stay empty.
        Returns them with the number of truncated lines. batch_size counts sentences."""
        options = replace(DEFAULTS, beam_size=beam, num_hypotheses=nbest, length_penalty=alpha,
                          max_batch_size=batch_size, batch_type="examples")
        results = self.translate_batch(lines, options)
        return [[(h.text, h.score) for h in r.hypotheses] for r in results], sum(r.truncated for r in results)
