"""A plain reference beam search for the tests: the specification mtcli/decode.py must meet.

No key/value cache and no batching of sentences: one sentence at a time, and at every step the whole
prefix of every hypothesis goes through the training forward (Model.encode / Model.decode with
rng=None), so nothing is carried from one step to the next but token lists and scores. The rules are
decode.py's, written out again here rather than imported, so that a slip in either shows:

- PAD and BOS are never produced;
- a token that would complete a 4-gram (ngram) already in the hypothesis is forbidden (ngram 0: none);
- a hypothesis may hold at most limit = min(floor(1.5 * source length + 10), max_tgt_len) tokens
  (a * source length + b) counting its EOS: at step limit - 1 the only continuation is EOS, with
  log-probability 0;
- candidates are ranked by total log-probability; the best 2 * beam are looked at in order, an EOS
  among them ends a hypothesis (scored logprob / (tokens + 1) ** alpha, EOS counted), the others
  refill the beam up to `beam`;
- the search ends once `beam` hypotheses have ended (so beam 1 is greedy), or nothing is left;
- the result is the `nbest` (at most `beam`) best ended hypotheses by score, best first;
- an ensemble (a list of models) gives the mean of its models' log-probabilities, renormalised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mtcli.tokenizer import BOS, EOS, PAD

MAX_LEN_A, MAX_LEN_B = 1.5, 10  # the output budget: a * source length + b
NGRAM = 4  # no n-gram twice in one output


@dataclass
class Hyp:
    tokens: list[int]  # without BOS and EOS
    score: float  # logprob / (len(tokens) + 1) ** alpha
    logprob: float


def limit(model, src_len: int, a: float = MAX_LEN_A, b: int = MAX_LEN_B) -> int:
    """Most tokens an output may have, its EOS included."""
    return min(int(a * src_len + b), (model[0] if isinstance(model, list) else model).cfg.max_tgt_len)


def repeats(seq: list[int], n: int = NGRAM) -> set[int]:
    """Tokens that would complete an n-gram already present in seq (n 0: none)."""
    if n <= 0 or len(seq) < n:
        return set()
    tail = seq[len(seq) - n + 1 :]
    return {seq[i + n - 1] for i in range(len(seq) - n + 1) if seq[i : i + n - 1] == tail}


def next_logprobs(model, src: np.ndarray, prefixes: list[list[int]]) -> np.ndarray:
    """(len(prefixes), V) float64 log-probabilities of the next token after BOS + each prefix, all the
    same length, from the full forward pass (nothing cached)."""
    if isinstance(model, list):
        mean = sum(next_logprobs(m, src, prefixes) for m in model) / len(model)
        mean -= mean.max(-1, keepdims=True)
        return mean - np.log(np.exp(mean).sum(-1, keepdims=True))
    n = len(src)
    memory, _ = model.encode(src[None], np.array([n]))  # (1, S, C)
    T = len(prefixes[0]) + 1
    tgt = np.array([[BOS, *p] for p in prefixes], np.int64)  # (L, T)
    L = len(prefixes)
    y, _ = model.decode(tgt, np.full(L, T), np.repeat(memory, L, axis=0), np.full(L, n))  # (L, T, C)
    w, b = model.params["out"]["w"].astype(np.float64), model.params["out"]["b"].astype(np.float64)
    logits = y[:, -1].astype(np.float64) @ w + b  # (L, V)
    logits -= logits.max(-1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(-1, keepdims=True))


def beam_search(model, src: np.ndarray, beam: int, nbest: int = 1, alpha: float = 1.0, a: float = MAX_LEN_A,
                b: int = MAX_LEN_B, ngram: int = NGRAM) -> list[Hyp]:
    """src: one English sentence's ids with BOS and EOS, no padding. Returns its n-best, best first.
    a, b: the output budget (see limit); ngram: the repeat guard's n-gram size."""
    src = np.asarray(src, np.int64)
    nbest = min(nbest, beam)
    budget = limit(model, len(src), a, b)
    live: list[tuple[list[int], float]] = [([], 0.0)]  # (tokens, total log-probability)
    ended: list[Hyp] = []
    for t in range(budget):
        logp = next_logprobs(model, src, [seq for seq, _ in live])  # (L, V)
        total = np.full(logp.shape, -np.inf)  # total log-probability of each (hypothesis, next token)
        for i, (seq, lp) in enumerate(live):
            if t + 1 >= budget:
                total[i, EOS] = lp  # out of room: EOS, and it costs nothing
            else:
                total[i] = lp + logp[i]
                total[i, [PAD, BOS, *repeats(seq, ngram)]] = -np.inf
        best = np.argsort(-total, axis=None, kind="stable")[: 2 * beam]
        previous, live = live, []
        for i, tok in zip(*np.unravel_index(best, total.shape)):
            seq, lp = previous[i][0], total[i, tok]
            if not np.isfinite(lp):
                break
            if tok == EOS:
                ended.append(Hyp(seq, lp / (len(seq) + 1) ** alpha, lp))
            else:
                live.append((seq + [int(tok)], lp))
                if len(live) == beam:
                    break
        if len(ended) >= beam or not live:
            break
    return sorted(ended, key=lambda h: -h.score)[:nbest] or [Hyp([], -np.inf, -np.inf)]


def greedy(model, src: np.ndarray) -> Hyp:
    """Greedy decoding is the beam of one, scored with alpha 1."""
    return beam_search(model, src, beam=1)[0]

