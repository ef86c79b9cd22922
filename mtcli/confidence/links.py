"""Word links of a translator's translations for the text pipeline (sentence.Engine.align): where markup inside a
sentence goes in its translation (text/aligned.py), read from the cross-attention of one teacher-forced pass of
the sentence and its translation, the same head and shift as `--align` (MODEL/confidence.json, docs/confidence.md:
AER 0.079 on 50 hand-aligned pairs). The pass reads only the layers up to that head's (layer 0 of the shipped
models: its self-attention and one head's queries and keys), far less than decoding the sentence again."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

from mtcli.confidence import load_fitted, word_attention


@dataclass(frozen=True)
class Links:
    """A pair's words (between spaces) linked both ways: each target word's source word, each source word's
    target word (the one that attends to it most)."""

    to_source: list[int]
    to_target: list[int]


def _spans(tokenizer, texts: list[str], read: list[int]) -> list[list[tuple[int, int]] | None]:
    """Each text's words between spaces as ranges of its pieces, each word encoded alone (the tokenizers split at
    spaces first, so its pieces are the sentence's); None where they are not the `read` pieces the model read (a
    sentence cut to its length) or a word has none."""
    words = [t.split() for t in texts]
    sizes = iter(map(len, tokenizer.encode_batch([w for ws in words for w in ws])))
    out = []
    for ws, n in zip(words, read):
        these = [next(sizes) for _ in ws]
        ends = list(accumulate(these))
        out.append([(e - k, e) for k, e in zip(these, ends)] if these and ends[-1] == n and all(these) else None)
    return out


def aligner(translator) -> Callable[[list[tuple[str, str]]], list[Links | None]]:
    """(source, translation) pairs -> their Links; None for a pair whose words cannot be told apart in what the
    model read. The model's fitted head is read at the first call (plain lines never make one)."""
    @functools.cache
    def head():
        return load_fitted(translator.model_dir, translator.model.cfg.n_layers)

    def links(pairs: list[tuple[str, str]]) -> list[Links | None]:
        fitted = head()
        layer = fitted.align_layer
        heads = fitted.align_heads or tuple(range(translator.model.cfg.n_heads))
        read = translator.force([s for s, _ in pairs], [t for _, t in pairs], layer + 1,
                                fitted.align_heads if layer == 0 and fitted.align_heads else None)
        srcs = _spans(translator.src_tok, [s for s, _ in pairs], [len(f.src) - 2 for f in read])
        tgts = _spans(translator.tgt_tok, [t for _, t in pairs], [len(f.tgt) for f in read])
        out = []
        for f, src, tgt in zip(read, srcs, tgts):
            a = None if src is None or tgt is None else word_attention(f.attention, src, tgt, layer, heads,
                                                                       fitted.align_shift)  # (J, I)
            out.append(None if a is None else Links(a.argmax(1).tolist(), a.argmax(0).tolist()))
        return out

    return links
