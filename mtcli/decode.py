"""Batched beam search (greedy is beam 1) over Model's incremental decoder, and the Translator API.

Every sentence x beam of a batch is one row of the decoder state; a step feeds only the live rows,
takes the top 2k continuations of each row in one pass over its logits (kernels.log_softmax_topk),
and then the 2k best of each sentence's k x 2k candidates in one sort. Finished hypotheses are kept in
fixed arrays, and beam reordering moves indices into the key/value caches, never the caches. Each
sentence is at its own step, so sentences can join and leave between steps (continuous batching:
BeamSearch, TranslationStream, for the server).
"""

from __future__ import annotations

import functools
import mmap
import os
import sys
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Collection
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from mtcli import kernels
from mtcli.attention import NO_DROP
from mtcli.checkpoint import direction, lexicon_parts, load_ensemble, load_tokenizers
from mtcli.config import DEFAULTS, SENTENCES_PER_BATCH, TranslationOptions  # decoding's defaults (kept light)
from mtcli.data import WORD
from mtcli.layers import linear_forward, log_softmax
from mtcli.model import Model
from mtcli.tokenizer import BOS, CONTINUE, EOS, PAD, SPACE

# What beam search takes off a hypothesis that closes a made-up word (WordCheck): more than any real word's
# log-probability costs, so such a word ends up in the output only where every hypothesis holds one.
NONWORD_PENALTY = 20.0
# ... for sources of at most this many words (None: every line). Every line since December 2026: first 1,000
# unseen lines, outputs with a made-up word 113 -> 4 per 1,000 for 0.07 BLEU (32.36 -> 32.29) and ~5 % of
# decoding's CPU; the words outside the corpus are sometimes real Spanish ("dominarlo", "desperdició": 1,000
# test-split pairs with a lexicon without them, 48.22 unchecked, 47.97 checked)
NONWORD_MAX_WORDS: int | None = None
# verdicts WordCheck remembers (~140 bytes each): at 100,000 the memo reached ~14 MB of a file's peak after ~50,000
# lines at beam 4 (it gains ~2 a line); 20,000 keep the common words' (~3 MB), the rest is a bisection again
VERDICTS = 20_000
# sources whose word starts WordCheck keeps (~3.5 KB each): a few batches' (a batch of 2,048 source tokens holds at
# most ~680 sentences); before, they grew with the file (~1 KB a line greedy), serving no later sentence
SOURCES = 2048
# rows of an ensemble step's exponentials computed at once (1.5 MB): a whole step's were up to ~10 MB a thread at
# beam 4 (400 rows of short sentences)
EXP_ROWS = 64
# ids no hypothesis produces (with the n-grams it would repeat: kernels.banned_ngrams)
ALWAYS_BANNED = np.array([PAD, BOS])


@dataclass
class Hypothesis:
    tokens: list[int]  # Spanish ids without BOS/EOS
    score: float  # length-normalised log-probability (what the beam ranks by)
    logprob: float  # total log-probability
    # the coverage penalty's reading of it (its heads of layer 0), for a check
    reading: Forced | None = field(default=None, compare=False, repr=False)


@dataclass
class TranslationHypothesis:
    tokens: list[str]  # Spanish pieces
    text: str
    score: float
    logprob: float


@dataclass
class Forced:
    """A given translation read by the model under teacher forcing (what mtcli.confidence and the
    alignments read; decoding itself never computes it)."""

    logprobs: np.ndarray | None  # (T + 1,) each target token's log-probability given the ones before, EOS last
    attention: np.ndarray | None  # (L', H, T + 1, S) cross-attention of the position predicting each of them to each
    # source id (with `heads` asked for, the other heads' rows are NaN); None where not asked for
    src: list[int]  # source ids, BOS and EOS included (S)
    tgt: list[int]  # target ids without BOS/EOS (T)
    # an ensemble's: each member's log-probability of each target token (M, T + 1), EOS last (asked for by a check)
    members: np.ndarray | None = None


@dataclass
class TranslationResult:
    hypotheses: list[TranslationHypothesis] = field(default_factory=list)  # best first
    truncated: bool = False  # the source was cut to the model's length
    # (a TranslationStream's, with a fitted check) the best hypothesis' coverage reading, for the server's check
    reading: Forced | None = field(default=None, compare=False, repr=False)


def _max_len(model: Model, src_len: np.ndarray, a: float = DEFAULTS.max_decoding_length_a,
             b: int = DEFAULTS.max_decoding_length_b) -> np.ndarray:
    """Most tokens each output may have, its EOS included."""
    return np.minimum(a * src_len + b, model.cfg.max_tgt_len).astype(np.int64)


def _repeats(seq: list[int], n: int = DEFAULTS.no_repeat_ngram_size) -> list[int]:
    """Tokens that would complete an n-gram already present in seq (the spec of kernels.banned_ngrams)."""
    if len(seq) < n:
        return []
    prefix = tuple(seq[len(seq) - n + 1 :])
    return [seq[i + n - 1] for i in range(len(seq) - n + 1) if tuple(seq[i : i + n - 1]) == prefix]


class WordCheck:
    """Made-up words kept out of the output: a word (a piece without "##" and the "##" pieces after it) is
    made up if it is of letters only and neither in the lexicon (the target side's words, lowercased:
    data.target_lexicon) nor among its source's words ("¡Dola!" for "Hello!"). Checked as the word grows, so
    that search cannot dodge the check by never closing a word: a candidate pays `penalty` where it makes
    the word a prefix of no lexicon or source word, or closes it (a piece without "##", EOS) on a prefix
    that is no word; once."""

    def __init__(self, pieces: list[str], lexicon: Collection[str], penalty: float = NONWORD_PENALTY):
        self.sorted = sorted(lexicon)  # (a sorted list in a millisecond)
        self.words, self.penalty = frozenset(self.sorted), penalty
        self.text = [p.removeprefix(CONTINUE).removeprefix(SPACE).lower() for p in pieces]
        self.continues = np.array([p.startswith(CONTINUE) for p in pieces])  # (V,) goes on with the word before
        self.starts = ~self.continues & np.array([t.isalnum() for t in self.text])  # (V,) opens a word
        # verdicts of the lexicon alone, which hold for every source: word -> (some lexicon word starts with it,
        # it is one), (word, piece) -> some lexicon word starts with the two; bounded by VERDICTS
        self.memo: dict = {}
        self.source_starts: dict[frozenset[str], frozenset[str]] = {}  # bounded by SOURCES
        # (V,) a piece of letters no lexicon word starts with
        self.odd = np.array([t.isalnum() and not self._prefix(t) for t in self.text])

    def _prefix(self, text: str, source: frozenset[str] = frozenset()) -> bool:
        """Some lexicon or source word starts with text (or it holds a digit: a number is no word)."""
        k = bisect_left(self.sorted, text)
        return (k < len(self.sorted) and self.sorted[k].startswith(text)) or not text.isalpha() \
            or text in self._starts_of(source)

    def _starts_of(self, source: frozenset[str]) -> frozenset[str]:
        """Every start of a source's words ("" included), once per source."""
        found = self.source_starts.get(source)
        if found is None:
            found = self.source_starts[source] = frozenset(w[:k] for w in source for k in range(len(w) + 1))
        return found

    def follow(self, word: str | None, token: int) -> str | None:
        """The unclosed word, lowercased, once token follows a hypothesis whose unclosed word is `word` (None:
        none): a "##" piece goes on with it (or opens one: "¡" "##ola" is "ola"), a piece of letters or digits
        opens one, any other closes it. BeamSearch keeps each hypothesis's as it grows."""
        if self.continues[token]:
            return (word or "") + self.text[token]
        return self.text[token] if self.starts[token] else None

    def penalties(self, words: list[str | None], sources: list[frozenset[str] | None], ids: np.ndarray) -> np.ndarray:
        """(N, C) what to take off the candidate tokens ids (N, C) of rows whose unclosed words are `words` (N;
        see follow) and whose sources' words are `sources` (None: a row not checked). Python only where a
        verdict is not in the memo: per row, its word's; per "##" candidate of a row whose word is on its way to
        a word, that candidate's."""
        if len(self.memo) > VERDICTS:  # (a server's memo stays bounded)
            self.memo.clear()
        if len(self.source_starts) > SOURCES:
            self.source_starts.clear()
        checked = np.array([src is not None for src in sources])
        if not checked.any():
            return np.zeros(ids.shape)
        starts, continues = self.starts[ids], self.continues[ids]
        none = np.array([w is None for w in words])
        # a new word no lexicon word starts like (a name of the source may start oddly)
        pay = (starts | (continues & none[:, None])) & self.odd[ids] & checked[:, None]
        for r, c in zip(*np.nonzero(pay)):
            if sources[r]:
                pay[r, c] = not self._prefix(self.text[ids[r, c]], sources[r])
        memo, text = self.memo, self.text
        rows = np.flatnonzero(checked & ~none).tolist()
        going, closes = [], []  # of each row with an open word: on its way to a word (else it paid), a word
        for r in rows:
            word, src = words[r], sources[r]
            verdict = memo.get(word)
            if verdict is None:
                verdict = memo[word] = (self._prefix(word), word in self.words or not word.isalpha())
            going.append(verdict[0] or word in self._starts_of(src))
            closes.append(verdict[1] or word in src)
        on, word_ends = np.zeros(len(ids), bool), np.zeros(len(ids), bool)
        on[rows], word_ends[rows] = going, closes
        pay |= on[:, None] & ~continues & ~word_ends[:, None]  # closing a word that is none
        rs, cs = np.nonzero(on[:, None] & continues)  # going on to no word's prefix
        ok = []
        for r, i in zip(rs.tolist(), ids[rs, cs].tolist()):
            word = words[r]
            verdict = memo.get((word, i))
            if verdict is None:
                verdict = memo[word, i] = self._prefix(word + text[i])
            ok.append(verdict or word + text[i] in self._starts_of(sources[r]))
        pay[rs, cs] |= ~np.array(ok, bool)
        return np.where(pay, self.penalty, 0.0)


