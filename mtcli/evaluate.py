"""A model scored on sentence pairs, as `mtcli evaluate` reports it: the thesis's teacher-forced
error, accuracy and perplexity (metrics.py) and sacrebleu BLEU and chrF of its translations (decode.py),
and the report kept in the model directory's scores.json."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import sacrebleu

from mtcli.atomic import atomic_write_text
from mtcli.checkpoint import SCORES, TRAINED_ON, direction
from mtcli.data import check_ids, encode_pairs, held_out_pairs, make_batches, oriented, read_corpus
from mtcli.config import Options, TranslationOptions
from mtcli.decode import Translator
from mtcli.errors import UserError
from mtcli.metrics import EVAL_BATCH, percent, teacher_forced
from mtcli.schema import read_scores
from mtcli.text.glossary import Glossary
from mtcli.text.pipeline import Engine, translate_lines

PROGRESS_EVERY = 256  # sentences translated between progress reports


class EvaluationSet(NamedTuple):
    pairs: list[tuple[str, str]]
    source: str  # how the report names them
    key: str  # their key in scores.json
    skipped: int = 0  # malformed lines of a --data file, not scored
    skipped_lines: list[int] = []  # 1-based, the first few


def evaluation_set(meta: dict, model: str, data: Path | None, corpus: Path | None, split: str,
                   limit: int = 0) -> EvaluationSet:
    """The (source, reference) pairs to score: every pair of the file `data` (its malformed lines counted;
    a TSV is read as source TAB reference, a CSV by its english and spanish columns), or else the
    model's own held-out `split` rebuilt from `corpus` (the one the model, named `model` as the user
    gave it, records in meta); the first `limit` of them (0: all)."""
    if data is not None:
        read = read_corpus(data)
        stdin = str(data) == "-"
        pairs = oriented(read.pairs, direction(meta)) if read.format == "csv" else read.pairs
        found = EvaluationSet(pairs, "<stdin>" if stdin else str(data), "stdin" if stdin else data.name,
                              read.skipped, read.skipped_lines)
    else:
        if split in meta.get(TRAINED_ON, ()):
            raise UserError(f"{model} was trained on the {split} split; score it on the test split or --data")
        found = EvaluationSet(held_out_pairs(corpus, meta.get("data", {}), split, model),
                              f"{split} split of {corpus}", f"{split} split")
    if 0 < limit < len(found.pairs):  # a score of the first pairs is named so, never taken for all of them
        return found._replace(pairs=found.pairs[:limit], source=f"{found.source} (first {limit:,} pairs)",
                              key=f"{found.key} (first {limit:,})")
    return found


def evaluate_pairs(translator: Translator, pairs: list[tuple[str, str]], beam: int, alpha: float,
                   on_progress: Callable[[int], None] | None = None,
                   glossary: Glossary | None = None) -> tuple[dict, list[str]]:
    """The report on (source, reference) pairs, one reference each, and the translations. With a glossary
    the sentences go through the text pipeline with its terms (as `mtcli translate --glossary` does) and the
    report adds its term accuracy: of the terms found in the sources, the share whose target the
    translation holds."""
    cfg = translator.model.cfg
    split = encode_pairs(translator.src_tok, translator.tgt_tok, pairs, cfg.max_src_len, cfg.max_tgt_len)
    check_ids({"evaluation": split}, cfg, str(translator.model_dir))
    report = teacher_forced(translator.models, make_batches(split, EVAL_BATCH, 0, 0, shuffle=False))
    unique = list(dict.fromkeys(en for en, _ in pairs))  # sentences with several references: decode once
    if glossary is not None:
        engine = Engine.from_translator(translator, TranslationOptions(beam_size=beam, length_penalty=alpha))
        options = Options(glossary=glossary).text_for(direction(translator.meta).split("-")[0])
    out: dict[str, str] = {}
    for k in range(0, len(unique), PROGRESS_EVERY):
        chunk = unique[k : k + PROGRESS_EVERY]
        if glossary is None:
            nbest, _ = translator.translate(chunk, beam=beam, alpha=alpha)
            out.update(zip(chunk, (n[0][0] for n in nbest)))
        else:
            out.update(zip(chunk, (r.text for r in translate_lines(chunk, engine, options))))
        if on_progress:
            on_progress(len(chunk))
    hyps = [out[en] for en, _ in pairs]
    refs = [[es for _, es in pairs]]
    bleu = sacrebleu.metrics.BLEU()
    chrf = sacrebleu.metrics.CHRF()
    report |= {
        "pairs": len(pairs),
        "bleu": percent(bleu.corpus_score(hyps, refs).score),
        "chrf": percent(chrf.corpus_score(hyps, refs).score),
        "bleu_signature": str(bleu.get_signature()),
        "chrf_signature": str(chrf.get_signature()),
        "decoding": "greedy" if beam <= 1 else f"beam {beam}, alpha {alpha}",
    }
    if glossary is not None:
        report["glossary"] = term_accuracy(options.glossary, [src for src, _ in pairs], hyps)
    return report, hyps


def term_accuracy(glossary: Glossary, sources: list[str], hyps: list[str]) -> dict:
    """Of the glossary's terms found in the sources, how many and the share whose target the translation
    holds (whole words, any case)."""
    wanted = [(hyp, target) for src, hyp in zip(sources, hyps) for _, _, target in glossary.find(src)]
    right = sum(bool(re.search(rf"(?<!\w){re.escape(t)}(?!\w)", hyp, re.IGNORECASE)) for hyp, t in wanted)
    return {"terms": len(wanted), "term_accuracy": round(100 * right / len(wanted), 1) if wanted else None}


def check_scores(model_dir: Path) -> None:
    """Before an evaluation that --save will record: a damaged scores.json is refused now, not after it."""
    read_scores(model_dir / SCORES)


def save_scores(model_dir: Path, data: str, report: dict) -> None:
    """The report added to model_dir's scores.json (shown by `mtcli info`) as "DATA, DECODING"; one
    of the same data and decoding is replaced. A damaged scores.json is refused, never overwritten."""
    path = model_dir / SCORES
    scores = read_scores(path)
    atomic_write_text(path, json.dumps({**scores, f"{data}, {report['decoding']}": report}, indent=2) + "\n")
