"""Greedy and beam-search decoding with the incremental key/value cache of Model.decode_step."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mtcli.checkpoint import SRC_TOK, TGT_TOK, check_tokenizers, load_model
from mtcli.errors import UserError
from mtcli.model import Model
from mtcli.tokenizer import BOS, EOS, PAD, Tokenizer

MAX_LEN_A, MAX_LEN_B = 1.5, 10  # output budget: a * source length + b tokens (Marian/fairseq style)
REPEAT_NGRAM = 4  # a 4-gram repeated within one output is a loop, never Spanish: forbid it


@dataclass
class Hypothesis:
    tokens: list[int]  # Spanish ids without BOS/EOS
    score: float  # length-normalised log-probability (what the beam ranks by)
    logprob: float  # total log-probability


def _max_len(model: Model, src_len: np.ndarray) -> np.ndarray:
    return np.minimum(MAX_LEN_A * src_len + MAX_LEN_B, model.cfg.max_tgt_len).astype(np.int64)


def _repeats(seq: list[int], n: int = REPEAT_NGRAM) -> list[int]:
    """Tokens that would complete an n-gram already present in seq."""
    if len(seq) < n:
        return []
    prefix = tuple(seq[len(seq) - n + 1 :])
    return [seq[i + n - 1] for i in range(len(seq) - n + 1) if tuple(seq[i : i + n - 1]) == prefix]


def _only_eos(V: int) -> np.ndarray:
    """The log-probabilities that force the end of a sentence that reached its length budget."""
    return np.where(np.arange(V) == EOS, 0.0, -np.inf)


def greedy(model: Model, src: np.ndarray, src_len: np.ndarray) -> list[Hypothesis]:
    """src (B, S) padded English ids with BOS/EOS -> one hypothesis per sentence."""
    B = src.shape[0]
    limit = _max_len(model, src_len)
    state = model.start_decoding(src, src_len)
    tokens = np.full(B, BOS, np.int64)
    out: list[list[int]] = [[] for _ in range(B)]
    logprob = np.zeros(B)
    alive = np.ones(B, bool)
    for t in range(int(limit.max())):
        logp, state = model.decode_step(state, tokens)  # (B, V)
        logp[:, PAD] = logp[:, BOS] = -np.inf
        for b in np.flatnonzero(alive):
            logp[b, _repeats(out[b])] = -np.inf
            if t + 1 >= limit[b]:
                logp[b] = _only_eos(logp.shape[1])
        tokens = logp.argmax(-1)
        for b in np.flatnonzero(alive):
            logprob[b] += logp[b, tokens[b]]
            if tokens[b] == EOS:
                alive[b] = False
            else:
                out[b].append(int(tokens[b]))
        if not alive.any():
            break
    return [Hypothesis(o, float(lp / (len(o) + 1)), float(lp)) for o, lp in zip(out, logprob)]


def beam_search(model: Model, src: np.ndarray, src_len: np.ndarray, beam: int = 4, nbest: int = 1,
                alpha: float = 1.0) -> list[list[Hypothesis]]:
    """Batched beam search; hypotheses are ranked by logprob / length**alpha (length counts EOS).
    Returns the `nbest` best per sentence, best first."""
    B = src.shape[0]
    nbest = min(nbest, beam)
    limit = _max_len(model, src_len)
    # every sentence gets `beam` rows; at t=0 only the first row of each is live (others -inf)
    state = Model.reorder_state(model.start_decoding(src, src_len), np.repeat(np.arange(B), beam))
    seqs: list[list[int]] = [[] for _ in range(B * beam)]
    scores = np.tile(np.r_[0.0, np.full(beam - 1, -np.inf)], B)  # (B*beam,) total log-probs
    tokens = np.full(B * beam, BOS, np.int64)
    finished: list[list[Hypothesis]] = [[] for _ in range(B)]
    done = np.zeros(B, bool)
    for t in range(int(limit.max())):
        logp, state = model.decode_step(state, tokens)  # (B*beam, V)
        V = logp.shape[1]
        logp[:, PAD] = logp[:, BOS] = -np.inf
        for r in range(B * beam):
            logp[r, _repeats(seqs[r])] = -np.inf
        logp[np.repeat(t + 1 >= limit, beam)] = _only_eos(V)
        cand = (scores[:, None] + logp).reshape(B, beam * V)
        # 2*beam candidates per sentence: enough to refill the beam even if `beam` of them end
        top = np.argpartition(-cand, 2 * beam, axis=1)[:, : 2 * beam]
        rows, new_tokens, new_scores, new_seqs = [], [], [], []
        for b in range(B):
            order = top[b][np.argsort(-cand[b, top[b]])]
            kept = 0
            for c in order:
                score = cand[b, c]
                if done[b] or not np.isfinite(score):
                    break
                r, tok = b * beam + c // V, int(c % V)
                if tok == EOS:
                    seq = seqs[r]
                    finished[b].append(Hypothesis(seq, float(score / (len(seq) + 1) ** alpha), float(score)))
                    continue
                rows.append(r)
                new_tokens.append(tok)
                new_scores.append(score)
                new_seqs.append(seqs[r] + [tok])
                kept += 1
                if kept == beam:
                    break
            # pad the beam with dead rows so every sentence keeps `beam` rows
            for _ in range(beam - kept):
                rows.append(b * beam)
                new_tokens.append(EOS)
                new_scores.append(-np.inf)
                new_seqs.append([])
            # like fairseq: a sentence is done once `beam` hypotheses have ended (so beam 1 == greedy)
            done[b] |= len(finished[b]) >= beam
        if done.all() or not np.isfinite(new_scores).any():
            break
        state = Model.reorder_state(state, np.array(rows), same_sources=True)
        tokens, scores, seqs = np.array(new_tokens, np.int64), np.array(new_scores), new_seqs
    return [sorted(f, key=lambda h: -h.score)[:nbest] or [Hypothesis([], -np.inf, -np.inf)] for f in finished]


class Translator:
    """A loaded model directory: English lines in, Spanish lines out, in batches."""

    def __init__(self, model_dir):
        self.model, self.meta = load_model(model_dir)
        check_tokenizers(model_dir, self.meta)
        self.src_tok = Tokenizer.load(Path(model_dir) / SRC_TOK)
        self.tgt_tok = Tokenizer.load(Path(model_dir) / TGT_TOK)
        cfg = self.model.cfg
        if (self.src_tok.vocab_size, self.tgt_tok.vocab_size) != (cfg.src_vocab, cfg.tgt_vocab):
            raise UserError(f"{model_dir}: tokenizers do not match the model's vocabulary sizes")

    def encode(self, lines: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
        """Padded source ids (B, S), lengths (B,), and how many lines were truncated."""
        room = self.model.cfg.max_src_len - 2
        ids = self.src_tok.encode_batch(lines)
        truncated = sum(len(s) > room for s in ids)
        seqs = [[BOS, *s[:room], EOS] for s in ids]
        lens = np.array([len(s) for s in seqs], np.int64)
        src = np.full((len(seqs), int(lens.max())), PAD, np.int64)
        for i, s in enumerate(seqs):
            src[i, : len(s)] = s
        return src, lens, truncated

    def translate(self, lines: list[str], beam: int = 4, nbest: int = 1, alpha: float = 1.0,
                  batch_size: int = 64) -> tuple[list[list[tuple[str, float]]], int]:
        """n-best (text, score) lists per line, in input order; empty lines stay empty.
        Returns them with the number of truncated lines."""
        results: list[list[tuple[str, float]]] = [[("", 0.0)] for _ in lines]
        todo = [i for i, line in enumerate(lines) if line.strip()]
        todo.sort(key=lambda i: len(lines[i]))  # similar lengths batch with little padding
        truncated = 0
        for k in range(0, len(todo), batch_size):
            idx = todo[k : k + batch_size]
            src, lens, cut = self.encode([lines[i] for i in idx])
            truncated += cut
            if beam <= 1:
                hyps = [[h] for h in greedy(self.model, src, lens)]
            else:
                hyps = beam_search(self.model, src, lens, beam, nbest, alpha)
            for i, hs in zip(idx, hyps):
                results[i] = [(self.tgt_tok.decode(h.tokens), h.score) for h in hs]
        return results, truncated
