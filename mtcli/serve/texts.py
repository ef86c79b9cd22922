"""What the server does to a text around decoding, through mtcli.text's pipeline (the one the CLI
uses): text is cut into sentences, numbers and emoji are kept, case is repaired; HTML (and Markdown,
SRT) keep their markup and only prose is translated. And how English a text looks.

The pipeline reaches the model through an `Engine` whose decode function the caller chooses: the
batcher, so that many requests share one decoder, or a Translator for offline use.
"""

from __future__ import annotations

import pickle
import re
from dataclasses import replace

from mtcli.config import DEFAULTS, TranslationOptions
from mtcli.serve.config import ServeConfig
from mtcli.text.formats import translate_document
from mtcli.text.pipeline import Engine, translate_lines
from mtcli.text.read import _LINE_END
from mtcli.tokenizer import UNK, Tokenizer

FORMATS = ("text", "html", "markdown", "srt")  # LibreTranslate's two, and the pipeline's others
WORD = re.compile(r"[^\W\d_]+")  # a run of letters


def options(cfg: ServeConfig) -> TranslationOptions:
    """How the server decodes. nbest = beam: the beam's other finished hypotheses cost nothing more,
    so every request's alternatives come from one decoding and any requests can share a batch."""
    return replace(DEFAULTS, beam_size=cfg.beam, num_hypotheses=cfg.beam, length_penalty=cfg.alpha)


def engine(translator, cfg: ServeConfig) -> Engine:
    """The pipeline's engine on a loaded Translator, decoding in batches as the server's decoders do."""
    o = options(cfg)
    return Engine.from_translator(translator, beam=o.beam_size, nbest=o.num_hypotheses, alpha=o.length_penalty,
                                  batch_size=cfg.max_batch)


def setup(translator, cfg: ServeConfig) -> bytes:
    """What a formatter process makes its Engine of (formatter.FormatterProcess): the source tokenizer,
    the length limit and the truecasing names; its decode goes to the server's decoders."""
    e = engine(translator, cfg)
    return pickle.dumps((translator.src_tok, e.limit, e.names))


def translate_job(tools, texts: list[str], fmt: str, nbest: int) -> list[list[str]]:
    """translate_texts in a formatter process (formatter.Tools)."""
    return translate_texts(texts, fmt, nbest, tools.engine)


def confidence_job(tools, texts: list[str]) -> list[float]:
    """english_confidence of each text, in a formatter process."""
    return [english_confidence(tools.tokenizer, text) for text in texts]


def translate_texts(texts: list[str], fmt: str, nbest: int, engine: Engine) -> list[list[str]]:
    """Each text's translations, best first: the best and up to nbest - 1 different alternatives (the
    k-th alternative joins each line's k-th hypothesis). Documents (HTML, ...) get the best only."""
    if fmt != "text":
        return [["\n".join(translate_document(_LINE_END.split(t), fmt, engine)[0])] for t in texts]
    lines = [_LINE_END.split(t) for t in texts]
    results = iter(translate_lines([line for ls in lines for line in ls], engine))  # one batch for all texts
    out = []
    for ls in lines:
        hyps = [next(results).nbest for _ in ls]
        ranks = min(nbest, max(len(h) for h in hyps))
        candidates = ["\n".join(h[min(k, len(h) - 1)][0] for h in hyps) for k in range(ranks)]
        seen = {candidates[0], ""}
        out.append(candidates[:1] + [c for c in candidates[1:] if not (c in seen or seen.add(c))])
    return out


def english_confidence(tokenizer: Tokenizer, text: str) -> float:
    """Share of the text's words (0-100) that the English vocabulary holds whole, in any of their
    plain, lower or capitalised forms: 0 for a text without letters."""
    words = sorted(set(WORD.findall(text)))
    if not words:
        return 0.0
    ids = [tokenizer.pieces(i) for i in tokenizer.encode_batch([f for w in words for f in (w, w.lower(), w.capitalize())])]
    known = {w for k, w in enumerate(words) if any(len(i) == 1 and i[0] != UNK for i in ids[3 * k : 3 * k + 3])}
    counts = WORD.findall(text)
    return round(100 * sum(w in known for w in counts) / len(counts), 1)
