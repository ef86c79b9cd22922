"""A document against the same text as plain lines (issue 43: at least 80 % of their sentences per second),
with the shipped en-es model (beam 4) on English sentences of its own selection split, grouped 1-4 to a
paragraph; the plain lines are the paragraphs' texts. The two sides alternate round by round and each figure is
the median of the rounds' wall times, so a machine shared with other work slows both alike (CPU times too: on a
crowded core they measure the work each side does). Layouts of the runs:

    quarter    each paragraph's last sentence a run of its own, bold in a quarter of the paragraphs
    sentences  every sentence a run of its own, bold, italic, underlined or a link in turn
    words      runs of 1-4 words cut anywhere (across sentences too), every one bold, italic, bold italic or a link
    report     (docx) a report: a heading, paragraphs of 2-5 sentences with a bold or an italic word or two in every
               third sentence, a bulleted list, a table of two columns; over and over (--sentences 4300: about 100 pages)

    taskset -c 0 nice -n 10 python benchmarks/documents.py [--format docx|odt|po|xliff] [--layout words]
        [--sentences 400] [--rounds 3] [--compare]

--compare adds a third side: the document with markup inside sentences placed by translating its words alone and
its line without them (markup.clues, as before text/aligned.py), not by the model's word links.
    taskset -c 0 nice -n 10 python benchmarks/documents.py --scaling [--entries 250]

--scaling times the text work alone (a model that answers at once) of PO and XLIFF files of 1x, 4x and 16x
--entries entries (a sentence each) and of a docx and an odt of as many sentences, every run formatted, to show
that it grows linearly with the size.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STYLES = {"quarter": ["b"], "sentences": ["b", "i", "u", "link"], "words": ["b", "i", "bi", "link"], "report": ["b", "i"]}
URL = "https://example.org/page"
CORPUS = ROOT.parent / "shared/data/spa-eng/spa.txt"  # (else MTCLI_DATA, or data/ as `mtcli download` left it)


def english(n: int, seed: int = 0) -> list[str]:
    """n distinct English sentences of the shipped en-es model's selection split (data.held_out_pairs)."""
    from mtcli.checkpoint import load_ensemble
    from mtcli.data import held_out_pairs, resolve_data_path
    from mtcli.registry import shipped

    _, meta = load_ensemble(shipped("en-es"))
    corpus = CORPUS if CORPUS.is_file() else resolve_data_path(None)
    pairs = held_out_pairs(corpus, meta["data"], "selection", "en-es")
    sources = list(dict.fromkeys(src for src, _ in pairs))
    return random.Random(seed).sample(sources, min(n, len(sources)))


def paragraphs(sentences: list[str], layout: str, seed: int = 0, most: int = 4) -> list[list[tuple[str, str]]]:
    """The sentences 1-`most` to a paragraph, each paragraph as runs (text, style: "" plain, "b", "i", "bi", "u",
    "link")."""
    rng, out, k = random.Random(seed), [], 0
    while k < len(sentences):
        group = sentences[k : k + rng.randint(1, most)]
        k += len(group)
        styles = STYLES[layout]
        if layout == "quarter":
            head = " ".join(group[:-1])
            runs = ([(head + " ", "")] if head else []) + [(group[-1], "b" if len(out) % 4 == 0 else "")]
        elif layout == "sentences":
            runs = [(s + (" " if j < len(group) - 1 else ""), styles[(len(out) + j) % 4]) for j, s in enumerate(group)]
        else:
            words, runs = " ".join(group).split(" "), []
            while words:
                take = rng.randint(1, 4)
                runs.append((" ".join(words[:take]) + (" " if len(words) > take else ""), styles[len(runs) % 4]))
                words = words[take:]
        out.append(runs)
    return out


