"""mtcli finetune (mtcli/finetune.py) on a tiny model: the pairs file's checks, the base model's vocabularies,
direction and weights as the start, the corpus share mixed in, early stopping on the user's pairs, the result
registered, and an interrupted run resumed."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from mtcli import finetune
from mtcli.checkpoint import (STATE, WEIGHTS, load_ensemble, load_familiar, load_lexicon, load_weights, member_files,
                              save_ensemble, write_lexicon)
from mtcli.errors import UserError

from tests.conftest import tiny_pairs, train_tiny_model, write_tsv

DOMAIN = [(f"Open the {w} {n}.", f"Abre {a} {s} {n}.") for n in range(1, 9)
          for w, a, s in (("folder", "la", "carpeta"), ("file", "el", "archivo"), ("album", "el", "álbum"))]


@pytest.fixture(scope="module", params=["en-es", "es-en"])
def base(request, tmp_path_factory) -> Path:
    return train_tiny_model(tmp_path_factory.mktemp(request.param), max_epochs=2, direction=request.param)


def _pairs_file(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


@pytest.mark.parametrize("text, message", [
    ("a\tb\nc\td\te\n", r"p\.tsv: line 2: 3 columns, not 2"),
    ("a\tb\n\nc\n", r"p\.tsv: line 3: 1 column, not 2"),
    ("a\tb\n \tb\n", r"p\.tsv: line 2: the source side is empty"),
    ("a\t \n", r"p\.tsv: line 1: the target side is empty"),
    (b"a\tb\nc\td\xe9\n", r"p\.tsv: line 2: not UTF-8 text \(byte 0xe9\)"),
])
def test_malformed_pairs_are_one_line_errors_naming_the_line(tmp_path, text, message):
    with pytest.raises(UserError, match=message):
        finetune.read_pairs(_pairs_file(tmp_path / "p.tsv", text))


def test_duplicates_are_left_out_counted_and_reported(tmp_path):
    pairs = finetune.read_pairs(_pairs_file(tmp_path / "p.tsv", "a\tb\nA\tb\na  \tb\na\tc\n"))
    assert pairs.pairs == [("a", "b"), ("A", "b"), ("a", "c")] and pairs.duplicates == [3]
    assert pairs.report("p.tsv") == ["p.tsv: 1 duplicate pairs (the same source and target again) left out (line 3)"]


def test_pairs_too_long_for_the_model_are_left_out_and_reported(base):
    b = finetune.Base.load(base)
    long = " ".join(["Tom likes the cat."] * 30)
    _, kept = finetune.encoded(b, finetune.Pairs([("Tom.", "Tom."), (long, "x"), ("x", long)], lines=[1, 2, 5]))
    assert kept.pairs == [("Tom.", "Tom.")] and kept.too_long == [2, 5]
    assert "2 pairs too long for the model left out (lines 2, 5)" in kept.report("p.tsv")[0]


def test_too_few_pairs_are_refused(base, tmp_path):
    pairs = _pairs_file(tmp_path / "p.tsv", "".join(f"{s}\t{t}\n" for s, t in DOMAIN[:10]))
    with pytest.raises(UserError, match="10 usable pairs: fine-tuning needs at least 20"):
        finetune.finetune(base, pairs, tmp_path / "out", tmp_path / "no-corpus", share=0.0)


def test_a_missing_corpus_is_a_one_line_error_unless_no_share_is_asked(base, tmp_path):
    pairs = _pairs_file(tmp_path / "p.tsv", "".join(f"{s}\t{t}\n" for s, t in DOMAIN))
    with pytest.raises(UserError, match="corpus not found: .*--corpus-share 0"):
        finetune.finetune(base, pairs, tmp_path / "out", tmp_path / "no-corpus")


def test_finetuning_starts_from_the_base_keeps_its_vocabularies_and_direction_and_mixes_the_corpus(base, tmp_path):
    corpus = write_tsv(tmp_path / "spa.txt", tiny_pairs())
    pairs = _pairs_file(tmp_path / "p.tsv", "".join(f"{s}\t{t}\n" for s, t in DOMAIN))
    b = finetune.Base.load(base)
    mixed = finetune.corpus_sample(b, corpus, 12, 0)
    assert len(mixed) == 12 and set(mixed) <= set(finetune.oriented(tiny_pairs(), b.direction))
    data, kept = finetune.prepared(b, finetune.read_pairs(pairs), mixed, 0, "x")
    assert len(data.splits["selection"]) == finetune.MIN_SELECTION  # (a tenth of 24 is less)
    usable, _ = finetune.encoded(b, finetune.Pairs(mixed, lines=list(range(12))))  # (tiny vocabularies: some long)
    assert len(data.splits["train"]) == len(kept.pairs) - finetune.MIN_SELECTION + len(usable) > len(kept.pairs)
    assert len(kept.pairs) + len(kept.too_long) == len(DOMAIN)
    loop, _ = finetune.finetune(base, pairs, tmp_path / "out", corpus, share=0.5, base_share=0)
    assert loop.history and (tmp_path / "out" / WEIGHTS).is_file()
    tuned, meta = load_weights(tmp_path / "out" / WEIGHTS)
    assert meta["data"]["direction"] == b.direction and tuned.cfg == b.model.cfg
    for name in ("src.json", "tgt.json"):
        assert (tmp_path / "out" / name).read_bytes() == (base / name).read_bytes()
    assert not np.array_equal(tuned.flat, b.model.flat)  # (trained on from the base's weights ...)
    assert np.abs(tuned.flat - b.model.flat).max() < 0.5  # (... at a low learning rate, not from scratch)
    assert meta["train"]["lr_scale"] < 1 and meta["train"]["init_from"] == str(base / WEIGHTS)

    finetune.with_base(tmp_path / "out", b.model, 0.25)  # a quarter of the base's weights, once
    mixed, meta = load_weights(tmp_path / "out" / WEIGHTS)
    assert np.allclose(mixed.flat, 0.25 * b.model.flat + 0.75 * tuned.flat, atol=1e-6) and meta["base_share"] == 0.25
    finetune.with_base(tmp_path / "out", b.model, 0.25)
    assert np.array_equal(load_weights(tmp_path / "out" / WEIGHTS)[0].flat, mixed.flat)


def test_the_result_decodes_with_the_bases_lexicon_and_the_users_words(base, tmp_path):
    shutil.copytree(base, tmp_path / "base")
    write_lexicon(tmp_path / "base", write_tsv(tmp_path / "spa.txt", tiny_pairs()))
    b = finetune.Base.load(tmp_path / "base")
    (tmp_path / "out").mkdir()
    finetune.with_words(tmp_path / "out", b, [("Open the zorblat.", "Abre el zorblat.")])  # (either way round)
    words, familiar = load_lexicon(tmp_path / "out", b.meta), load_familiar(tmp_path / "out", b.meta)
    assert set(load_lexicon(tmp_path / "base", b.meta)) | {"zorblat"} <= set(words)  # (not made up any more)
    assert load_familiar(tmp_path / "base", b.meta) | {"zorblat"} <= familiar


def test_an_interrupted_finetuning_resumes_and_a_new_one_into_the_same_out_is_refused(base, tmp_path):
    corpus = write_tsv(tmp_path / "spa.txt", tiny_pairs())
    pairs = _pairs_file(tmp_path / "p.tsv", "".join(f"{s}\t{t}\n" for s, t in DOMAIN))
    first, _ = finetune.finetune(base, pairs, tmp_path / "out", corpus, max_time=0.01)
    assert first.done.startswith("--max-time") and (tmp_path / "out" / STATE).is_file()
    with pytest.raises(UserError, match="already holds a model|--resume"):
        finetune.finetune(base, pairs, tmp_path / "out", corpus)
    again, _ = finetune.finetune(base, pairs, tmp_path / "out", corpus, resume=True)
    assert again.history and again.epoch > first.epoch


@pytest.fixture(scope="module")
def ensemble(tmp_path_factory) -> Path:
    """A tiny en-es ensemble of two models (the same tokenizers, different depths), as the shipped en-es is."""
    work = tmp_path_factory.mktemp("ensemble")
    for name in ("a", "b", "both"):
        (work / name).mkdir()
    models = [train_tiny_model(work / "a", max_epochs=2), train_tiny_model(work / "b", n_layers=2, max_epochs=2)]
    save_ensemble(work / "both", models)
    return work / "both"


@pytest.mark.slow
def test_an_ensemble_is_finetuned_model_by_model_resumed_and_stays_an_ensemble(ensemble, tmp_path):
    corpus = write_tsv(tmp_path / "spa.txt", tiny_pairs())
    pairs = _pairs_file(tmp_path / "p.tsv", "".join(f"{s}\t{t}\n" for s, t in DOMAIN))
    out = tmp_path / "out"
    first, _ = finetune.finetune(ensemble, pairs, out, corpus, max_time=0.01)
    assert first.done.startswith("--max-time") and not (out / WEIGHTS).exists()  # (no ensemble before both end)
    assert all((out / f"member{k}" / STATE).is_file() for k in range(2))
    loop, kept = finetune.finetune(ensemble, pairs, out, corpus, resume=True)
    assert loop.history and len(kept.pairs) == len(DOMAIN)
    tuned, _ = load_ensemble(out)
    run0 = load_weights(out / "member0" / WEIGHTS)[0]
    for k, (model, base) in enumerate(zip(tuned, load_ensemble(ensemble)[0])):
        run, meta = load_weights(out / f"member{k}" / WEIGHTS)  # (the ensemble stores it in float16)
        assert model.cfg == base.cfg and np.allclose(model.flat, run.flat, rtol=1e-3, atol=1e-4)
        assert 1e-3 < np.abs(run.flat - base.flat).max() < 0.5  # (trained on from its own start, at a low rate)
        assert meta["train"]["init_from"] == str(member_files(ensemble)[k])
        assert meta["base_share"] == finetune.BASE_SHARE
    again, _ = finetune.finetune(ensemble, pairs, out, corpus, resume=True)  # (finished: nothing more is trained)
    assert again.history == loop.history
    assert np.array_equal(load_weights(out / "member0" / WEIGHTS)[0].flat, run0.flat)


@pytest.mark.slow
def test_a_models_error_in_its_own_process_is_the_one_line_error(ensemble, tmp_path):
    pairs = _pairs_file(tmp_path / "p.tsv", "".join(f"{s}\t{t}\n" for s, t in DOMAIN))
    with pytest.raises(UserError, match="corpus not found: .*--corpus-share 0"):
        finetune.finetune(ensemble, pairs, tmp_path / "out", tmp_path / "no-corpus")
