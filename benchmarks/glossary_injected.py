"""A glossary of 50 terms injected into 200 unseen sentences, both directions (issue 42; docs/glossary.md).

Everything is built at run time, the same each run, and nothing of the corpus is written to the repository:

1. A dictionary from the shipped model's TRAIN split (spa.txt, its recorded seed and split): source terms, a noun
   (a word seen mostly right after a determiner) or a multiword one (two words, or Spanish "X de Y", seen mostly
   after a determiner), each with the target n-grams (1-3 words) that co-occur with it in the pairs by Dice
   coefficient (`dictionary`). Thresholds were set by reading the train dictionary, not the test set.
2. The glossary: terms of that dictionary, each target as the train references write it (their case: "Monday"),
   chosen by how many unseen pairs hold the term in the source and the target in the reference, in fixed quotas
   (`choose`): every multiword term found (MULTIWORD at most), then OTHERWISE terms whose target the model does
   not write, read from its translation of a SELECTION-split sentence holding the term, then the rest. That is a
   choice of which test sentences to use; no translation of a test sentence is read to make it.
3. The sets: 200 unseen pairs (seeded draw) where the glossary finds a term in the source and the reference holds
   every found term's target (the "injected" set: the user's terms are the reference's), and 200 where it finds
   none. Pairs with a term the reference translates otherwise are counted and left out.

Each set is translated through the text pipeline (as `mtcli translate`) without and with the glossary: term
accuracy (`holds`), case-insensitive BLEU/chrF, and how many lines without a term came out unchanged.

    nice -n 10 python benchmarks/glossary_injected.py                # beam 4, both directions
    nice -n 10 python benchmarks/glossary_injected.py --direction es-en --show 20 --write-glossary /tmp/g
    nice -n 10 python benchmarks/glossary_injected.py --on selection   # the same from the selection split
    nice -n 10 python benchmarks/glossary_injected.py --no-links       # no swap by word links (the server's way)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# benchmarks/glossary.py's readers and scores, by its path: "benchmarks" on sys.path is pysbd's package
_spec = importlib.util.spec_from_file_location("glossary_benchmark", REPO / "benchmarks" / "glossary.py")
_terms_benchmark = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_terms_benchmark)
UNSEEN, read_pairs, scores = _terms_benchmark.UNSEEN, _terms_benchmark.read_pairs, _terms_benchmark.scores

CORPUS = REPO.parent / "shared" / "data" / "spa-eng" / "spa.txt"
TERMS, SENTENCES, SEED = 50, 200, 42
MULTIWORD, OTHERWISE = 15, 15  # quotas of the 50 (step 2)
TINY = 5000, 1000, 4  # --tiny: the first train and selection pairs, unseen pairs, lines a set
# what a noun follows; words never at a term's edge (function words, quantifiers, adjectives a term is not)
DETERMINERS = {
    "en": set("the a an my your his her its our their this that these those some any no every each".split()),
    "es": set("el la los las un una unos unas mi mis tu tus su sus nuestro nuestra nuestros nuestras este esta "
              "estos estas ese esa esos esas aquel aquella del al".split())}
STOP = {
    "en": set("the a an my your his her its our their this that these those some any no every each of to in on at "
              "for with by from and or but is are was were be been it he she they we you i me him them us not "
              "same other another first last next only whole own best little few many much more most such very "
              "lot kind sort way thing things time one two three all both half old new good bad big small long "
              "great right left top end rest part after before what how when where why who like has have had".split()),
    "es": set("el la los las un una unos unas mi mis tu tus su sus nuestro nuestra nuestros nuestras este esta "
              "estos estas ese esa esos esas aquel aquella del al de a en entre con por para sin sobre y o e que se lo "
              "le les me te nos no es son fue era está están ser estar muy más mismo misma otro otra otros otras "
              "todo toda todos todas cosa cosas vez veces manera tipo poco mucho mucha muchos muchas primer "
              "primera último última próximo próxima buen bueno buena mal malo mala gran grande nuevo nueva "
              "viejo vieja resto parte uno dos tres antes después pasado pasada mío mía".split())}
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
MIN_COUNT, MIN_AFTER, MIN_COOCCUR, MIN_DICE = 20, 0.5, 5, 0.3


def holds(text: str, term: str) -> bool:
    """The term in the text as whole words (not inside a longer word, nor a hyphenated one: "gato" is not in
    "gatos" or "gato-robot"), any case, any spaces between its words. The agreement code changes what stands
    before a term and its first letter's case, never the term, so the target itself is what is looked for."""
    words = r"\s+".join(map(re.escape, term.split()))
    return re.search(rf"(?<![\w-]){words}(?![\w-])", text, re.IGNORECASE) is not None


