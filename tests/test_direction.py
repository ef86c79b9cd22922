"""Spanish->English from the same corpus: `mtcli tokenize --direction es-en`, training on it, the model's record."""

import json

import numpy as np
import pytest

from mtcli.augment import MODIFIERS, augment_pairs
from mtcli.checkpoint import load_model
from mtcli.config import ModelConfig, TrainConfig
from mtcli.data import load_prepared, oriented, prepare, split_pairs, training_pairs
from mtcli.errors import UserError
from mtcli.train import train
from mtcli.tokenizer import Tokenizer
from tests.conftest import tiny_pairs

SIZES = dict(src_vocab=220, tgt_vocab=200)  # Spanish source, English target


def test_es_en_data_puts_spanish_on_the_source_side_and_groups_the_split_by_it(tiny_corpus, tmp_path):
    p = prepare(tiny_corpus, tmp_path / "es-en", direction="es-en", **SIZES)
    m = p.manifest
    assert m["direction"] == "es-en" and p.direction == "es-en"
    assert m["vocab"] == {"es": 220, "en": 200}
    assert set(m["max_len"]) == {"es", "en"} and m["max_len"]["es"] == ModelConfig.max_src_len
    pairs = tiny_pairs()
    first = int(p.splits["train"].index[0])
    assert p.src_tok.decode(p.splits["train"].src_seq(0)[1:-1].tolist()) == pairs[first][1]  # Spanish in
    assert p.tgt_tok.decode(p.splits["train"].tgt_seq(0)[1:-1].tolist()) == pairs[first][0]  # English out
    # grouped by the Spanish: no Spanish sentence in two splits (the English may be)
    side = {}
    for name, s in p.splits.items():
        for i in s.index:
            assert side.setdefault(" ".join(pairs[i][1].split()).casefold(), name) == name
    # loaded again: the same sides, from the tokenizer files named by language
    again = load_prepared(tmp_path / "es-en")
    assert again.src_tok.vocab_size == p.src_tok.vocab_size and again.direction == "es-en"
    spanish = Tokenizer.load(tmp_path / "es-en" / "tokenizer-es.json")
    assert spanish.encode_batch(["¿Dónde está?"]) == p.src_tok.encode_batch(["¿Dónde está?"])


def test_en_es_data_keeps_the_manifest_and_cache_key_it_had_before_directions(tiny_corpus, tmp_path):
    p = prepare(tiny_corpus, tmp_path / "en-es", src_vocab=200, tgt_vocab=220)
    assert "direction" not in p.manifest and p.direction == "en-es"
    assert p.manifest["vocab"] == {"en": 200, "es": 220}
    assert prepare(tiny_corpus, tmp_path / "en-es", src_vocab=200, tgt_vocab=220).reused


def test_vocabulary_sizes_default_to_each_languages_own(tiny_corpus, tmp_path, monkeypatch):
    import mtcli.data as data

    seen = []
    monkeypatch.setattr(data, "train_tokenizer", lambda texts, size, lowercase=False: seen.append(size) or
                        (_ for _ in ()).throw(RuntimeError("stop")))
    with pytest.raises(RuntimeError):
        prepare(tiny_corpus, tmp_path / "es-en", direction="es-en")
    assert seen == [6134]  # the Spanish source first: Spanish's size, not the English default


def test_case_options_of_the_english_source_are_refused_for_es_en(tiny_corpus, tmp_path):
    for option in ("lowercase_en", "case_factors_en"):
        with pytest.raises(UserError, match="English is the target"):
            prepare(tiny_corpus, tmp_path / option, direction="es-en", **{option: True}, **SIZES)
    with pytest.raises(UserError, match="unknown direction 'es-fr'"):
        prepare(tiny_corpus, tmp_path / "x", direction="es-fr")


def test_cli_tokenize_direction(tiny_corpus, tmp_path, run_cli):
    code, out, err = run_cli("tokenize", "--data", tiny_corpus, "--out", tmp_path / "p", "--direction", "es-en",
                             "--src-vocab", "220", "--tgt-vocab", "200")
    assert code == 0, err
    assert json.loads((tmp_path / "p" / "manifest.json").read_text())["direction"] == "es-en"
    code, _, err = run_cli("tokenize", "--data", tiny_corpus, "--out", tmp_path / "q", "--direction", "en-fr")
    assert code == 2 and "en-fr" in err


def test_an_es_en_model_records_its_direction_and_evaluate_scores_its_own_split(tiny_corpus, tmp_path, run_cli):
    p = prepare(tiny_corpus, tmp_path / "p", direction="es-en", **SIZES)
    mcfg = ModelConfig(src_vocab=p.src_tok.vocab_size, tgt_vocab=p.tgt_tok.vocab_size, d_model=32, d_ff=64,
                       n_heads=2, n_layers=1)
    train(p, tmp_path / "run", mcfg, TrainConfig(batch_size=8, max_epochs=1))
    _, meta = load_model(tmp_path / "run")
    assert meta["data"]["direction"] == "es-en"
    code, out, err = run_cli("evaluate", "-m", tmp_path / "run", "--split", "test", "--corpus", tiny_corpus,
                             "--limit", "3", "--json")
    assert code == 0, err


def test_training_on_every_pair_adds_selection_and_test_and_evaluate_refuses_both(tiny_corpus, tmp_path, run_cli):
    p = prepare(tiny_corpus, tmp_path / "p", direction="es-en", **SIZES)
    every = training_pairs(p, "train+selection+test", 56, 54)
    assert sorted(every.index) == sorted(int(i) for s in p.splits.values() for i in s.index)
    mcfg = ModelConfig(src_vocab=p.src_tok.vocab_size, tgt_vocab=p.tgt_tok.vocab_size, d_model=32, d_ff=64,
                       n_heads=2, n_layers=1)
    train(p, tmp_path / "all", mcfg, TrainConfig(batch_size=8, max_epochs=1, train_on="train+selection+test"))
    for split in ("test", "selection"):
        code, _, err = run_cli("evaluate", "-m", tmp_path / "all", "--split", split, "--corpus", tiny_corpus)
        assert code == 2 and f"trained on the {split} split" in err


def test_oriented_swaps_only_for_es_en():
    pairs = [("Hi.", "Hola.")]
    assert oriented(pairs, "en-es") == pairs and oriented(pairs, "es-en") == [("Hola.", "Hi.")]
    # the split of the Spanish side differs from the English's where one Spanish sentence has two Englishes
    many = [(f"E{i % 7}", f"S{i}") for i in range(60)]
    assert split_pairs(oriented(many, "es-en"), 0) != split_pairs(many, 0)


def test_unaccented_modifier_drops_accents_and_opening_marks_from_the_source_only():
    (modifier,) = [m for m in MODIFIERS if m.name == "unaccented"]
    src, tgt = modifier.apply("¿Dónde está la estación? ¡Añádelo, pingüino!", "Where is it?", np.random.default_rng(0))
    assert src == "Donde esta la estacion? Anadelo, pinguino!" and tgt == "Where is it?"
    changed = augment_pairs([("¿Qué?", "What?"), ("Hola.", "Hello.")], {"unaccented": 1.0}, np.random.default_rng(0))
    assert changed == {0: ("Que?", "What?")}  # a pair it leaves as it was is not listed
