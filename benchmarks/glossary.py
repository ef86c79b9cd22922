"""Glossary terms with the shipped models, both directions (docs/glossary.md's figures).

For each direction: the sentences of benchmarks/sets/glossary-SRC-TGT.tsv (written for mtcli: each holds a
term of glossary-SRC-TGT.terms.tsv; the reference uses the glossary's target) translated through the text
pipeline without and with the glossary: term accuracy (each term's target, or its plural, in the translation,
case-insensitive, whole words) and case-insensitive BLEU/chrF against the references. Then the first --unseen
lines of the unseen test set: the lines without a term must come out unchanged, and BLEU of the whole sample
with and without the glossary. --plain leaves out the determiners' agreement (the placeholder alone).

    nice -n 10 python benchmarks/glossary.py                  # beam 4, 300 unseen lines
    python benchmarks/glossary.py --unseen 0 --plain
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SETS = REPO / "benchmarks" / "sets"
UNSEEN = {"en": REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv",
          "es": REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen-es.tsv"}


def read_pairs(path: Path, limit: int = 0) -> list[tuple[str, str]]:
    pairs = [tuple(line.split("\t")[:2]) for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    return pairs[:limit] if limit else pairs


def has(text: str, term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE) is not None


def scores(hyps: list[str], refs: list[str]) -> dict | None:
    import sacrebleu

    if not hyps:  # (a sample in which no line holds a term)
        return None

    return {"bleu": round(sacrebleu.corpus_bleu(hyps, [refs], lowercase=True).score, 1),
            "chrf": round(sacrebleu.corpus_chrf(hyps, [refs]).score, 1)}


def direction_figures(src: str, tgt: str, beam: int, unseen: int) -> dict:
    from mtcli import registry
    from mtcli.decode import Translator
    from mtcli.config import Options, TranslationOptions
    from mtcli.text import glossary
    from mtcli.text.pipeline import Engine, translate_lines

    engine = Engine.from_translator(Translator(registry.shipped(f"{src}-{tgt}")),
                                    TranslationOptions(beam_size=beam, max_batch_size=64, batch_type="examples"))
    terms = glossary.read(SETS / f"glossary-{src}-{tgt}.terms.tsv")
    plain, with_terms = Options().text_for(src), Options(glossary=terms).text_for(src)
    bound = with_terms.glossary

    def run(lines: list[str], options) -> list[str]:
        return [r.text for r in translate_lines(lines, engine, options)]

    pairs = read_pairs(SETS / f"glossary-{src}-{tgt}.tsv")
    lines, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    wanted = [[t for _, _, t in bound.find(line)] for line in lines]
    out = {"sentences": len(pairs), "terms": sum(map(len, wanted))}
    for name, options in (("without", plain), ("with", with_terms)):
        hyps = run(lines, options)
        right = sum(has(h, t) for h, ts in zip(hyps, wanted) for t in ts)
        out[name] = {"term accuracy": round(100 * right / out["terms"], 1), **scores(hyps, refs)}
        out[name + " examples"] = hyps[:6]
    if unseen and UNSEEN[src].exists():
        sample = read_pairs(UNSEEN[src], unseen)
        lines, refs = [p[0] for p in sample], [p[1] for p in sample]
        before = run(lines, plain)
        for name in ("terms", "control"):  # (control: common words as the references translate them)
            glossary_file = SETS / f"glossary-{src}-{tgt}.{name}.tsv"
            options = Options(glossary=glossary.read(glossary_file)).text_for(src)
            after = run(lines, options)
            held = [k for k, line in enumerate(lines) if options.glossary.find(line)]
            termless = [k for k in range(len(lines)) if k not in held]
            out[f"unseen, {name}"] = {
                "lines": len(lines), "how many hold a term": len(held),
                "termless lines unchanged": f"{sum(before[k] == after[k] for k in termless)} of {len(termless)}",
                "all lines": [scores(before, refs), scores(after, refs)],
                "lines with a term": [scores([before[k] for k in held], [refs[k] for k in held]),
                                      scores([after[k] for k in held], [refs[k] for k in held])],
                "term accuracy": [round(100 * sum(has(o[k], t) for k in held for _, _, t in
                                                  options.glossary.find(lines[k])) / max(1, sum(
                    len(options.glossary.find(lines[k])) for k in held)), 1) for o in (before, after)]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--unseen", type=int, default=300, help="first N unseen test lines (0: none)")
    ap.add_argument("--plain", action="store_true", help="the placeholder alone: no determiner agreement")
    ap.add_argument("--numbers", action="store_true", help="protect's number placeholders for terms too, not names")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    from mtcli import kernels
    from mtcli.text import glossary, spans

    if args.plain:  # (the variant measured against: the target as the placeholder came back, nothing around it)
        spans.agreeing = lambda text, terms, glossary: text
    if args.numbers:
        glossary.NAMES = {}
    start, figures = time.process_time(), {}
    kernels.use_compiled()  # (the compiled kernels from the first sentence, as for a whole test set)
    for src, tgt in (("en", "es"), ("es", "en")):
        figures[f"{src}-{tgt}"] = direction_figures(src, tgt, args.beam, args.unseen)
    figures["cpu seconds"] = round(time.process_time() - start, 1)
    text = json.dumps(figures, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