def _ngrams(words: list[str], most: int, stop: set[str]) -> set[str]:
    """The n-grams of 1..most words, none opening or closing on a stop word."""
    return {" ".join(words[i:i + n]) for n in range(1, most + 1) for i in range(len(words) - n + 1)
            if words[i] not in stop and words[i + n - 1] not in stop}


def _source_terms(pairs: list[tuple[str, str]], src: str) -> set[str]:
    """Nouns and multiword terms of the source side: seen MIN_COUNT times (multiword: half that), at least
    MIN_AFTER of them right after a determiner, lowercase (not a name), no stop word at an edge."""
    seen, after = Counter(), Counter()
    for text, _ in pairs:
        words = WORD.findall(text)
        lower = [w.lower() for w in words]
        for i in range(len(words)):
            for n in (1, 2, 3):
                gram = lower[i:i + n]
                if len(gram) < n or not all(x.islower() for x in words[i:i + n]):
                    continue  # (a capitalised word inside is a name; a capital first word: cannot tell)
                if gram[0] in STOP[src] or gram[-1] in STOP[src] or len(gram[-1]) < 3:
                    continue
                if n == 3 and not (src == "es" and gram[1] == "de"):
                    continue
                if n == 2 and src == "es" and gram[1] == "de":
                    continue
                key = " ".join(gram)
                seen[key] += 1
                after[key] += i > 0 and lower[i - 1] in DETERMINERS[src]
    nouns = {t for t, n in seen.items() if n >= MIN_COUNT / (1 + (" " in t)) and after[t] >= MIN_AFTER * n}
    # a multiword term's head is a noun of its own (English: the last word; Spanish: the first), and a Spanish
    # "noun + word" is not noun + verb ("padre murió": the preterite's -ó)
    head = -1 if src == "en" else 0
    return {t for t in nouns if " " not in t or t.split()[head] in nouns
            and not (src == "es" and t.count(" ") == 1 and t.endswith("ó"))}


def dictionary(pairs: list[tuple[str, str]], src: str, tgt: str) -> dict[str, list[tuple[str, float]]]:
    """Each source term's translations: the target n-grams co-occurring with it in MIN_COOCCUR pairs or more,
    Dice 2c(s,t)/(c(s)+c(t)) >= MIN_DICE, best first; of n-grams sharing a word only the best is kept, except
    a longer one holding it within 0.9 of its Dice ("credit card": "tarjeta de crédito", not "crédito")."""
    terms = _source_terms(pairs, src)
    longest = max(len(t.split()) for t in terms)
    src_count, tgt_count, both = Counter(), Counter(), defaultdict(Counter)
    for s, t in pairs:
        lower = [w.lower() for w in WORD.findall(s)]
        found = {g for g in _ngrams(lower, longest, set()) if g in terms}
        grams = _ngrams([w.lower() for w in WORD.findall(t)], 3, STOP[tgt])
        src_count.update(found)
        tgt_count.update(grams)
        for f in found:
            both[f].update(grams)
    written = Counter()  # each target word as the references write it inside a sentence ("Monday", "TV", "I")
    for _, t in pairs:
        written.update(WORD.findall(t)[1:])

    def as_written(gram: str) -> str:
        return " ".join(max((w, w.lower(), w.capitalize(), w.upper()), key=lambda f: (written[f], f == w))
                        for w in gram.split())

    out = {}
    for term, co in both.items():
        dice = sorted(((g, 2 * c / (src_count[term] + tgt_count[g])) for g, c in co.items() if c >= MIN_COOCCUR),
                      key=lambda x: (-x[1], x[0]))
        kept: list[tuple[str, float]] = []
        for g, d in dice:
            if d < MIN_DICE:
                break
            overlap = [k for k, (h, _) in enumerate(kept) if set(g.split()) & set(h.split())]
            if not overlap:
                kept.append((g, d))
            elif len(overlap) == 1 and f" {kept[overlap[0]][0]} " in f" {g} " and d >= 0.9 * kept[overlap[0]][1]:
                kept[overlap[0]] = (g, kept[overlap[0]][1])
        if kept:
            out[term] = [(as_written(g), d) for g, d in kept]
    return out


