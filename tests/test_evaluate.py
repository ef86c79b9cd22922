"""mtcli/evaluate.py and `mtcli evaluate`: a saved report can always be read back, and an error names
the model the way the user gave it."""

import pytest

from mtcli.checkpoint import SCORES, TGT_TOK
from mtcli.decode import Hypothesis, Translator
from mtcli.evaluate import evaluate_pairs, save_scores
from mtcli.schema import read_scores
from mtcli.tokenizer import BOS, EOS, Tokenizer
from tests.conftest import tiny_pairs, write_tsv

PAIRS = [("Tom was in jail at the time.", "En ese tiempo Tom estaba encarcelado."),
         ("They agreed on a price.", "Acordaron un precio."),
         ("It is hard to master it in a year or two.", "Es difícil dominarlo en un año o dos.")]


def test_a_perfect_bleu_is_saved_as_100_and_reads_back(shipped_model, tmp_path):
    """sacrebleu scores a perfect corpus 100.00000000000004, which scores.json's 0-100 range refuses."""
    tr = Translator(shipped_model, inter_threads=1)
    references = dict(PAIRS)
    tr.translate = lambda lines, **options: ([[(references[en], 0.0)] for en in lines], 0)  # every translation right
    report, hyps = evaluate_pairs(tr, PAIRS, beam=1, alpha=1.0)
    assert hyps == [es for _, es in PAIRS] and report["bleu"] == report["chrf"] == 100.0
    save_scores(tmp_path, "perfect", report)
    assert read_scores(tmp_path / SCORES)["perfect, greedy"]["bleu"] == 100.0


def test_a_perfect_bleu_sample_in_training_stays_within_100(shipped_model, monkeypatch):
    """The BLEU a training run scores each epoch goes into its state (best_bleu, at most 100) too."""
    from mtcli import train
    from mtcli.data import EncodedSplit

    tok = Tokenizer.load(shipped_model / TGT_TOK)
    seqs = [[BOS, *ids, EOS] for ids in tok.encode_batch([es for _, es in PAIRS])]
    split = EncodedSplit.from_sequences(list(range(len(seqs))), seqs, seqs)  # "English" = the Spanish ids
    monkeypatch.setattr(train, "greedy", lambda model, src, lens: [  # translates each source into itself
        Hypothesis(src[i, 1 : lens[i] - 1].tolist(), 0.0, 0.0) for i in range(len(src))])
    assert train.BleuSample(split, tok, len(seqs), seed=0).score(model=None) == 100.0


@pytest.mark.parametrize("how", ["argument", "-m", "MTCLI_MODEL"])
def test_a_corpus_mismatch_names_the_model_as_given(how, shipped_model, tmp_path, run_cli, monkeypatch):
    model = tmp_path / "my-model"
    model.symlink_to(shipped_model.resolve(), target_is_directory=True)
    corpus = write_tsv(tmp_path / "other.tsv", tiny_pairs())  # not the corpus the model was trained on
    monkeypatch.delenv("MTCLI_MODEL", raising=False)
    args = {"argument": [model], "-m": ["-m", model], "MTCLI_MODEL": []}[how]
    if how == "MTCLI_MODEL":
        monkeypatch.setenv("MTCLI_MODEL", str(model))
    code, out, err = run_cli("evaluate", *args, "--corpus", corpus)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"is not the corpus {model} was trained on" in " ".join(err.split()), err


def test_evaluation_set_takes_the_first_limit_pairs(tmp_path):
    from mtcli.evaluate import evaluation_set

    data = write_tsv(tmp_path / "pairs.tsv", PAIRS)
    pairs, source, key, *_ = evaluation_set({}, "m", data, None, "test", limit=2)
    assert pairs == PAIRS[:2] and source == f"{data} (first 2 pairs)" and key == "pairs.tsv (first 2)"
    assert evaluation_set({}, "m", data, None, "test")[:3] == (PAIRS, str(data), "pairs.tsv")
    assert evaluation_set({}, "m", data, None, "test", limit=3)[:3] == (PAIRS, str(data), "pairs.tsv")


