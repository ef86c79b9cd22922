"""WordPiece tokenizers: fixed special ids, exact vocabulary size, readable round trip, files."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter

import pytest

from mtcli.data import read_corpus
from mtcli.errors import UserError
from mtcli.tokenizer import BOS, EOS, PAD, SPACE, UNK, Tokenizer, train_tokenizer
from tests.conftest import tiny_pairs

TRICKY = [
    "¿Dónde está?",
    "¡Hola, María!",
    "Don't go, it's late!",
    'He said "no".',
    "It costs 3.50 euros.",
    "Él dijo: «ya voy».",
    "¿Qué? ¡No!",
    "El niño vio un pingüino en el camión.",
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
    for t in (tok, big, tok.with_case_factors()):  # (the vocabulary read at once: each id's piece)
        assert t.pieces_by_id == tuple(t.id_to_token(i) for i in range(t.vocab_size))


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


def test_every_ordinary_id_decodes_alike_alone_and_in_batches(tok):
    """Ids from 4 on are text (the first of them too; a lone space marker is the sentence's stripped
    leading space); decode and decode_batch agree on each."""
    ordinary = [[i] for i in range(EOS + 1, tok.vocab_size)]
    alone = [tok.decode(ids) for ids in ordinary]
    assert all(text or tok.id_to_token(i) == SPACE for [i], text in zip(ordinary, alone))
    assert tok.decode_batch(ordinary) == alone


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


@pytest.mark.parametrize("damage, reason", [
    (lambda m: m.update(type="BPE"), "not a WordPiece model with mtcli's settings"),
    (lambda m: m.update(continuing_subword_prefix="@@"), "not a WordPiece model with mtcli's settings"),
    (lambda m: m["vocab"].update({"[PAD]": 1}), "the vocabulary ids are not 0, 1, 2, ... each once"),  # twice
    (lambda m: m["vocab"].update({"[PAD]": "0"}), "the vocabulary ids are not 0, 1, 2, ... each once"),  # a string
    (lambda m: m.update(vocab=list(m["vocab"])), "the vocabulary ids are not 0, 1, 2, ... each once"),  # no dict
    (lambda m: m.pop("vocab"), "damaged: 'vocab'"),  # a KeyError's message is the key
])
def test_a_damaged_tokenizer_file_says_what_is_wrong(tok, tmp_path, damage, reason):
    path = tmp_path / "tok.json"
    tok.save(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    damage(doc["model"])
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(UserError) as e:
        Tokenizer.load(path)
    assert f"tokenizer file {path} is " in str(e.value) and reason in str(e.value)
    assert "None" not in str(e.value)


def test_lone_surrogates_encode_as_the_replacement_character(tok):
    """What Python hands over for bytes that were not UTF-8 (surrogateescape) cannot reach the Rust
    side as it is; each becomes U+FFFD, nothing more."""
    assert tok.encode("a\udc80b") == tok.encode("a\ufffdb")
    assert tok.encode_batch(["x\ud800 y"]) == [tok.encode("x\ufffd y")]


# --- Unicode normalisation ----------------------------------------------------------------------

FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def check_normalisation(tok: Tokenizer, texts: list[str]) -> None:
    """Every Unicode normalisation form of each text (composed, decomposed as macOS file names and
    some editors write it, compatibility forms) encodes exactly like the composed one, without
    [UNK], and decodes to the composed text. Only for texts without compatibility characters
    (those NFKC changes), whose four forms are canonically equivalent."""
    for text in texts:
        nfc = unicodedata.normalize("NFC", text)
        assert unicodedata.normalize("NFKC", text) == nfc, f"{text!r} has compatibility characters"
        want = tok.encode(nfc)
        assert UNK not in tok.pieces(want), f"{nfc!r} has unknown pieces"
        for form in FORMS:
            variant = unicodedata.normalize(form, text)
            assert tok.encode(variant) == want, f"{form} of {nfc!r} encodes differently"
            assert tok.encode_batch([variant]) == [want], f"{form} of {nfc!r} encodes differently in a batch"
        assert tok.decode(want) == (nfc.lower() if tok.lowercase else nfc)


ACCENTED = [t for t in TRICKY if unicodedata.normalize("NFD", t) != t] + ["A Sofía le gusta el libro."]


def test_every_normalisation_form_encodes_like_nfc(tok):
    assert len(ACCENTED) >= 5
    check_normalisation(tok, ACCENTED)
    mixed = "".join(unicodedata.normalize("NFD" if i % 2 else "NFC", c) for i, c in enumerate(ACCENTED[0]))
    assert tok.encode(mixed) == tok.encode(ACCENTED[0])  # a line half composed, half not


# What NFC leaves alone and NFKC maps to plain text: wide letters (CJK input methods), no-break and
# thin spaces (French typography, word processors), ligatures and the ellipsis (PDF copies).
COMPATIBILITY = ["Ｔｏｍ likes the ｃａｔ.", "Tom\u00a0likes the cat.", "Come here,\u202fAna!", "Tom\u2009likes the dog.",
                 "The ﬁsh is here.", "Where is Mary’s dog…"]


@pytest.mark.xfail(strict=True, reason="the tokenizer normalises to NFC only: compatibility characters become "
                                       "[UNK] and no-break spaces glue words; mtcli.text maps spaces and the ellipsis "
                                       "before translating, full-width letters and ligatures nowhere")
def test_compatibility_characters_encode_like_their_plain_text(tok):
    for text in COMPATIBILITY:
        assert tok.encode(text) == tok.encode(unicodedata.normalize("NFKC", text)), text


# --- the real corpus and the shipped model -----------------------------------------------------


def test_real_corpus_round_trip_and_sizes(prepared, corpus_path):
    """decode(encode(s)) == s for all but a few sentences of the real corpus (those with rare
    characters, e.g. "Zürich", whose word becomes one [UNK]); the rate is measured here, over the
    corpus as read, not taken from the manifest prepare() wrote."""
    pairs = read_corpus(corpus_path).pairs
    for side, tok, texts in (("en", prepared.src_tok, [en for en, _ in pairs]), ("es", prepared.tgt_tok, [es for _, es in pairs])):
        counts = Counter(texts)  # each distinct sentence once, counted as often as it occurs
        distinct = list(counts)
        back = tok.decode_batch(tok.encode_batch(distinct))
        rate = sum(counts[a] for a, b in zip(distinct, back) if a == b) / len(texts)
        print(f"\nround trip over the whole corpus, {side}: {rate:.5%} of {len(texts):,} sentences")
        assert rate >= 0.9995, side  # measured: en 0.99996, es 0.99993
    assert (prepared.src_tok.vocab_size, prepared.tgt_tok.vocab_size) == (4562, 6134)
    assert prepared.tgt_tok.decode(prepared.tgt_tok.encode("¿Dónde está?")) == "¿Dónde está?"


SHIPPED_EN = ["José's café is near the station.", "Her résumé says she lived in México and Bogotá."]
SHIPPED_ES = ["¿Dónde está el niño?", "Él comió una piña en el camión.", "El pingüino está aquí."]


# ASCII character -> the typographic forms of it that text from word processors, web pages and PDFs
# carries; `mtcli translate` must give each variant the plain text's translation
TYPOGRAPHIC = {
    "'": "\u2018\u2019\u201b\u2032`\u00b4",
    '"': "\u201c\u201d\u201e\u2033",
    "-": "\u2010\u2011\u2012\u2013\u2014\u2015\u2212",
    " ": "\u00a0\u2009\u202f\u3000\u2002\u2003",
}
PLAIN = ["Tom's dog isn't \"very\" big.", "I don't know - maybe tomorrow.", "Please call me at the café.",
         "Wait... where is Mary's car?"]


def test_typographic_and_decomposed_variants_translate_like_plain_text(shipped_model, run_cli):
    variants = []  # (plain line, variant)
    for line in PLAIN:
        variants += [(line, line.replace(c, t)) for c, forms in TYPOGRAPHIC.items() if c in line for t in forms]
        variants += [(line, line.replace("...", "\u2026")), (line, unicodedata.normalize("NFD", line)),
                     (line, line.replace(" ", "  "))]
    variants = [(p, v) for p, v in variants if v != p]
    assert len(variants) >= 40
    code, out, err = run_cli("translate", "-m", shipped_model, *PLAIN, *(v for _, v in variants))
    assert code == 0, err
    got = out.splitlines()
    plain = dict(zip(PLAIN, got))
    for (line, variant), translation in zip(variants, got[len(PLAIN):], strict=True):
        assert translation == plain[line], f"{variant!r} -> {translation!r}, but {line!r} -> {plain[line]!r}"


def test_shipped_tokenizers_and_translations_ignore_the_normalisation_form(shipped_model):
    from mtcli.decode import Translator

    tr = Translator(shipped_model)
    check_normalisation(tr.src_tok, SHIPPED_EN)
    check_normalisation(tr.tgt_tok, SHIPPED_ES)
    lines = SHIPPED_EN + ["The boy is eating a pineapple."]
    decomposed = [unicodedata.normalize("NFD", line) for line in lines]
    assert all(d != line for d, line in zip(decomposed, SHIPPED_EN))
    assert tr.translate(decomposed, beam=1)[0] == tr.translate(lines, beam=1)[0]


def test_a_lowercasing_tokenizer_gives_every_case_the_same_ids_and_says_so_in_its_file(tmp_path):
    """--lowercase-en: ALL CAPS, Title Case and lowercase English reach the model as the same ids; the
    saved file carries the lowercasing normalizer and loads back lowercasing; a cased one stays cased."""
    texts = [en for en, _ in tiny_pairs()]
    lower = train_tokenizer(texts, 200, lowercase=True)
    cased = train_tokenizer(texts, 200)
    assert lower.lowercase and not cased.lowercase
    for text in ("Tom is here.", "TOM IS HERE.", "tom is here.", "Tom Is Here."):
        assert lower.encode(text) == lower.encode("tom is here.") and UNK not in lower.encode(text)
    assert lower.decode(lower.encode("Where IS Tom?")) == "where is tom?"
    assert cased.encode("TOM") != cased.encode("tom")
    assert not any(c.isupper() for piece in lower._hf.get_vocab() if not piece.startswith("[") for c in piece)
    lower.save(tmp_path / "lower.json")
    cased.save(tmp_path / "cased.json")
    assert json.loads((tmp_path / "lower.json").read_text())["normalizer"] != json.loads(
        (tmp_path / "cased.json").read_text())["normalizer"]
    again, cased_again = Tokenizer.load(tmp_path / "lower.json"), Tokenizer.load(tmp_path / "cased.json")
    assert again.lowercase and again.encode("TOM IS HERE.") == lower.encode("tom is here.")
    assert not cased_again.lowercase and cased_again.encode("TOM") == cased.encode("TOM")
    # a normalizer section that only resembles mtcli's is not taken for it (only the vocabulary is read)
    saved = json.loads((tmp_path / "lower.json").read_text())
    saved["normalizer"] = {"type": "Lowercase"}
    (tmp_path / "other.json").write_text(json.dumps(saved))
    assert not Tokenizer.load(tmp_path / "other.json").lowercase


def test_case_factors_give_every_casing_the_same_pieces_and_mark_the_words_case(tmp_path):
    """--case-factors-en: the cased vocabulary reads lowercased text; each id is piece + vocab_size *
    factor, the factor being its word's case (0 lowercase or caseless, 1 Capitalised, 2 ALL CAPS), or each
    piece's own in a word of mixed case. A piece with capitals takes its lowercase spelling where that is
    free, under its id, so a word mostly written with a capital stays one piece. The file says so and
    loads back with factors."""
    cased = train_tokenizer([en for en, _ in tiny_pairs()], 200)
    tok = cased.with_case_factors()
    V = tok.vocab_size
    assert (tok.case_factors, tok.lowercase, tok.id_limit) == (True, True, 3 * V)
    spelled = {i: piece for piece, i in tok.vocab.items()}
    assert len(spelled) == V and all(spelled[i] == piece or (spelled[i] == piece.lower() and piece.lower() not in cased.vocab)
                                     for piece, i in cased.vocab.items())
    assert spelled[cased.vocab["▁Tom"]] == "▁tom" and spelled[cased.vocab["[UNK]"]] == "[UNK]"
    factors = lambda text: [i // V for i in tok.encode(text)]  # noqa: E731
    texts = ("Tom is here.", "TOM IS HERE.", "tom is here.", "Tom Is Here.")
    assert len({tuple(tok.pieces(tok.encode(t))) for t in texts}) == 1
    assert tok.pieces(tok.encode("tom is here.")) == cased.encode("Tom is here.")  # ▁Tom's row, one piece
    words = lambda text: [f for i, f in zip(tok.encode(text), factors(text)) if tok.id_to_token(i % V) != "."]  # noqa: E731
    assert set(words("tom is here.")) == {0} and set(words("TOM IS HERE.")) == {2}
    assert factors("Tom") == [1] * len(tok.encode("Tom")) and factors("I") == [1] * len(tok.encode("I"))
    assert factors("3 ... !") == [0] * len(tok.encode("3 ... !"))
    mixed = tok.encode("McTom")  # Mc + Tom: each piece its own case
    assert [i // V for i in mixed] == [1 if tok.id_to_token(i % V).strip("▁#")[:1] in "mt" else 0 for i in mixed]
    assert tok.decode(tok.encode("TOM Is here.")) == "tom is here."
    assert tok.encode_batch(list(texts)) == [tok.encode(t) for t in texts]
    tok.save(tmp_path / "cf.json")
    again = Tokenizer.load(tmp_path / "cf.json")
    assert again.case_factors and again.encode("TOM IS HERE.") == tok.encode("TOM IS HERE.")
    saved = json.loads((tmp_path / "cf.json").read_text())
    saved["mtcli_case_factors"] = 5
    (tmp_path / "bad.json").write_text(json.dumps(saved))
    with pytest.raises(UserError, match="is damaged: mtcli_case_factors is 5"):
        Tokenizer.load(tmp_path / "bad.json")
    cased.save(tmp_path / "cased.json")
    assert "mtcli_case_factors" not in json.loads((tmp_path / "cased.json").read_text())


def test_an_acronym_in_text_with_lowercase_letters_is_split_as_typed():
    """A word in ALL CAPS that the lowercase vocabulary has no one piece for ("BBC"), or a letter of a
    dotted acronym ("U.S."), is, in text with lowercase letters, split as typed with the cased vocabulary's pieces ("##B ##B ##C", a capital letter
    respelled in lowercase given back: "▁I"), its factor ALL CAPS; in ALL CAPS text, as one lowercase
    piece ("TOM", "VERY") or longer than an acronym ("UNBELIEVABLE"), it is lowercased like any word."""
    cased = train_tokenizer([en for en, _ in tiny_pairs()] + ["Tom met xBy and xCy."], 200)  # (##B, ##C)
    tok = cased.with_case_factors()
    V = tok.vocab_size
    assert "▁i" in tok.vocab and "▁I" not in tok.vocab  # (respelled: "I" is never lowercase)
    assert len(tok.encode("tom")) == 1
    n = len(tok.encode("Tom met"))
    for acronym in ("TBC", "IBC"):
        ids = tok.encode(f"Tom met {acronym}.")
        lowered = tok.pieces(tok.encode(acronym.lower()))
        assert len(lowered) > 1 and cased.encode(acronym) != lowered and UNK not in cased.encode(acronym)
        assert tok.pieces(ids[n:-1]) == cased.encode(acronym) and {i // V for i in ids[n:-1]} == {2}
        assert tok.pieces(tok.encode(f"TOM MET {acronym}."))[n:-1] == lowered
    assert tok.pieces(tok.encode("TOM met BBC.")[:1]) == tok.pieces(tok.encode("tom"))
    dotted = tok.encode("Tom met T.B. there")[n:n + len(cased.encode("T.B."))]  # "U.S.": letters as typed, ALL CAPS
    assert tok.pieces(dotted) == cased.encode("T.B.")
    assert [i // V for i in dotted] == [0 if tok.id_to_token(i % V) == "." else 2 for i in dotted]
    shouted = "BCBCBC"  # (too long for an acronym)
    assert len(tok.encode(shouted.lower())) > 1
    assert tok.pieces(tok.encode(f"Tom met {shouted}."))[n:-1] == tok.pieces(tok.encode(shouted.lower()))
    assert tok.decode(tok.encode("Tom met BBC.")).lower() == "tom met bbc."
    assert tok.encode_batch(["Tom met BBC.", "TOM MET BBC."]) == [tok.encode("Tom met BBC."), tok.encode("TOM MET BBC.")]


def test_capital_letters_given_back_for_acronyms_are_one_to_one():
    """Only a letter that is its capital's lowercase gets the capital ("▁u" -> "▁U"; not "ſ", "ı" or "ς",
    whose capitals are S, I and Σ): one piece per spelling, whatever the vocabulary's order."""
    from mtcli.tokenizer import _capital_letters

    vocab = {"[PAD]": 0, "▁s": 4, "▁ſ": 5, "▁ı": 6, "##ς": 7, "##σ": 8, "▁u": 9, "▁A": 10, "▁a": 11, "##ß": 12}
    assert _capital_letters(vocab) == {"[PAD]": 0, "▁S": 4, "▁ſ": 5, "▁ı": 6, "##ς": 7, "##Σ": 8, "▁U": 9,
                                       "▁A": 10, "▁a": 11, "##ß": 12}
