"""translate / evaluate / info on a tiny trained model: modes agree, lines map one to one, scores
match the sacrebleu CLI, bad input is one line and exit code 2."""

import json
import subprocess
import sys

import pytest

from tests.conftest import tiny_pairs, train_tiny_model, write_tsv


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return train_tiny_model(tmp_path_factory.mktemp("translate"), n_layers=1, max_epochs=15)


LINES = ["Tom likes the cat.", "", "Where is Mary's dog?", "Come here, Ana!"]


def test_argument_stdin_and_file_modes_agree(model_dir, tmp_path, run_cli, monkeypatch):
    code, from_args, _ = run_cli("translate", "-m", model_dir, *[line for line in LINES if line])
    assert code == 0
    src = tmp_path / "in.txt"
    src.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    code, _, _ = run_cli("translate", "-m", model_dir, "-i", src, "-o", tmp_path / "out.txt")
    from_file = (tmp_path / "out.txt").read_text(encoding="utf-8").split("\n")[:-1]
    piped = subprocess.run([sys.executable, "-m", "mtcli", "translate", "-m", str(model_dir)],
                           input="\n".join(LINES).encode(), capture_output=True, check=True).stdout.decode()
    assert len(from_file) == len(LINES) and from_file[1] == ""
    assert [x for x in from_file if x] == from_args.splitlines()
    assert piped.split("\n")[:-1] == from_file
    assert all(line for i, line in enumerate(from_file) if LINES[i])


def test_one_output_line_per_input_line_whatever_the_text(model_dir, tmp_path, run_cli):
    odd = ["a\u2028b\x0bc", "\x1b[31m", "🙂 " * 200, "¿Qué?", "", "x" * 5000, "   ", "the cat " * 300]
    src = tmp_path / "odd.txt"
    src.write_bytes("\r\n".join(odd).encode() + b"\rthe last line holds a CR alone\r")  # (no line end in CRLF text)
    code, out, err = run_cli("translate", "-m", model_dir, "-i", src, "--greedy")
    rows = out.split("\n")[:-1]
    assert code == 0 and len(rows) == len(odd), err
    assert rows[2] == ("🙂 " * 200).strip() and rows[5] == "x" * 5000  # nothing the model cannot spell is lost
    assert rows[4] == rows[6] == ""


def test_undecodable_input_is_one_line_naming_where(model_dir, tmp_path, run_cli):
    src = tmp_path / "broken.txt"
    src.write_bytes(b"Fine line.\n\xff\xfe broken utf-8\n")
    code, out, err = run_cli("translate", "-m", model_dir, "-i", src, "--greedy")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert str(src) in err and "byte offset 11, line 2" in err


def test_nbest_sorted_and_json(model_dir, run_cli):
    code, out, _ = run_cli("translate", "-m", model_dir, "--nbest", "3", "--json", "Tom likes the dog.")
    obj = json.loads(out)
    scores = [t["score"] for t in obj["translations"]]
    assert code == 0 and len(scores) == 3 and scores == sorted(scores, reverse=True)
    code, out, _ = run_cli("translate", "-m", model_dir, "--nbest", "2", "Tom likes the dog.")
    assert [line.split(" ||| ")[0] for line in out.splitlines()] == ["0", "0"]


def test_evaluate_bleu_matches_sacrebleu_cli(model_dir, tmp_path, run_cli):
    pairs = tiny_pairs()[:40]
    data = write_tsv(tmp_path / "eval.tsv", pairs)
    code, out, _ = run_cli("evaluate", model_dir, "--data", data, "--json", "--output", tmp_path / "hyp.txt")
    report = json.loads(out)
    assert code == 0 and report["pairs"] == 40 and 0 <= report["accuracy"] <= 1
    (tmp_path / "ref.txt").write_text("".join(es + "\n" for _, es in pairs), encoding="utf-8")
    cli = subprocess.run([sys.executable, "-m", "sacrebleu", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "hyp.txt"),
                          "-m", "bleu", "chrf", "-b", "-f", "text"], capture_output=True, text=True, check=True).stdout.split()
    assert float(cli[0]) == pytest.approx(report["bleu"], abs=0.05)
    assert float(cli[1]) == pytest.approx(report["chrf"], abs=0.05)


def test_info(model_dir, run_cli):
    code, out, _ = run_cli("info", model_dir)
    assert code == 0 and json.loads(out)["parameters"] > 0


def test_info_of_a_model_whose_scores_file_is_damaged_warns_and_shows_the_rest(model_dir, run_cli, tmp_path):
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(model_dir, copy)
    (copy / "scores.json").write_text("{not json")
    code, out, err = run_cli("info", copy)
    assert code == 0 and json.loads(out)["parameters"] > 0 and json.loads(out)["scores"] is None
    assert err.startswith("warning:") and "scores.json" in err and err.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["translate", "-m", "/nonexistent", "Hi."], "/nonexistent: no such model directory"),
    (["evaluate", "/nonexistent", "--data", "{tsv}"], "/nonexistent: no such model directory"),
    (["translate", "-i", "/nonexistent.txt"], "/nonexistent.txt: no such file"),
    (["translate", "--beam", "0", "Hi."], "--beam"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, run_cli, tmp_path):
    tsv = write_tsv(tmp_path / "pairs.tsv", tiny_pairs()[:3])
    code, out, err = run_cli(*[a.format(tsv=tsv) for a in args])
    assert code == 2 and err.count("\n") == 1 and err.startswith("error:") and out == "", err
    assert message in err, err


def test_reference_kernels_translate_like_the_compiled_ones(model_dir):
    """`mtcli translate` decodes with the NumPy references (no compiled code to load at start-up)."""
    from mtcli import kernels
    from mtcli.decode import Translator

    tr = Translator(model_dir)
    kernels.use_compiled()  # (a few lines would otherwise decode with the references too: Translator's choice)
    compiled, _ = tr.translate(LINES, beam=3, nbest=2)
    with kernels.references():
        reference, _ = tr.translate(LINES, beam=3, nbest=2)
    assert [[t for t, _ in n] for n in compiled] == [[t for t, _ in n] for n in reference]
    assert type(kernels.attention_forward).__name__ == "CPUDispatcher"  # restored after the block


def test_shipped_model_translates(run_cli, monkeypatch):
    """The model shipped in the package (mtcli/models/en-es, the default of -m) loads, passes its
    checksums and translates; its scores were recorded by `mtcli evaluate --save`."""
    monkeypatch.delenv("MTCLI_MODEL", raising=False)
    code, out, _ = run_cli("translate", "The plant is green.", "Where is the station?")
    assert code == 0 and out.splitlines()[0] == "La planta es verde." and len(out.splitlines()) == 2
    code, out, _ = run_cli("info", "-m", "en-es")
    assert code == 0 and json.loads(out)["scores"]["test split, beam 4, alpha 1.0"]["bleu"] > 40


def test_tabs_between_cells_come_out(model_dir, tmp_path, run_cli):
    src = tmp_path / "row.tsv"
    src.write_text("The cat.\tThe dog.\t3\n\tIndented.\n", encoding="utf-8")
    code, out, err = run_cli("translate", "-m", model_dir, "-i", src, "--greedy")
    rows = out.split("\n")[:-1]
    assert code == 0 and [r.count("\t") for r in rows] == [2, 1] and rows[0].endswith("\t3") and rows[1][0] == "\t", err
