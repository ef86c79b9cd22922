"""`mtcli explain`: one sentence's translation seen from inside the model: the pieces on both sides, each
target piece's probability (the unlikely ones marked), and a cross-attention heat map, drawn with shade
characters so that it reads without colour (NO_COLOR, a pipe) and on a narrow terminal (the map is cut to
the columns that fit, and says so)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.text import Text

from mtcli.config import DEFAULTS
from mtcli.errors import UserError

SHADES = " ░▒▓█"  # attention 0 ... 1, one character a cell
UNLIKELY = 0.3  # a target piece below this probability is marked
LABEL = 14  # characters of a row's label (its target piece) at most


@dataclass
class Explained:
    source: list[str]  # source pieces, without BOS/EOS
    target: list[str]  # target pieces, then "[END]"
    probs: np.ndarray  # (T + 1,) probability of each target piece given the ones before (ensemble's first model)
    attention: np.ndarray  # (T + 1, S) of the layer/head asked for, BOS and EOS columns dropped
    translation: str
    layer: int
    head: int | None  # None: the layer's heads averaged
    cut: str = ""  # the sentence's end beyond the pieces the model reads (max_src_len), which it never saw


def explain(translator, sentence: str, layer: int | None = None, head: int | None = None) -> Explained:
    """The translator's best translation of `sentence` (beam search as `translate` decodes, without the text
    pipeline) read again under teacher forcing; layer default: the last, head default: all averaged."""
    cfg = translator.model.cfg
    layer = cfg.n_layers - 1 if layer is None else layer
    if not 0 <= layer < cfg.n_layers:
        raise UserError(f"--layer {layer}: the model has layers 0 to {cfg.n_layers - 1}")
    if head is not None and not 0 <= head < cfg.n_heads:
        raise UserError(f"--head {head}: the model has heads 0 to {cfg.n_heads - 1}")
    if not sentence.strip():
        raise UserError("give a sentence to explain")
    text = translator.translate_batch([sentence], DEFAULTS)[0].hypotheses[0].text
    f = translator.force([sentence], [text])[0]
    att = f.attention[layer] if head is None else f.attention[layer, head : head + 1]
    src = translator.src_tok
    beyond = src.encode(sentence)[cfg.max_src_len - 2 :]  # (as Translator.source_ids cuts it)
    return Explained([src.id_to_token(i) for i in src.pieces(f.src[1:-1])],
                     [translator.tgt_tok.id_to_token(i) for i in f.tgt] + ["[END]"], np.exp(f.logprobs),
                     att.mean(0)[:, 1:-1], text, layer, head, src.decode(beyond).strip() if beyond else "")


def render(e: Explained, console: Console) -> None:
    plain = console.no_color or not console.is_terminal
    console.print(Text.assemble(("translation: ", "bold"), e.translation), soft_wrap=True)
    console.print(Text.assemble(("source pieces: ", "bold"),
                                "  ".join(f"{k}:{p}" for k, p in enumerate(e.source))), soft_wrap=False)
    pieces = Text("target pieces (probability; ! below %.1f): " % UNLIKELY, style="bold")
    for piece, p in zip(e.target, e.probs):
        low = p < UNLIKELY
        pieces.append(f"{piece} {p:.2f}{'!' if low else ''}", style="reverse" if low and not plain else "")
        pieces.append("  ")
    console.print(pieces)
    which = "heads averaged" if e.head is None else f"head {e.head}"
    top = float(e.attention.max()) or 1.0
    console.print(Text(f"cross-attention, layer {e.layer}, {which} (rows: target pieces, columns: source pieces "
                       f"by number; {SHADES[1:]} = more, {SHADES[-1]} = {top:.2f}):", style="bold"))
    label = min(LABEL, max(len(p) for p in e.target))
    room = max(console.width - label - 1, 1)
    shown = min(len(e.source), room)
    tens = "".join(str(k // 10) if k >= 10 else " " for k in range(shown))
    console.print(" " * (label + 1) + tens, highlight=False)
    console.print(" " * (label + 1) + "".join(str(k % 10) for k in range(shown)), highlight=False)
    for piece, row in zip(e.target, e.attention):
        cells = "".join(SHADES[min(int(a / top * len(SHADES)), len(SHADES) - 1)] for a in row[:shown])
        console.print(f"{piece[:label]:<{label}} {cells}", highlight=False, soft_wrap=True)
    if shown < len(e.source):
        console.print(f"(source pieces {shown} to {len(e.source) - 1} left out: the terminal is "
                      f"{console.width} columns wide)", highlight=False, soft_wrap=True)
