"""Reliability: killed runs, damaged files, NaN/Inf, hostile input and full disks never lose
work or crash. Every fault is one line on stderr with exit code 2 (3 for NaN/Inf); the counts of
fault trials and bad inputs are printed at the end of the run (conftest.pytest_terminal_summary)."""

from __future__ import annotations

import dataclasses
import errno
import io
import json
import math
import os
import pickle
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mtcli.atomic as atomic
import mtcli.train as train_module
from mtcli.checkpoint import METRICS, SRC_TOK, STATE, TGT_TOK, WEIGHTS, load_model, save_tensors
from mtcli.config import TrainConfig
from mtcli.data import PREPARED_FILES, EncodedSplit, load_prepared, make_batches, prepare, read_corpus
from mtcli.decode import Translator
from mtcli.distributed import Replicas
from mtcli.errors import UserError
from mtcli.model import Model
from mtcli.tokenizer import Tokenizer
from mtcli.train import NonFiniteError, load_state, train
from tests import worlds
from tests.conftest import REPO
from tests.worlds import QUIET, TINY, VOCAB, cli_env, error_line, tiny_cfg  # noqa: F401 (a fixture)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return worlds.world(tmp_path_factory)


@pytest.fixture(scope="module")
def translator(world) -> Translator:
    return Translator(world.model)




def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def copy_model(world, tmp_path: Path) -> Path:
    """A copy of the trained model directory to damage."""
    return Path(shutil.copytree(world.model, tmp_path / "model"))


def replace_file(path: Path, data: bytes | None) -> None:
    """Write `data` over path; None deletes it."""
    path.unlink(missing_ok=True)
    if data is not None:
        path.write_bytes(data)


# --- 1. killed training ----------------------------------------------------------------------------

# `mtcli train` with a state save after every step, logging each completed save; T_HANG_AT=n makes
# the n-th state write stop between its temporary file and the rename (T_PARTIAL=1: half written)
# until it is killed, so a kill lands inside a checkpoint write for certain.
KILL_WRAPPER = r"""
import os, sys, time
from pathlib import Path
import mtcli.atomic as atomic
import mtcli.checkpoint as checkpoint
import mtcli.train as train

train.CHECKPOINT_SECONDS = 0.0
log, marker = Path(os.environ["T_SAVE_LOG"]), Path(os.environ["T_MARKER"])
hang_at, partial = int(os.environ["T_HANG_AT"]), os.environ["T_PARTIAL"] == "1"
writes = 0

real_save_tensors = checkpoint.save_tensors
def save_tensors(path, tensors, meta):
    real_save_tensors(path, tensors, meta)
    if Path(path).name == checkpoint.STATE:
        with open(log, "a") as f:
            f.write(f"{meta['step']}\n")
checkpoint.save_tensors = save_tensors

real_write = checkpoint.atomic_write_bytes
def atomic_write_bytes(path, data):
    global writes
    writes += Path(path).name == checkpoint.STATE
    if Path(path).name != checkpoint.STATE or writes != hang_at:
        return real_write(path, data)
    def write(tmp):
        tmp.write_bytes(data[: len(data) // 2] if partial else data)
        marker.touch()
        time.sleep(600)
    atomic.atomic_write(path, write)
checkpoint.atomic_write_bytes = atomic_write_bytes

from mtcli.cli import main
sys.argv = ["mtcli", *sys.argv[1:]]
main()
"""


def _wait_for(condition, proc, log: Path, timeout: float = 90.0) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert proc.poll() is None, f"training ended early:\n{log.read_text(errors='replace')}"
        assert time.time() < deadline, "training did not start"
        time.sleep(0.01)


def _kill_training(world, out: Path, delay: float, after_first_save: bool = True, hang_at: int = 0,
                   partial: bool = False) -> list[int]:
    """Start `mtcli train`, SIGKILL it `delay` s after its first state save (or after it wrote its
    tokenizers, or into its hung state write); returns the steps of the state saves that completed."""
    saves, marker, log = out.with_suffix(".saves"), out.with_suffix(".hanging"), out.with_suffix(".log")
    env = {**os.environ, "MTCLI_DATA": str(world.corpus), "MTCLI_PREPARED": str(world.prepared),
           "T_SAVE_LOG": str(saves), "T_MARKER": str(marker), "T_HANG_AT": str(hang_at), "T_PARTIAL": str(int(partial))}
    args = [sys.executable, "-c", KILL_WRAPPER, "train", "--out", str(out), *TINY, "--max-epochs", "100000",
            "--patience", "100000"]
    with open(log, "wb") as f:
        proc = subprocess.Popen(args, env=env, cwd=REPO, stdout=f, stderr=subprocess.STDOUT)
    try:
        _wait_for(marker.exists if hang_at else (saves.exists if after_first_save else (out / SRC_TOK).exists), proc, log)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()
    return [int(s) for s in saves.read_text().split()] if saves.exists() else []


