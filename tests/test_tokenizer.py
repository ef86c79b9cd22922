"""WordPiece tokenizers: fixed special ids, exact vocabulary size, readable round trip, files."""

from __future__ import annotations

import json

import pytest
from conftest import tiny_pairs

from mtcli.errors import UserError
from mtcli.tokenizer import BOS, EOS, PAD, UNK, Tokenizer, train_tokenizer

TRICKY = [
    "¿Dónde está?",
    "¡Hola, María!",
    "Don't go, it's late!",
    'He said "no".',
    "It costs 3.50 euros.",
    "Él dijo: «ya voy».",
    "¿Qué? ¡No!",
]


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    texts = [t for pair in tiny_pairs() for t in pair] + TRICKY
    return train_tokenizer(texts, 300)


def test_special_ids_and_exact_vocab_size(tok):
    assert (PAD, UNK, BOS, EOS) == (0, 1, 2, 3)
    assert [tok.id_to_token(i) for i in range(4)] == ["[PAD]", "[UNK]", "[START]", "[END]"]
    assert tok.vocab_size == 300
    # A tiny corpus runs out of merges before 2000 entries: filler entries make up the size.
    big = train_tokenizer([en for en, _ in tiny_pairs()], 2000)
    assert big.vocab_size == 2000 and big.id_to_token(1999).startswith("[unused")


@pytest.mark.parametrize("text", TRICKY)
def test_round_trip_keeps_spacing_case_and_accents(tok, text):
    ids = tok.encode(text)
    assert ids and min(ids) > EOS  # no specials, nothing unknown
    assert tok.decode(ids) == text


def test_decode_skips_specials_and_batches_agree(tok):
    ids = tok.encode("¿Dónde está?")
    assert tok.decode([BOS, *ids, EOS, PAD, PAD]) == "¿Dónde está?"
    assert tok.encode_batch(TRICKY) == [tok.encode(t) for t in TRICKY]
    assert tok.decode_batch(tok.encode_batch(TRICKY)) == TRICKY
    assert tok.encode("") == [] and tok.decode([]) == ""
    assert tok.decode(ids[1:]) == "Dónde está?"  # a glued first piece keeps its first letter


def test_special_token_text_is_plain_text(tok):
    assert EOS not in tok.encode("[END]") and PAD not in tok.encode("[PAD]")


def test_unknown_characters_become_unk(tok):
    assert UNK in tok.encode("Ωmega")


def test_training_is_deterministic():
    texts = [en for en, _ in tiny_pairs()]
    a, b = train_tokenizer(texts, 120), train_tokenizer(texts, 120)
    assert [a.id_to_token(i) for i in range(120)] == [b.id_to_token(i) for i in range(120)]


def test_vocab_smaller_than_alphabet_is_a_user_error():
    with pytest.raises(UserError, match="too small"):
        train_tokenizer(["abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ"], 20)


def test_save_load(tok, tmp_path):
    path = tmp_path / "sub" / "tok.json"
    tok.save(path)
    assert [p.name for p in path.parent.iterdir()] == ["tok.json"]  # no temporary file left
    loaded = Tokenizer.load(path)
    assert loaded.vocab_size == tok.vocab_size
    assert loaded.encode_batch(TRICKY) == tok.encode_batch(TRICKY)
    assert loaded.decode(tok.encode("¿Dónde está?")) == "¿Dónde está?"


def test_load_missing_or_damaged(tok, tmp_path):
    with pytest.raises(UserError, match="not found"):
        Tokenizer.load(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(UserError, match="damaged"):
        Tokenizer.load(bad)
    tok.save(bad)
    doc = json.loads(bad.read_text(encoding="utf-8"))
    vocab = doc["model"]["vocab"]
    vocab["[PAD]"], vocab["[END]"] = vocab["[END]"], vocab["[PAD]"]
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(UserError, match="special ids"):
        Tokenizer.load(bad)


def test_real_corpus_round_trip_and_sizes(prepared):
    m = prepared.manifest
    print(f"\nround trip over the whole corpus: en {m['roundtrip']['en']:.4%}, es {m['roundtrip']['es']:.4%}")
    assert m["roundtrip"]["en"] >= 0.99 and m["roundtrip"]["es"] >= 0.99
    assert (prepared.src_tok.vocab_size, prepared.tgt_tok.vocab_size) == (4562, 6134)
    assert prepared.tgt_tok.decode(prepared.tgt_tok.encode("¿Dónde está?")) == "¿Dónde está?"