def choose(dic: dict, unseen: list, selection: list, src: str, tgt: str, translate) -> list[tuple[str, str, bool]]:
    """TERMS (source, target, whether the model writes the target itself): every multiword term (MULTIWORD at
    most), then OTHERWISE terms whose target the model does not write, then the rest, each quota by how many
    unseen pairs hold the term in the source and the target in the reference. Whether the model writes a target
    is read from its translation (`translate`) of the shortest SELECTION pair holding the term, not from the
    test set. A term whose regular plural is another term is kept, the plural left (the glossary derives it)."""
    from mtcli.text.glossary import Glossary, plural

    dic = {t: v for t, v in dic.items() if not any(plural(o, src) == t for o in dic if o != t)}
    finder = Glossary(tuple((t, t) for t in dic), (src, src))  # (finds each term, or its plural, as itself)
    back = {**{p: (t, True) for t in dic if (p := plural(t, src))}, **{t: (t, False) for t in dic}}

    def found(line: str) -> list[tuple[str, bool]]:
        return [back[form.lower()] for _, _, form in finder.find(line)]

    counts = Counter()
    for line, ref in unseen:
        for term, many in found(line):
            for target, _ in dic[term]:
                counts[term, target] += holds(ref, many and plural(target, tgt) or target)
    ranked = sorted(((n, term, target) for (term, target), n in counts.items()
                     if n and (" " not in term or dict(dic[term])[target] >= 0.5)), key=lambda x: (-x[0], x[1], x[2]))
    pool = [r for r in ranked if " " in r[1]] + [r for r in ranked if " " not in r[1] and r[0] >= 2][:150]
    example = {}
    for line, _ in sorted(selection, key=lambda p: (len(p[0]), p[0])):
        for term, many in found(line):
            example.setdefault(term, (line, many))
    asked = sorted({term for _, term, _ in pool if term in example})
    said = dict(zip(asked, translate([example[term][0] for term in asked])))
    agrees = {(term, target): term not in said or holds(said[term], example[term][1] and plural(target, tgt)
                                                           or target) for _, term, target in pool}
    chosen: dict[str, tuple[str, bool]] = {}
    for quota, wanted in ((MULTIWORD, lambda term, target: " " in term),
                          (OTHERWISE, lambda term, target: not agrees[term, target]),
                          (TERMS, lambda term, target: True)):
        picked = 0
        for _, term, target in pool:
            if len(chosen) < TERMS and picked < quota and term not in chosen and wanted(term, target):
                chosen[term] = (target, agrees[term, target])
                picked += 1
    return [(term, target, agree) for term, (target, agree) in chosen.items()]