def test_sigkill_at_random_moments_leaves_a_loadable_resumable_checkpoint(world, tmp_path, run_cli, cli_env, tally):
    """Eight `mtcli train` runs (a state save after every step, so most kills hit a write) are killed
    with SIGKILL: six after seeded random delays, two inside a state write for certain (the temporary
    file half or fully written, not yet renamed). The last completed state always loads, holds finite
    numbers and is at least as far as the last save reported; --resume then runs to the end and clears
    the dead write's temporary file. Only a run killed before its first save may have no state."""
    rng = random.Random(7)
    trials = [dict(delay=0.0, after_first_save=False)] + [dict(delay=rng.uniform(0, 0.5)) for _ in range(5)]
    trials += [dict(delay=rng.uniform(0, 0.1), hang_at=3, partial=True), dict(delay=0.0, hang_at=5)]
    for i, trial in enumerate(trials):
        out = tmp_path / f"run{i}"
        saves = _kill_training(world, out, **trial)
        tally["fault: training runs killed with SIGKILL"] += 1
        debris = list(out.glob(f".{STATE}.*.tmp"))
        tally["  of which inside a state write (temporary file left)"] += bool(debris)
        if trial.get("hang_at"):
            assert debris and len(saves) == trial["hang_at"] - 1
        if not (out / STATE).exists():
            assert not saves, f"trial {trial}: a completed state file was lost"
            assert "no such file" in error_line(run_cli("train", "--out", out, "--resume"))
            continue
        model, adam, loop, _, _ = load_state(out)
        assert adam.t >= max(saves, default=1) and np.isfinite(model.flat).all() and np.isfinite(adam.v).all()
        if trial.get("hang_at"):
            assert adam.t == saves[-1]  # the interrupted write left the previous state in place
        if (out / WEIGHTS).exists():
            Translator(out)  # the weights and tokenizers beside the state are whole and consistent too
        if (out / METRICS).exists():
            [json.loads(line) for line in (out / METRICS).read_text().splitlines()]
        code, _, err = run_cli("train", "--out", out, "--resume", "--max-epochs", str(loop.epoch + 2))
        assert code == 0 and "resuming" in err, err
        _, resumed, end, _, _ = load_state(out)
        assert end.epoch == loop.epoch + 2 and resumed.t > adam.t and end.done.startswith("--max-epochs")
        assert not list(out.glob(f".{STATE}.*.tmp")), "the dead write's temporary file is still there"
        tally["  of which resumed to the end"] += 1


# --- 2. damaged and mismatched files -----------------------------------------------------------------

DAMAGES = ("truncate", "flip", "flip in header", "zero block", "append", "empty", "missing")


def damage(data: bytes, kind: str, rng: random.Random) -> bytes | None:
    """`data` changed by `kind` (always changed); None for a missing file."""
    b = bytearray(data)
    if kind == "truncate":
        return data[: rng.randrange(len(data))]
    if kind in ("flip", "flip in header"):
        i = rng.randrange(min(len(b), 3000) if kind == "flip in header" else len(b))
        b[i] ^= rng.randrange(1, 256)
    elif kind == "zero block":
        i = rng.randrange(len(b))
        n = min(rng.randint(1, 64), len(b) - i)
        b[i : i + n] = bytes(n) if any(b[i : i + n]) else b"\xff" * n
    elif kind == "append":
        b += rng.randbytes(rng.randint(1, 64))
    elif kind == "empty":
        return b""
    elif kind == "missing":
        return None
    return bytes(b)


