"""The thesis's scores: masked cross-entropy error and accuracy under teacher forcing."""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable

from mtcli.atomic import write_output
from mtcli.model import Model
from mtcli.stats import Stats

EVAL_BATCH = 256  # teacher-forced batches can be larger than training's: no backward, no Adam


def teacher_forced(model: Model, batches: Iterable, on_batch: Callable[[int], None] | None = None) -> dict:
    """Error (mean NLL per target token), accuracy and perplexity over batches, dropout off."""
    total = Stats.zero()
    for b in batches:
        total += model.evaluate(b)
        if on_batch:
            on_batch(b.n_tokens)
    return summarize(total)


def summarize(s: Stats) -> dict:
    n = max(s.n_tokens, 1)
    return {"error": s.nll / n, "accuracy": s.correct / n, "perplexity": math.exp(min(s.nll / n, 700.0)),
            "loss": s.loss / n, "tokens": s.n_tokens}


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


def evaluate_pairs(translator, pairs, beam: int = 4, alpha: float = 1.0, batch_size: int = 64,
                   on_progress: Callable[[int], None] | None = None) -> tuple[dict, list[str]]:
    """The thesis's teacher-forced error/accuracy plus sacrebleu BLEU and chrF of the decoded
    translations (one reference per pair). Returns the report and the translations."""
    import sacrebleu

    from mtcli.data import encode_pairs, make_batches

    model, cfg = translator.model, translator.model.cfg
    split = encode_pairs(translator.src_tok, translator.tgt_tok, pairs, cfg.max_src_len, cfg.max_tgt_len)
    report = teacher_forced(model, make_batches(split, EVAL_BATCH, 0, 0, shuffle=False))
    unique = list(dict.fromkeys(en for en, _ in pairs))  # sentences with several references: decode once
    out: dict[str, str] = {}
    for k in range(0, len(unique), batch_size * 4):
        chunk = unique[k : k + batch_size * 4]
        nbest, _ = translator.translate(chunk, beam=beam, alpha=alpha, batch_size=batch_size)
        out.update(zip(chunk, (n[0][0] for n in nbest)))
        if on_progress:
            on_progress(len(chunk))
    hyps = [out[en] for en, _ in pairs]
    refs = [[es for _, es in pairs]]
    bleu = sacrebleu.metrics.BLEU()
    chrf = sacrebleu.metrics.CHRF()
    report |= {
        "pairs": len(pairs),
        "bleu": bleu.corpus_score(hyps, refs).score,
        "chrf": chrf.corpus_score(hyps, refs).score,
        "bleu_signature": str(bleu.get_signature()),
        "chrf_signature": str(chrf.get_signature()),
        "decoding": "greedy" if beam <= 1 else f"beam {beam}, alpha {alpha}",
    }
    return report, hyps
