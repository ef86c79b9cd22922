"""Reliability of the directories and files mtcli writes and reads back: --out directories holding the user's
files, a lock per run directory, damaged custom tokenized data, --resume with other options,
SIGHUP/SIGQUIT, hand-made config/state/metrics/scores/manifest files with recomputed checksums,
and corpora that cannot train."""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mtcli.atomic import LOCK, lock_dir, unlock_dir
from mtcli.checkpoint import METRICS, SCORES, STATE, WEIGHTS, load_model, load_tensors, save_tensors
from mtcli.data import EncodedSplit, _manifest_digest, file_sha256, load_prepared
from mtcli.decode import Translator
from mtcli.errors import UserError
from mtcli.train import load_state
from tests import worlds
from tests.conftest import REPO, tiny_pairs, write_tsv
from tests.worlds import TINY, cli_env, error_line  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return worlds.world(tmp_path_factory)


SMALL = ("--src-vocab", "150", "--tgt-vocab", "220")


# --- --out directories holding the user's files ----------------------------------------------------


def test_out_directories_with_the_users_files_are_refused_unless_force(world, tmp_path, run_cli, cli_env, tally):
    """tokenize and train write fixed names (train.npz, src.json, ...): a directory holding files
    mtcli did not write is refused, the files untouched; --force writes among them."""
    for command, clash, extra in (("tokenize", "train.npz", ["--data", world.corpus, *SMALL]),
                                  ("train", "src.json", [*TINY, "--max-epochs", "1"])):
        d = tmp_path / command
        d.mkdir()
        (d / clash).write_text("the user's own file")
        (d / "notes.txt").write_text("keep")
        line = error_line(run_cli(command, "--out", d, *extra))
        assert "holds files mtcli did not write" in line and "--force" in line and clash in line
        assert (d / clash).read_text() == "the user's own file" and sorted(p.name for p in d.iterdir()) == [
            "notes.txt", clash]
        code, _, err = run_cli(command, "--out", d, *extra, "--force")
        assert code == 0 and (d / "notes.txt").read_text() == "keep", err
        code, _, err = run_cli(command, "--out", d, *extra, *(["--resume"] if command == "train" else []))
        assert code == 0, err  # a directory mtcli wrote is its own: no --force needed again
        tally["input: --out directories holding the user's files"] += 3
    line = error_line(run_cli("train", "--out", REPO, *TINY, "--max-epochs", "1"))  # the checkout itself
    assert "holds files mtcli did not write" in line


# --- one training run per directory ----------------------------------------------------------------

HOLDER = "import sys; from mtcli.atomic import lock_dir; lock_dir(sys.argv[1], 'train'); print('held', flush=True); sys.stdin.read()"


def test_second_train_into_a_locked_run_is_refused_at_once_naming_the_holder(world, tmp_path, run_cli, cli_env, tally):
    out = tmp_path / "run"
    code, _, err = run_cli("train", "--out", out, *TINY, "--max-epochs", "1")
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], cwd=REPO, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.perf_counter()
        line = error_line(run_cli("train", "--out", out, "--resume", "--max-epochs", "3"))
        assert f"in use by another `mtcli train` (PID {holder.pid})" in line
        assert time.perf_counter() - started < 10  # refused at once, not after waiting
        assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK} == before
    finally:
        holder.stdin.close()
        holder.wait(30)
    lock_dir(out, "train")  # within one process too: a second open of the lock conflicts with the first
    try:
        assert f"PID {os.getpid()}" in error_line(run_cli("train", "--out", out, "--resume", "--max-epochs", "2"))
    finally:
        unlock_dir(out)
    code, _, err = run_cli("train", "--out", out, "--resume", "--max-epochs", "2")  # released: goes on
    assert code == 0 and load_state(out)[2].epoch == 2, err
    tally["fault: a second `mtcli train` into a running run"] += 2


