"""The thesis's scores: masked cross-entropy error and accuracy under teacher forcing."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from mtcli.model import Model, Stats


def add(total: Stats, s: Stats) -> Stats:
    return Stats(total.loss + s.loss, total.nll + s.nll, total.correct + s.correct, total.n_tokens + s.n_tokens)


ZERO = Stats(0.0, 0.0, 0, 0)


def teacher_forced(model: Model, batches: Iterable, on_batch: Callable[[int], None] | None = None) -> dict:
    """Error (mean NLL per target token), accuracy and perplexity over batches, dropout off."""
    total = ZERO
    for b in batches:
        total = add(total, model.evaluate(b))
        if on_batch:
            on_batch(b.n_tokens)
    return summarize(total)


def summarize(s: Stats) -> dict:
    n = max(s.n_tokens, 1)
    return {"error": s.nll / n, "accuracy": s.correct / n, "perplexity": math.exp(min(s.nll / n, 700.0)),
            "loss": s.loss / n, "tokens": s.n_tokens}
