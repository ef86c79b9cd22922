"""The repair step (mtcli/confidence/repair.py, issue 41 item 3) measured on held-out selection sentences: `--lines`
of them at random, and those of the selection split with a clause a fluent translation can leave out
(confidence.DROPPABLE, the omission set's sentences, whole: the model's own omissions, not made ones), and the
hand-written messages of benchmarks/sets/confidence-messages.tsv (en-es; no references: no BLEU). All
translated as `mtcli translate` does (pipeline, default decoding, the "fast" check), then repaired:
  flagged    sentences flagged with words named as left out (what the repair retries, if they cut in clauses)
  tried      of those, cut into two clauses or more
  kept       retries kept (surer, the named words no longer named)
  BLEU/chrF  of the lines before and after against the references (sacrebleu, corpus level)
  cpu        CPU seconds of translating + checking, and of the repair, in one process side by side
Never the unseen or test sets. `--show N` prints N kept retries to read by hand.

    nice -n 10 python benchmarks/repair.py --lines 1000 --show 20
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.confidence import DROPPABLE, END, MESSAGES, SEED, _back, _selection, _translator  # noqa: E402
from mtcli import confidence as conf  # noqa: E402
from mtcli.config import DEFAULTS, Options  # noqa: E402
from mtcli.confidence.repair import clauses, repair, whole  # noqa: E402
from mtcli.text.pipeline import Engine, translate_lines  # noqa: E402


def measure(name: str, pairs: list[tuple[str, str]], tr, back, show: int) -> dict:
    from sacrebleu.metrics import BLEU, CHRF

    sources, refs = [s for s, _ in pairs], [r for _, r in pairs]
    options = Options().text_for(tr.direction.split("-")[0])
    engine = Engine.from_translator(tr, DEFAULTS)
    checker = conf.Checker(tr, lambda: back, DEFAULTS)
    t0 = time.process_time()
    done = translate_lines(sources, engine, options)
    checks = checker.check(sources, [r.nbest for r in done])
    base = time.process_time() - t0
    before = [r.nbest[0][0] for r in done]
    named = [(k, s) for k, c in enumerate(checks) if c for s in c.sentences if s.flagged and s.omitted]
    out = {"set": name, "lines": len(pairs), "flagged with words named": len(named),
           "tried (2+ clauses)": sum(len(clauses(s.source)) > 1 for _, s in named), "cpu translate+check": round(base, 2)}
    for way in (repair, whole):
        fixed, again = copy.deepcopy(done), copy.deepcopy(checks)
        t0 = time.process_time()
        kept = way(checker, engine, options, fixed, again)
        cost = time.process_time() - t0
        after = [r.nbest[0][0] for r in fixed]
        changed = [k for k in range(len(pairs)) if before[k] != after[k]]
        for k in changed[:show]:
            print(f"[{way.__name__}] {sources[k]}\n  before: {before[k]}   [{'; '.join(checks[k].warnings)}]\n"
                  f"  after:  {after[k]}\n  ref:    {refs[k]}", file=sys.stderr)
        score = {m.__name__: (m().corpus_score(before, [refs]).score, m().corpus_score(after, [refs]).score)
                 for m in (BLEU, CHRF)} if all(refs) else {}
        still = sum(bool(s.omitted) for k, s0 in named for s in again[k].sentences if s.source == s0.source)
        out[way.__name__] = {"kept": kept, "lines changed": len(changed), "still named": still,
                             **{f"{m} before/after": [round(a, 2), round(b, 2)] for m, (a, b) in score.items()},
                             "cpu": round(cost, 2), "extra": round(cost / base, 4)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="en-es", choices=("en-es", "es-en"))
    parser.add_argument("--data", help="the corpus (default: MTCLI_DATA, else data/spa-eng/spa.txt)")
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args()
    tr, back = _translator(args.model), _translator(_back(args.model))
    pairs = list(dict(_selection(args.model, tr, args.data)).items())  # (one reference per source)
    random.Random(SEED + 3).shuffle(pairs)
    droppable = re.compile("|".join(f"(?:{p}){END}" for _, p in DROPPABLE[args.model.split("-")[0]]))
    clause = [p for p in pairs if droppable.search(p[0]) and len(clauses(p[0])) > 1][: args.lines]
    messages = [(line.split("\t")[0], "") for line in MESSAGES[args.model].read_text("utf-8").splitlines()[1:]
                if line.strip()]
    for name, chosen in (("selection", pairs[: args.lines]), ("selection, a droppable clause", clause),
                         ("messages (no references)", messages)):
        print(json.dumps(measure(name, chosen, tr, back, args.show)), flush=True)


if __name__ == "__main__":
    main()