def test_every_damaged_model_or_state_file_is_detected(world, tmp_path, tally):
    """280 seeded random damages (truncation, flipped bytes anywhere or in the safetensors/JSON header,
    zeroed blocks, appended garbage, empty, missing) of model.safetensors, state.safetensors, src.json
    and tgt.json: each one is a one-line UserError on loading, never a wrong model or a traceback."""
    work = copy_model(world, tmp_path)
    pristine = snapshot(work)
    rng = random.Random(11)
    for name in (WEIGHTS, STATE, SRC_TOK, TGT_TOK):
        for k in range(70):
            kind = DAMAGES[k % len(DAMAGES)]
            changed = damage(pristine[name], kind, rng)
            replace_file(work / name, changed)
            with pytest.raises(UserError) as e:
                load_state(work) if name == STATE else Translator(work)
            assert "\n" not in str(e.value), str(e.value)
            tally["fault: damaged model-directory files"] += 1
            (work / name).write_bytes(pristine[name])
    Translator(work), load_state(work)  # restored: loads again


@pytest.mark.parametrize("name,kind", [(WEIGHTS, "flip"), (WEIGHTS, "truncate"), (SRC_TOK, "flip in header"),
                                       (TGT_TOK, "missing"), (STATE, "truncate")])
def test_damaged_files_through_the_cli_are_one_line_exit_2(world, tmp_path, run_cli, cli_env, name, kind, tally):
    work = copy_model(world, tmp_path)
    changed = damage((work / name).read_bytes(), kind, random.Random(3))
    replace_file(work / name, changed)
    if name == STATE:
        assert "state.safetensors" in error_line(run_cli("train", "--out", work, "--resume"))
    else:
        for args in (["translate", "-m", work, "Hello."], ["info", work], ["evaluate", work, "--limit", "3"]):
            code, out, err = run_cli(*args)
            assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), err
            assert name in err, f"the error does not name the damaged file: {err}"
    tally["fault: damaged files given to the CLI"] += 1


def _mix_up(world, work: Path, case: str) -> None:
    other = world.other
    if case == "tokenizer of another model, same size":
        shutil.copy(other / SRC_TOK, work / SRC_TOK)
    elif case == "English and Spanish tokenizers swapped":
        (work / SRC_TOK).write_bytes((world.model / TGT_TOK).read_bytes())
        (work / TGT_TOK).write_bytes((world.model / SRC_TOK).read_bytes())
    elif case == "weights of another model":
        shutil.copy(other / WEIGHTS, work / WEIGHTS)
    elif case == "config that does not fit the weights":
        model, meta = load_model(world.model)
        meta["model"] = {**meta["model"], "d_ff": 32}  # a valid checksum over a wrong config: still refused
        save_tensors(work / WEIGHTS, {f"{g}.{n}": t for g, ts in model.params.items() for n, t in ts.items()}, meta)
    elif case == "tokenizer of another vocabulary size, model without tokenizer hashes":
        model, meta = load_model(world.model)
        meta.pop("tokenizers")
        save_tensors(work / WEIGHTS, {f"{g}.{n}": t for g, ts in model.params.items() for n, t in ts.items()}, meta)
        shutil.copy(world.model / TGT_TOK, work / SRC_TOK)
    elif case == "model.safetensors missing":
        (work / WEIGHTS).unlink()
    elif case == "empty directory":
        for p in work.iterdir():
            p.unlink()
    elif case == "a file, not a directory":
        shutil.rmtree(work)
        work.write_bytes(b"not a model")


MIX_UPS = {  # case: what the error says
    "tokenizer of another model, same size": "src.json is not the tokenizer",
    "English and Spanish tokenizers swapped": "is not the tokenizer",
    "weights of another model": "is not the tokenizer",
    "config that does not fit the weights": "weights do not match the model config",
    "tokenizer of another vocabulary size, model without tokenizer hashes": "no tokenizer checksums",
    "model.safetensors missing": "model.safetensors: no such file",
    "empty directory": "model.safetensors: no such file",
    "a file, not a directory": "model: not a directory",
}


@pytest.mark.parametrize("case", MIX_UPS)
def test_mismatched_model_files_are_refused_in_one_line(world, tmp_path, run_cli, case, tally):
    work = copy_model(world, tmp_path)
    _mix_up(world, work, case)
    code, out, err = run_cli("translate", "-m", work, "Hello.")
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    assert MIX_UPS[case] in err, err
    tally["fault: mismatched model files"] += 1


