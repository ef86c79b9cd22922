"""`mtcli translate`'s runs once its options are parsed (cli.py): lines read (a file, a pipe answered as it arrives,
arguments), translated in groups through the route.Router, each line's output written (text, n-best rows, JSON,
flagged sentences marked on a terminal) with the check's tally; documents read and written whole; the interactive
prompt with its history."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import typer

from mtcli.console import err, fail, out, status, warning
from mtcli.errors import UserError


def one_line(text: str) -> str:
    """No stray line or paragraph separators in the output; leading spaces and tabs (indentation), the tabs
    between cells and the no-break spaces the pipeline put back (text/nobreak.py) kept."""
    from mtcli.text.nobreak import NO_BREAK  # (here: importing the CLI loads no text pipeline)

    body = text.lstrip(" \t")
    breaks = re.compile(rf"[^\S{NO_BREAK}]+")  # a run of whitespace but no-break spaces (re caches it)
    return text[: len(text) - len(body)] + "\t".join(breaks.sub(" ", cell).strip(" " + NO_BREAK) for cell in body.split("\t"))


def format_result(r, n: int, scores: bool, as_json: bool, align: bool = False, marked: bool = False) -> str:
    """One input line's output: its translation(s), as text, n-best rows or a JSON object. `marked`: the
    flagged sentences marked (a terminal), `align`: the line's word alignments after ' ||| '."""
    import json

    check = getattr(r, "check", None)
    if as_json:
        out = {"line": r.line, "translations": [{"text": t, "score": round(s, 4)} for t, s in r.nbest[:n]],
               "sentences": r.sentences, "split": r.split, "kept": r.kept, "warnings": r.warnings,
               "language": r.language, "confidence": None if r.confidence is None else round(r.confidence, 4)}
        if check is not None:
            out["quality"] = check.to_json()
        return json.dumps(out, ensure_ascii=False)
    if n > 1:
        return "\n".join(f"{r.line - 1} ||| {one_line(t)} ||| {s:.4f}" for t, s in r.nbest[:n])
    text, score = r.nbest[0]
    text = one_line(text)
    if align:
        text += " ||| " + " ".join(f"{i}-{j}" for i, j in (check.alignment if check else []))
    elif marked and check is not None and check.flagged:
        text = _marked(text, [s.translation for s in check.sentences if s.flagged])
    return f"{score:.4f}\t{text}" if scores else text


FLAG = "⚠"  # before a flagged line on a terminal: a shape, not a colour, says it (colour-blind safe)


def _marked(text: str, flagged: list[str]) -> str:
    """A line for the terminal with its flagged sentences underlined after the flag (plain with NO_COLOR)."""
    if out.no_color or not out.is_terminal:
        return f"{FLAG} {text}"
    from rich.text import Text

    line = Text(f"{FLAG} ", style="bold yellow")
    rest = text
    for sentence in flagged:
        at = rest.find(sentence)
        if at < 0:
            continue
        line.append(rest[:at])
        line.append(sentence, style="underline")
        rest = rest[at + len(sentence):]
    line.append(rest)
    with out.capture() as captured:
        out.print(line, end="", soft_wrap=True, highlight=False)
    return captured.get()


class Tally:
    """The checked lines of a translate run: which were flagged, which fell below --min-confidence."""

    def __init__(self):
        self.checked, self.flagged, self.low = 0, [], []

    def add(self, results, where: str, min_confidence: float | None) -> None:
        for r in results:
            check = getattr(r, "check", None)
            if check is None or check.confidence is None:
                continue
            self.checked += 1
            if check.flagged:
                self.flagged.append(r.line)
                warning(f"{where} {r.line}: probably wrong (confidence {check.confidence:.2f}): "
                         + "; ".join(dict.fromkeys(check.warnings)))
            if min_confidence is not None and check.confidence < min_confidence:
                self.low.append(r.line)

    def finish(self, lines: bool, flagged_file: Path | None, min_confidence: float | None) -> None:
        """The run's end: "N of M lines flagged" when some were (lines, not arguments; a clean run stays quiet),
        --flagged FILE, and exit status 4 when a line fell below --min-confidence."""
        from mtcli.atomic import write_output

        if lines and self.flagged:
            err.print(f"{len(self.flagged)} of {self.checked} lines flagged", highlight=False)
        if flagged_file is not None:
            write_output(flagged_file, "".join(f"{n}\n" for n in self.flagged).encode())
        if self.low:
            shown = ", ".join(map(str, self.low[:10])) + (", …" if len(self.low) > 10 else "")
            err.print(f"{len(self.low)} line(s) below --min-confidence {min_confidence:g}: {shown}", highlight=False)
            raise typer.Exit(LOW_CONFIDENCE)