def source_words(line: str, most: int | None = None) -> frozenset[str] | None:
    """A source line's words, lowercased (a made-up word copied from its source is no defect: a name); None
    (WordCheck: not checked) for a line of more than `most` words."""
    words = WORD.findall(line)
    return None if most is not None and len(words) > most else frozenset(w.lower() for w in words)


@dataclass(frozen=True)
class Coverage:
    """GNMT's coverage penalty (Wu et al. 2016), as a last ranking of each sentence's finished hypotheses: each
    ranks by its score + beta x the sum, over the source's words (of a letter or digit), of log(min(coverage, 1)),
    a word's coverage being the most attention any target position gives its pieces together, read from the
    cross-attention head that the model's check reads for "may have left out" (MODEL/confidence.json). A
    fluent translation that leaves a word out ranks lower; the scores reported stay the model's."""

    layer: int
    heads: tuple[int, ...]
    pieces: tuple[str, ...]  # the source vocabulary, by id
    # the check also reads an ensemble's members' log-probabilities (member0, ...): beam search keeps them with the
    # reading; otherwise it keeps none (their arrays held ~7 MB of a 2,000-line file's peak for a check not reading them)
    members: bool = False

    def log_coverage(self, readings: list[Forced | None]) -> np.ndarray:
        """(n,) each hypothesis' sum of log coverage (0 where None), from its reading: the weights of `heads`
        of block `layer`, as forced(...) computes them (beam search keeps them from its steps: BeamSearch)."""
        from mtcli.confidence import WORD as CONTENT, word_coverage, words

        out = np.zeros(len(readings))
        read: dict[tuple, tuple] = {}  # source ids -> its words and which hold a letter or digit (once per sentence)
        for k, f in enumerate(readings):
            if f is None:
                continue
            if (key := tuple(f.src)) not in read:
                spans = words([self.pieces[i % len(self.pieces)] for i in f.src[1:-1]])  # (case factors stripped)
                read[key] = spans, np.array([bool(CONTENT.search(w)) for _, _, w in spans], bool)
            spans, content = read[key]
            if spans:
                cover = word_coverage(f.attention, spans, self.layer, self.heads)
                out[k] = np.log(np.clip(cover[content], 1e-3, 1.0)).sum()
        return out


@dataclass
class DecoderState:
    """Incremental decoding of N hypotheses ("rows") of B source sentences. Row r's keys/values for
    position j sit in cache row history[r, j]: a beam hypothesis reads its past from its ancestors'
    rows, so reordering a beam copies indices, never caches."""

    self_qkv: list[dict]  # per layer: fused query/key/value projection {"wqkv": (C, 3C), "bqkv": (3C,)}
    cross_kv: list[dict]  # per layer: fused cross-attention key/value projection {"wkv": (C, 2C), "bkv": (2C,)}
    enc_qkv: list[dict]  # per encoder layer: its fused query/key/value projection, for the sentences joining (attend_to)
    self_k: list[np.ndarray]  # per layer (N, T, C): key of position j, written once, at step j
    self_v: list[np.ndarray]  # per layer (N, T, C)
    cross_k: list[np.ndarray]  # per layer (B, S, C): encoder-side keys, projected once per sentence
    cross_v: list[np.ndarray]  # per layer (B, S, C)
    src_len: np.ndarray  # (B,)
    sentence: np.ndarray  # (N,): each row's source sentence
    history: np.ndarray  # (N, T): the cache row holding each position of each row's hypothesis
    t: int  # positions fed so far (decode_step's; BeamSearch keeps each sentence's own)


def _fused(params, names):
    """The projections params["w" + n] for n in names as one matrix (one GEMM instead of several)."""
    return {"w" + names: np.concatenate([params["w" + n] for n in names], 1),
            "b" + names: np.concatenate([params["b" + n] for n in names])}


def mapped(shape: tuple[int, ...], dtype) -> np.ndarray:
    """An uninitialised array in pages of its own (an anonymous mapping: only the pages written become resident),
    unmapped when it is freed. A batch's caches vary in size with its sentences; from glibc's heap (whose threshold
    for mapping a block rises to the largest freed) they left holes the heap never returned: a file's decoding held
    ~50 MB more at 10,000 lines than at 2,000 (greedy). Private: a shared mapping's pages given back (_drop_pages)
    left the process's resident count but stayed in memory, their contents with them."""
    n = int(np.prod(shape))
    private = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}  # (not on Windows)
    return np.frombuffer(mmap.mmap(-1, max(1, n * np.dtype(dtype).itemsize), **private), dtype, n).reshape(shape)


def empty_decoding(model: Model, B: int, slots_per_sentence: int, S: int, T: int) -> DecoderState:
    """A state for B sentences of up to S source tokens, `slots_per_sentence` hypotheses (beam) each
    of up to T positions, its caches allocated and no sentence in them yet (attend_to puts them in)."""
    C, L = model.cfg.d_model, model.cfg.n_layers
    N = B * slots_per_sentence
    return DecoderState(
        self_qkv=[_fused(model.params[f"dec.{i}.self"], "qkv") for i in range(L)],
        cross_kv=[_fused(model.params[f"dec.{i}.cross"], "kv") for i in range(L)],
        enc_qkv=[_fused(model.params[f"enc.{i}.attn"], "qkv") for i in range(L)],
        self_k=[mapped((N, T, C), model.dtype) for _ in range(L)],
        self_v=[mapped((N, T, C), model.dtype) for _ in range(L)],
        cross_k=[mapped((B, S, C), model.dtype) for _ in range(L)],  # (zeros: a mapping's pages start as zeros)
        cross_v=[mapped((B, S, C), model.dtype) for _ in range(L)],
        src_len=np.zeros(B, np.int64), sentence=np.repeat(np.arange(B), slots_per_sentence),
        history=np.zeros((N, T), np.int64), t=0)


def encode(model: Model, src, src_len, fused: list[dict] | None = None) -> np.ndarray:
    """Model.encode(src, src_len) at inference, the same floats (B, S, C): per block BLAS's products with one kernel
    between each two, as a decoding step's (_block_step), the query/key/value projections one product
    (kernels.self_attention reads them from it) and no activations kept for a backward pass. fused: each layer's
    projections made one already (DecoderState.enc_qkv: a server's decoder encodes each sentence as it joins, and
    making them cost ~0.2 ms a layer and member each time)."""
    p, H = model.params, model.cfg.n_heads
    x = model._embed(src, "src_emb", model.pe_src, None)[0]  # (B, S, C)
    B, S, C = x.shape
    rows = x.reshape(B * S, C)  # (in place: a view of x)
    for i in range(model.cfg.n_layers):
        attn, ffn = p[f"enc.{i}.attn"], p[f"enc.{i}.ffn"]
        ln = [(p[f"enc.{i}.ln{j}"]["g"], p[f"enc.{i}.ln{j}"]["b"]) for j in (1, 2)]
        projection = fused[i] if fused else _fused(attn, "qkv")
        qkv = rows @ projection["wqkv"]  # (B S, 3C)
        qkv += projection["bqkv"]
        a = kernels.self_attention(qkv.reshape(B, S, 3 * C), src_len, H).reshape(B * S, C)
        kernels.residual_layernorm(rows, a @ attn["wo"], attn["bo"], *ln[0])
        h = rows @ ffn["w1"]  # (B S, F)
        kernels.bias_relu(h, ffn["b1"])
        kernels.residual_layernorm(rows, h @ ffn["w2"], ffn["b2"], *ln[1])
    return x


def attend_to(model: Model, state: DecoderState, sentences, src, src_len) -> np.ndarray:
    """Encode src (n, S') once and project every layer's cross-attention keys/values into the
    state's sentences `sentences` (n,); returns the encoder's output (n, S', C)."""
    memory = encode(model, src, src_len, state.enc_qkv)  # (n, S', C)
    C, S = model.cfg.d_model, src.shape[1]
    for i in range(model.cfg.n_layers):
        kv = linear_forward(memory, state.cross_kv[i]["wkv"], state.cross_kv[i]["bkv"])[0]  # (n, S', 2C)
        state.cross_k[i][sentences, :S], state.cross_v[i][sentences, :S] = kv[..., :C], kv[..., C:]
    state.src_len[sentences] = src_len
    return memory