def test_damaged_prepared_data_is_detected_and_rebuilt(world, tmp_path, tally):
    """Every file of `mtcli tokenize`'s output is checksummed in the manifest (and the manifest itself):
    a damaged one is a one-line error, and `prepare` (what tokenize and train call) rebuilds it."""
    work = tmp_path / "prepared"
    shutil.copytree(world.prepared, work)
    pristine = snapshot(work)
    rng = random.Random(5)
    for name in (*PREPARED_FILES, "manifest.json"):
        for kind in ("truncate", "flip", "flip", "flip in header", "zero block", "append", "missing"):
            changed = damage(pristine[name], kind, rng)
            replace_file(work / name, changed)
            with pytest.raises(UserError) as e:
                load_prepared(work)
            assert "\n" not in str(e.value)
            tally["fault: damaged prepared-data files"] += 1
            (work / name).write_bytes(pristine[name])
    (work / "train.npz").write_bytes(damage(pristine["train.npz"], "flip", rng))
    assert not prepare(world.corpus, work, **VOCAB).reused
    assert load_prepared(work).manifest["files"] == json.loads(pristine["manifest.json"])["files"]


class _Payload:
    """Unpickling this creates a file: the proof that a loader ran code from a data file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_model_and_data_files_never_unpickle(world, tmp_path, tally):
    marker = tmp_path / "code-ran"
    payload = pickle.dumps(_Payload(marker))
    pickle.loads(payload)  # the payload is live: loading it with pickle runs code
    assert marker.exists()
    marker.unlink()
    work = copy_model(world, tmp_path)
    for name in (WEIGHTS, STATE, SRC_TOK):
        (work / name).write_bytes(payload)
        with pytest.raises(UserError):
            load_state(work) if name == STATE else Translator(work)
        (work / name).write_bytes((world.model / name).read_bytes())
        tally["fault: pickle payloads as model files"] += 1
    buf = io.BytesIO()  # an .npz whose arrays are pickled objects
    np.savez(buf, **{k: np.array([_Payload(marker)], dtype=object) for k in EncodedSplit.ARRAYS})
    (tmp_path / "train.npz").write_bytes(buf.getvalue())
    with pytest.raises(UserError):
        EncodedSplit.load(tmp_path / "train.npz")
    tally["fault: pickle payloads as model files"] += 1
    assert not marker.exists()
    for path in (REPO / "mtcli").rglob("*.py"):  # and no loader that could: no unpickling, every np.load refuses it
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pickle\.loads?\(|Unpickler|\b(dill|joblib|torch)\b", text), path
        assert "allow_pickle=True" not in text, path
        assert all("allow_pickle=False" in call for call in re.findall(r"np\.load\([^)]*\)", text)), path


# --- 3. numerical faults -------------------------------------------------------------------------------

BAD_STEP = 20  # in the second epoch of the tiny corpus (about 12 batches of 8)


def _faulty_forward_backward(monkeypatch, fault: str, at: int) -> None:
    """Training step number `at` computes a NaN/Inf loss, or gradient (inside the model, so before
    the threads' gradients are summed and measured)."""
    real_step, real_model = Replicas.forward_backward, Model.forward_backward
    step = {"n": 0}
    value = math.nan if fault.startswith("nan") else math.inf

    def faulty_step(self, *a, **k):
        step["n"] += 1
        s = real_step(self, *a, **k)
        return dataclasses.replace(s, loss=value) if step["n"] == at and fault.endswith("loss") else s

    def faulty_model(self, *a, **k):
        s = real_model(self, *a, **k)
        if step["n"] == at and fault.endswith("gradient"):
            self.grad[7] = value
        return s

    monkeypatch.setattr(Replicas, "forward_backward", faulty_step)
    monkeypatch.setattr(Model, "forward_backward", faulty_model)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # clipping an infinite gradient
@pytest.mark.parametrize("fault", ["nan loss", "inf loss", "nan gradient", "inf gradient"])
def test_non_finite_step_stops_with_the_last_good_state(world, tmp_path, monkeypatch, fault, tally):
    p = load_prepared(world.prepared)
    monkeypatch.setattr(train_module, "CHECKPOINT_SECONDS", 0.0)  # a state after every step
    _faulty_forward_backward(monkeypatch, fault, BAD_STEP)
    out = tmp_path / "run"
    with pytest.raises(NonFiniteError, match=f"became {fault.split()[0]} at step {BAD_STEP};") as e:
        train(p, out, tiny_cfg(), TrainConfig(batch_size=8, max_epochs=50, patience=50), console=QUIET)
    assert e.value.exit_code == 3 and "\n" not in str(e.value)
    model, adam, _, _, _ = load_state(out)
    assert adam.t == BAD_STEP - 1, "the state is the one before the bad step"
    assert all(np.isfinite(a).all() for a in (model.flat, adam.m, adam.v))
    assert np.isfinite(load_model(out)[0].flat).all()
    monkeypatch.undo()
    end = train(p, out, tiny_cfg(), TrainConfig(batch_size=8, max_epochs=3), resume=True, console=QUIET, overrides=("max_epochs",))
    assert end.done.startswith("--max-epochs") and end.epoch == 3
    tally["fault: NaN/Inf injected into training"] += 1


def test_non_finite_loss_from_the_cli_is_exit_3_one_line(world, tmp_path, monkeypatch, run_cli, cli_env, tally):
    _faulty_forward_backward(monkeypatch, "nan loss", 3)
    line = error_line(run_cli("train", "--out", tmp_path / "run", *TINY), code=3)
    assert "nan at step 3" in line and "--lr-scale" in line
    tally["fault: NaN/Inf injected into training"] += 1


def test_non_finite_before_the_first_periodic_save_still_leaves_a_state(world, tmp_path, monkeypatch):
    p = load_prepared(world.prepared)
    _faulty_forward_backward(monkeypatch, "nan loss", 5)
    with pytest.raises(NonFiniteError):
        train(p, tmp_path / "run", tiny_cfg(), TrainConfig(batch_size=8), console=QUIET)
    assert load_state(tmp_path / "run")[1].t == 4  # what the error message promises


def test_max_epochs_and_max_time_always_end_with_a_saved_state(world, tmp_path, run_cli, cli_env):
    a, b = tmp_path / "epochs", tmp_path / "time"
    code, _, err = run_cli("train", "--out", a, *TINY, "--max-epochs", "2")
    assert code == 0, err
    _, adam, loop, _, _ = load_state(a)
    assert loop.epoch == 2 and loop.done == "--max-epochs 2 reached" and (a / WEIGHTS).exists()
    code, _, err = run_cli("train", "--out", b, *TINY, "--max-time", "0.000001")  # stops after one step
    assert code == 0, err
    _, adam, loop, _, _ = load_state(b)
    assert (adam.t, loop.epoch, loop.batch) == (1, 0, 1) and loop.done.startswith("--max-time")
    code, _, err = run_cli("train", "--out", b, "--resume", "--max-time", "1000", "--max-epochs", "1")
    assert code == 0 and "epoch 1, batch 1, step 1" in err, err
    _, adam, loop, _, _ = load_state(b)
    per_epoch = len(make_batches(load_prepared(world.prepared).splits["train"], 8, 0, 0))
    assert loop.epoch == 1 and loop.done == "--max-epochs 1 reached" and adam.t == per_epoch


# --- 4. hostile input ------------------------------------------------------------------------------------

ANY_CHAR = st.characters(exclude_categories=())  # every code point, lone surrogates included
ODD_CHARS = st.sampled_from(list("\x00\t\r\x0b\x0c\x1b\x7f\x85\u2028\u2029\ufeff\u200b\u200d\u202e\ufffd\u0301 a.?¿🙂"))
SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=())  # undecodable bytes
HOSTILE_TEXT = st.one_of(st.text(ANY_CHAR, max_size=60), st.text(ODD_CHARS, max_size=60),
                         st.text(st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF), max_size=20),
                         st.text(SURROGATES | st.sampled_from(list("ab .")), max_size=20))
