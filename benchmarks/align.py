"""Word alignments from cross-attention (`mtcli translate --align`): alignment error rate on the hand-aligned pairs
of tests/data/align-en-es.tsv (written for this, 50 pairs), each pair's Spanish read by the shipped en-es model
under teacher forcing (its first model: the one the check reads).

    AER = 1 - 2 |A & S| / (|A| + |S|)   (every hand link "sure"; A: the links found, S: the hand ones)

Rows: the baseline (each target word to the source word its last layer's heads, averaged, attend to most), each
layer averaged and every single head, read at the positions predicting the word (shift 0) or reading it (shift 1,
Shift-Att), and what mtcli uses (MODEL/confidence.json "align"): the head benchmarks/confidence.py chose for
coverage on other data (the synthetic omissions), read with shift 1. Only the shift was chosen on this set.

    nice -n 10 python benchmarks/align.py          # ~20 s
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mtcli import confidence as conf  # noqa: E402
from mtcli import registry  # noqa: E402

PAIRS = ROOT / "tests/data/align-en-es.tsv"


def read_pairs(path: Path = PAIRS) -> list[tuple[str, str, set[tuple[int, int]]]]:
    rows = [line.split("\t") for line in path.read_text("utf-8").splitlines() if line and not line.startswith("#")]
    return [(en, es, {tuple(map(int, p.split("-"))) for p in links.split()}) for en, es, links in rows]


def aer(found: list[set], gold: list[set]) -> float:
    both = sum(len(a & s) for a, s in zip(found, gold))
    return 1 - 2 * both / (sum(map(len, found)) + sum(map(len, gold)))


def forced(tr, pairs) -> list:
    """Each pair's Spanish read by the model under teacher forcing (its attention, every layer and head)."""
    return tr.force([p[0] for p in pairs], [p[1] for p in pairs])


def alignments(tr, pairs, layer: int, heads, shift: int = 0, read: list | None = None) -> list[set]:
    """`read`: forced(tr, pairs), when already done."""
    vocab = conf.Vocab.of(tr)
    out = []
    for (en, es, _), f in zip(pairs, read or forced(tr, pairs)):
        src = conf.spaced_words([vocab.src[i % vocab.src_size] for i in f.src[1:-1]])
        tgt = conf.spaced_words([vocab.tgt[i] for i in f.tgt])
        assert len(src) == len(en.split()) and len(tgt) == len(es.split()), (en, es)
        out.append(set(conf.align(f.attention, src, tgt, layer, heads, shift)))
    return out


def main() -> None:
    from mtcli.decode import Translator

    path = registry.shipped("en-es")
    tr = Translator(path)
    pairs = read_pairs()
    gold = [p[2] for p in pairs]
    L, H = tr.model.cfg.n_layers, tr.model.cfg.n_heads
    fitted = conf.load_fitted(path, L)
    read = forced(tr, pairs)  # (once: every row reads the same attention)
    rows = {"baseline: last layer, heads averaged": aer(alignments(tr, pairs, L - 1, range(H), read=read), gold)}
    for shift in (0, 1):
        rows |= {f"shift {shift}, layer {layer}, heads averaged":
                 aer(alignments(tr, pairs, layer, range(H), shift, read), gold) for layer in range(L)}
        rows |= {f"shift {shift}, layer {layer}, head {h}": aer(alignments(tr, pairs, layer, [h], shift, read), gold)
                 for layer in range(L) for h in range(H)}
    used = f"mtcli: layer {fitted.align_layer}, heads {list(fitted.align_heads) or 'all'}, shift {fitted.align_shift}"
    rows[used] = aer(alignments(tr, pairs, fitted.align_layer, fitted.align_heads or range(H), fitted.align_shift, read),
                     gold)
    print(json.dumps({k: round(v, 3) for k, v in rows.items()}, indent=1))


if __name__ == "__main__":
    main()