def start_decoding(model: Model, src, src_len, slots_per_sentence: int = 1, max_len: int | None = None) -> DecoderState:
    """A state holding the batch src (B, S): `slots_per_sentence` hypotheses (beam) per sentence,
    `max_len` positions (default: the model's)."""
    state = empty_decoding(model, len(src), slots_per_sentence, src.shape[1], max_len or model.cfg.max_tgt_len)
    attend_to(model, state, np.arange(len(src)), src, src_len)
    return state


def decoder_hidden(model: Model, state: DecoderState, tokens, rows, t=None, kept=None):
    """The decoder at position t (default state.t; or each row's own, (N,)) for the hypotheses in
    cache rows `rows` (N,), fed tokens (N,): writes their keys/values at that position and returns the
    top block's output (N, C). The caller advances the positions once all rows of the step are done.
    kept: (block, slots, out): that block's cross-attention weights of some heads written to out (see
    kernels.cached_attention's kept_slot and kept)."""
    t = state.t if t is None else t
    top = int(np.max(t))
    if top >= state.history.shape[1]:
        raise ValueError(f"output longer than the decoder's {state.history.shape[1]} positions")
    state.history[rows, t] = rows
    self_keys = state.history[rows, : top + 1], np.zeros(len(rows), np.int64) + (t + 1)  # (N, top+1), (N,)
    cross_rows = state.sentence[rows][:, None]  # (N, 1)
    cross_keys = cross_rows, state.src_len[cross_rows[:, 0]]
    y = model._embed(tokens[:, None], "tgt_emb", model.pe_tgt, None, t)[0][:, 0]  # (N, C)
    for i in range(model.cfg.n_layers):
        _block_step(model, i, state, y, self_keys, cross_keys, kept[1:] if kept is not None and kept[0] == i else None)
    return y


NO_HEADS_KEPT = {dtype: (np.full(0, -1), np.zeros((0, 0, 0), dtype)) for dtype in NO_DROP}


def _block_step(model: Model, i: int, state: DecoderState, y, self_keys, cross_keys, kept) -> None:
    """Model.decoder_block i at one new position of each row, y (N, C) in place: BLAS's products with one kernel
    between each two (the block's ~30 NumPy and Python calls had cost ~0.2 ms of a beam-4 step's fixed ~2.1 ms).
    self_keys, cross_keys: each attention's key rows and keys per row (kernels.cached_attention's key_rows and
    n_keys)."""
    p, H = model.params, model.cfg.n_heads
    ln = [(p[f"dec.{i}.ln{j}"]["g"], p[f"dec.{i}.ln{j}"]["b"]) for j in (1, 2, 3)]
    qkv = y @ state.self_qkv[i]["wqkv"]  # (N, 3C)
    qkv += state.self_qkv[i]["bqkv"]
    a = kernels.self_attention_step(qkv, state.self_k[i], state.self_v[i], *self_keys, H)  # (N, C)
    kernels.residual_layernorm(y, a @ p[f"dec.{i}.self"]["wo"], p[f"dec.{i}.self"]["bo"], *ln[0])
    cross = p[f"dec.{i}.cross"]
    q = y @ cross["wq"]
    q += cross["bq"]
    a = kernels.cached_attention(q, state.cross_k[i], state.cross_v[i], *cross_keys, H,
                                 *(kept or NO_HEADS_KEPT[q.dtype]))
    kernels.residual_layernorm(y, a @ cross["wo"], cross["bo"], *ln[1])
    ffn = p[f"dec.{i}.ffn"]
    h = y @ ffn["w1"]  # (N, F)
    kernels.bias_relu(h, ffn["b1"])
    kernels.residual_layernorm(y, h @ ffn["w2"], ffn["b2"], *ln[2])


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
    """The finished hypotheses of B sentences, F slots each (see BeamSearch), in fixed arrays."""

    seqs: np.ndarray  # (B, F, T) Spanish ids
    length: np.ndarray  # (B, F) tokens of each, EOS not counted
    logprob: np.ndarray  # (B, F) total log-probability
    score: np.ndarray  # (B, F) (logprob - penalties) / (length + 1) ** alpha; -inf in unused slots
    count: np.ndarray  # (B,) slots used
    history: np.ndarray  # (B, F, T) the cache row of each position (DecoderState.history), EOS's included

    @classmethod
    def empty(cls, B: int, F: int, T: int) -> _Ended:
        return cls(np.zeros((B, F, T), np.int64), np.zeros((B, F), np.int64), np.full((B, F), -np.inf),
                   np.full((B, F), -np.inf), np.zeros(B, np.int64), np.zeros((B, F, T), np.int64))

    def arrays(self) -> tuple:
        """What kernels.advance_beams fills."""
        return self.seqs, self.history, self.length, self.logprob, self.score, self.count

    def pop(self, s: int, nbest: int, read: Callable | None = None) -> list[Hypothesis]:
        """Sentence s's nbest best, best first (one empty hypothesis if none ended); empties its slots.
        read: called with s, a hypothesis' tokens and its positions' cache rows, gives its `reading`."""
        order = np.argsort(-self.score[s, : self.count[s]], kind="stable")[:nbest]
        found = [Hypothesis(tokens := self.seqs[s, i, : self.length[s, i]].tolist(), float(self.score[s, i]),
                            float(self.logprob[s, i]),
                            read and read(s, tokens, self.history[s, i, : self.length[s, i] + 1])) for i in order]
        self.score[s], self.logprob[s], self.count[s] = -np.inf, -np.inf, 0
        return found or [Hypothesis([], -np.inf, -np.inf)]


def _member_logprobs(model: Model, state: DecoderState, tokens, rows, t, out, scratch, kept=None) -> np.ndarray:
    """One model's next-token log-probabilities for cache rows `rows` (n, V) at positions t (n,), written into out
    (its first n rows); scratch: rows of exponentials (see BeamSearch's `room`)."""
    y = decoder_hidden(model, state, tokens, rows, t, kept)  # (n, C)
    # log_softmax(linear_forward(y, ...)), the same operations in place (the exponentials a block of rows at a
    # time: each row's sum is its own)
    logits = np.matmul(y, model.params["out"]["w"], out=out[: len(y)])
    logits += model.params["out"]["b"]
    logits -= logits.max(-1, keepdims=True)
    for a in range(0, len(y), len(scratch)):
        block = logits[a : a + len(scratch)]
        block -= np.log(np.exp(block, out=scratch[: len(block)]).sum(-1, keepdims=True))
    return logits


def _next_logprobs(models: list[Model], states: list[DecoderState], tokens, rows, t, room, kept=None,
                   helper: Members | None = None) -> list[np.ndarray]:
    """Each model of an ensemble's next-token log-probabilities for cache rows `rows` (n, V) at positions t (n,)
    (their mean is the ensemble's, renormalised by the top-k kernel after), each written into its array of
    BeamSearch's `room`. kept: the first model's (see decoder_hidden). helper: the models after the first
    stepped in its thread meanwhile (the same operations on the same arrays: the same log-probabilities)."""
    scratch = room[-1] if helper is None else helper.scratch
    with Members.alongside(helper, lambda: [_member_logprobs(m, s, tokens, rows, t, room[k], scratch)
                                            for k, (m, s) in enumerate(zip(models, states)) if k]) as others:
        first = _member_logprobs(models[0], states[0], tokens, rows, t, room[0], room[-1], kept)
    return [first, *others]


class Members:
    """A thread that steps (and encodes for) an ensemble's members after the first while the decoding thread does
    the first's: a server's decoder then spreads one batch's step over two cores. A step's fixed cost is its matrix
    products' (BLAS copies each weight matrix into its blocks at every call: the output layer's ~0.64 ms of a
    member's step whatever the rows), so one decoder of twice the sentences, each core streaming one member's
    weights, decodes more than two decoders do at a few sentences each where each thread has a core (docs/serve.md:
    on a shared machine it did not). Its BLAS and Numba calls release the GIL."""

    def __init__(self, rows: int, vocab: int, dtype):
        self.scratch = mapped((min(rows, EXP_ROWS), vocab), dtype)  # its exponentials (the first's: room[-1])
        self._go, self._done = threading.Semaphore(0), threading.Semaphore(0)
        self._work: Callable | None = None
        self._out: object = None
        self.cpu = 0.0  # its thread's CPU seconds at work (benchmarks/serve_load.py --steady)
        threads = None
        if kernels.loaded():  # (Numba's count of threads is each thread's own: this one's, the decoding thread's)
            import numba

            threads = numba.get_num_threads()
        threading.Thread(target=self._run, args=(threads,), name="mtcli-members", daemon=True).start()

    def _run(self, threads: int | None) -> None:
        if threads is not None:
            import numba

            numba.set_num_threads(threads)
        while True:
            self._go.acquire()
            start = time.thread_time()
            try:
                self._out = self._work()
            except BaseException as e:  # (raised in the decoding thread: alongside)
                self._out = e
            self.cpu += time.thread_time() - start
            self._done.release()

    @staticmethod
    @contextmanager
    def alongside(helper: Members | None, work: Callable[[], list]):
        """work() run in helper's thread while the block runs (without a helper: after it, in this thread); yields
        the list its result is put in once both are done. Its error is raised here."""
        done: list = []
        if helper is not None:
            helper._work = work
            helper._go.release()
        try:
            yield done
        finally:
            if helper is not None:
                helper._done.acquire()
                if isinstance(helper._out, BaseException):
                    raise helper._out
        done += helper._out if helper is not None else work()


