"""Everything the text pipeline makes of an input with a real model, written out to be compared byte for byte
before and after a change that must not change behaviour (a refactoring of mtcli/text/).

The input is plain lines (a .tsv: its first column) or a document (--format srt, markdown, html). For plain
lines it writes one JSON line per input line (translations with their scores, sentences, pieces split, spans
kept, warnings) and, with --variants, the same for each of benchmarks/robustness.py's perturbations of them.
Alongside each output, `<name>.seen` holds what the model was given, call by call. Outputs go to --out,
outside the repository (corpus text is never committed).

    python benchmarks/text_regression.py --input ../shared/data/tatoeba-test/unseen.tsv --limit 2000 \\
        --variants --out /work/golden/greedy
    python benchmarks/text_regression.py --input ... --limit 300 --beam 4 --out /work/golden/beam4
    python benchmarks/text_regression.py --input page.html --format html --out /work/golden/docs
    diff -r /work/golden/greedy /tmp/now/greedy      # after the change: no output
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
sys.path.insert(0, str(REPO / "benchmarks"))  # robustness.py's perturbations (as a path: pysbd has `benchmarks`)

FORMATS = ("text", "srt", "markdown", "html")


def _lines(path: Path, fmt: str, limit: int) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if fmt != "text":
        return text.split("\n")
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    lines = [line.split("\t")[0] for line in lines] if path.suffix == ".tsv" else lines
    return lines[:limit] if limit else lines


def _record(result) -> str:
    return json.dumps({"line": result.line, "nbest": result.nbest, "sentences": result.sentences,
                       "split": result.split, "kept": result.kept, "warnings": result.warnings}, ensure_ascii=False)


def _cached(decode, path: Path):
    """decode answering the calls `path` holds (one JSON line each: the call, its answers) from it."""
    known = {}
    if path.exists():
        for row in path.read_text(encoding="utf-8").splitlines():
            call, answers = json.loads(row)
            known[json.dumps(call, ensure_ascii=False)] = [[tuple(h) for h in nbest] for nbest in answers]

    def answer(lines: list[str]) -> list:
        key = json.dumps(lines, ensure_ascii=False)
        if key not in known:
            known[key] = decode(lines)
            with path.open("a", encoding="utf-8") as f:
                f.write(json.dumps([lines, known[key]], ensure_ascii=False) + "\n")
        return known[key]

    return answer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None, help="model directory or name (default: the shipped model)")
    ap.add_argument("--input", type=Path, required=True)
    ap.add_argument("--format", choices=FORMATS, default="text")
    ap.add_argument("--limit", type=int, default=0, help="first N lines of plain text (0: all)")
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--variants", action="store_true", help="also robustness.py's perturbations of the lines")
    ap.add_argument("--out", type=Path, required=True, help="a directory (outside the repository)")
    ap.add_argument("--cache", type=Path, help="decode calls and their answers: a call made before is answered "
                    "from here (decoding is deterministic), a new one decoded and added")
    args = ap.parse_args()

    from threadpoolctl import threadpool_limits

    from mtcli import registry
    from mtcli.config import TranslationOptions
    from mtcli.decode import Translator
    from mtcli.text.formats import translate_document
    from mtcli.text.pipeline import Engine, translate_lines
    from robustness import variants

    threadpool_limits(1)
    engine = Engine.from_translator(Translator(registry.resolve(args.model or registry.SHIPPED)),
                                    TranslationOptions(beam_size=args.beam))
    decode, seen = engine.decode if not args.cache else _cached(engine.decode, args.cache), []

    def logged(lines: list[str]) -> list:
        seen.append(json.dumps(lines, ensure_ascii=False))
        return decode(lines)

    engine.decode = logged
    args.out.mkdir(parents=True, exist_ok=True)
    lines = _lines(args.input, args.format, args.limit)
    stem = args.input.stem
    if args.format != "text":
        out, results = translate_document(lines, args.format, engine)
        outputs = {f"{stem}.{args.format}": ["\n".join(out), *map(_record, results)]}
    else:
        todo = {"clean": lines}
        if args.variants:
            todo = {name: src for name, (src, _) in variants([(line, "") for line in lines]).items()}
        outputs = {}
        for name, src in todo.items():
            key = f"{stem}.{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')}"
            cpu = time.process_time()
            outputs[key] = [*map(_record, translate_lines(src, engine))]
            print(f"{key}: {time.process_time() - cpu:.2f} s CPU (decoding included unless answered from --cache)")
            outputs[f"{key}.seen"] = list(seen)
            seen.clear()
    if args.format != "text":
        outputs[f"{stem}.{args.format}.seen"] = seen
    for name, rows in outputs.items():
        (args.out / name).write_text("".join(row + "\n" for row in rows), encoding="utf-8")
        print(f"{args.out / name}: {len(rows):,} lines", flush=True)


if __name__ == "__main__":
    main()
