"""`mtcli translate` with the text pipeline and the shipped model: streaming, encodings, formats, spans
kept, warnings that name their line."""

import json
import re
import subprocess
import sys
import threading

import pytest

from tests.conftest import REPO


def test_piped_lines_are_answered_before_stdin_closes(shipped_model):
    proc = subprocess.Popen([sys.executable, "-m", "mtcli", "translate", "-m", str(shipped_model), "--greedy"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    timer = threading.Timer(120, proc.kill)  # a hang fails the test instead of the suite
    timer.start()
    try:
        answers = []
        for line in (b"Where is the station?\n", b"I like cats.\r\n"):
            proc.stdin.write(line)
            proc.stdin.flush()
            answers.append(proc.stdout.readline().decode())  # stdin is still open here
        proc.stdin.close()
        assert proc.wait() == 0 and proc.stdout.read() == b""
    finally:
        timer.cancel()
    assert answers == ["¿Dónde está la estación?\n", "Me gustan los gatos.\n"]


@pytest.mark.parametrize("encoding,bom,end", [("utf-16-le", b"\xff\xfe", "\r\n"), ("utf-16-be", b"\xfe\xff", "\n"),
                                              ("utf-8", b"\xef\xbb\xbf", "\r"), ("utf-8", b"", "\r\n")])
def test_utf16_bom_and_line_ends_read_like_utf8(shipped_model, run_cli, tmp_path, encoding, bom, end):
    lines = ["The plant is green.", "", "Where is Tom?"]
    src = tmp_path / "in.txt"
    src.write_bytes(bom + end.join(lines).encode(encoding) + end.encode(encoding))
    code, out, err = run_cli("translate", "-m", shipped_model, "-i", src, "--greedy")
    assert code == 0, err
    assert out.split("\n") == ["La planta es verde.", "", "¿Dónde está Tom?", ""]
    # -o writes the file back as it came: its encoding, BOM and line ends (a Windows file stays one)
    code, _, err = run_cli("translate", "-m", shipped_model, "-i", src, "--greedy", "-o", tmp_path / "out.txt")
    assert code == 0, err
    spanish = ["La planta es verde.", "", "¿Dónde está Tom?", ""]
    assert (tmp_path / "out.txt").read_bytes() == bom + end.join(spanish).encode(encoding)
    # ... and without a final line end if it had none
    src.write_bytes(bom + end.join(lines).encode(encoding))
    code, _, err = run_cli("translate", "-m", shipped_model, "-i", src, "--greedy", "-o", tmp_path / "out2.txt")
    assert code == 0, err
    assert (tmp_path / "out2.txt").read_bytes() == bom + end.join(spanish[:-1]).encode(encoding)


def test_numbers_emoji_and_sentences_come_out(shipped_model, run_cli):
    code, out, err = run_cli("translate", "-m", shipped_model, "--json",
                             "I paid $25.50 for 3 books on 12/05/2023.", "I love you 🙂",
                             "Tom is my friend. He lives in Boston. We play tennis every Sunday.",
                             "WHERE IS THE BATHROOM?", "where is the station")
    rows = [json.loads(r) for r in out.splitlines()]
    assert code == 0 and [r["line"] for r in rows] == [1, 2, 3, 4, 5]
    texts = [r["translations"][0]["text"] for r in rows]
    assert all(s in texts[0] for s in ("25.50", "3", "12/05/2023")) and rows[0]["kept"] == ["25.50", "3", "12/05/2023"]
    assert texts[1].endswith("🙂")
    assert rows[2]["sentences"] == 3 and "Boston" in texts[2] and "domingos" in texts[2]
    assert texts[3] == texts[3].upper() and texts[3].startswith("¿") and "BAÑO" in texts[3]
    assert texts[4].startswith("¿") and texts[4].endswith("?")


def test_warnings_name_their_line(shipped_model, run_cli, monkeypatch, tmp_path):
    from mtcli.decode import Translator

    real = Translator.translate_batch

    def garbling(self, lines, options):  # a model that turns every number into 9
        results = real(self, lines, options)
        for h in (h for r in results for h in r.hypotheses):
            h.text = re.sub(r"\d+", "9", h.text)
        return results

    monkeypatch.setattr(Translator, "translate_batch", garbling)
    src = tmp_path / "in.txt"
    src.write_text("Fine.\n\nThe train leaves at 7:15.\n", encoding="utf-8")
    code, out, err = run_cli("translate", "-m", shipped_model, "-i", src, "--greedy", "--no-check")  # (the check has its own tests)
    assert code == 0 and "7:15" in out.split("\n")[2]
    assert re.fullmatch(r"warning: line 3: [^\n]*7:15[^\n]*\n", err), err


def test_a_sentence_over_the_model_limit_is_split_not_cut(shipped_model, run_cli):
    long = ", and ".join(["my brother likes to play football with his friends in the park"] * 8) + "."
    code, out, err = run_cli("translate", "-m", shipped_model, "--greedy", "--json", long)
    row = json.loads(out)
    assert code == 0 and row["split"] == 1 and "truncated" not in err
    assert row["translations"][0]["text"].count("fútbol") >= 4  # cut in 4 pieces, each translated


SRT = "1\n00:00:01,000 --> 00:00:03,000\nWhere is the station?\n\n2\n00:00:04,000 --> 00:00:06,000\nI have 3 cats.\nThey are black.\n"


def test_formats_through_the_cli(shipped_model, run_cli, tmp_path, monkeypatch):
    src = tmp_path / "film.srt"
    src.write_text(SRT, encoding="utf-8")
    code, _, err = run_cli("translate", "-m", shipped_model, "--greedy", "-i", src, "-o", tmp_path / "film.es.srt")
    out = (tmp_path / "film.es.srt").read_text(encoding="utf-8").split("\n")
    assert code == 0 and len(out) == len(SRT.split("\n")), err
    assert [out[i] for i in (0, 1, 4, 5)] == ["1", "00:00:01,000 --> 00:00:03,000", "2", "00:00:04,000 --> 00:00:06,000"]
    assert out[2] == "¿Dónde está la estación?" and "3" in out[6] + out[7] and out[6] and out[7]
    md = tmp_path / "doc.txt"
    md.write_text("# Where is the station\n\n```\nkeep = 1\n```\n\n- I like [cats](http://x.org/c).\n", encoding="utf-8")
    code, out, err = run_cli("translate", "-m", shipped_model, "--greedy", "--format", "markdown", "-i", md, "-o", "-")
    rows = out.split("\n")
    assert code == 0 and len(rows) == 8 and rows[0].startswith("# ¿") and rows[2:5] == ["```", "keep = 1", "```"]
    assert rows[6].startswith("- ") and "](http://x.org/c)" in rows[6]


@pytest.mark.parametrize("args,message", [
    (["--format", "srt", "--json"], "--format srt"),
    (["--format", "html", "Some text."], "--format html"),
    (["--format", "pdf"], "pdf"),
])
def test_format_option_errors(shipped_model, run_cli, args, message):
    code, out, err = run_cli("translate", "-m", shipped_model, *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_not_an_srt_file_is_one_line(shipped_model, run_cli, tmp_path):
    src = tmp_path / "x.srt"
    src.write_text("this is not\na subtitle file\n", encoding="utf-8")
    code, out, err = run_cli("translate", "-m", shipped_model, "-i", src)
    assert code == 2 and out == "" and err.count("\n") == 1 and "SRT" in err


def test_markup_nested_past_the_limit_is_one_line_and_at_the_limit_translated(shipped_model, run_cli, tmp_path):
    """10,000 nested <b> in a file raised RecursionError (issue 38): exit 2 with one line naming the line."""
    from mtcli.text.markup import MAX_DEPTH

    src = tmp_path / "deep.html"
    for n, want in ((10_000, 2), (MAX_DEPTH + 1, 2), (MAX_DEPTH, 0)):
        src.write_text("<h1>Title</h1>\n\n<p>" + "<b>" * n + "The plant is green." + "</b>" * n + "</p>\n",
                       encoding="utf-8")
        code, out, err = run_cli("translate", "-m", shipped_model, "--greedy", "-i", src, "-o", "-")
        assert code == want, err
        if want:
            assert out == "" and err.count("\n") == 1 and f"line 3: markup nested more than {MAX_DEPTH}" in err
        else:
            assert out.count("<b>") == out.count("</b>") == MAX_DEPTH and "planta" in out


def test_a_line_over_its_time_budget_passes_through_with_a_warning_naming_it(shipped_model, run_cli, tmp_path,
                                                                               monkeypatch):
    from dataclasses import replace

    from mtcli.config import Options

    src = tmp_path / "in.txt"
    src.write_text("The plant is green.\nI have 3 cats.\n", encoding="utf-8")
    text_for = Options.text_for
    monkeypatch.setattr(Options, "text_for", lambda self, source: replace(text_for(self, source), budget=1e-9))
    code, out, err = run_cli("translate", "-m", shipped_model, "--greedy", "-i", src)
    assert code == 0 and out == "The plant is green.\nI have 3 cats.\n", err
    assert re.search(r"warning: line 2: [^\n]*budget of 1e-09 s[^\n]*untranslated", err), err
