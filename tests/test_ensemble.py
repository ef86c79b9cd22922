"""`mtcli ensemble`: models joined into one directory (float16 on disk), decoded together, scored
together, listed, added and exported like any model; what cannot be joined is refused in one line.
(The search itself against the reference: tests/test_search.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtcli.checkpoint import MEMBER, WEIGHTS, load_ensemble, load_model
from mtcli.decode import Translator
from mtcli.metrics import ensemble_evaluate
from tests.conftest import train_tiny_model

LINES = ["Tom is here.", "I like cats.", "Where is the station?"]


@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    """Two tiny models trained on the same data and tokenizers (different depths)."""
    one = train_tiny_model(tmp_path_factory.mktemp("a"), n_layers=1, max_epochs=4)
    two = train_tiny_model(tmp_path_factory.mktemp("b"), n_layers=2, max_epochs=4)
    return one, two


def test_an_ensemble_is_built_stored_in_float16_and_decodes_both(two_models, tmp_path, run_cli):
    out = tmp_path / "both"
    code, printed, err = run_cli("ensemble", *two_models, "-o", out)
    assert code == 0, err
    assert "2 models" in printed
    assert sorted(p.name for p in out.iterdir()) == sorted([WEIGHTS, MEMBER.format(1), "src.json", "tgt.json",
                                                           "metrics.jsonl"])
    for k, source in enumerate(two_models):
        stored = out / (WEIGHTS if k == 0 else MEMBER.format(k))
        assert stored.stat().st_size < 0.6 * (source / WEIGHTS).stat().st_size  # float16: about half
    models, _ = load_ensemble(out)
    originals = [load_model(d)[0] for d in two_models]
    for m, o in zip(models, originals):
        assert m.flat.dtype == np.float32 and np.allclose(m.flat, o.flat, rtol=1e-3, atol=1e-4)

    tr = Translator(out)
    assert len(tr.models) == 2
    code, printed, err = run_cli("translate", "-m", out, "--greedy", *LINES)
    assert code == 0, err
    assert printed.splitlines() == [t[0][0] for t in tr.translate(LINES, beam=1)[0]]
    code, printed, err = run_cli("info", "-m", out)
    assert json.loads(printed)["ensemble"] == [json.loads(run_cli("info", "-m", d)[1])["parameters"]
                                               for d in two_models]


def test_an_ensemble_is_scored_by_its_averaged_distribution(two_models):
    from mtcli.data import encode_pairs, make_batches

    tr = Translator(two_models[0])
    (batch,) = make_batches(encode_pairs(tr.src_tok, tr.tgt_tok, [("Tom is here.", "Tom está aquí."),
                                                                  ("I like cats.", "Me gustan los gatos.")],
                                         tr.model.cfg.max_src_len, tr.model.cfg.max_tgt_len), 8, 0, 0, shuffle=False)
    alone = tr.model.evaluate(batch)
    twice = ensemble_evaluate([tr.model, tr.model], batch)  # the same model twice: the model itself
    assert (twice.correct, twice.n_tokens) == (alone.correct, alone.n_tokens)
    assert twice.nll == pytest.approx(alone.nll, rel=1e-4)
    other = load_model(two_models[1])[0]
    both = ensemble_evaluate([tr.model, other], batch)
    assert both.nll != pytest.approx(alone.nll, rel=1e-4) and both.n_tokens == alone.n_tokens


def test_an_ensemble_is_added_listed_and_exported_like_a_model(two_models, tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("MTCLI_HOME", str(tmp_path / "home"))
    out = tmp_path / "both"
    assert run_cli("ensemble", *two_models, "-o", out)[0] == 0
    code, _, err = run_cli("models", "add", out, "--name", "pair")
    assert code == 0, err
    listed = {m["name"]: m for m in json.loads(run_cli("models", "--json")[1])}
    assert listed["pair"]["size"] == sum(p.stat().st_size for p in out.iterdir())
    assert listed["pair"]["parameters"] == json.loads(run_cli("info", "-m", out)[1])["parameters"]
    code, printed, err = run_cli("translate", "-m", "pair", "--greedy", *LINES)
    assert code == 0 and len(printed.splitlines()) == 3, err
    pytest.importorskip("ctranslate2")
    code, printed, err = run_cli("export", "-m", "pair", "-o", tmp_path / "ct2")
    assert code == 0 and "the first of the ensemble's 2 models" in " ".join(printed.split()), err


def test_an_ensemble_missing_a_member_is_refused_not_run_as_one_model(two_models, tmp_path, run_cli):
    out = tmp_path / "both"
    assert run_cli("ensemble", *two_models, "-o", out)[0] == 0
    (out / MEMBER.format(1)).unlink()
    code, printed, err = run_cli("translate", "-m", out, "Tom is here.")
    assert code == 2 and printed == "" and err.count("\n") == 1, err
    assert "an ensemble of 2 models, but 1 found" in " ".join(err.split())


@pytest.mark.parametrize("case", ["one model", "existing output", "output is a file", "ensemble of an ensemble",
                                  "other tokenizers", "missing model", "output is stdout", "missing parents"])
def test_what_cannot_be_joined_is_refused_in_one_line(case, two_models, tmp_path, run_cli, capsys):
    out = tmp_path / "out"
    args = [*two_models]
    if case == "one model":
        args = [two_models[0]]
    elif case == "existing output":
        out.mkdir()
        (out / "notes.txt").write_text("mine")
    elif case == "output is a file":
        out.write_text("mine")
    elif case == "ensemble of an ensemble":
        assert run_cli("ensemble", *two_models, "-o", tmp_path / "pair")[0] == 0
        args = [tmp_path / "pair", two_models[0]]
    elif case == "other tokenizers":
        (tmp_path / "c").mkdir()
        args = [two_models[0], train_tiny_model(tmp_path / "c", max_epochs=1, src_vocab=180)]
    elif case == "missing model":
        args = [two_models[0], tmp_path / "nowhere"]
    elif case == "output is stdout":
        out = "-"
    elif case == "missing parents":  # refused after the parents were made: they are removed again
        out = tmp_path / "new" / "deeper" / "out"
        args = [two_models[0], tmp_path]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    capsys.readouterr()  # (what setting up printed)
    code, printed, err = run_cli("ensemble", *args, "-o", out)
    assert code == 2 and printed == "" and err.count("\n") == 1 and err.startswith("error: "), err
    keyword = {"one model": "at least two", "existing output": "not an empty directory",
               "output is a file": "not an empty directory", "ensemble of an ensemble": "itself an ensemble",
               "other tokenizers": "not a member of this ensemble", "missing model": "nowhere",
               "output is stdout": "standard output", "missing parents": "model.safetensors: no such file"}[case]
    assert keyword in " ".join(err.split())
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written, nothing left behind
    if case in ("existing output", "output is a file"):
        assert (out / "notes.txt" if out.is_dir() else out).read_text() == "mine"


def test_an_ensembles_first_member_is_a_model_of_its_own(shipped_model, tmp_path):
    """What benchmarks/translate_cli.py --ct2 and benchmarks/finetune.py compare: the first member alone, which loads
    as one model (its copied file alone is refused: its record says it is one of two) with the first weights."""
    from mtcli.checkpoint import ENSEMBLE_MEMBER, write_first_member

    ensemble, _ = load_ensemble(shipped_model)
    models, meta = load_ensemble(write_first_member(shipped_model, tmp_path / "first"))
    assert len(ensemble) == 2 and len(models) == 1 and ENSEMBLE_MEMBER not in meta
    assert all(np.array_equal(models[0].params[group][name], ensemble[0].params[group][name])
               for group in ensemble[0].params for name in ensemble[0].params[group])
    assert Translator(tmp_path / "first").translate(["I like cats."])[0]


def test_a_translators_weights_are_cached_as_float32_and_read_again_only_when_sound(two_models, tmp_path,
                                                                                      monkeypatch):
    """load_ensemble (a translator's models) keeps each file's weights converted to float32 in the user cache and
    reads them from there, memory-mapped, at the next load, with the same translations; a file written again
    (another mtime) is read and checked in full again, so a flipped byte is still refused; a damaged entry is
    made again, an unwritable cache only costs the cache; the CACHED_MODELS entries last used are kept."""
    import os

    from mtcli import checkpoint, usercache
    from mtcli.errors import UserError

    out = tmp_path / "both"
    out.mkdir()
    checkpoint.save_ensemble(out, list(two_models))
    cache = tmp_path / "cache"
    monkeypatch.setattr(usercache, "root", lambda name: cache / name)
    full = []
    read = checkpoint.load_tensors
    monkeypatch.setattr(checkpoint, "load_tensors", lambda *a, **k: full.append(1) or read(*a, **k))

    def translations():
        return Translator(out).translate(LINES, beam=2)[0]

    expected = translations()
    assert len(full) == 2 and len(list((cache / "weights").iterdir())) == 2
    models, _ = load_ensemble(out)
    assert len(full) == 2  # from the cache
    for m, first in zip(models, (load_model(out)[0], checkpoint.load_weights(out / MEMBER.format(1))[0])):
        assert m.flat.dtype == np.float32 and m.flat.flags.writeable and np.array_equal(m.flat, first.flat)
        assert not m.flat.flags.owndata and type(m.flat) is np.ndarray  # mapped, as a plain array
    assert translations() == expected and len(full) == 4  # (load_model and load_weights above read in full)

    entry = checkpoint._cache_entry(out / WEIGHTS, np.float32)[0]
    (entry / "flat.npy").write_bytes((entry / "flat.npy").read_bytes()[:1000])  # cut short
    assert translations() == expected and len(full) == 5  # made again
    assert translations() == expected and len(full) == 5

    data = bytearray((out / WEIGHTS).read_bytes())
    data[-100] ^= 0xFF  # inside the tensor bytes: only the checksum can tell
    (out / WEIGHTS).write_bytes(bytes(data))
    with pytest.raises(UserError, match="checksum mismatch"):
        load_ensemble(out)
    data[-100] ^= 0xFF
    (out / WEIGHTS).write_bytes(bytes(data))
    assert translations() == expected and len(full) == 7  # the file written again: read in full, cached again
    for k in range(1, 4):  # (entries 4 to 6; the first ones made go)
        os.utime(out / WEIGHTS, ns=(k * 10**9, k * 10**9))
        load_ensemble(out)
    kept = sorted(p.name for p in (cache / "weights").iterdir())
    assert len(kept) == checkpoint.CACHED_MODELS  # the last used: the member's, read at each load, among them
    assert {checkpoint._cache_entry(out / name, np.float32)[0].name for name in (WEIGHTS, MEMBER.format(1))} <= set(kept)

    monkeypatch.setattr(usercache, "root", lambda name: tmp_path / "a-file" / name)
    (tmp_path / "a-file").write_text("not a directory")
    before = len(full)
    assert translations() == expected and translations() == expected and len(full) == before + 4
    monkeypatch.setattr(usercache, "root", lambda name: None)  # (no cache at all: a home that does not exist)
    assert translations() == expected and len(full) == before + 6


def test_an_ensembles_members_stepped_in_two_threads_decode_as_in_one(shipped_model, monkeypatch):
    """A server's decoder of an ensemble steps its second member in a thread of its own (decode.Members) while it
    steps the first: the same n-best lists and scores, bit for bit, as one thread gives, lines joining as slots free
    up; a member that fails in that thread fails the step in the decoding thread."""
    import mtcli.decode as decode
    from mtcli.serve.config import ServeConfig
    from tests.test_serve import SENTENCES, stream_all

    o, translator = ServeConfig().decoding, Translator(shipped_model)
    lines = SENTENCES + [s.upper() for s in SENTENCES]
    one = stream_all(translator.stream(4, o), lines, 4)
    stream = translator.stream(4, o, parallel=True)
    assert len(translator.models) == 2 and stream.search.helper is not None
    assert stream_all(stream, lines, 4) == one

    member = decode._member_logprobs

    def failing(model, *args, **kwargs):
        if model is translator.models[1]:
            raise RuntimeError("member down")
        return member(model, *args, **kwargs)

    monkeypatch.setattr(decode, "_member_logprobs", failing)
    stream.add(["I like cats."])
    with pytest.raises(RuntimeError, match="member down"):
        stream.step()
