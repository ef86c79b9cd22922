"""Confidence of short lines (1-3 words: greetings, thanks, signs, interface words; issue 41): the check's short
part, fitted on the selection split's short lines and the development sets, measured on the held-out short sets.

A short line is what mtcli.roundtrip.is_short calls one. The shipped models learned the selection split, so its short
lines read sure; a greeting, a sign or a button a user types reads less sure whether translated right or not (no
context, several right answers), and under the check's one threshold ~40 % of the right ones were flagged. The short
part (Scorer.short) is a logistic regression of the beam's log-probability per token and of the whole translation
(`total_logprob`), fitted on short rows alone, with its own threshold: of the right rows at most MAX_FALSE_FLAGS
flagged, the dev rows weighing as much as the selection rows together.

  selection  2,400 short sources of the model's selection split (drawn with a fixed seed; each as written and
             without its final mark, as people type a sign or a button), translated as `mtcli translate` does
             (pipeline, the way back's ranking of short lines) and read as the check reads them. "wrong": the chrF
             rule of confidence.py (below WRONG_CHRF against the best reference) on normalised text
             (first_inputs.normalise: case and marks at both ends not counted); a reference matched is right.
  dev        benchmarks/sets/short-dev-en-es.tsv and short-dev-es-en.tsv (written for choosing): right when the output
             is one of the line's accepted answers.
  held out   short-en-es.tsv and short-es-en.tsv, the same way: measured once, never fitted or chosen on.
  everyday   short-everyday-en-es.tsv and short-everyday-es-en.tsv (greetings, thanks, yes/no, prices, times; answers
             written before any was translated): a test set as the held-out ones.
Each row keeps the line's HYPOTHESES best: their surface variants (confidence.variants) were measured as signals, not
shipped.

    nice -n 10 python benchmarks/confidence_short.py build --model en-es --lines 2400   # -> /tmp (~1 min CPU)
    python benchmarks/confidence_short.py signals --model en-es   # the shipped check and each signal on the short rows
    python benchmarks/confidence_short.py compare --model en-es   # choices of signals and weights, 5-fold
    python benchmarks/confidence_short.py fit --model en-es       # the short part into MODEL/confidence.json
    python benchmarks/confidence_short.py measure --model en-es   # before / after on every part (held out: once)
    nice -n 10 python benchmarks/confidence_short.py cost --model en-es   # the check's CPU on 2,000 unseen lines
The rows hold corpus text: /tmp only. The corpus: --data or MTCLI_DATA.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import confidence as bench  # noqa: E402
from benchmarks.first_inputs import acceptable, normalise, read_set  # noqa: E402
from mtcli import confidence as conf  # noqa: E402
from mtcli import registry  # noqa: E402
from mtcli.roundtrip import _WORDS as WORDS, is_short  # noqa: E402

CACHE = "/tmp/mtcli-confidence-short-{model}.pkl"  # holds corpus text: never committed
SETS = ROOT / "benchmarks/sets"
DEV = {"en-es": SETS / "short-dev-en-es.tsv", "es-en": SETS / "short-dev-es-en.tsv"}
HELD_OUT = {"en-es": SETS / "short-en-es.tsv", "es-en": SETS / "short-es-en.tsv"}
EVERYDAY = {"en-es": SETS / "short-everyday-en-es.tsv", "es-en": SETS / "short-everyday-es-en.tsv"}
FOLDS = 5
# the short part's signals and the dev rows' weight (together as much as the selection rows'), chosen in `compare`.
# Measured since and not shipped (2026-12-03, docs/confidence.md): the n-best's surface variants (`variants` ...), the
# translation as shown read again whole (`mean_token`: its gain in the folds tells a bare label from a sentence, not doubt)
SHORT = ("logprob", "total_logprob")
DEV_WEIGHT = 1.0
HYPOTHESES = bench.HYPOTHESES  # (en-es's short lines: the way back's ranking of its 12, cut to these)


def _wrong(target: str, refs: list[str]) -> int:
    t = normalise(target)
    if t in {normalise(r) for r in refs}:
        return 0
    return int(conf.chrf(t, [normalise(r) for r in refs]) < bench.WRONG_CHRF)


def _read(tr, back, ranked, lines: list[str]) -> list[dict]:
    """Each line translated as `mtcli translate` does and read as the check reads it (a row as confidence.py's)."""
    from mtcli.config import Options, TranslationOptions
    from mtcli.text.pipeline import Engine, translate_lines

    engine = Engine.from_translator(tr, TranslationOptions(num_hypotheses=HYPOTHESES), ranked)
    results = translate_lines(lines, engine, Options().text_for(tr.direction.split("-")[0]))
    targets = [r.nbest[0][0] for r in results]
    rows = bench._raw(tr, back, lines, lines, targets, [[s for _, s in r.nbest] for r in results])
    for row, line, r in zip(rows, lines, results):
        row["same"] = row["target"].strip() == line.strip()  # (the check reads no line kept as it came)
        row["nbest"] = [text for text, _ in r.nbest]
    return rows


def build(args) -> None:
    from mtcli.roundtrip import for_direction

    t0 = time.process_time()
    tr, back = bench._translator(args.model), bench._translator(bench._back(args.model))
    ranked = for_direction(args.model, lambda: back)
    refs: dict[str, list[str]] = {}
    for src, tgt in bench._selection(args.model, tr, args.data):
        if is_short(src):
            refs.setdefault(src, []).append(tgt)
    typed = [(s, s) for s in sorted(refs)] + [(s.rstrip(".!"), s) for s in sorted(refs) if s.rstrip(".!") != s]
    random.Random(bench.SEED).shuffle(typed)
    typed = typed[: args.lines] if args.lines else typed
    data = {"selection": _read(tr, back, ranked, [t for t, _ in typed])}
    for row, (_, s) in zip(data["selection"], typed):
        row["refs"], row["group"] = refs[s], s
        row["wrong"] = _wrong(row["target"], row["refs"])
    print(f"selection: {len(typed)} rows, {time.process_time() - t0:.0f} s CPU", file=sys.stderr)
    for name, path in (("dev", DEV.get(args.model)), ("held_out", HELD_OUT[args.model]), ("everyday", EVERYDAY[args.model])):
        rows = read_set(path) if path else []
        data[name] = _read(tr, back, ranked, [r[0] for r in rows]) if rows else []
        for row, (_, answers, *_) in zip(data[name], rows):
            row["answers"], row["wrong"] = answers, int(not acceptable(row["target"], answers))
    Path(CACHE.format(model=args.model)).write_bytes(pickle.dumps(data))
    print(f"done: {time.process_time() - t0:.0f} s CPU", file=sys.stderr)


def _load(model: str):
    """The rows the check reads (a short source, a translation not kept as it came), each with its way back read
    (row["way_back"], as benchmarks/confidence.py keeps it; row["back"]: its mean per token, the other direction's
    log-probability of the source given the translation, as mtcli.roundtrip ranks; row["back_same"]: the round
    trip's translation is the source, normalised)."""
    path = Path(CACHE.format(model=model))
    data = pickle.loads(path.read_bytes())
    tr = bench._translator(model)
    if any("back" not in r for rows in data.values() for r in rows):  # (build reads the way back, not its mean)
        back = None
        for rows in data.values():
            if any("way_back" not in r for r in rows):
                back = back or bench._translator(bench._back(model))
                for r, b in zip(rows, bench._way_back(back, [r["source"] for r in rows], [r["target"] for r in rows])):
                    r["way_back"] = b
            for r in rows:
                r["back"] = float(r["way_back"][0].mean())
                r["back_same"] = float(normalise(r["trip"]) == normalise(r["source"]))
        path.write_bytes(pickle.dumps(data))
    keep = {k: [r for r in rows if not r["same"] and is_short(r["source"])] for k, rows in data.items()}
    return tr, conf.Vocab.of(tr), keep


def _extra(rows: list[dict], found: list[dict]) -> list[dict]:
    """The signals of _all_signals with the way back's (_load) and an ensemble's members' disagreement."""
    return [{**s, "back": r["back"], "back_same": r["back_same"], "fwd_back": s["logprob"] + r["back"],
             "wdiff": len(WORDS.findall(r["target"])) - len(WORDS.findall(r["source"])),
             "one_word": float(len(WORDS.findall(r["source"])) == 1),
             "lp_one": s["logprob"] * (len(WORDS.findall(r["source"])) == 1),
             **({"member_gap": abs(s["member0"] - s["member1"])} if "member1" in s else {})}
            for r, s in zip(rows, found)]


def _flags(rows: list[dict], sc: conf.Scorer, vocab) -> dict:
    return _figures(np.array([r["wrong"] for r in rows], bool), bench._confidences(rows, sc, vocab), sc.threshold)


def _figures(wrong: np.ndarray, c: np.ndarray, threshold: float) -> dict:
    """Rows, false flags of the right ones and recall of the wrong ones (flagged below `threshold`), AUC."""
    flagged = c < threshold
    fpr, tpr, _ = bench.roc(1 - c, wrong)
    return {"rows": [len(wrong), int(wrong.sum())],
            "false_flags": round(float(flagged[~wrong].mean()), 3) if (~wrong).any() else None,
            "recall": round(float(flagged[wrong].mean()), 3) if wrong.any() else None,
            "auc": round(bench.auc(fpr, tpr), 3) if wrong.any() and (~wrong).any() else None}


UNSEEN = {"en-es": "unseen.tsv", "es-en": "unseen-es.tsv"}  # beside the corpus's directory: data/tatoeba-test/


def cost(args) -> None:
    """In one process: `--lines` unseen lines translated once as `mtcli translate` does, then their check timed
    `--repeats` times with and without the short part (or with `--before`'s, a confidence.json), alternately (CPU time,
    medians: the check's own cost, which a loaded machine can still measure), and what changed: lines flagged, and confidences of lines that are not short
    (only through a sentence of 1-3 words in them)."""
    from mtcli.config import Options, TranslationOptions
    from mtcli.roundtrip import for_direction
    from mtcli.text.pipeline import Engine, translate_lines

    tr, back = bench._translator(args.model), bench._translator(bench._back(args.model))
    path = Path(args.unseen or ROOT.parent / "shared/data/tatoeba-test") / UNSEEN[args.model]
    lines = [line.split("\t")[0] for line in path.read_text("utf-8").splitlines()[: args.lines]]
    options = TranslationOptions()
    checkers = {"before": conf.Checker(tr, lambda: back, options), "after": conf.Checker(tr, lambda: back, options)}
    checkers["before"].scorer = replace(checkers["after"].scorer, short=None) if not args.before else \
        conf.Scorer.from_json(json.loads(Path(args.before).read_text("utf-8"))["scorers"][options.check])
    t0 = time.process_time()
    engine = Engine.from_translator(tr, options, for_direction(args.model, lambda: back))
    results = translate_lines(lines, engine, Options().text_for(args.model.split("-")[0]))
    translated = time.process_time() - t0
    kept = dict(tr.encoded.found), dict(tr.encoded.readings)
    found: dict[str, list[float]] = {k: [] for k in checkers}
    checks = {}
    for k in range(args.repeats):
        for name in (("before", "after") if k % 2 == 0 else ("after", "before")):
            tr.encoded.found, tr.encoded.readings = dict(kept[0]), dict(kept[1])
            t0 = time.process_time()
            checks[name] = checkers[name].check(lines, [r.nbest for r in results])
            found[name].append(round(time.process_time() - t0, 3))
    short = [c is not None and is_short(line) for line, c in zip(lines, checks["after"])]
    long = [c is not None and not s for c, s in zip(checks["after"], short)]
    print(json.dumps({"lines": len(lines), "short lines checked": sum(short), "translation": round(translated, 2),
                      "checks": found, **{f"{k} extra": round(float(np.median(v)) / translated, 4) for k, v in found.items()},
                      "flagged": {k: sum(c is not None and c.flagged for c in v) for k, v in checks.items()},
                      "short flagged": {k: sum(c.flagged for c, s in zip(v, short) if s) for k, v in checks.items()},
                      "longer lines' confidence changed (a short sentence in them)": sum(a.confidence != b.confidence for a, b, n in
                                                             zip(checks["before"], checks["after"], long) if n)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "signals", "compare", "fit", "measure", "cost"):
        p = sub.add_parser(name)
        p.add_argument("--model", default="en-es", choices=("en-es", "es-en"))
        p.add_argument("--data", help="the corpus (default: MTCLI_DATA, else data/spa-eng/spa.txt)")
        if name == "build":
            p.add_argument("--lines", type=int, default=0, help="at most this many selection rows (0: all)")
        if name == "measure":
            p.add_argument("--ways", help="short parts of other signals to fit and measure beside (WAYS' names, comma-separated)")
        if name == "compare":
            p.add_argument("--weights", default="0,1,2,4,8", help="the dev rows' weights to try (0: not fitted on)")
        if name == "cost":
            p.add_argument("--lines", type=int, default=2000)
            p.add_argument("--repeats", type=int, default=5)
            p.add_argument("--before", help="a confidence.json whose check is \"before\" (default: the shipped one "
                                             "without its short part)")
            p.add_argument("--unseen", help="the directory of unseen.tsv and unseen-es.tsv (default: ../shared/data/tatoeba-test)")
    args = parser.parse_args()
    {"build": build, "signals": signals, "compare": compare, "fit": fit, "measure": measure, "cost": cost}[args.command](args)


def signals(args) -> None:
    """The shipped check on the short rows (false flags, recall, AUC) and each signal's AUC alone there."""
    tr, vocab, parts = _load(args.model)
    shipped = conf.load_fitted(tr.model_dir, tr.model.cfg.n_layers).scorers
    for part in ("selection", "dev"):
        rows = parts[part]
        if not rows:
            continue
        print(part, {k: _flags(rows, sc, vocab) for k, sc in shipped.items()})
        y = np.array([r["wrong"] for r in rows])
        found = _extra(rows, bench._all_signals(rows, shipped["fast"], shipped["fast"].covered, vocab))
        for name in found[0]:
            x = np.array([s[name] for s in found], float)
            a = bench.auc(*bench.roc(x, y)[:2])
            print(f"  {name:14s} AUC {max(a, 1 - a):.3f} ({'+' if a >= 0.5 else '-'})")


def _short_signals(rows: list[dict], sc: conf.Scorer, vocab) -> list[dict]:
    return _extra(rows, bench._all_signals(rows, sc, sc.covered, vocab))


def _fit_part(sig: list[dict], y: np.ndarray, dev: np.ndarray, names, dev_weight: float):
    """The short part's regression of `names` (y: 1 wrong) and its threshold: the highest confidence under which at
    most MAX_FALSE_FLAGS of the right selection rows and of the right dev rows (each) fall. -> (mean, scale, coef,
    bias, threshold)."""
    x = np.array([[s[n] for n in names] for s in sig], float)
    w = np.where(dev, dev_weight * max((~dev).sum(), 1) / max(dev.sum(), 1), 1.0)
    mean, scale, coef, bias = bench.logistic(x, 1 - y, weights=w)
    p = 1 / (1 + np.exp(-(((x - mean) / scale) @ coef + bias)))
    right = y == 0
    order = np.argsort(p[right])
    share = np.cumsum(w[right][order]) / w[right].sum()  # (the weighted share of right rows at or under each)
    cut = float(p[right][order][np.searchsorted(share, bench.MAX_FALSE_FLAGS)])
    return mean, scale, coef, bias, cut


def _confidence(sig: list[dict], names, m) -> np.ndarray:
    x = np.array([[s[n] for n in names] for s in sig], float)
    return 1 / (1 + np.exp(-(((x - m[0]) / m[1]) @ m[2] + m[3])))


WAYS = {"logprob": ("logprob",), "+ total (shipped)": SHORT,
        "+ total + variants": (*SHORT, "variants"), "+ total + n_variants": (*SHORT, "n_variants"),
        "+ total + share": (*SHORT, "share"), "+ total + words_margin": (*SHORT, "words_margin"),
        "+ total + variants + words_margin": (*SHORT, "variants", "words_margin"),
        "the group in their place": ("group_logprob", "group_total"),
        # the translation as shown read again whole (an ensemble's: its members' mean; en-es: its first's alone too)
        "+ total + whole": (*SHORT, "mean_token"), "+ total + whole (the first member)": (*SHORT, "member0"),
        "+ total + whole + variants": (*SHORT, "mean_token", "variants"),
        "+ total + lowest token": (*SHORT, "min_token"), "+ total + whole + lowest token": (*SHORT, "mean_token", "min_token"),
        "+ words": ("logprob", "total_logprob", "wdiff"),
        "total": ("total_logprob",), "+ back": ("logprob", "back"), "one word": ("logprob", "one_word", "lp_one"),
        "one word + back": ("logprob", "one_word", "lp_one", "back"),
        "one word + total": ("logprob", "one_word", "lp_one", "total_logprob"),
        "one word + back_same": ("logprob", "one_word", "lp_one", "back_same"),
        "one word + rt": ("logprob", "one_word", "lp_one", "roundtrip"),
        "+ total + back": ("logprob", "total_logprob", "back"), "+ total + back_same": ("logprob", "total_logprob", "back_same"),
        "+ total + rt": ("logprob", "total_logprob", "roundtrip"),
        # an ensemble's (en-es): its members' own log-probabilities of the translation as shown, and their disagreement
        "+ total + both members": (*SHORT, "member0", "member1"), "+ total + the members' gap": (*SHORT, "member_gap"),
        "+ total + the members' gap + variants": (*SHORT, "member_gap", "variants")}


def compare(args) -> None:
    """5-fold cross-validation on the selection and dev short rows (groups: a source and its typed form together):
    false flags of right rows and recall of wrong ones, selection and dev apart, for each choice of signals and of
    the dev rows' weight (`--weights`), and the area under the ROC curve of each row's confidence against its fold's
    threshold; the check without a short part beside them."""
    tr, vocab, parts = _load(args.model)
    shipped = conf.load_fitted(tr.model_dir, tr.model.cfg.n_layers).scorers
    rows = parts["selection"] + parts["dev"]
    sig = _short_signals(rows, shipped["fast"], vocab)
    y = np.array([r["wrong"] for r in rows])
    dev = np.r_[np.zeros(len(parts["selection"]), bool), np.ones(len(parts["dev"]), bool)]
    groups = [r.get("group", r["source"]) for r in rows]
    order = {g: k for k, g in enumerate(sorted(set(groups)))}
    fold = np.array([order[g] % FOLDS for g in groups])

    def report(name, under):  # (under: confidence less the threshold; flagged below 0)
        out = []
        for label, part in (("selection", ~dev), ("dev", dev)):
            area = bench.auc(*bench.roc(-under[part], y[part])[:2])
            out.append(f"{label} false flags {(under < 0)[part & (y == 0)].mean():.3f} recall "
                       f"{(under < 0)[part & (y == 1)].mean():.3f} AUC {area:.3f}")
        print(f"{name:44s} " + "   ".join(out))

    for k, sc in shipped.items():  # (without a short part: the check before it, fitted on none of these rows)
        report(f"{k}, no short part", bench._confidences(rows, replace(sc, short=None), vocab) - sc.threshold)
    for way, names in WAYS.items():
        if any(n not in sig[0] for n in names):  # (the members: an ensemble's)
            continue
        for dev_weight in map(float, args.weights.split(",")):
            under = np.zeros(len(rows))
            for f in range(FOLDS):
                train, test = fold != f, fold == f
                if dev_weight == 0.0:
                    train = train & ~dev
                m = _fit_part([s for s, t in zip(sig, train) if t], y[train], dev[train], names, dev_weight or 1.0)
                under[test] = _confidence([s for s, t in zip(sig, test) if t], names, m) - m[4]
            report(f"{way} (dev weight {dev_weight})", under)


def fit(args) -> None:
    """The short part fitted on every selection and dev short row (SHORT, DEV_WEIGHT: chosen in `compare`), put in
    each of the model's combinations in confidence.json (their other parts as they were)."""
    tr, vocab, parts = _load(args.model)
    target = registry.shipped(args.model) / conf.FILE
    data = json.loads(target.read_text("utf-8"))
    rows = parts["selection"] + parts["dev"]
    y = np.array([r["wrong"] for r in rows])
    dev = np.r_[np.zeros(len(parts["selection"]), bool), np.ones(len(parts["dev"]), bool)]
    base = conf.Scorer.from_json(data["scorers"]["fast"])
    mean, scale, coef, bias, cut = _fit_part(_short_signals(rows, base, vocab), y, dev, SHORT, DEV_WEIGHT)
    short = conf.Scorer(SHORT, tuple(float(v) for v in mean), tuple(float(v) for v in scale),
                        tuple(float(c) for c in coef), float(bias), cut, base.layer, base.heads, base.covered,
                        base.named, base.ratio)
    for name, d in data["scorers"].items():
        data["scorers"][name] = conf.Scorer.to_json(replace(conf.Scorer.from_json(d), short=short))
    data["short_fitted_by"] = f"benchmarks/confidence_short.py build + fit --model {args.model}"
    target.write_text(json.dumps(data, indent=1) + "\n")
    print(json.dumps({"rows": [len(rows), int(y.sum())], "dev": [int(dev.sum()), int(y[dev].sum())],
                      "short": short.to_json()}, indent=1))


def measure(args) -> None:
    """Before (each shipped combination without its short part) and after, on every part: false flags of right short
    lines, recall of wrong ones, AUC. Only "held_out" and "everyday" are held out (the others were fitted on). `--ways`:
    short parts of other signals (WAYS) fitted as `fit` does, on the same parts beside them (measured, not written)."""
    tr, vocab, parts = _load(args.model)
    shipped = conf.load_fitted(tr.model_dir, tr.model.cfg.n_layers).scorers
    fitted = parts["selection"] + parts["dev"]
    y = np.array([r["wrong"] for r in fitted])
    dev = np.r_[np.zeros(len(parts["selection"]), bool), np.ones(len(parts["dev"]), bool)]
    sig = {part: _short_signals(rows, shipped["fast"], vocab) for part, rows in parts.items()}
    ways = {way: _fit_part(sig["selection"] + sig["dev"], y, dev, WAYS[way], DEV_WEIGHT)
            for way in (args.ways.split(",") if args.ways else [])}
    report = {}
    for part, rows in parts.items():
        if rows:
            wrong = np.array([r["wrong"] for r in rows], bool)
            report[part] = {f"{k} {when}": _flags(rows, sc if when == "after" else replace(sc, short=None), vocab)
                            for k, sc in shipped.items() for when in ("before", "after")}
            report[part] |= {way: _figures(wrong, _confidence(sig[part], WAYS[way], m), m[4]) for way, m in ways.items()}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