ENCODINGS = ("utf-8", "utf-8-sig", "latin-1", "cp1252", "utf-16-le", "utf-16")


def _strict_utf8(text: str) -> bool:
    text.encode("utf-8")  # raises on lone surrogates
    return True


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hostile")


def _check_corpus(path: Path, raw: bytes):
    try:
        corpus = read_corpus(path)
    except UserError as e:
        assert "\n" not in str(e)
        return None
    assert corpus.pairs and len(corpus.pairs) + corpus.skipped <= raw.count(b"\n") + raw.count(b"\r") + 1  # (CR ends lines too)
    for en, es in corpus.pairs:
        assert en and es and en == en.strip() and es == es.strip() and _strict_utf8(en + es)
    return corpus


@FAST
@given(raw=st.binary(max_size=3000), name=st.sampled_from(["spa.txt", "data.csv", "corpus"]))
def test_corpus_reader_on_arbitrary_bytes(scratch, raw, name, tally):
    path = scratch / name
    path.write_bytes(raw)
    _check_corpus(path, raw)
    tally["input: arbitrary byte strings as a corpus (hypothesis)"] += 1


@FAST
@given(lines=st.lists(st.tuples(HOSTILE_TEXT, HOSTILE_TEXT, st.sampled_from(ENCODINGS)), max_size=12))
def test_corpus_reader_on_mixed_encodings_and_odd_text(scratch, lines, tally):
    """Each line in its own encoding: the UTF-8 ones with two clean sides (no NUL) are all read, the rest
    are skipped or read as whatever valid UTF-8 they happen to be, never a crash."""
    raw = b"Hello.\tHola.\n" + b"".join((en + "\t" + es).encode(enc, "surrogatepass" if "utf-8" == enc else "replace")
                                         + b"\n" for en, es, enc in lines)
    path = scratch / "mixed.txt"
    path.write_bytes(raw)
    corpus = _check_corpus(path, raw)
    clean = {(en.strip(), es.strip()) for en, es, enc in lines
             if enc == "utf-8" and en.strip() and es.strip() and not re.search("[\x00\t\n\r\ud800-\udfff]", en + es)}  # (a NUL: binary, skipped)
    assert corpus is not None and clean <= set(corpus.pairs)
    tally["input: corpus files of mixed encodings and odd text (hypothesis)"] += 1