# --- damaged custom tokenized data -------------------------------------------------------------------


def test_damaged_custom_prepared_data_is_refused_with_its_own_rerun_command(world, tmp_path, run_cli, tally):
    """A directory tokenized with --src-vocab 150 --split random --seed 3, then damaged: train refuses
    it and prints the exact tokenize command with those options; it never rebuilds it with the defaults."""
    d = tmp_path / "custom"
    code, _, err = run_cli("tokenize", "--data", world.corpus, "--out", d, "--split", "random", "--seed", "3", *SMALL)
    assert code == 0, err
    manifest = (d / "manifest.json").read_bytes()
    for damaged in ("train.npz", "tokenizer-es.json"):
        original = (d / damaged).read_bytes()
        (d / damaged).write_bytes(original[: len(original) // 2])
        line = error_line(run_cli("train", "--prepared", d, "--data", world.corpus, "--out", tmp_path / "run", *TINY))
        command = line.split("rebuild it: `", 1)[1].rstrip("`")
        assert shlex.split(command) == ["mtcli", "tokenize", "--data", str(world.corpus), "--out", str(d), "--seed",
                                        "3", "--split", "random", "--src-vocab", "150", "--tgt-vocab", "220", "--force"]
        assert (d / "manifest.json").read_bytes() == manifest and not (tmp_path / "run" / WEIGHTS).exists()
        code, _, err = run_cli(*shlex.split(command)[1:])  # the command given works and restores the same data
        assert code == 0 and (d / "manifest.json").read_bytes() != b"" and load_prepared(d).manifest["seed"] == 3, err
        m = load_prepared(d).manifest
        assert (m["split"], m["vocab"]) == ("random", {"en": 150, "es": 220})
        manifest = (d / "manifest.json").read_bytes()
        tally["fault: damaged custom tokenized data"] += 1
    (d / "manifest.json").write_text("{not json")
    line = error_line(run_cli("train", "--prepared", d, "--out", tmp_path / "run2", *TINY))
    assert "--force` with the options it was first made with" in line
    incomplete = {"format_version": 1, "incomplete": True, "seed": 3, "split": "random", "vocab": {"en": 150, "es": 220},
                  "data": {"path": str(world.corpus)}}  # what a killed tokenize leaves
    (d / "manifest.json").write_text(json.dumps(incomplete))
    line = error_line(run_cli("train", "--prepared", d, "--out", tmp_path / "run2", *TINY))
    assert "incomplete (an interrupted `mtcli tokenize`)" in line and "--split random" in line
    tally["fault: damaged custom tokenized data"] += 2


def test_train_into_a_foreign_prepared_directory_names_its_own_option_and_remedy(world, tmp_path, run_cli):
    """--prepared DIR holding the user's files: training's own --force would replace the run, not this
    directory, so the message names --prepared and the tokenize command that forces it."""
    d = tmp_path / "notes"
    d.mkdir()
    (d / "todo.txt").write_text("mine")
    line = error_line(run_cli("train", "--prepared", d, "--data", world.corpus, "--out", tmp_path / "run", *TINY))
    assert "give a new or empty --prepared directory" in line and f"run `mtcli tokenize --out {d} --force`" in line
    assert "--out directory" not in line and (d / "todo.txt").read_text() == "mine" and sorted(os.listdir(d)) == ["todo.txt"]


# --- --resume with options that conflict -------------------------------------------------------------


def test_resume_refuses_another_model_shape_and_explains_changed_settings(world, tmp_path, run_cli, cli_env, tally):
    out = tmp_path / "run"
    code, _, err = run_cli("train", "--out", out, *TINY, "--max-epochs", "1")
    assert code == 0, err
    weights = (out / WEIGHTS).read_bytes()
    for options, named in ((["--d-model", "32"], "d_model 16 (not 32)"), (["-c", "large"], "d_model 16 (not 256)"),
                           (["--heads", "2"], "n_heads 4 (not 2)"), (["--dropout", "0.3"], "dropout 0.1 (not 0.3)")):
        line = error_line(run_cli("train", "--out", out, "--resume", *options))
        assert named in line and "--resume continues" in line
        assert (out / WEIGHTS).read_bytes() == weights
        tally["input: --resume with options that conflict"] += 1
    code, _, err = run_cli("train", "--out", out, "--resume", "--d-model", "16", "--max-epochs", "2", "--batch-size", "4")
    assert code == 0 and "with batch_size 8 -> 4, max_epochs 1 -> 2; the other settings are the saved run's" in err, err


# --- SIGHUP and SIGQUIT ---------------------------------------------------------------------------------


# `mtcli train` saving its state after every step, so a state file tells that the loop is running
EVERY_STEP = "import sys, mtcli.train; mtcli.train.CHECKPOINT_SECONDS = 0.0; from mtcli.cli import main; " \
             "sys.argv = ['mtcli', *sys.argv[1:]]; main()"


def test_sighup_and_sigquit_save_the_state_like_sigint(world, tmp_path, tally):
    """Both at once (two runs), so the test costs one start-up."""
    env = {**os.environ, "MTCLI_DATA": str(world.corpus), "MTCLI_PREPARED": str(world.prepared)}
    runs = {}
    for sig in (signal.SIGHUP, signal.SIGQUIT):
        out = tmp_path / sig.name
        runs[sig] = out, subprocess.Popen([sys.executable, "-c", EVERY_STEP, "train", "--out", str(out), *TINY,
                                           "--max-epochs", "100000", "--patience", "100000"],
                                          env=env, cwd=REPO, stderr=subprocess.PIPE, text=True)
    try:
        for sig, (out, proc) in runs.items():
            deadline = time.time() + 120
            while not (out / STATE).exists():  # a step done: the loop (and its signal handlers) runs
                assert proc.poll() is None and time.time() < deadline, proc.stderr.read()
                time.sleep(0.02)
            proc.send_signal(sig)
        for sig, (out, proc) in runs.items():
            err = proc.communicate(timeout=60)[1]
            assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, (sig, err)
            model, adam, loop, _, _ = load_state(out)
            assert adam.t > 0 and np.isfinite(model.flat).all()
            tally["fault: training stopped with SIGHUP/SIGQUIT"] += 1
    finally:
        for _, proc in runs.values():
            proc.kill()
            proc.wait()


# --- hand-made files with recomputed checksums -----------------------------------------------------------

MODEL_EDITS = [("d_model", 16.0), ("d_model", -16), ("d_model", True), ("d_model", "16"), ("n_heads", 0),
               ("n_heads", 3), ("max_src_len", 10**12), ("max_tgt_len", -1), ("src_vocab", 10**9), ("dropout", math.nan),
               ("dropout", 1.0), ("n_layers", None), ("attn_dropout", math.inf), ("bogus", 1)]
STATE_EDITS = [("loop", "epoch", "x"), ("loop", "batch", -5), ("loop", "elapsed", math.nan), ("loop", "rng", {}),
               ("loop", "rng", {"bit_generator": "PCG64", "state": "x"}), ("loop", "epoch_sums", [1, 2]),
               ("loop", "history", [{"epoch": "one"}]), ("loop", "best_error", -1.0), ("train", "batch_size", 0),
               ("train", "warmup", 0), ("train", "lr_schedule", "bogus"), ("train", "label_smoothing", 1.5),
               ("train", "seed", -1), ("train", "max_epochs", 2.5), ("train", "beta2", 1.0), ("step", None, 1.5),
               ("step", None, -3), ("model", "d_ff", 0), ("loop", None, []), ("train", None, "x")]


def _resave(path: Path, edit) -> None:
    tensors, meta = load_tensors(path)
    edit(meta)
    save_tensors(path, tensors, meta)  # a valid checksum over the hand-made content


def test_hand_made_configs_and_states_with_recomputed_checksums_are_one_line(world, tmp_path, run_cli, cli_env, tally):
    work = Path(shutil.copytree(world.model, tmp_path / "model"))
    pristine = {n: (work / n).read_bytes() for n in (WEIGHTS, STATE)}
    for field, value in MODEL_EDITS:
        _resave(work / WEIGHTS, lambda meta: meta["model"].__setitem__(field, value))
        with pytest.raises(UserError) as e:
            Translator(work)
        assert "\n" not in str(e.value) and "invalid model config" in str(e.value), (field, value)
        (work / WEIGHTS).write_bytes(pristine[WEIGHTS])
        tally["fault: hand-made model and state files (checksums recomputed)"] += 1
    for part, field, value in STATE_EDITS:
        def edit(meta):
            if field is None:
                meta[part] = value
            else:
                meta[part][field] = value
        _resave(work / STATE, edit)
        with pytest.raises(UserError) as e:
            load_state(work)
        assert "\n" not in str(e.value) and "invalid training state" in str(e.value), (part, field, value)
        tally["fault: hand-made model and state files (checksums recomputed)"] += 1
    error_line(run_cli("train", "--out", work, "--resume"))
    for command in (["translate", "-m", work, "Hi."], ["info", work]):
        _resave(work / WEIGHTS, lambda meta: meta["model"].__setitem__("d_model", 16.5))
        assert "d_model" in error_line(run_cli(*command))
    (work / WEIGHTS).write_bytes(pristine[WEIGHTS])
    _resave(work / WEIGHTS, lambda meta: meta["data"].__setitem__("seed", -1))
    assert "seed" in error_line(run_cli("evaluate", "-m", work, "--limit", "2"))
    (work / WEIGHTS).write_bytes(pristine[WEIGHTS])
    (work / STATE).write_bytes(pristine[STATE])
    load_model(work), load_state(work)


METRICS_LINES = ['{"epoch": "1"}', '{"epoch": 1, "train_error": NaN, "selection_error": 1, "train_accuracy": 0.5, '
                 '"selection_accuracy": 0.5}', "not json", "[1, 2]", '{"epoch": -1}', "{}",
                 '{"epoch": 1, "train_error": 1e999, "selection_error": 1, "train_accuracy": 2, "selection_accuracy": 0}',
                 "\x00\x01", '{"epoch": 1, "train_error": 1, "selection_error": 1, "train_accuracy": 0.5}']
SCORES_FILES = ["[]", '"x"', "{", '{"a": 1}', '{"a": {"bleu": "high"}}', '{"a": {"bleu": NaN, "chrf": 1, "pairs": 1, '
                '"decoding": "greedy"}}', '{"a": {"bleu": 1, "chrf": 1, "pairs": -1, "decoding": "greedy"}}', "\xff\xfe"]


def test_hand_made_metrics_and_scores_are_one_line_and_never_overwritten(world, tmp_path, run_cli, tally):
    work = Path(shutil.copytree(world.model, tmp_path / "model"))
    good = (work / METRICS).read_text().splitlines()[0]
    for i, line in enumerate(METRICS_LINES):
        (work / METRICS).write_text(good + "\n" + line + "\n" if i % 2 else line + "\n")
        out = tmp_path / "curves.png"
        msg = error_line(run_cli("plot", work, "-o", out))
        assert METRICS in msg and not out.exists(), line
        tally["input: hand-made metrics.jsonl and scores.json"] += 1
    for text in SCORES_FILES:
        (work / SCORES).write_text(text, encoding="latin-1")
        before = (work / SCORES).read_bytes()
        assert SCORES in error_line(run_cli("evaluate", "-m", work, "--data", world.corpus, "--limit", "2", "--beam",
                                            "1", "--save"))
        code, _, err = run_cli("info", work)  # info only reads it: a warning naming it, the rest shown
        assert code == 0 and err.startswith("warning:") and SCORES in err and err.count("\n") == 1
        assert (work / SCORES).read_bytes() == before
        tally["input: hand-made metrics.jsonl and scores.json"] += 2


def _rechecksum(d: Path) -> None:
    m = json.loads((d / "manifest.json").read_text())
    m["files"] = {name: file_sha256(d / name) for name in m["files"]}
    m["checksum"] = _manifest_digest(m)
    (d / "manifest.json").write_text(json.dumps(m))


MANIFEST_EDITS = [("seed", 1.5), ("seed", -1), ("split", "bogus"), ("vocab", {"en": -5, "es": 220}),
                  ("data", {"path": "x", "format": "tsv", "pairs": "many", "skipped": 0, "skipped_lines": []}),
                  ("split_sizes", {"train": -1, "selection": 1, "test": 1}), ("roundtrip", {"en": math.nan, "es": 1}),
                  ("fractions", [0.5]), ("seconds", -1)]


def test_hand_made_manifests_and_splits_with_recomputed_checksums_are_refused(world, tmp_path, tally):
    d = Path(shutil.copytree(world.prepared, tmp_path / "prepared"))
    pristine = (d / "manifest.json").read_text()
    for key, value in MANIFEST_EDITS:
        m = json.loads(pristine)
        m[key] = value
        (d / "manifest.json").write_text(json.dumps(m))
        _rechecksum(d)
        with pytest.raises(UserError, match=f"{key}.*rebuild it"):
            load_prepared(d)
        tally["fault: hand-made manifests and splits (checksums recomputed)"] += 1
    (d / "manifest.json").write_text(pristine)
    split = EncodedSplit.load(d / "train.npz")
    for change in ("id beyond the vocabulary", "empty split"):
        s = EncodedSplit(split.src.copy(), split.src_offsets, split.tgt, split.tgt_offsets, split.index)
        if change == "empty split":
            s = EncodedSplit.from_sequences([], [], [])
        else:
            s.src[1] = 60000  # an embedding row far past the table: read out of bounds if it got through
        s.save(d / "train.npz")
        _rechecksum(d)
        with pytest.raises(UserError, match="token ids its tokenizers do not have|split is empty"):
            load_prepared(d)
        tally["fault: hand-made manifests and splits (checksums recomputed)"] += 1


# --- corpora that cannot train ---------------------------------------------------------------------------


def test_corpora_that_leave_a_split_empty_are_refused(tmp_path, run_cli, tally):
    cases = {"two pairs": [("Hello.", "Hola."), ("Bye.", "Adiós.")],
             "one English sentence": [("Hello.", f"Hola {i}.") for i in range(50)]}
    for name, pairs in cases.items():
        corpus = write_tsv(tmp_path / "spa.txt", pairs)
        line = error_line(run_cli("tokenize", "--data", corpus, "--out", tmp_path / "prep", *SMALL))
        assert "split empty" in line, name
        assert not (tmp_path / "prep" / "manifest.json").exists()
        tally["input: corpora that cannot train"] += 1


def test_a_tsv_with_a_csv_looking_header_is_read_as_tsv(tmp_path, run_cli, tally):
    pairs = tiny_pairs()
    for name, header in (("corpus.tsv", "english,spanish"), ("corpus", "english,spanish"), ("spa.txt", "english\tspanish")):
        path = tmp_path / name
        path.write_text(header + "\n" + "".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")
        code, out, err = run_cli("tokenize", "--data", path, "--out", tmp_path / f"prep-{name}", *SMALL)
        assert code == 0, err
        m = load_prepared(tmp_path / f"prep-{name}").manifest["data"]
        assert m["format"] == "tsv" and m["pairs"] == len(pairs) and m["skipped"] == (header != "english\tspanish")
        tally["input: corpora that cannot train"] += 1