def report(sentences: list[str], seed: int = 0) -> tuple[list[list[tuple[str, str]]], list[str]]:
    """The sentences as a report's blocks (paragraphs as runs, and each one's kind: "heading", "body", "bullet" or
    "cell"): a heading, 2-4 paragraphs of 2-5 sentences with a bold or an italic word or two in every third
    sentence, a bulleted list of 3-5 items, and every other time a table of two columns and 2-4 rows."""
    rng, paras, kinds, k = random.Random(seed), [], [], 0

    def take(n: int) -> list[str]:
        nonlocal k
        k += n
        return sentences[k - n : k]

    def formatted(sentence: str) -> list[tuple[str, str]]:
        words = sentence.split(" ")
        if rng.random() > 1 / 3 or len(words) < 3:
            return [(sentence, "")]
        at, n = rng.randrange(len(words) - 1), rng.randint(1, 2)
        before, inside, after = " ".join(words[:at]), " ".join(words[at : at + n]), " ".join(words[at + n :])
        return [(before + " " if before else "", ""), (inside, rng.choice("bi")), (" " + after if after else "", "")]

    def add(kind: str, runs: list[tuple[str, str]]) -> None:
        if runs:
            paras.append([(t, s) for t, s in runs if t])
            kinds.append(kind)

    tables = 0
    while k < len(sentences):
        add("heading", [(s, "") for s in take(1)])
        for _ in range(rng.randint(2, 4)):
            group = take(rng.randint(2, 5))
            add("body", [r for j, s in enumerate(group) for r in formatted(s + (" " if j < len(group) - 1 else ""))])
        for s in take(rng.randint(3, 5)):
            add("bullet", formatted(s))
        tables += 1
        for s in take(2 * rng.randint(2, 4)) if tables % 2 else ():
            add("cell", [(s, "")])
    return paras, kinds


