"""What a new user types first (issue 40): short inputs, everyday messages, made-up words.

Sets (benchmarks/sets/, written by hand, never from the corpus, never trained or tuned on):
  short-en-es.tsv, short-es-en.tsv   English<TAB>answer|answer|...: greetings, thanks, signs, UI words
  messages-en-es.tsv                 English<TAB>item<TAB>item...: each item the content a translation must
                                     carry, as Spanish alternatives alt|alt|...
Scores, each through the text pipeline ("pipeline", what `mtcli translate` prints) and the raw model on the
line as typed ("raw"):
  acceptable   a short input's output equals one of its answers after `normalise` (case, spacing and the
               marks ¡¿.!?,;:… and quotes at either end do not count; accents do); "raw 4-best": one of the
               raw model's 4 best does
  content kept a message's output holds, for every item, one alternative as whole words (lowercased)
  non-words    outputs holding a word (a run of letters) that is neither in the target side of the corpus
               (the model's lexicon.json, else built from --corpus) nor in the source, per 1,000 outputs
With --unseen N: the non-word rate and BLEU (sacrebleu, as `mtcli evaluate`) of the raw model on the first N
lines of the unseen Tatoeba set, and the seconds to translate 200 of its lines (after the first N) with the
pipeline. --nonwords off decodes without the lexicon's penalty (decode.WordCheck), --roundtrip off without the
ranking by the way back (all: every line's) (mtcli.roundtrip), each for a before/after.

    nice -n 10 python benchmarks/first_inputs.py                          # en-es: short set and messages
    nice -n 10 python benchmarks/first_inputs.py --set short-es-en        # the es-en model
    nice -n 10 python benchmarks/first_inputs.py --unseen 1000 --nonwords off --json before.json
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SETS = REPO / "benchmarks" / "sets"
DATA = REPO.parent / "shared" / "data"
UNSEEN = {"en-es": DATA / "tatoeba-test" / "unseen.tsv", "es-en": DATA / "tatoeba-test" / "unseen-es.tsv"}
_EDGE = "¡¿.!?,;:…\"'«»“”‘’ "
LATENCY_LINES = 200


def normalise(text: str) -> str:
    """What acceptable compares: lowercase, single spaces, no marks at either end."""
    return " ".join(text.lower().split()).strip(_EDGE)


def read_set(path: Path) -> list[list[str]]:
    """The rows of a set: source, then its columns (comments and blank lines skipped)."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    if any(len(r) < 2 or not all(r) for r in rows):
        raise SystemExit(f"{path}: every line needs a source and at least one non-empty column")
    return rows


def acceptable(output: str, answers: str) -> bool:
    return normalise(output) in {normalise(a) for a in answers.split("|")}


def missing(output: str, items: list[str]) -> list[str]:
    """The items of which the output holds no alternative as whole words."""
    text = " ".join(output.lower().split())
    return [item for item in items if not any(re.search(rf"(?<!\w){re.escape(a.strip().lower())}(?!\w)", text)
                                               for a in item.split("|"))]


def nonwords(source: str, output: str, lexicon: frozenset[str]) -> list[str]:
    from mtcli.decode import WORD, source_words

    src = source_words(source)
    return [w for w in WORD.findall(output) if w.lower() not in lexicon and w.lower() not in src]