def test_binary_files_as_corpus_and_as_translate_input(world, tmp_path, run_cli, tally):
    binary = tmp_path / "binary.bin"  # random bytes, NULs and a safetensors file: the same on every machine
    binary.write_bytes(random.Random(1).randbytes(200_000) + bytes(10_000) + (world.model / WEIGHTS).read_bytes())
    line = error_line(run_cli("tokenize", "--data", binary, "--out", tmp_path / "prep", "--src-vocab", "200",
                              "--tgt-vocab", "220"))
    assert "no valid English-Spanish pair" in line
    line = error_line(run_cli("translate", "-m", world.model, "-i", binary, "--greedy"))
    assert str(binary) in line and "byte offset" in line  # refused, not translated into noise
    tally["input: binary files as corpus or translate input"] += 2


@pytest.fixture(scope="module")
def tokenizers(world):
    p = load_prepared(world.prepared)
    return p.src_tok, p.tgt_tok


@FAST
@given(texts=st.lists(HOSTILE_TEXT, max_size=8), ids=st.lists(st.integers(0, 199), max_size=40))
def test_tokenizers_on_any_text_and_ids(tokenizers, texts, ids, tally):
    for tok in tokenizers:
        batch = tok.encode_batch(texts)
        assert batch == [tok.encode(t) for t in texts]
        assert all(0 <= i < tok.vocab_size for seq in batch for i in seq)
        assert all(_strict_utf8(s) for s in tok.decode_batch(batch) + [tok.decode(ids)])
    tally["input: texts and id sequences given to the tokenizers (hypothesis)"] += len(texts) + 1