def docx_bytes(paras: list[list[tuple[str, str]]], kinds: list[str] | None = None) -> bytes:
    """A docx of paragraphs as runs; `kinds` (report's) makes headings, bulleted items and two-column tables."""
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    d = docx.Document()
    rel = d.part.relate_to(URL, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    kinds, cells = kinds or ["body"] * len(paras), []
    for n, (runs, kind) in enumerate(zip(paras, kinds)):
        if kind == "cell" and not cells:  # (a table for this run of cells, two to a row)
            count = next((m for m, k in enumerate(kinds[n:]) if k != "cell"), len(kinds) - n)
            table = d.add_table(rows=(count + 1) // 2, cols=2)
            cells = [c.paragraphs[0] for row in table.rows for c in row.cells][:count]
        p = cells.pop(0) if kind == "cell" else d.add_heading(level=1) if kind == "heading" else \
            d.add_paragraph(style="List Bullet" if kind == "bullet" else None)
        for text, style in runs:
            if style == "link":
                link, r, t = OxmlElement("w:hyperlink"), OxmlElement("w:r"), OxmlElement("w:t")
                link.set(qn("r:id"), rel)
                t.text = text
                t.set(qn("xml:space"), "preserve")
                r.append(t)
                link.append(r)
                p._p.append(link)
            else:
                run = p.add_run(text)
                run.bold, run.italic, run.underline = "b" in style or None, "i" in style or None, "u" in style or None
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


_ODT = ('<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
        'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
        'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3"><office:automatic-styles>{styles}'
        '</office:automatic-styles><office:body><office:text>{body}</office:text></office:body>'
        '</office:document-content>')
_ODT_STYLE = {"b": 'fo:font-weight="bold"', "i": 'fo:font-style="italic"',
              "bi": 'fo:font-weight="bold" fo:font-style="italic"', "u": 'style:text-underline-style="solid"'}
_MANIFEST = ('<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
             'manifest:version="1.3"><manifest:file-entry manifest:full-path="/" '
             'manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry '
             'manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>')


def odt_bytes(paras: list[list[tuple[str, str]]]) -> bytes:
    def run(text: str, style: str) -> str:
        if style == "link":
            return f'<text:a xlink:type="simple" xlink:href="{URL}">{escape(text)}</text:a>'
        return f'<text:span text:style-name="{style}">{escape(text)}</text:span>' if style else escape(text)

    styles = "".join(f'<style:style style:name="{k}" style:family="text"><style:text-properties {v}/></style:style>'
                     for k, v in _ODT_STYLE.items())
    body = "".join("<text:p>" + "".join(run(*r) for r in runs) + "</text:p>" for runs in paras)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", _ODT.format(styles=styles, body=body), compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", _MANIFEST, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def po_bytes(paras: list[list[tuple[str, str]]]) -> bytes:
    head = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    entries = (f'#: src/app.py:{k}\nmsgid "{_text(runs)}"\nmsgstr ""\n' for k, runs in enumerate(paras))
    return (head + "\n".join(entries)).encode()


def _text(runs: list[tuple[str, str]]) -> str:
    return "".join(text for text, _ in runs).replace("\\", "\\\\").replace('"', '\\"')


def xliff_bytes(paras: list[list[tuple[str, str]]]) -> bytes:
    """XLIFF 1.2, each formatted run a <g>."""
    def source(runs):
        return "".join(f'<g id="{k}">{escape(t)}</g>' if s else escape(t) for k, (t, s) in enumerate(runs))

    units = "".join(f"<trans-unit id={quoteattr(str(k))}><source>{source(runs)}</source></trans-unit>"
                    for k, runs in enumerate(paras))
    return ('<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
            f'<file original="app" source-language="en" datatype="plaintext"><body>{units}</body></file></xliff>'
            ).encode()


BUILD = {"docx": docx_bytes, "odt": odt_bytes, "po": po_bytes, "xliff": xliff_bytes}


def speed(args) -> None:
    from mtcli import kernels
    from mtcli.decode import Translator
    from mtcli.registry import shipped
    from mtcli.route import Router
    from mtcli.text.pipeline import Engine

    if args.layout == "report":
        paras, kinds = report(english(args.sentences))
        data = docx_bytes(paras, kinds)
    else:
        paras = paragraphs(english(args.sentences), args.layout)
        data = BUILD[args.format](paras)
    lines = ["".join(text for text, _ in runs).strip() for runs in paras]
    engine = Engine.from_translator(Translator(shipped("en-es")))
    router = Router(lambda direction: engine, fixed="en-es")
    sides = {"lines": lambda: router.translate(lines),
             args.format: lambda: router.translate_file(data, args.format, f"speed.{args.format}")}
    if args.compare:  # (the same translator: markup.clues' translations instead of the links)
        unlinked = Router(lambda direction: replace(engine, align=None), fixed="en-es")
        sides[f"{args.format} by translations"] = lambda: unlinked.translate_file(data, args.format, "speed.docx")
    times: dict[str, list[float]] = {side: [] for side in sides}
    wrapped = sum(style != "" for runs in paras for _, style in runs)
    print(f"{args.format}, layout {args.layout}: {len(paras)} paragraphs, {args.sentences} sentences, "
          f"{sum(map(len, paras))} runs ({wrapped} formatted)")
    kernels.use_compiled()  # (a whole document's work: the compiled kernels, as translate would choose)
    router.translate(lines[:8])  # (numba's compilation and caches)
    for k in range(args.rounds):
        for side, run in sides.items() if k % 2 == 0 else reversed(sides.items()):
            start, cpu = time.perf_counter(), time.process_time()
            run()
            times[side].append((time.perf_counter() - start, time.process_time() - cpu))
        print(f"  round {k + 1}: " + ", ".join(f"{side} {t[-1][0]:.1f} s ({t[-1][1]:.1f} CPU s)"
                                               for side, t in times.items()), flush=True)
    for n, what in enumerate(("wall time", "CPU time")):
        plain, *docs = (statistics.median(x[n] for x in t) for t in times.values())
        print(f"median {what}: lines {plain:.1f} s, " + ", ".join(
            f"{side} {doc:.1f} s ({plain / doc:.0%} of the lines' sentences per second)"
            for side, doc in zip(list(sides)[1:], docs)))


def scaling(args) -> None:
    """The text work alone at 1x, 4x and 16x: a model that answers each sentence with itself."""
    from mtcli.route import Router
    from tests.text.fakes import engine

    router = Router(lambda direction: engine(lambda ls: [[(s, -1.0)] for s in ls]), fixed="en-es")
    words = "the plant is green and sky blue we see a red car today my friend likes big dogs".split()
    rng = random.Random(0)  # (sentences of 4-12 words, each distinct: none is decoded once for another)
    sentences = [" ".join(rng.choices(words, k=rng.randint(4, 12))).capitalize() + f" {k}." for k in
                 range(16 * args.entries)]
    router.translate(sentences[:8])  # (imports and caches warm)
    for fmt in ("po", "xliff", "docx", "odt"):
        base = None
        for n in (1, 4, 16):  # (PO messages and XLIFF units of a sentence each, every run of the others formatted)
            paras = paragraphs(sentences[: n * args.entries], "words", most=1 if fmt in ("po", "xliff") else 4)
            data = BUILD[fmt](paras)
            start = time.process_time()
            router.translate_file(data, fmt, f"scale.{fmt}")
            took = time.process_time() - start
            base = base or took
            print(f"{fmt:>5} {n:>2}x ({len(paras):,} entries or paragraphs, {n * args.entries:,} sentences): "
                  f"{took:6.2f} CPU s ({took / base:4.1f}x)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=list(BUILD), default="docx")
    parser.add_argument("--layout", choices=list(STYLES), default="words")
    parser.add_argument("--sentences", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", action="store_true", help="also the document with markup placed by translations")
    parser.add_argument("--scaling", action="store_true", help="the text work alone at 1x, 4x, 16x (a fake model)")
    parser.add_argument("--entries", type=int, default=250, help="entries (PO, XLIFF) or sentences at 1x for --scaling")
    args = parser.parse_args()
    if args.layout == "report" and args.format != "docx":
        parser.error("--layout report is a docx")
    scaling(args) if args.scaling else speed(args)


if __name__ == "__main__":
    main()