def test_a_limited_score_is_saved_beside_the_full_one_not_over_it(shipped_model, tmp_path, run_cli):
    """--save with --limit N: scores.json keeps the score of all pairs and names the other one's N
    (`mtcli info` and `mtcli models` would show a 3-pair BLEU as the file's)."""
    import shutil

    model, data = tmp_path / "model", write_tsv(tmp_path / "pairs.tsv", PAIRS)
    shutil.copytree(shipped_model, model)
    (model / SCORES).unlink(missing_ok=True)
    for limit in ("0", "1"):
        code, _, err = run_cli("evaluate", "-m", model, "--data", data, "--beam", "1", "--limit", limit, "--save")
        assert code == 0, err
    assert {k: r["pairs"] for k, r in read_scores(model / SCORES).items()} == {
        "pairs.tsv, greedy": 3, "pairs.tsv (first 1), greedy": 1}


def test_save_refuses_a_damaged_scores_json_before_evaluating(shipped_model, tmp_path, run_cli, monkeypatch):
    import shutil

    import mtcli.evaluate

    model = tmp_path / "model"
    shutil.copytree(shipped_model, model)
    (model / SCORES).write_text("[1, 2]\n")
    monkeypatch.setattr(mtcli.evaluate, "evaluate_pairs", lambda *a, **k: pytest.fail("evaluated first"))
    code, out, err = run_cli("evaluate", "-m", model, "--data", write_tsv(tmp_path / "p.tsv", PAIRS), "--save")
    assert code == 2 and "move it away" in err and err.count("\n") == 1 and out == ""
    assert (model / SCORES).read_text() == "[1, 2]\n"


def test_data_dash_is_stdin(shipped_model, run_cli, monkeypatch):
    import io
    import json
    import sys

    tsv = "".join(f"{en}\t{es}\n" for en, es in PAIRS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(tsv.encode())))
    code, out, err = run_cli("evaluate", "-m", shipped_model, "--data", "-", "--beam", "1", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["pairs"] == 3 and report["data"] == "<stdin>"


def test_malformed_lines_of_data_are_named_not_silently_skipped(shipped_model, tmp_path, run_cli):
    """Every line evaluate does not score is named on stderr (the first few, then a count); the
    report counts them."""
    import json

    lines = [f"{en}\t{es}" for en, es in PAIRS[:2]] + ["no tab here", "Only English.\t", "\tSolo español."]
    lines += ["broken"] * 7 + [f"{en}\t{es}" for en, es in PAIRS[2:]]
    data = tmp_path / "pairs.tsv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run_cli("evaluate", "-m", shipped_model, "--data", data, "--json", "--beam", "1")
    assert code == 0, err
    named = [int(w.split(" line ")[1].split(":")[0]) for w in err.splitlines() if " line " in w]
    assert named == [3, 4, 5, 6, 7] and f"{data}: 5 more malformed lines not scored" in " ".join(err.split()), err
    report = json.loads(out)
    assert report["pairs"] == 3 and report["skipped"] == 10


def test_o_dash_puts_the_translations_alone_on_stdout(shipped_model, tmp_path, run_cli):
    """-o -: stdout is the translations, one a line, and the report (JSON or table) goes to stderr."""
    import json

    data = write_tsv(tmp_path / "pairs.tsv", PAIRS)
    code, out, err = run_cli("evaluate", "-m", shipped_model, "--data", data, "--beam", "1", "--json", "-o", "-")
    assert code == 0, err
    assert len(out.splitlines()) == len(PAIRS) and "{" not in out
    assert json.loads(err[err.index("{"):])["pairs"] == len(PAIRS)
    code, out, err = run_cli("evaluate", "-m", shipped_model, "--data", data, "--beam", "1", "-o", "-")
    assert code == 0 and len(out.splitlines()) == len(PAIRS) and "BLEU" in err and "BLEU" not in out, err