def lexicon_of(tr, corpus: Path) -> frozenset[str]:
    """The model's lexicon, else the target side of the corpus's words."""
    from mtcli.checkpoint import load_lexicon
    from mtcli.data import read_corpus, target_lexicon

    found = load_lexicon(tr.model_dir, tr.meta)
    return frozenset(found if found is not None else target_lexicon(read_corpus(corpus).pairs, tr.direction))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="short-en-es", choices=["short-en-es", "short-es-en"],
                    help="the short set (its direction picks the model; en-es adds messages-en-es)")
    ap.add_argument("--model", help="model directory or name (default: the shipped model of the set's direction)")
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--nonwords", choices=["on", "off"], default="on",
                    help="penalise made-up words in search (on needs a lexicon in the model)")
    ap.add_argument("--penalty", type=float, help="the penalty of a made-up word (default decode.NONWORD_PENALTY)")
    ap.add_argument("--check-words", type=int, metavar="N",
                    help="check only lines of at most N words for made-up words (default: decode.NONWORD_MAX_WORDS, "
                         "every line)")
    ap.add_argument("--roundtrip", choices=["short", "all", "off"], default="short",
                    help="the lines whose n-best the other direction's model ranks again (mtcli.roundtrip; --rerank), as "
                         "`mtcli translate` does")
    ap.add_argument("--unseen", type=int, default=0, help="also the first N unseen lines: non-words, BLEU, latency")
    ap.add_argument("--corpus", type=Path, default=DATA / "spa-eng" / "spa.txt", help="for a model without lexicon")
    ap.add_argument("--save-unseen", type=Path, help="the unseen lines' outputs, as JSON (omissions.py --outputs)")
    ap.add_argument("--limit", type=int, default=0, help="the first N lines of each set and of the timed ones (0: all)")
    ap.add_argument("--show", action="store_true", help="print every failure")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()

    from threadpoolctl import threadpool_limits

    from mtcli import registry
    from mtcli.data import read_corpus
    from mtcli.config import Options, TranslationOptions
    from mtcli.decode import Translator
    from mtcli.roundtrip import for_direction
    from mtcli.text.pipeline import Engine, translate_lines

    threadpool_limits(1)
    way = args.set.split("-", 1)[1]
    model = registry.resolve(args.model or way)
    tr = Translator(model)
    if args.nonwords == "off":
        tr.words = None
    elif tr.words is None:
        raise SystemExit(f"{model} has no lexicon.json: build it with checkpoint.write_lexicon, or --nonwords off")
    elif args.penalty is not None:
        tr.words.penalty = args.penalty
    if args.check_words is not None:
        tr.nonword_max_words = args.check_words
    lexicon = lexicon_of(tr, args.corpus)
    decoding = TranslationOptions(beam_size=args.beam, max_batch_size=64, batch_type="examples")
    back = registry.resolve("-".join(reversed(way.split("-"))))
    roundtrip = for_direction(way, functools.cache(lambda: Translator(back)), args.roundtrip)
    engine = Engine.from_translator(tr, decoding, roundtrip)
    nbest = Engine.from_translator(tr, replace(decoding, num_hypotheses=min(4, args.beam)))

    def pipeline(lines: list[str]) -> list[str]:  # (with the options `mtcli translate` gives the source language)
        return [r.text for r in translate_lines(lines, engine, Options().text_for(way.split("-")[0]))]

    def raw(lines: list[str]) -> list[list[str]]:
        return [[t for t, _ in n] for n in nbest.decode(lines)]

    figures = {"model": str(model), "beam": args.beam, "nonwords": args.nonwords, "roundtrip": args.roundtrip,
               "penalty": tr.words.penalty if tr.words else None, "checked words": tr.nonword_max_words}
    started = time.perf_counter()
    short = read_set(SETS / f"{args.set}.tsv")[: args.limit or None]
    src = [r[0] for r in short]
    on, off = pipeline(src), raw(src)
    ok_on = [acceptable(o, r[1]) for o, r in zip(on, short)]
    ok_off = [acceptable(o[0], r[1]) for o, r in zip(off, short)]
    ok_any = [any(acceptable(h, r[1]) for h in o) for o, r in zip(off, short)]
    bad = [(s, o, w) for s, o in zip(src, on) if (w := nonwords(s, o, lexicon))]
    figures["short"] = {"inputs": len(short), "acceptable pipeline": sum(ok_on) / len(short),
                        "acceptable raw": sum(ok_off) / len(short), "raw 4-best holds one": sum(ok_any) / len(short),
                        "non-word outputs": len(bad), "non-words per 1,000": 1000 * len(bad) / len(short)}
    checked = "" if not tr.words else " (every line)" if tr.nonword_max_words is None else f" (lines of {tr.nonword_max_words} words)"
    print(f"{model}, beam {args.beam}, non-word penalty {args.nonwords}{checked}, round trip {args.roundtrip}")
    print(f"{args.set}: {len(short)} inputs; acceptable {sum(ok_on) / len(short):.1%} through the pipeline, "
          f"{sum(ok_off) / len(short):.1%} raw ({sum(ok_any) / len(short):.1%} with one of the raw 4 best); "
          f"outputs with a non-word: {len(bad)}")
    if args.show:
        for (s, *_), o, ok, f in zip(short, on, ok_on, off):
            if not ok:
                print(f"  {s!r} -> {o!r}   raw: {' | '.join(f)}")
        for s, o, w in bad:
            print(f"  non-word {w} in {o!r} ({s!r})")
    if way == "en-es":
        messages = read_set(SETS / "messages-en-es.tsv")[: args.limit or None]
        src = [r[0] for r in messages]
        on, off = pipeline(src), [n[0] for n in raw(src)]
        lost_on = [missing(o, r[1:]) for o, r in zip(on, messages)]
        lost_off = [missing(o, r[1:]) for o, r in zip(off, messages)]
        items = sum(len(r) - 1 for r in messages)
        bad = [(s, o, w) for s, o in zip(src, on) if (w := nonwords(s, o, lexicon))]
        figures["messages"] = {"messages": len(messages), "items": items,
                               "all kept pipeline": sum(not m for m in lost_on) / len(messages),
                               "all kept raw": sum(not m for m in lost_off) / len(messages),
                               "items kept pipeline": 1 - sum(map(len, lost_on)) / items,
                               "non-word outputs": len(bad)}
        print(f"messages-en-es: {len(messages)} messages, {items} items; all content kept in "
              f"{figures['messages']['all kept pipeline']:.1%} through the pipeline, "
              f"{figures['messages']['all kept raw']:.1%} raw; items kept {figures['messages']['items kept pipeline']:.1%}; "
              f"outputs with a non-word: {len(bad)}")
        if args.show:
            for (s, *_), o, m in zip(messages, on, lost_on):
                if m:
                    print(f"  {s!r} -> {o!r}   lost: {m}")
    if args.unseen:
        from sacrebleu.metrics import BLEU

        pairs = read_corpus(UNSEEN[way]).pairs
        timing = min(LATENCY_LINES, args.limit or LATENCY_LINES)
        test, timed = pairs[: args.unseen], [p[0] for p in pairs[args.unseen : args.unseen + timing]]
        out = [n[0][0] for n in engine.decode([p[0] for p in test])]
        if args.save_unseen:
            args.save_unseen.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
        bad = [(s, o, w) for (s, _), o in zip(test, out) if (w := nonwords(s, o, lexicon))]
        bleu = BLEU().corpus_score(out, [[p[1] for p in test]]).score
        t = time.perf_counter()
        pipeline(timed)
        seconds = time.perf_counter() - t
        figures["unseen"] = {"lines": len(test), "bleu raw": bleu, "non-word outputs": len(bad),
                             "non-words per 1,000": 1000 * len(bad) / len(test),
                             f"seconds for {len(timed)} lines (pipeline)": seconds}
        print(f"unseen, first {len(test):,}: BLEU {bleu:.2f} (raw), outputs with a non-word "
              f"{1000 * len(bad) / len(test):.1f} per 1,000; {len(timed)} further lines through the pipeline "
              f"in {seconds:.1f} s")
        if args.show:
            for s, o, w in bad:
                print(f"  non-word {w} in {o!r} ({s!r})")
    print(f"({time.perf_counter() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