def test_damaged_tokenizer_json_loads_safely_or_not_at_all(world, tmp_path, tally):
    """600 seeded mutations of a tokenizer file, random bytes and edits of its JSON fields: Tokenizer.load
    either refuses it in one line or gives a tokenizer that encodes and decodes without failing
    (the Rust library panics on some damaged pipelines, so only the vocabulary is read from the file)."""
    original = (world.model / SRC_TOK).read_bytes()
    rng = random.Random(9)
    path = tmp_path / "tok.json"
    for trial in range(600):
        if trial % 3:
            data = damage(original, rng.choice(DAMAGES[:-1]), rng)
        else:
            doc = json.loads(original)
            m = doc["model"]
            field = rng.choice(["id", "unk_token", "max_input_chars_per_word", "continuing_subword_prefix", "vocab",
                                "type", "normalizer", "decoder", "pre_tokenizer"])
            junk = rng.choice([None, -1, 0, 1.5, 10**20, "", "x", [], {}])
            if field == "id":
                m["vocab"][rng.choice(list(m["vocab"]))] = junk
            elif field == "vocab":
                m["vocab"] = dict(list(m["vocab"].items())[: rng.randint(0, 10)])
            elif field in m:
                m[field] = junk
            else:
                doc[field] = junk if rng.random() < 0.5 else {"type": "Strip", "content": " ", "start": 99, "stop": -1}
            data = json.dumps(doc).encode()
        path.write_bytes(data)
        try:
            tok = Tokenizer.load(path)
        except UserError as e:
            assert "\n" not in str(e)
        else:
            ids = tok.encode_batch(["Where is the cat?", "", "🙂 \x00 ¿Qué?"])
            tok.decode_batch(ids), tok.decode(list(range(tok.vocab_size)))
        tally["fault: damaged tokenizer files"] += 1


@FAST
@given(lines=st.lists(HOSTILE_TEXT, max_size=6), beam=st.sampled_from([1, 2]))
def test_translate_any_lines(translator, lines, beam, tally):
    results, _ = translator.translate(lines, beam=beam, nbest=beam, batch_size=4)
    assert len(results) == len(lines)
    for line, nbest in zip(lines, results):
        assert nbest and all(_strict_utf8(text) and isinstance(score, float) for text, score in nbest)
        if not line.strip():
            assert nbest == [("", 0.0)]
    tally["input: lines given to Translator.translate (hypothesis)"] += len(lines)


