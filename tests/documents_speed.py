"""The speed of a .docx against the same text as plain lines, with the shipped en-es model (beam 4), in CPU
seconds (the machine may be shared): `nice -n 10 python -m tests.documents_speed [--paragraphs N] [--all]`.
Each paragraph is two sentences, the second a run of its own; a quarter of them bold (--all: every one, the
markup's worst case: each wrapped run costs two more small translations, its words alone and the line
without them, to place it)."""

import argparse
import io
import time

SENTENCES = ["The plant is green.", "Where is the station?", "I like the red car.", "We play tennis every Sunday.",
             "Do you want to come with me?", "The house is big and the garden is small.", "Tom is my friend.",
             "It is late, so we should go home."]


def main() -> None:
    import docx

    from mtcli import kernels
    from mtcli.decode import Translator
    from mtcli.registry import shipped
    from mtcli.route import Router
    from mtcli.text.pipeline import Engine

    parser = argparse.ArgumentParser()
    parser.add_argument("--paragraphs", type=int, default=200)
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args()
    d, texts = docx.Document(), []
    for i in range(args.paragraphs):
        a, b = SENTENCES[i % 8], SENTENCES[(i * 3 + 1) % 8]
        p = d.add_paragraph(a + " ")
        run = p.add_run(b)
        if args.all or i % 4 == 0:
            run.bold = True
        texts.append(f"{a} {b}")
    buf = io.BytesIO()
    d.save(buf)
    engine = Engine.from_translator(Translator(shipped("en-es")))
    router = Router(lambda direction: engine, fixed="en-es")
    with kernels.for_decoding(len(texts), 4):
        router.translate(texts[:8])  # (numba's compilation and caches)
        t, c = time.perf_counter(), time.process_time()
        router.translate(texts)
        lines = time.perf_counter() - t, time.process_time() - c
        t, c = time.perf_counter(), time.process_time()
        router.translate_file(buf.getvalue(), "docx", "speed.docx")
        document = time.perf_counter() - t, time.process_time() - c
    bold = args.paragraphs if args.all else (args.paragraphs + 3) // 4
    print(f"{args.paragraphs} paragraphs ({2 * args.paragraphs} sentences, {bold} with a bold run): plain lines "
          f"{lines[1]:.1f} CPU s ({lines[0]:.1f} s), docx {document[1]:.1f} CPU s ({document[0]:.1f} s): "
          f"{lines[1] / document[1]:.0%} of the lines' sentences per CPU second")


if __name__ == "__main__":
    main()