def direction_figures(direction: str, beam: int, show: int, write: Path | None, on: str = "unseen",
                      links: bool = True, tiny: bool = False) -> dict:
    from mtcli import registry
    from mtcli.data import oriented, read_corpus, split_pairs
    from mtcli.decode import Translator
    from mtcli.config import Options, TranslationOptions
    from mtcli.text import glossary
    from mtcli.text.pipeline import Engine, translate_lines

    src, tgt = direction.split("-")
    tr = Translator(registry.shipped(direction))
    engine = Engine.from_translator(tr, TranslationOptions(beam_size=beam))
    engine.align = engine.align if links else None  # (as the server's engines: terms as placeholders, no swap)
    record = tr.meta.get("data", {})
    pairs = oriented(read_corpus(CORPUS).pairs, direction)
    split = split_pairs(pairs, record.get("seed", 0), record.get("split", "grouped"))
    train, selection = ([pairs[i] for i in split[name]] for name in ("train", "selection"))
    # (--on selection: the same, built from the selection split: for choices made on the way, never the test set)
    unseen = read_pairs(UNSEEN[src]) if on == "unseen" else random.Random(SEED).sample(selection, 4000)
    sentences = SENTENCES
    if tiny:  # (a smoke test: a rougher dictionary, a few lines a set)
        (train, selection), unseen, sentences = (p[: TINY[0]] for p in (train, selection)), unseen[: TINY[1]], TINY[2]

    plain = Options().text_for(src)

    def run(lines: list[str], options) -> list[str]:
        return [r.text for r in translate_lines(lines, engine, options)]

    terms = choose(dictionary(train, src, tgt), unseen, selection, src, tgt, lambda lines: run(lines, plain))
    rows = ["source\ttarget"] + [f"{s}\t{t}" for s, t, _ in terms]
    if write:
        write.write_text("\n".join(rows) + "\n", encoding="utf-8")
    options = Options(glossary=glossary.parse(rows, "the injected glossary")).text_for(src)
    held, without, mixed = [], [], 0
    for (s, ref) in unseen:
        found = options.glossary.find(s)
        if not found:
            without.append((s, ref, []))
        elif all(holds(ref, t) for _, _, t in found):
            held.append((s, ref, [t for _, _, t in found]))
        else:
            mixed += 1
    draw = random.Random(SEED)
    sets = {"with terms": draw.sample(held, min(sentences, len(held))),
            "without terms": draw.sample(without, min(sentences, len(without)))}
    out = {"glossary": {"terms": len(terms), "multiword": sum(" " in s for s, _, _ in terms),
                        "the model writes otherwise (selection split)": sum(not a for _, _, a in terms),
                        "examples": [f"{s} -> {t}" for s, t, _ in terms[:8]]},
           "unseen pairs": {"holding terms as the reference writes them": len(held), "without a term": len(without),
                            "a term the reference writes otherwise (left out)": mixed}}
    for name, rows_ in sets.items():
        lines, refs, wanted = [r[0] for r in rows_], [r[1] for r in rows_], [r[2] for r in rows_]
        before, after = run(lines, plain), run(lines, options)
        figures = {"lines": len(lines), "terms": sum(map(len, wanted)),
                   "BLEU/chrF without -> with": [scores(before, refs), scores(after, refs)],
                   "unchanged": sum(b == a for b, a in zip(before, after))}
        if figures["terms"]:
            figures["term accuracy without -> with"] = [
                round(100 * sum(holds(h, t) for h, ts in zip(hyps, wanted) for t in ts) / figures["terms"], 1)
                for hyps in (before, after)]
            misses = [(line, a, t) for line, a, ts in zip(lines, after, wanted) for t in ts if not holds(a, t)]
            figures["misses"] = [f"{line} => {a} (wanted {t!r})" for line, a, t in misses[:show]]
            figures["examples"] = [f"{line} => {b} => {a}" for line, b, a in zip(lines, before, after)
                                   if b != a][:show]
        out[name] = figures
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--direction", choices=["en-es", "es-en", "both"], default="both")
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--show", type=int, default=5, help="examples and misses shown")
    ap.add_argument("--write-glossary", type=Path, help="write the glossary here (DIRECTION added to the name)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--tiny", action="store_true", help="a smoke test (CI): a part of each split, a few lines a set")
    ap.add_argument("--no-links", action="store_true",
                    help="an engine without word links, as the server's (a term the model did not write: placeholders)")
    ap.add_argument("--on", choices=["unseen", "selection"], default="unseen",
                    help="the pairs the sets are drawn from (selection: for development)")
    args = ap.parse_args()
    from mtcli import kernels

    start, wall, figures = time.process_time(), time.time(), {}
    kernels.use_compiled()  # (the compiled kernels from the first sentence, as for a whole test set)
    for direction in ("en-es", "es-en") if args.direction == "both" else (args.direction,):
        write = args.write_glossary and args.write_glossary.with_suffix(f".{direction}.tsv")
        figures[direction] = direction_figures(direction, args.beam, args.show, write, args.on, not args.no_links,
                                               args.tiny)
    figures["cpu seconds"], figures["wall seconds"] = round(time.process_time() - start), round(time.time() - wall)
    text = json.dumps(figures, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