LOW_CONFIDENCE = 4  # exit status of a translate run with a line below --min-confidence (0-3 and 130 are taken)


def warn(results, where: str = "line") -> None:
    for r in results:
        for w in r.warnings:
            warning(f"{where} {r.line}: {w}")


def translate_file(input, from_stdin: bool, output, fmt: str, router, keys, overwrite: bool) -> None:
    """A document read and written as bytes (docx, odt, po, xliff, json) translated whole."""
    from mtcli.atomic import STDOUT, write_output
    from mtcli.text.formats import Settings

    name = "stdin" if input is None or from_stdin else str(input)
    data = read_input(None if from_stdin else input, fmt, output, raw=True)
    if (output is None or str(output) == STDOUT) and fmt in ("docx", "odt") and sys.stdout.isatty():
        fail(f"a {fmt} document is a zip package, not text for a terminal; give -o FILE")
    with status(f"Translating {name}…"):
        out, results = router.translate_file(data, fmt, name, Settings(tuple(keys or ()), overwrite))
    warn(sorted(results, key=lambda r: r.line), "paragraph" if fmt in ("docx", "odt") else "line")
    if output is None or str(output) == STDOUT:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    else:
        write_output(output, out)


def read_input(path: Path | None, fmt: str, output: Path | None = None, raw: bool = False):
    """The English lines of -i FILE (a file or a pipe: `-i <(...)`), or of a document on stdin (None:
    plain lines on stdin, translated as they arrive), as a read.Document (raw: its bytes), or for plain lines
    in a regular file, a FileLines that reads them as they are translated. An output that is the input itself
    is refused: the English would be lost."""
    import stat

    from mtcli import guards
    from mtcli.text import read

    if path is None:
        guards.check_stdin()
        st = guards.stdin_stat()
        regular = st is not None and stat.S_ISREG(st.st_mode)  # a file, read to the end it has now
        if fmt == "text" and not regular:  # lines piped in are answered as they come
            return None
        try:
            data = guards.read_once(guards.stdin_fd(), MAX_INPUT_BYTES) if regular else sys.stdin.buffer.read()
            return data if raw else read.read_document(data, "<stdin>")
        except OSError as e:
            fail(f"cannot read standard input: {e.strerror or e}")
    try:
        mode = path.stat().st_mode
        if output is not None and str(output) != "-" and output.exists() and path.samefile(output):
            fail(f"-o {output} is the input file: its English would be replaced; give another output")
        if stat.S_ISDIR(mode):
            fail(f"{path}: is a directory; give a file")
        if stat.S_ISCHR(mode) and path.stat().st_rdev == os.stat(os.devnull).st_rdev:  # (the usual "nothing")
            return b"" if raw else read.read_document(b"", str(path))
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            fail(f"{path}: not a file or a pipe")
        if fmt == "text" and not raw and stat.S_ISREG(mode):
            if path.stat().st_size > MAX_INPUT_BYTES:
                fail(f"{path}: over {MAX_INPUT_BYTES:,} bytes; give a smaller file")
            return FileLines(path, read.LineReader(str(path)))
        data = guards.read_once(path, MAX_INPUT_BYTES)  # a file still being written: as it is now
        if len(data) > MAX_INPUT_BYTES:
            fail(f"{path}: over {MAX_INPUT_BYTES:,} bytes (a pipe that never ends?); give a smaller file")
        return data if raw else read.read_document(data, str(path))
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror or e}")


MAX_INPUT_BYTES = 256 << 20  # translate -i: days of decoding on this machine


class FileLines:
    """The plain lines of a regular file, read as they are translated (resident memory does not grow with
    the file): `groups` of LINES_PER_CALL lines; `reader` (read.LineReader) knows the file's style once read."""

    def __init__(self, path: Path, reader):
        self.path, self.reader = path, reader

    def _pieces(self):
        from mtcli import guards

        try:
            yield from guards.read_pieces(self.path, MAX_INPUT_BYTES)  # a file still being written: as it was
        except OSError as e:
            fail(f"cannot read {self.path}: {e.strerror or e}")

    def groups(self):
        from mtcli.text import read
        from mtcli.text.pipeline import LINES_PER_CALL

        return read.regrouped(read.read_lines_of(self._pieces(), self.reader), LINES_PER_CALL)

    def count(self) -> int:
        """Its lines, read through once more (for a progress bar's total)."""
        from mtcli.text import read

        return sum(map(len, read.read_lines_of(self._pieces(), read.LineReader(str(self.path)))))