class BeamSearch:
    """Beam search over `slots` sentences at once, each at its own step: sentences join (`add`) and
    leave (`step` returns them finished) between steps, so that a stream of sentences is decoded in
    batches that stay full (continuous batching, as a server needs, and `search` for a file's lines). `models` of more than one are an ensemble: their log-probabilities are averaged
    at every step.

    Sentence s owns cache rows s*K ... s*K+K-1 (K = beam). Candidates rank by total log-probability;
    the best 2K of each sentence are looked at in order: an EOS ends a hypothesis (scored logprob /
    (tokens + 1) ** alpha), the others refill the beam up to K. A sentence is done once K hypotheses
    have ended (so beam 1 is greedy), or none is left to grow. With a WordCheck, a candidate that closes a
    made-up word pays its penalty in the ranking (not in the log-probability reported)."""

    def __init__(self, models: list[Model], slots: int, options: TranslationOptions = DEFAULTS,
                 max_src: int | None = None, max_tgt: int | None = None, words: WordCheck | None = None,
                 coverage: Coverage | None = None, parallel: bool = False):
        """max_src, max_tgt: the longest source (BOS and EOS included) and output it will hold
        (default: the model's). coverage: the finished hypotheses ranked again (options.coverage_penalty).
        parallel: an ensemble's members after the first stepped in a thread of their own (Members)."""
        self.models, self.options, self.words, K = models, options, words, options.beam_size
        cfg = models[0].cfg
        S, T = max_src or cfg.max_src_len, max_tgt or cfg.max_tgt_len
        self.coverage = coverage if options.coverage_penalty and K > 1 else None
        # greedy ranks nothing again, but keeps the reading all the same: the check would read each translation
        # again otherwise, an ensemble's through a whole pass of each member (300 lines: 0.85 s of CPU to 1.4 s)
        self.reads = self.coverage or (coverage if K == 1 else None)
        self.kept = None
        if self.reads:  # each sentence's source, and the first model's weights of the coverage heads at each
            # cache row and position (read once it is done: _reading)
            self.src, self.src_len = np.zeros((slots, S), np.int64), np.zeros(slots, np.int64)
            heads = sorted(set(self.reads.heads))
            slot = np.full(cfg.n_heads, -1)
            slot[heads] = np.arange(len(heads))
            self.kept = self.reads.layer, slot, np.zeros((slots * K, T, len(heads), S), models[0].dtype)
        # an ensemble's reading also has each member's log-probabilities where the check reads them (its signals): at
        # each cache row and position, the ids of its 2K candidates and each member's log-probability of them
        self.members = None if self.kept is None or len(models) == 1 or not self.reads.members else (
            np.zeros((slots * K, T, 2 * K), np.int64), np.zeros((slots * K, T, len(models), 2 * K), models[0].dtype))
        self.states = [empty_decoding(m, slots, K, S, T) for m in models]
        for state in self.states[1:]:
            state.history = self.states[0].history  # the models' hypotheses move together
        self.seqs = np.zeros((slots * K, T), np.int64)  # each row's tokens so far
        self.open = [None] * (slots * K)  # each row's unclosed word (WordCheck.follow)
        self.rows = np.empty(0, np.int64)  # (n,) live cache rows
        self.tokens = np.empty(0, np.int64)  # (n,) each live row's last token, fed next
        self.scores = np.empty(0)  # (n,) each live row's total log-probability, less its penalties
        self.paid = np.empty(0)  # (n,) those penalties
        self.sources: list[frozenset[str] | None] = [None] * slots  # each sentence's source words (WordCheck)
        self.t = np.zeros(slots, np.int64)  # each sentence's next position
        self.limit = np.zeros(slots, np.int64)  # most tokens its output may have, EOS included
        self.active = np.zeros(slots, bool)  # the slot holds a sentence
        # per sentence: < K end before the step that completes it, <= 2K in that step
        self.ended = _Ended.empty(slots, 3 * K, T)
        self.no_bias = np.zeros_like(models[0].params["out"]["b"])
        # each step's (n, V) logits, one per model (an ensemble's: and their mean where the members' own are read
        # after it; else the mean is the first's), and EXP_ROWS rows of exponentials, mapped apart from the heap and
        # written in place: allocated anew at every step (~10 of ~5 MB at beam 4), in sizes that fall as sentences
        # finish, by two decoding threads at once, they left holes the heap grew around
        self.room = [mapped((slots * K, cfg.tgt_vocab), models[0].dtype)
                     for _ in range(len(models) + (self.members is not None))] + [
            mapped((min(slots * K, EXP_ROWS), cfg.tgt_vocab), models[0].dtype)]
        self.helper = Members(slots * K, cfg.tgt_vocab, models[0].dtype) if parallel and len(models) > 1 else None

    @property
    def free(self) -> int:
        """Slots open for more sentences."""
        return int(len(self.active) - self.active.sum())

    def add(self, src, src_len, sources: list[frozenset[str] | None] | None = None, keep=None) -> np.ndarray:
        """Start decoding the padded batch src (n, S) of lengths (n,), whose words are `sources` (n; the
        WordCheck's exceptions; None: not checked); returns the slots they took (n,). keep: called with the
        first model's encoder output (n, S, C), for a check to read the sources again without encoding them."""
        slots = np.flatnonzero(~self.active)[: len(src)]
        if len(slots) < len(src) or src.shape[1] > self.states[0].cross_k[0].shape[1]:
            raise ValueError(f"{src.shape} sentences for {len(slots)} free slots of "
                             f"{self.states[0].cross_k[0].shape[1]} source tokens")
        with Members.alongside(self.helper, lambda: [attend_to(m, s, slots, src, src_len)
                                                     for m, s in zip(self.models[1:], self.states[1:])]):
            memory = attend_to(self.models[0], self.states[0], slots, src, src_len)
            if keep is not None:
                keep(memory)
            if self.reads:
                self.src[slots], self.src_len[slots] = 0, src_len
                self.src[slots, : src.shape[1]] = src
        o, K = self.options, self.options.beam_size
        self.limit[slots] = _max_len(self.models[0], src_len, o.max_decoding_length_a, o.max_decoding_length_b)
        self.t[slots], self.active[slots] = 0, True
        self.rows = np.concatenate([self.rows, slots * K])
        self.tokens = np.concatenate([self.tokens, np.full(len(slots), BOS)])
        self.scores = np.concatenate([self.scores, np.zeros(len(slots))])
        self.paid = np.concatenate([self.paid, np.zeros(len(slots))])
        for slot, words in zip(slots, sources or [frozenset()] * len(slots)):  # (none given: all checked)
            self.sources[slot] = words
            self.open[slot * K] = None
        return slots

    def step(self) -> list[tuple[int, list[Hypothesis]]]:
        """One token more for every live hypothesis. Returns the sentences now done, as (slot, its
        num_hypotheses best, best first), and frees their slots."""
        o, K, rows = self.options, self.options.beam_size, self.rows
        if not len(rows):
            return []
        t = self.t[rows // K]  # (n,) each row's position
        banned = kernels.banned_ngrams(self.seqs[rows, : t.max()], t, o.no_repeat_ngram_size, ALWAYS_BANNED)
        kept = None if self.kept is None else (*self.kept[:2], np.zeros((len(rows), *self.kept[2].shape[2:]),
                                                                         self.kept[2].dtype))
        if len(self.models) == 1:  # (the output layer's bias added in the kernel)
            out = self.models[0].params["out"]
            y = decoder_hidden(self.models[0], self.states[0], self.tokens, rows, t, kept)  # (n, C)
            values, ids = kernels.log_softmax_topk(np.matmul(y, out["w"], out=self.room[0][: len(y)]), out["b"], banned,
                                                   2 * K)  # (n, 2K)
        else:
            members = _next_logprobs(self.models, self.states, self.tokens, rows, t, self.room, kept, self.helper)  # M x (n, V)
            logp = members[0]  # (n, V) their mean, the ensemble's
            if self.members is not None:  # (each member's own read after the ranking)
                logp = self.room[len(members)][: len(rows)]
                np.copyto(logp, members[0])
            for m in members[1:]:
                logp += m
            logp /= len(members)
            values, ids = kernels.log_softmax_topk(logp, self.no_bias, banned, 2 * K)
        if kept is not None:
            self.kept[2][rows, t] = kept[2]
        forced = t + 1 >= self.limit[rows // K]  # out of budget: EOS with log-probability 0
        values[forced], ids[forced, 0], values[forced, 0] = -np.inf, EOS, 0.0
        if self.members is not None:
            self.members[0][rows, t] = ids
            self.members[1][rows, t] = np.stack([np.take_along_axis(m, ids, 1) for m in members], 1)
        penalty = np.zeros(ids.shape) if self.words is None else self.words.penalties(
            [self.open[r] for r in rows.tolist()], [self.sources[s] for s in (rows // K).tolist()], ids)  # (n, 2K)
        cand, cand_tok, cand_paid, parent = kernels.top_candidates(
            rows, self.scores, values - penalty, ids, self.paid[:, None] + penalty, len(self.active), K)  # (B, 2K)
        self.rows, from_rows, self.tokens, self.scores, self.paid, done = kernels.advance_beams(
            cand, cand_tok, cand_paid, parent, self.active, K, EOS, (self.t + 1) ** o.length_penalty, self.t, self.seqs,
            self.states[0].history, self.ended.arrays())
        if self.words is not None:
            opened = [self.words.follow(self.open[r], token) for r, token in zip(from_rows.tolist(), self.tokens.tolist())]
            for r, word in zip(self.rows.tolist(), opened):
                self.open[r] = word
        self.t[self.active] += 1
        self.active[done] = False
        slots = np.flatnonzero(done)
        if self.reads is None or not len(slots):
            return [(int(s), self.ended.pop(s, min(o.num_hypotheses, K))) for s in slots]
        found = [self.ended.pop(s, K, self._reading) for s in slots]
        return self._by_coverage(slots, found) if self.coverage else [(int(s), hs) for s, hs in zip(slots, found)]

    def let_go(self, slots: np.ndarray, most: int) -> None:
        """The pages the caches of the free `slots` hold given back, and those of the step's buffers beyond `most`
        sentences' rows: a file's stream (search) sizes its slots for its shortest sentences and its positions for
        its longest, and what its sentences wrote stayed resident to its end (2,000 lines: +42 MB peak at beam 4).
        A slot taken again finds zeros, as in a new mapping: what a sentence reads, it wrote."""
        K = self.options.beam_size
        _drop_pages([a[s * per : (s + 1) * per] for s in slots.tolist() for state in self.states
                     for a, per in [(a, K) for a in (*state.self_k, *state.self_v)] +
                     [(a, 1) for a in (*state.cross_k, *state.cross_v)]] + [a[most * K :] for a in self.room[:-1]])

    def _reading(self, s: int, tokens: list[int], rows: np.ndarray) -> Forced:
        """Sentence s's hypothesis `tokens` as forced(..., layer + 1, heads) reads it (the other heads and blocks
        NaN): the weights its steps kept, each position's from the cache row that fed it (rows (T + 1,))."""
        layer, slot, kept = self.kept
        n, heads = self.src_len[s], np.flatnonzero(slot >= 0)
        attention = np.full((layer + 1, len(slot), len(rows), n), np.nan, kept.dtype)
        at = np.arange(len(rows))
        attention[layer, heads] = kept[rows, at, :, :n].transpose(1, 0, 2)
        members = None
        if self.members is not None:  # (each position's token among the 2K candidates of the row that fed it)
            ids, found = self.members
            k = (ids[rows, at] == np.array([*tokens, EOS])[:, None]).argmax(1)
            members = found[rows, at, :, k].T  # (M, T + 1)
        return Forced(None, attention, self.src[s, :n].tolist(), tokens, members)

    def _by_coverage(self, slots: np.ndarray, found: list[list[Hypothesis]]) -> list[tuple[int, list[Hypothesis]]]:
        """The sentences' finished hypotheses ranked again with the coverage penalty, cut to num_hypotheses."""
        cp = iter(self.coverage.log_coverage([h.reading for hs in found for h in hs]))
        beta, n = self.options.coverage_penalty, min(self.options.num_hypotheses, self.options.beam_size)
        return [(int(s), [h for _, h in sorted(((h.score + beta * next(cp), h) for h in hs),
                                              key=lambda x: -x[0])][:n]) for s, hs in zip(slots, found)]


def search(model: Model | list[Model], src: np.ndarray, src_len: np.ndarray, beam: int = DEFAULTS.beam_size,
           nbest: int = DEFAULTS.num_hypotheses, alpha: float = DEFAULTS.length_penalty,
           max_len_a: float = DEFAULTS.max_decoding_length_a, max_len_b: int = DEFAULTS.max_decoding_length_b,
           ngram: int = DEFAULTS.no_repeat_ngram_size, words: WordCheck | None = None,
           sources: list[frozenset[str] | None] | None = None, keep=None, coverage: Coverage | None = None,
           beta: float = DEFAULTS.coverage_penalty, batch: TranslationOptions | None = None,
           done: Callable[[int], None] | None = None, readings: int | None = None,
           stop: threading.Event | None = None) -> list[list[Hypothesis]]:
    """Beam search for a padded batch src (B, S) of lengths (B,): the `nbest` best per sentence, best
    first (see BeamSearch). `model` may be a list: an ensemble. words: made-up words penalised, but those
    among each sentence's `sources` words. coverage, beta: see Coverage.

    batch: how many sentences are decoded at once (its max_batch_size and batch_type; None: all of src). The
    others wait, in src's order (shortest first, for a budget of tokens), and join the search as soon as the ones
    that finished leave room (continuous batching: no batch of sentences waits for its longest one, and a step's
    matrix products keep their rows; one thread, 1,500 lines: ~5 % less CPU than batches decoded one after another).
    keep: called with the indices of the sentences that join and the first model's encoder output (n, S', C), for
    a check to read them again without encoding them. done: called with how many sentences a step finished.
    readings: how many of each sentence's best keep their coverage reading (None: all; a file's translation reads
    the first's: a short line's 12 at beam 12 held ~2.5 KB each until the search ended). stop: once set, the search
    ends at its next step, what it found so far returned (a decoding thread's Ctrl-C: Translator.translate_batch)."""
    models = model if isinstance(model, list) else [model]
    options = replace(DEFAULTS, beam_size=beam, num_hypotheses=nbest, length_penalty=alpha, max_decoding_length_a=max_len_a,
                      max_decoding_length_b=max_len_b, no_repeat_ngram_size=ngram, coverage_penalty=beta)
    if batch is not None:
        options = replace(options, max_batch_size=batch.max_batch_size, batch_type=batch.batch_type)
    src_len = np.asarray(src_len)
    slots = len(src) if batch is None else _joining(options, src_len, 0, 0, len(src))
    decoder = BeamSearch(models, slots, options, src.shape[1], int(_max_len(models[0], src_len, max_len_a, max_len_b).max()),
                         words, coverage)
    found, owner, start = [[]] * len(src), np.zeros(slots, np.int64), 0
    kept = np.zeros(slots, bool)  # the slots whose caches hold pages (written since they were last let go)
    while (start < len(src) or decoder.active.any()) and not (stop is not None and stop.is_set()):
        live = owner[decoder.active]
        n = _joining(options, src_len[start:], len(live), int(src_len[live].max(initial=0)), decoder.free)
        most = _joining(options, src_len[start:], 0, 0, slots)  # (the waiting sentences' length only grows)
        # joining a quarter of what the budget holds at their length, or more (the encoder's products keep their rows)
        if n and (4 * n >= most or start + n == len(src) or not len(live)):
            take = np.arange(start, start + n)
            start += n
            taken = decoder.add(src[take, : src_len[take].max()], src_len[take],
                                None if sources is None else [sources[i] for i in take], keep and functools.partial(keep, take))
            owner[taken], kept[taken] = take, True
        finished = decoder.step()
        for slot, hyps in finished:
            found[owner[slot]] = hyps
            for h in hyps[readings:] if readings is not None else ():
                h.reading = None
        if done and finished:
            done(len(finished))
        # free slots beyond what the budget holds of the sentences waiting (a new one takes the lowest free slot)
        idle = kept & ~decoder.active
        idle[:most] = False
        if idle.any():
            decoder.let_go(np.flatnonzero(idle), most)
            kept &= ~idle
    return found


def _joining(options: TranslationOptions, waiting: np.ndarray, live: int, longest: int, free: int) -> int:
    """How many of the sentences waiting (their source lengths, in order) join `live` ones whose longest source
    has `longest` tokens, in `free` slots, within options.max_batch_size sentences, or padded source tokens times
    the beam: the key/value caches hold a row per hypothesis of ~1.5 x its source length, so a budget of tokens bounds
    them at any beam (2,048 source tokens at beam 4 held ~170 MB for the shipped ensemble's two members). One
    sentence alone joins over the budget."""
    count = live + np.arange(1, min(free, len(waiting)) + 1)
    size = count if options.batch_type == "examples" else \
        count * np.maximum.accumulate(np.maximum(waiting[: len(count)], longest)) * options.beam_size
    n = int(np.searchsorted(size, options.max_batch_size, side="right"))
    return max(n, min(1, len(count))) if not live else n


def greedy(model: Model, src: np.ndarray, src_len: np.ndarray) -> list[Hypothesis]:
    """src (B, S) padded English ids with BOS/EOS -> one hypothesis per sentence."""
    return [hs[0] for hs in search(model, src, src_len, beam=1)]


def beam_search(model: Model, src: np.ndarray, src_len: np.ndarray, beam: int = DEFAULTS.beam_size,
                nbest: int = DEFAULTS.num_hypotheses, alpha: float = DEFAULTS.length_penalty) -> list[list[Hypothesis]]:
    """The `nbest` best hypotheses per sentence, best first (see search)."""
    return search(model, src, src_len, beam, nbest, alpha)


def forced(model: Model, src, src_len, tgt, tgt_len, layers: int | None = None, heads=None,
           memory: np.ndarray | None = None, attention: bool = True) -> list[Forced]:
    """Teacher forcing of padded targets tgt (B, T) (ids without BOS/EOS, lengths (B,)) given the padded
    sources src (B, S) (their encoder output `memory` (B, S, C) if kept, else encoded here): one
    whole-sequence pass, the cross-attention weights kept from its cache. `layers`: only the first that many
    decoder blocks, and no log-probabilities; with `heads` too (layers 1: a check's coverage and alignments),
    only the lowest block's self-attention and these heads' queries and keys, the other heads NaN. Without
    `attention`, the log-probabilities alone (a way back's reading: every layer's weights of thousands of pairs held
    at once had been most of a file's memory)."""
    B = len(src)
    tgt_in = np.concatenate([np.full((B, 1), BOS), tgt], 1)  # (B, T + 1)
    if memory is None:
        memory = encode(model, src, src_len)
    y = model._embed(tgt_in, "tgt_emb", model.pe_tgt, None)[0]
    if heads is not None and layers == 1:
        probs = _lowest_heads(model, y, memory, src_len, tgt_len + 1, heads)[:, None]
    else:
        found = []
        for i in range(model.cfg.n_layers if layers is None else layers):
            y, block = model.decoder_block(i, y, memory, src_len, tgt_len + 1)  # (B, T + 1, C)
            found.append(block.cross_attn.probs if attention else None)
        probs = np.stack(found, 1) if attention else None  # (B, L', H, T + 1, S)
    logp = None
    if layers is None:
        tgt_out = np.concatenate([tgt, np.full((B, 1), PAD)], 1)
        tgt_out[np.arange(B), tgt_len] = EOS
        # the output layer at the positions read alone, not the padding's (the vocabulary's scores are much of a
        # pass's work; 2,000 unseen Spanish lines' way back: 31 % of the positions were a batch's padding)
        real = np.arange(tgt_out.shape[1]) <= tgt_len[:, None]  # (B, T + 1)
        logits = linear_forward(y[real], model.params["out"]["w"], model.params["out"]["b"])[0]  # (N, V)
        picked = logits[np.arange(len(logits)), tgt_out[real]]
        m = logits.max(-1)
        logits -= m[..., None]  # (in place: three (N, V) temporaries had been a way back's peak)
        lse = m + np.log(np.exp(logits, out=logits).sum(-1))
        logp = np.zeros(real.shape, logits.dtype)
        logp[real] = picked - lse  # (B, T + 1), 0 at the padding
    return [Forced(None if logp is None else logp[b, : tgt_len[b] + 1],
                   None if probs is None else probs[b, :, :, : tgt_len[b] + 1, : src_len[b]],
                   src[b, : src_len[b]].tolist(), tgt[b, : tgt_len[b]].tolist()) for b in range(B)]


def _lowest_heads(model: Model, y, memory, src_len, tgt_len, heads) -> np.ndarray:
    """The lowest decoder block's cross-attention weights (B, H, T, S) of `heads` (the others NaN), given
    its input y (B, T, C): the block's self-attention sub-layer, then these heads' queries against their keys
    (as decoder_block computes them, without the values, the other heads and the FFN: a check's ~1/5)."""
    s = model._attention("dec.0.self", y, y, tgt_len, True, None)[0]
    y = model._residual_ln(y, s, "dec.0.ln1", None)[0]
    cross, H, D = model.params["dec.0.cross"], model.cfg.n_heads, model.cfg.d_model // model.cfg.n_heads
    heads = sorted(set(heads))
    cols = np.concatenate([np.arange(h * D, (h + 1) * D) for h in heads])
    q = linear_forward(y, cross["wq"][:, cols], cross["bq"][cols])[0]  # (B, T, D x heads)
    k = linear_forward(memory, cross["wk"][:, cols], cross["bk"][cols])[0]  # (B, S, D x heads)
    found = kernels.attention_forward(q, k, k, src_len, False, NO_DROP[q.dtype], len(heads))[1]  # (values unused)
    probs = np.full((len(y), H, *found.shape[2:]), np.nan, found.dtype)
    probs[:, heads] = found
    return probs


@functools.cache
def _blas():
    """The BLAS thread pools, found once (threadpoolctl's lookup costs milliseconds)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def one_blas_thread():
    """BLAS on one thread while a block runs: each decoding thread runs its own products, and a forced reading's are
    too small to share (on a loaded machine a check's forced passes of 300 lines took 0.63-0.69 s CPU on two threads,
    0.11 s on one; 12 short pairs read back by mtcli.roundtrip 0.15-0.3 s, 0.015 s). Nothing to do where this
    process's OpenBLAS started with one thread (`mtcli translate`: __main__), which spares a one-sentence translation
    finding the pools (~5 ms of CPU: threadpoolctl's import and its lookup)."""
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1" and \
            "openblas" in str(np.__config__.CONFIG.get("Build Dependencies", {}).get("blas", {}).get("name", "")):
        yield
    else:
        with _blas().limit(limits=1, user_api="blas"):
            yield


# Loading the compiled decoding kernels from Numba's cache costs ~0.3 s CPU in a new process; they
# then save ~6 ms a sentence greedy and ~19 ms at beam 4 against the NumPy references (Large model).
# First calls in new processes, loading included: the references win for 1 sentence and for 16
# greedy, the compiled kernels for 16 at beam 4 (0.52 s vs 0.76) and 64 greedy (0.83 s vs 1.13).
# 2,000 unseen lines greedy: references 21 s CPU, compiled 6.6 s.
COMPILED_MIN_WORK = 64  # sentences x beam
_decoded = [0]  # sentences x beam this process's Translators were given so far


@contextmanager
def _kernels(sentences: int, beam: int):
    """The kernels for `sentences` more lines decoded at `beam` (Translator decides from each call): the NumPy
    references while this process's work stays under COMPILED_MIN_WORK and nothing loaded the compiled kernels
    (training, a loss, a server's stream), then the compiled ones for good. So a short run (`mtcli translate
    "..."`, a few lines at its prompt) never loads Numba, and lines piped in switch once there are enough. An
    open kernels.references() block is left as it is."""
    _decoded[0] += sentences * beam
    if _decoded[0] >= COMPILED_MIN_WORK or kernels.loaded():
        yield
    else:
        with kernels.references():
            yield


# Inside a `progress` block: [report, the block's lines, the fraction reported so far]; reported as it grows by
# PROGRESS_STEP (sentences finish at most steps of a search)
PROGRESS_STEP = 0.01
_progress: ContextVar[list | None] = ContextVar("mtcli_decode_progress", default=None)


@contextmanager
def progress(report: Callable[[float], None], lines: int):
    """report(fraction) as Translator.translate_batch decodes the sentences of the main pass over the block's
    `lines` (from the thread that decoded them), each PROGRESS_STEP more and at the end: the fraction of that call's
    sentences decoded so far. The main
    pass is a call of at least half as many sentences as there are lines, not the few quotations decoded before
    it nor the retries after it; the fraction never goes back (a check's round trip decodes as many again)."""
    token = _progress.set([report, lines, 0.0])
    try:
        yield
    finally:
        _progress.reset(token)


def _padded(seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(B, S) ids padded with PAD, and the lengths (B,)."""
    lengths = np.array([len(s) for s in seqs], np.int64)
    src = np.full((len(seqs), int(lengths.max())), PAD, np.int64)
    for row, s in enumerate(seqs):
        src[row, : len(s)] = s
    return src, lengths


KEEP_BYTES = 64 << 20  # encoder outputs Encoded holds at most (~4,000 sentences of 16 tokens); the rest: encoded again


class Encoded:
    """What decoding keeps of the sources it encodes, for a check to read them again without tokenizing
    or encoding them (Translator.encoded): by source text, its ids and the first model's encoder output
    (S, C), up to KEEP_BYTES. Filled by decoding threads at once; emptied by the check that read them."""

    def __init__(self):
        self.found: dict[str, tuple[list[int], np.ndarray]] = {}
        self.readings: dict[str, Forced] = {}  # by source text: its best translation's coverage reading
        self.size, self.lock = 0, threading.Lock()

    def add(self, texts: list[str], ids: list[list[int]], memory: np.ndarray) -> None:
        with self.lock:
            for text, seq, m in zip(texts, ids, memory):
                if self.size + m[: len(seq)].nbytes <= KEEP_BYTES:
                    self.found[text] = seq, m[: len(seq)]  # (a view: the batch's output stays alive with it)
                    self.size += m[: len(seq)].nbytes

    def get(self, text: str) -> tuple[list[int], np.ndarray] | None:
        return self.found.get(text)

    def add_readings(self, texts: list[str], readings: list[Forced | None]) -> None:
        """Readings kept in place of the encoder outputs of their sources: at beam 4 a check reads 96 % of its
        sentences from them (300 lines: 293 of 304) and encodes the rest again, so a chunk's encoder outputs (~30
        MB for 2,048 lines) no longer stay until its check."""
        with self.lock:
            for text, f in zip(texts, readings):
                if f is None:
                    continue
                if (found := self.found.pop(text, None)) is not None:
                    self.size -= found[1].nbytes
                if self.size + f.attention.nbytes <= KEEP_BYTES:
                    self.readings[text] = f
                    self.size += f.attention.nbytes

    def reading(self, text: str, tgt: list[int], heads, members: bool = False) -> Forced | None:
        """The reading kept of this source's translation `tgt`, if it has every head of `heads` (layer 0's), and
        the members' log-probabilities if asked for."""
        f = self.readings.get(text)
        if f is None or f.tgt != tgt or heads is None or f.attention.shape[0] != 1 or \
                np.isnan(f.attention[0, list(heads), 0, 0]).any() or (members and f.members is None):
            return None
        return f

    def clear(self) -> None:
        with self.lock:
            self.found, self.readings, self.size = {}, {}, 0


def _coverage_of(tr: Translator) -> Coverage | None:
    """Coverage read as the model's check reads it (its "fast" combination's layer and heads), if fitted."""
    from mtcli.confidence import load_fitted

    scorer = load_fitted(tr.model_dir, tr.model.cfg.n_layers).scorers.get("fast")
    return None if scorer is None else Coverage(scorer.layer, tuple(scorer.heads), tr.src_tok.pieces_by_id,
                                                scorer.reads_members)


# source tokens below which a batch costs CPU (2,000 lines at beam 4, one thread: 256 tokens 8 % more CPU than
# 512-2,048; greedy 512 7 % more than 1,024-2,048)
MIN_BATCH_TOKENS = 512
M_TOP_PAD, M_MMAP_THRESHOLD, M_ARENA_MAX = -2, -3, -8  # (glibc's malloc.h)
# blocks of this size or more are mappings of their own, given back when freed (M_MMAP_THRESHOLD, fixed): glibc
# raises its threshold to the largest mapped block freed (8-16 MB after a file's first chunk), so arrays below it came
# from the heap, whose free pages stay resident; its holes grew from chunk to chunk (unseen lines at beam 4, one core:
# the heap 150 MiB at a chunk's peak, 100 of them free). Lower, each step's FFN activations (3 MB at 400 rows) would
# be mapped and zeroed anew (1 MB had cost ~15-20 % more CPU, before the logits were written in place)
MMAP_BYTES = 4 << 20
# free memory the heap keeps at its top when it gives the rest back (M_TOP_PAD; glibc's default 128 KB): a step's
# temporaries (a few MB) freed at the heap's top went back to the system at every step and were faulted in, zeroed
# by the kernel, at the next (800 unseen lines at beam 4, one thread: ~90,000 page faults and ~0.25 s of system CPU
# of ~5.5 s; with 8 MB ~15,000 and ~0.07 s). trim_heap still gives it all back.
TOP_PAD_BYTES = 8 << 20


@functools.cache
def one_heap() -> None:
    """Every thread's arrays from one glibc heap (M_ARENA_MAX 1; MALLOC_ARENA_MAX in the environment wins): each
    decoding thread had its own, whose holes grew a file's translation ~25 MB a chunk (2 threads, greedy: 465 MB at
    2,000 lines, 591 MB at 8,000; one heap: 450 MB flat); blocks of MMAP_BYTES or more mapped apart from it
    (MALLOC_MMAP_THRESHOLD_ wins); TOP_PAD_BYTES kept at the heap's top (MALLOC_TOP_PAD_ wins). glibc only; elsewhere
    nothing changes."""
    import ctypes

    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # a C library without it (musl)
        return
    if "MALLOC_ARENA_MAX" not in os.environ:
        mallopt(M_ARENA_MAX, 1)
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)
    if "MALLOC_TOP_PAD_" not in os.environ:
        mallopt(M_TOP_PAD, TOP_PAD_BYTES)


class Translator:
    """A loaded model directory: English lines in, Spanish lines out, in batches."""

    setup_seconds = staticmethod(kernels.jit.setup_seconds)  # (one-time work so far: no line's budget's)

    def __init__(self, model_dir, inter_threads: int | None = None, lazy: bool = False):
        """inter_threads: streams of sentences decoded at once, each by one thread with single-threaded BLAS
        (default: one per core). Measured on a shared 2-core machine, two threads that each run
        their own GEMMs beat one batch split over two BLAS threads that meet at every product. `lazy`: the
        lexicon read (and found damaged) when first needed, not here."""
        one_heap()
        # a model loaded mid-run (the other direction's, for a stray line of the other language) sat on top of the
        # free pages a translation leaves in the heap: 100,000 lines greedy peaked 361 -> 379 MB where one did
        trim_heap()
        self.inter_threads = inter_threads or len(os.sched_getaffinity(0))
        self.model_dir = Path(model_dir)
        self.models, self.meta = load_ensemble(model_dir)  # (one model, unless an ensemble)
        self.model = self.models[0]
        self.src_tok, self.tgt_tok = load_tokenizers(model_dir, self.meta, self.model.cfg)
        self.direction = direction(self.meta)
        self.nonword_max_words: int | None = NONWORD_MAX_WORDS  # (lines of at most this many words checked; None: all)
        if not lazy:
            self._lexicon
        self.coverage = _coverage_of(self)  # (None: the model has no fitted check to read coverage as)

        self.encoded: Encoded | None = None  # given one (mtcli.confidence does), translate_batch fills it

    @functools.cached_property
    def _lexicon(self) -> tuple:
        """(read when first asked for: a model only reading translations back, as mtcli.roundtrip's, needs none of
        it; ~20 ms of a sentence's start-up)"""
        return lexicon_parts(self.model_dir, self.meta)

    @functools.cached_property
    def familiar(self):  # (text.sentence.Engine's)
        return self._lexicon[1]

    @functools.cached_property
    def target_words(self) -> frozenset[str]:  # (text.sentence.Engine's)
        return frozenset(self._lexicon[0] or ())

    @functools.cached_property
    def accents(self):  # (text.sentence.Engine's)
        return self._lexicon[2]

    @functools.cached_property
    def words(self) -> WordCheck | None:
        """Made-up words penalised in search where the model has a lexicon (None: not checked)."""
        lexicon = self._lexicon[0]
        return None if lexicon is None else WordCheck(list(self.tgt_tok.pieces_by_id), lexicon)

    def keep_encoded(self) -> None:
        """From now on translate_batch keeps what it encodes (in `encoded`), for a check to read it again."""
        if self.encoded is None:
            self.encoded = Encoded()

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
        """One result per line, in input order; an empty line gets one empty hypothesis. The kernels: the NumPy
        references or the compiled ones, from the work this call and the ones before it bring (_kernels)."""
        results = [TranslationResult([TranslationHypothesis([], "", 0.0, 0.0)]) for _ in lines]
        todo = [i for i, line in enumerate(lines) if line.strip()]
        if not todo:
            return results
        seqs, cut = self.source_ids([lines[i] for i in todo])
        sources = [source_words(lines[i], self.nonword_max_words) for i in todo]
        # one stream of sentences per thread, shortest first, each decoded in a continuous batch (search); the
        # threads take every n-th sentence by length, so that their work ends together
        order = np.argsort([len(s) for s in seqs], kind="stable")
        streams = [order[i :: self.inter_threads] for i in range(min(self.inter_threads, len(order)))]
        shown, decoded, lock = _progress.get(), [0], threading.Lock()
        if shown is not None and 2 * len(todo) < shown[1]:
            shown = None

        def finished(n: int) -> None:
            with lock:
                decoded[0] += n
                fraction = decoded[0] / len(todo)
                if fraction >= shown[2] + PROGRESS_STEP or fraction == 1 > shown[2]:
                    shown[2] = fraction
                    shown[0](fraction)

        words = self.words  # (read here, not in the threads)

        stop = threading.Event()

        def run(stream):
            keep = None if self.encoded is None else lambda joined, memory: self.encoded.add(
                [lines[todo[stream[j]]] for j in joined], [seqs[stream[j]] for j in joined], memory)
            found = search(self.models, *_padded([seqs[j] for j in stream]), options.beam_size, options.num_hypotheses,
                           options.length_penalty, options.max_decoding_length_a, options.max_decoding_length_b,
                           options.no_repeat_ngram_size, words, [sources[j] for j in stream], keep,
                           self.coverage, options.coverage_penalty, self._shared(options), shown and finished, 1,
                           stop)
            if self.encoded is not None:
                self.encoded.add_readings([lines[todo[j]] for j in stream], [hs[0].reading for hs in found])
            return found

        with _kernels(len(todo), options.beam_size), one_blas_thread():
            if len(streams) == 1:
                found = [run(streams[0])]
            else:
                from concurrent.futures import ThreadPoolExecutor  # (~1 ms to import: not for one stream)

                pool = ThreadPoolExecutor(len(streams), "mtcli-decode")
                try:
                    found = list(pool.map(run, streams))
                finally:  # (a Ctrl-C, which only this thread gets: the others end at their next step, not their
                    # stream's end; 3,000 lines had taken 11-19 s to stop, the exit joining them)
                    stop.set()
                    pool.shutdown()
        for stream, hyps_of_stream in zip(streams, found):
            for j, hyps in zip(stream, hyps_of_stream):
                results[todo[j]] = self.result(hyps, cut[j])
        return results

    def _shared(self, options: TranslationOptions) -> TranslationOptions:
        """options whose token budget the threads share (their batches' caches are held at once: greedy on two
        threads peaked ~70 MB above one), down to MIN_BATCH_TOKENS source tokens a batch."""
        if options.batch_type == "examples" or self.inter_threads == 1:
            return options
        share = max(options.max_batch_size // self.inter_threads, MIN_BATCH_TOKENS * options.beam_size)
        return replace(options, max_batch_size=min(options.max_batch_size, share))

    def result(self, hyps: list[Hypothesis], truncated: bool = False) -> TranslationResult:
        """Hypotheses of ids as text."""
        texts = self.tgt_tok.decode_batch([h.tokens for h in hyps])
        return TranslationResult([TranslationHypothesis([self.tgt_tok.id_to_token(i) for i in h.tokens], text,
                                                        h.score, h.logprob) for h, text in zip(hyps, texts)], truncated)

    @_kernels(0, 1)  # (those of the decoding it follows, which counted its lines)
    @one_blas_thread()
    def force(self, sources: list[str], targets: list[str], layers: int | None = None, heads=None,
              batch: int = SENTENCES_PER_BATCH, kept: Encoded | None = None, members: bool = False,
              attention: bool = True) -> list[Forced]:
        """Each target read by the first model of the ensemble given its source (see forced): sources cut
        to the model's length as translate_batch cuts them (those it kept in `encoded` not encoded again),
        targets to what the decoder holds. A translation the coverage penalty read while decoding it (the
        same lowest block and heads: `encoded.readings`) is not read again. `kept`: what decoding elsewhere kept
        (the server's decoders), in place of `encoded`. `members` (an ensemble's): each member's log-probabilities
        too (Forced.members), those decoding kept or else a whole pass of each member. Without `attention`, the
        log-probabilities alone (forced)."""
        members = members and len(self.models) > 1
        encoded = self.encoded if kept is None else kept
        room = self.model.cfg.max_tgt_len - 1
        tgt_seqs = [t[:room] for t in self.tgt_tok.encode_batch(targets)]
        out: list[Forced | None] = [None] * len(sources)
        if encoded is not None and layers == 1:  # what the coverage penalty read already (beam search)
            out = [encoded.reading(s, t, heads, members) for s, t in zip(sources, tgt_seqs)]
        todo = [j for j, f in enumerate(out) if f is None]
        kept = [None if encoded is None or out[j] is not None else encoded.get(s) for j, s in enumerate(sources)]
        missing = [j for j in todo if kept[j] is None]
        src_seqs = [k[0] if k else None for k in kept]
        for j, seq in zip(missing, self.source_ids([sources[j] for j in missing])[0]):
            src_seqs[j] = seq
        order = sorted(todo, key=lambda j: len(src_seqs[j]))
        for k in range(0, len(order), batch):  # (each batch encoded as it is read: not every pair's at once)
            group = order[k : k + batch]
            src, src_len = _padded([src_seqs[j] for j in group])
            padded = np.zeros((len(group), src.shape[1], self.model.cfg.d_model), self.model.dtype)
            new = [row for row, j in enumerate(group) if kept[j] is None]
            if new:
                fresh = encode(self.model, src[new], src_len[new])
                padded[new, : fresh.shape[1]] = fresh
            for row, j in enumerate(group):
                if kept[j] is not None:
                    padded[row, : len(kept[j][1])] = kept[j][1]
            tgt, tgt_len = _padded([tgt_seqs[j] or [PAD] for j in group])
            tgt_len[[not tgt_seqs[j] for j in group]] = 0
            found = forced(self.model, src, src_len, tgt, tgt_len, layers, heads, padded, attention)
            if members:
                each = [found if m is self.model and layers is None else  # (the first's whole pass: this one)
                        forced(m, src, src_len, tgt, tgt_len, memory=padded if m is self.model else None) for m in self.models]
                for b, f in enumerate(found):
                    f.members = np.stack([e[b].logprobs for e in each])
            for j, f in zip(group, found):
                out[j] = f
        return out

    def stream(self, slots: int, options: TranslationOptions = DEFAULTS, parallel: bool = False) -> TranslationStream:
        """Lines decoded as they come, up to `slots` at once (continuous batching: a server's decoder). The compiled
        kernels from the start: a stream decodes for as long as its process lives. parallel: see BeamSearch."""
        kernels.use_compiled()
        return TranslationStream(self, slots, options, parallel)

    def translate(self, lines: list[str], beam: int = DEFAULTS.beam_size, nbest: int = DEFAULTS.num_hypotheses,
                  alpha: float = DEFAULTS.length_penalty, batch_size: int = SENTENCES_PER_BATCH) -> tuple[list[list[tuple[str, float]]], int]:
        """n-best (text, score) lists per line, in input order; empty lines stay empty.
        Returns them with the number of truncated lines. batch_size counts sentences."""
        options = replace(DEFAULTS, beam_size=beam, num_hypotheses=nbest, length_penalty=alpha,
                          max_batch_size=batch_size, batch_type="examples")
        results = self.translate_batch(lines, options)
        return [[(h.text, h.score) for h in r.hypotheses] for r in results], sum(r.truncated for r in results)


def _give_back(arrays: list[np.ndarray]) -> None:
    """_drop_pages(arrays), and the heap's free memory (trim_heap: the steps' freed temporaries)."""
    if sys.platform == "linux":
        _drop_pages(arrays)
        trim_heap()


def _drop_pages(arrays: list[np.ndarray]) -> None:
    """The whole pages of the (contiguous) arrays' memory given back to the system (Linux's MADV_DONTNEED: read
    again, they are zeros); elsewhere nothing. For buffers whose contents no longer matter."""
    if sys.platform != "linux":
        return
    page = mmap.PAGESIZE
    whole = [(-(-a.ctypes.data // page) * page, (a.ctypes.data + a.nbytes) // page * page) for a in arrays]
    kernels.jit.drop_pages([(start, end) for start, end in whole if end > start])


def trim_heap() -> None:
    """The heap's free pages given back to the system (glibc's malloc_trim); elsewhere nothing."""
    import ctypes

    try:
        libc = ctypes.CDLL(None)
    except OSError:  # (no C library to open: Windows)
        return
    if hasattr(libc, "malloc_trim"):  # (not in every C library)
        libc.malloc_trim(0)


class TranslationStream:
    """A Translator's BeamSearch fed lines: each joins the sentences being decoded at the next step
    (`add`) and comes out as soon as it is done (`step`), so the batch stays full while lines come and go."""

    def __init__(self, translator: Translator, slots: int, options: TranslationOptions = DEFAULTS, parallel: bool = False):
        self.translator = translator
        self.search = BeamSearch(translator.models, slots, options, words=translator.words, coverage=translator.coverage,
                                 parallel=parallel)
        self.truncated = np.zeros(slots, bool)  # each slot's source was cut to the model's length

    def release(self) -> None:
        """(With no line in progress.) The pages of the caches given back to the system: allocated for every slot
        at full length, they hold only what lines touched, which stays resident once touched (a server's decoder
        after a flood of 32 clients: ~90 MB more than before it). Not freed and allocated again: the heap would
        serve them and write their zeros at once. The heap's free memory goes back too."""
        s = self.search
        _give_back([s.seqs, *s.room, *([s.kept[2]] if s.kept else []), *([s.helper.scratch] if s.helper else [])] + [a for state in s.states for a in (
            *state.self_k, *state.self_v, *state.cross_k, *state.cross_v, state.history)])

    @property
    def free(self) -> int:
        return self.search.free

    def add(self, lines: list[str]) -> list[int]:
        """Start translating non-empty lines (at most `free`); returns the slot each took."""
        seqs, cut = self.translator.source_ids(lines)
        slots = self.search.add(*_padded(seqs), [source_words(line, self.translator.nonword_max_words)
                                                 for line in lines])
        self.truncated[slots] = cut
        return slots.tolist()

    def step(self) -> list[tuple[int, TranslationResult]]:
        """One token more for every line in progress: the lines now done, by slot."""
        return [(slot, replace(self.translator.result(hyps, bool(self.truncated[slot])), reading=hyps[0].reading))
                for slot, hyps in self.search.step()]