def _expected_lines(raw: bytes) -> int | None:
    """The lines `mtcli translate` reads from raw (UTF-8, or UTF-16 with a BOM; LF, CRLF or CR ends), or
    None where it must refuse the input (undecodable, or a NUL byte)."""
    encoding = next((enc for bom, enc in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
                     if raw.startswith(bom)), "utf-8-sig")
    try:
        text = raw.decode(encoding).removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None
    parts = re.split("\r?\n" if "\n" in text else "\r", text)  # (a CR alone ends no line of LF or CRLF text)
    return len(parts) - (parts[-1] == "")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.one_of(st.binary(max_size=400),
                     st.lists(HOSTILE_TEXT, max_size=6).map(lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass"))),
       as_json=st.booleans())
def test_translate_cli_one_output_line_per_input_line(world, scratch, run_cli, raw, as_json, tally):
    src = scratch / "in.txt"
    src.write_bytes(raw)
    code, out, err = run_cli("translate", "-m", world.model, "-i", src, "--greedy", *(["--json"] if as_json else []))
    expected = _expected_lines(raw)
    if expected is None:  # not text: one line naming where, nothing written
        assert code == 2 and out == "" and err.count("\n") == 1 and "byte offset" in err, err
        return
    assert code == 0, err
    *rows, last = out.split("\n")
    assert last == "" and len(rows) == expected and _strict_utf8(out)
    if as_json:
        assert [json.loads(r)["line"] for r in rows] == list(range(1, len(rows) + 1))
    tally["input: files given to `mtcli translate -i` (hypothesis)"] += 1


def test_translate_extreme_lines(translator, run_cli, world, tally):
    lines = ["the cat " * 20_000, "x" * 1_000_000, "🙂" * 50_000, "\x00" * 1000, "\u0301" * 5000, " \t\r\x0b\x0c ",
             "\ud800 lone \udcff surrogates", "RTL \u202e and zero-width \u200b\u200d joiners", "[END] [PAD] [START]"]
    results, truncated = translator.translate(lines, beam=2)
    assert len(results) == len(lines) and truncated >= 2 and results[5] == [("", 0.0)]
    assert all(_strict_utf8(t) for r in results for t, _ in r)
    # undecodable bytes as command-line arguments reach Python as lone surrogates: refused, naming the argument
    code, out, err = run_cli("translate", "-m", world.model, "--greedy", "hello \udcff\udcfe world", "\ud800")
    assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "argument 1" in err, err
    tally["input: extreme lines (1 MB, 50,000 emoji, NUL, surrogates, ...)"] += len(lines) + 2


# --- 5. full disk, unwritable paths --------------------------------------------------------------------------


def _enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["write", "fsync", "rename"])
def test_full_disk_keeps_the_previous_model_intact(world, tmp_path, monkeypatch, run_cli, cli_env, where, tally):
    """ENOSPC injected into every file write (half the bytes written first), fsync or rename of a resumed
    run: one-line error, exit 2, every file of the model directory byte-identical, no temporary file;
    the intact state then resumes normally."""
    work = copy_model(world, tmp_path)
    before = snapshot(work)
    epoch = load_state(work)[2].epoch
    with monkeypatch.context() as fault:
        if where == "write":  # (atomic._write_file: where every model file's bytes are written)
            real = atomic._write_file

            def half(tmp, pieces):
                data = b"".join(pieces)
                real(tmp, [data[: len(data) // 2]])
                _enospc()

            fault.setattr(atomic, "_write_file", half)
        else:
            fault.setattr(os, {"fsync": "fsync", "rename": "replace"}[where], _enospc)
        line = error_line(run_cli("train", "--out", work, "--resume", "--max-epochs", str(epoch + 3)))
    assert "No space left on device" in line
    assert snapshot(work) == before
    code, _, err = run_cli("train", "--out", work, "--resume", "--max-epochs", str(epoch + 1))
    assert code == 0 and load_state(work)[2].epoch == epoch + 1, err
    tally["fault: ENOSPC injected into model writes"] += 1


def test_file_size_limit_from_the_kernel_keeps_the_previous_model(world, tmp_path, tally):
    """A real write failure, not a mock: RLIMIT_FSIZE makes the kernel refuse (EFBIG) every write past
    16 KB, as a full disk would; the resumed run stops with one line and exit 2, and the weights,
    state and tokenizers are byte-identical."""
    work = copy_model(world, tmp_path)
    before = snapshot(work)
    env = {**os.environ, "MTCLI_PREPARED": str(world.prepared), "MTCLI_DATA": str(world.corpus)}

    def limit():
        import resource  # POSIX only

        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

    r = subprocess.run([sys.executable, "-m", "mtcli", "train", "--out", str(work), "--resume", "--max-epochs", "50"],
                       env=env, cwd=REPO, preexec_fn=limit, capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith(f"error: cannot write {work}"), r.stderr
    after = snapshot(work)
    assert all(after[name] == before[name] for name in (WEIGHTS, STATE, SRC_TOK, TGT_TOK))
    assert not [name for name in after if name.endswith(".tmp")]
    tally["fault: kernel file-size limit during training"] += 1


def test_unwritable_outputs_are_one_line_errors(world, tmp_path, run_cli, monkeypatch, tally):
    """As root, permission bits stop nothing: a path under a regular file cannot be created by anyone."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    previous = tmp_path / "previous.txt"
    previous.write_text("earlier output\n")
    assert "cannot write" in error_line(run_cli("translate", "-m", world.model, "-o", blocker / "out.txt", "Hi."))
    assert "cannot write" in error_line(run_cli("tokenize", "--data", world.corpus, "--out", blocker / "prep",
                                                "--src-vocab", "200", "--tgt-vocab", "220"))
    monkeypatch.setattr(os, "replace", _enospc)
    assert "No space left" in error_line(run_cli("translate", "-m", world.model, "-o", previous, "Hi."))
    assert previous.read_text() == "earlier output\n" and [p.name for p in tmp_path.glob(".*.tmp")] == []
    tally["fault: unwritable or full output paths"] += 3


@pytest.mark.parametrize("under_file", [True, False])
def test_train_into_an_unusable_out_path_is_a_one_line_error(world, tmp_path, run_cli, cli_env, under_file):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    line = error_line(run_cli("train", "--out", blocker / "model" if under_file else blocker, *TINY, "--max-epochs", "1"))
    assert str(blocker) in line and ("is a file" in line or "Not a directory" in line), line


def test_resume_with_other_tokenizers_is_refused(world, tmp_path, run_cli, monkeypatch):
    other = tmp_path / "prepared-150"
    prepare(world.corpus, other, src_vocab=150, tgt_vocab=220)
    work = copy_model(world, tmp_path)
    monkeypatch.setenv("MTCLI_PREPARED", str(other))
    assert "trained on other tokenized data" in error_line(run_cli("train", "--out", work, "--resume", "--max-epochs", "6"))
