"""The thesis's scores: masked cross-entropy error and accuracy under teacher forcing."""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable

import numpy as np

from mtcli.atomic import write_output
from mtcli.layers import log_softmax
from mtcli.model import Model
from mtcli.stats import Stats
from mtcli.tokenizer import PAD

EVAL_BATCH = 256  # teacher-forced batches can be larger than training's: no backward, no Adam


def teacher_forced(model: Model | list[Model], batches: Iterable, on_batch: Callable[[int], None] | None = None) -> dict:
    """Error (mean NLL per target token), accuracy and perplexity over batches, dropout off; of an
    ensemble (a list of models), its averaged distribution's, as it decodes."""
    models = model if isinstance(model, list) else [model]
    total = Stats.zero()
    for b in batches:
        total += models[0].evaluate(b) if len(models) == 1 else ensemble_evaluate(models, b)
        if on_batch:
            on_batch(b.n_tokens)
    return summarize(total)


def ensemble_evaluate(models: list[Model], batch) -> Stats:
    """Model.evaluate for an ensemble: the mean of its models' log-probabilities, renormalised."""
    valid = batch.tgt_out != PAD  # (B, T)
    total = 0.0
    for m in models:
        memory, _ = m.encode(batch.src, batch.src_len)
        y, _ = m.decode(batch.tgt_in, batch.tgt_len, memory, batch.src_len)  # (B, T, C)
        total = total + log_softmax(y[valid] @ m.params["out"]["w"] + m.params["out"]["b"])  # (N, V)
    logp = log_softmax(total / len(models))
    target = batch.tgt_out[valid]
    nll = -logp[np.arange(len(target)), target]
    return Stats(float(nll.sum()), float(nll.sum()), int((logp.argmax(1) == target).sum()), len(target))


def summarize(s: Stats) -> dict:
    n = max(s.n_tokens, 1)
    return {"error": s.nll / n, "accuracy": s.correct / n, "perplexity": math.exp(min(s.nll / n, 700.0)),
            "loss": s.loss / n, "tokens": s.n_tokens}


def percent(score: float) -> float:
    """A sacrebleu score (BLEU, chrF) within the 0-100 that scores.json and a training state allow: a
    perfect BLEU comes out of its exp(mean log precision) as 100.00000000000004."""
    return min(max(score, 0.0), 100.0)


def plot_history(history: list[dict], png) -> None:
    """Training and selection error and accuracy per epoch, like the thesis's figures (ch. 6)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    epochs = [r["epoch"] for r in history]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key in zip(axes, ("error", "accuracy")):
        ax.plot(epochs, [r[f"train_{key}"] for r in history], "o-", label="training")
        ax.plot(epochs, [r[f"selection_{key}"] for r in history], "s-", label="selection")
        ax.set_xlabel("epoch")
        ax.set_ylabel(key)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_output(png, buf.getvalue())
