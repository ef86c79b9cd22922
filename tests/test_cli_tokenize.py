"""`mtcli tokenize`: output files, summary, cache reuse, environment defaults, errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from mtcli.data import load_prepared

SMALL = ("--src-vocab", "200", "--tgt-vocab", "220")


def test_tokenize_writes_files_and_reuses_them(run_cli, tiny_corpus, tmp_path):
    out_dir = tmp_path / "prepared"
    code, out, err = run_cli("tokenize", "--data", tiny_corpus, "--out", out_dir, "--seed", "2", *SMALL)
    assert code == 0, err
    names = {"manifest.json", "tokenizer-en.json", "tokenizer-es.json", "train.npz", "selection.npz", "test.npz"}
    assert {p.name for p in out_dir.iterdir()} == names
    prep = load_prepared(out_dir)
    m = prep.manifest
    assert re.search(rf"pairs read\s+│ {m['data']['pairs']:,} ", out)
    assert f"train {m['split_sizes']['train']:,} / selection" in out and "built in" in out
    assert (m["seed"], m["split"], m["vocab"]) == (2, "grouped", {"en": 200, "es": 220})

    code, out, _ = run_cli("tokenize", "--data", tiny_corpus, "--out", out_dir, "--seed", "2", *SMALL)
    assert code == 0 and "reused" in out
    code, out, _ = run_cli("tokenize", "--data", tiny_corpus, "--out", out_dir, "--split", "random", *SMALL)
    assert code == 0 and "built in" in out and load_prepared(out_dir).manifest["split"] == "random"


def test_tokenize_reads_paths_from_environment(run_cli, tiny_corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("MTCLI_DATA", str(tiny_corpus))
    monkeypatch.setenv("MTCLI_PREPARED", str(tmp_path / "env-out"))
    code, _, err = run_cli("tokenize", *SMALL)
    assert code == 0, err
    assert load_prepared(tmp_path / "env-out").manifest["data"]["path"] == str(tiny_corpus)


def test_tokenize_reports_skipped_lines(run_cli, tmp_path):
    corpus = tmp_path / "spa.txt"
    corpus.write_text("".join(f"I see {n} birds.\tVeo {n} pájaros.\n" for n in range(30)) + "broken line\n", "utf-8")
    code, out, err = run_cli("tokenize", "--data", corpus, "--out", tmp_path / "p", *SMALL)
    assert code == 0, err
    assert "1 (lines 31…)" in out


def test_bad_options_exit_2(run_cli, tmp_path):
    code, _, err = run_cli("tokenize", "--data", tmp_path / "missing.txt", "--out", tmp_path / "p")
    assert code == 2 and "corpus not found" in err and err.count("\n") == 1
    code, _, err = run_cli("tokenize", "--data", tmp_path, "--split", "stratified")
    assert code == 2 and "--split" in err and "stratified" in err and err.count("\n") == 1, err


def test_out_dash_is_refused_not_a_directory_named_dash(run_cli, tiny_corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("tokenize", "--data", tiny_corpus, "--out", "-", *SMALL)
    assert code == 2 and "standard output" in err and err.count("\n") == 1 and not (tmp_path / "-").exists()


def test_missing_corpus_from_the_console_is_one_line_without_traceback(tmp_path):
    env = {**os.environ, "COLUMNS": "400", "MTCLI_DATA": str(tmp_path / "nowhere" / "spa.txt")}
    result = subprocess.run(
        [sys.executable, "-m", "mtcli", "tokenize", "--out", str(tmp_path / "p")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: corpus not found") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_help_has_examples(run_cli):
    for command in ("tokenize", "download"):
        code, out, _ = run_cli(command, "-h")
        assert code == 0 and "Examples:" in out and f"mtcli {command}" in out


def test_real_corpus_summary(run_cli, prepared, corpus_path):
    # The session fixture already built this directory: the command must find and reuse it.
    code, out, err = run_cli("tokenize", "--data", corpus_path, "--out", prepared.out_dir)
    assert code == 0, err
    print("\n" + out)
    assert "118,964" in out and "reused" in out
    assert "4,562" in out and "6,134" in out
    m = prepared.manifest
    assert f"selection {m['split_sizes']['selection']:,} / test {m['split_sizes']['test']:,}" in out


def test_lowercase_en_tokenizes_the_english_lowercased_and_says_so(run_cli, tiny_corpus, tmp_path):
    code, out, err = run_cli("tokenize", "--data", tiny_corpus, "--out", tmp_path / "lc", "--lowercase-en", *SMALL)
    assert code == 0, err
    prep = load_prepared(tmp_path / "lc")
    assert prep.src_tok.lowercase and not prep.tgt_tok.lowercase and prep.manifest["lowercase"] == {"en": True}
    assert "English: lowercase(s)" in re.sub(r"[│\s]+", " ", out)
    code, out, _ = run_cli("tokenize", "--data", tiny_corpus, "--out", tmp_path / "lc", "--lowercase-en", *SMALL)
    assert code == 0 and "reused" in out