def utf8_arguments(texts: list[str]) -> list[str]:
    """Text arguments as their UTF-8 bytes say, whatever the locale decoded them as (a C locale hands
    é in as two undecodable bytes): read.arguments then refuses only what is not UTF-8."""
    return [utf8_argument(t) for t in texts]


def utf8_argument(text: str) -> str:
    try:
        return os.fsencode(text).decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no command line can carry (an API caller's): as it is
        return text


def translate_document(lines: list[str], fmt: str, router, name) -> str:
    """A document (srt, markdown, html) translated and written back whole."""
    with status(f"Translating {name}…"):
        out, results = router.translate_document(lines, fmt)
    warn(sorted(results, key=lambda r: r.line))
    return "".join(line + "\n" for line in out)


def translate_groups(groups, router, nbest: int, scores: bool, as_json: bool, marked: bool,
                     progress: int | None, where: str, tally: Tally | None = None, align: bool = False,
                     min_confidence: float | None = None) -> Iterator[str]:
    """Lines in groups as they arrive (a pipe, a file read a chunk at a time), translated up to LINES_PER_CALL
    at a time (more than --batch-size's most, schema.RANGES): each batch's output as soon as it is translated
    (stdout flushes it: a line is answered before the input ends; a file is written a chunk at a time).
    progress: the lines there are, for a progress bar (None: no bar); marked: flagged sentences marked."""
    from contextlib import nullcontext

    from mtcli import decode
    from mtcli.text.pipeline import LINES_PER_CALL

    done, step, total = 0, LINES_PER_CALL, progress
    short = 0  # lines with fewer than nbest translations, said once at the end
    progress = progress is not None
    if progress:  # (rich's progress bars: not loaded for a line or two, ~10 ms)
        from rich.progress import Progress
    with Progress(console=err.console, transient=True) if progress else nullcontext() as bar:
        task = bar.add_task("translating", total=total) if progress else None
        for group in groups:
            for k in range(0, len(group), step):
                batch = group[k : k + step]
                # the bar moves as each batch of sentences is decoded, not once per call
                with decode.progress(lambda part: bar.update(task, completed=done + part * len(batch)), len(batch)) \
                        if progress else nullcontext():
                    results = router.translate(batch, first=done + 1)
                done += len(batch)
                warn(results, where)
                if tally is not None:
                    tally.add(results, where, min_confidence)
                short += sum(1 for r in results if len(r.nbest) < nbest and r.nbest[0][0].strip())
                yield "".join(format_result(r, nbest, scores, as_json, align, marked) + "\n" for r in results)
                if progress:
                    bar.update(task, completed=done)
    if short:  # (as a Moses n-best list may: no candidate is made up to fill the rows)
        warning(f"{short} of {done} {where}s got fewer than {nbest} translations: a candidate that repeats a "
                "better one or loses what the line kept (a placeholder, a number, a name) is left out")


@dataclass(frozen=True)
class LineOptions:
    """translate's options for plain lines (not documents): how each line's result is written (n-best rows,
    scores, JSON, alignments) and what the check does at the end (--min-confidence, --flagged FILE)."""

    nbest: int = 1
    scores: bool = False
    as_json: bool = False
    align: bool = False
    min_confidence: float | None = None
    flagged: Path | None = None


def translate(router, texts: list[str] | None, input: Path | None, output: Path | None, fmt: str,
              shown: LineOptions, keys: list[str] | None = None, overwrite: bool = False) -> None:
    """translate's run once its options are parsed (cli.py), the prompt aside: a document (-i FILE or stdin)
    translated and written back whole, or plain lines (text arguments, -i FILE read a chunk at a time, stdin
    answered as it arrives), each batch's results written as they come and the check's tally at the end."""
    from mtcli.atomic import STDOUT, write_output, write_output_pieces
    from mtcli.text import read

    from_stdin = input is not None and str(input) == STDOUT
    if fmt != "text":  # (the document formats' modules: not imported for plain lines)
        from mtcli.text.formats import DOCUMENTS

        if fmt in DOCUMENTS:
            return translate_file(input, from_stdin, output, fmt, router, keys, overwrite)
    doc = (read.Document(read.arguments(utf8_arguments(texts))) if texts
           else read_input(None if from_stdin else input, fmt, output))
    streamed = isinstance(doc, FileLines)
    lines = doc.lines if doc is not None and not streamed else None
    to_stdout = output is None or str(output) == STDOUT
    if fmt != "text":
        rendered = translate_document(lines, fmt, router, input if input and not from_stdin else "stdin")
        return sys.stdout.write(rendered) if to_stdout else write_output(output, doc.encode(rendered))
    groups = [lines] if lines is not None else doc.groups() if streamed else read.stream_lines(sys.stdin.buffer,
                                                                                              "<stdin>")
    total = None if input is None or from_stdin or not err.is_terminal else doc.count() if streamed else len(lines)
    tally = Tally()
    chunks = translate_groups(groups, router, shown.nbest, shown.scores, shown.as_json, to_stdout and out.is_terminal,
                              total, "argument" if texts else "line", tally, shown.align, shown.min_confidence)
    if to_stdout:
        for chunk in chunks:
            sys.stdout.write(chunk)
            sys.stdout.flush()
    else:  # written as the input came (line ends, encoding, BOM); stdout: "\n"
        style = doc.reader.document if streamed else lambda: doc or read.Document([])
        write_output_pieces(output, read.encode_pieces(chunks, style))
    if router.options.decoding.check != "off":
        tally.finish(not texts, shown.flagged, shown.min_confidence)


HISTORY_LINES = 1000  # lines a session appends, and what mtcli's own history file is cut back to
HISTORY_BYTES = 1 << 20  # a longer history file is not read (the session starts with none)


def line_editing() -> Callable[[], None]:
    """Arrow keys, editing and history for input() (GNU readline, where Python has it), the history
    kept in mtcli's user directory; returns what saves it at the end: the session's lines appended (at
    most HISTORY_LINES), never a rewrite of a file mtcli did not make (_own_history)."""
    try:
        import readline
    except ImportError:  # e.g. Windows without pyreadline: plain input()
        return lambda: None
    from mtcli.registry import home

    path = None
    try:
        path = home() / "history"
        if path.stat().st_size <= HISTORY_BYTES:
            readline.read_history_file(path)
    except (OSError, UserError):
        pass  # no history yet, or unreadable: start a new one
    start = readline.get_current_history_length()

    def save() -> None:
        added = min(readline.get_current_history_length() - start, HISTORY_LINES)
        try:
            if path is not None and added > 0 and hasattr(readline, "append_history_file"):
                _append_history(path, lambda: readline.append_history_file(added, path))
        except (OSError, UserError):
            pass  # a read-only home loses the history, never the session

    return save


def _append_history(path: Path, append: Callable[[], None]) -> None:
    """Append to the history file (made now if missing, and marked as mtcli's); cut mtcli's own file
    back to its last HISTORY_LINES lines once it has twice as many, by an atomic rewrite. A history file
    mtcli did not make (a user's, a link to one) or did not write last is only appended to."""
    from mtcli.atomic import atomic_write_bytes

    path.parent.mkdir(parents=True, exist_ok=True)
    mark = path.with_name(".history.mtcli")  # the file as mtcli left it
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        mark.write_text(_as_left(path))
    except FileExistsError:
        pass
    try:  # (its inode alone is not enough: a file put in its place may get the freed number back)
        ours = mark.read_text() == _as_left(path)
    except OSError:
        ours = False
    append()
    if not ours:
        return
    lines = path.read_bytes().splitlines(keepends=True)  # (mtcli's own: never much over 2 x HISTORY_LINES)
    if len(lines) > 2 * HISTORY_LINES:
        atomic_write_bytes(path, b"".join(lines[-HISTORY_LINES:]))
    mark.write_text(_as_left(path))


def _as_left(path: Path) -> str:
    st = os.stat(path)
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}\n"


def repl(router) -> None:
    from mtcli.route import NAMES, other

    way = router.fixed.split("-") if router.fixed else None
    say = f"{NAMES[way[0]]} → {NAMES[way[1]]}" if way else "English ⇄ Spanish, told from each line"
    err.print(f"{say}. Type a sentence and press Enter; Ctrl-D to quit.", highlight=False)
    save_history = line_editing()
    number = 0
    while True:
        try:
            line = input(f"{way[0] if way else router.prior or 'en'}> ")  # the language it expects
        except (EOFError, KeyboardInterrupt):
            save_history()
            err.print()
            return
        number += 1
        if line.strip():
            results = router.translate([line], first=number)
            warn(results)
            Tally().add(results, "line", None)
            r = results[0]
            print(f"{router.languages.target or other(r.language)}> {one_line(r.text)}")
