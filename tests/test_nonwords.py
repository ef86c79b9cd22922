"""Made-up output words (issue 40): the target-side lexicon (data.target_lexicon, checkpoint.write_lexicon and
load_lexicon, copied with a model) and the beam search's penalty on words outside it (decode.WordCheck)."""

import json
import shutil

import numpy as np
import pytest

from mtcli import decode
from mtcli.checkpoint import LEXICON, load_lexicon, write_lexicon
from mtcli.data import target_lexicon
from mtcli.decode import WORD, Translator, WordCheck, search, source_words
from mtcli.errors import UserError

from tests.conftest import write_tsv
from tests.test_search import random_model, random_sentences

PIECES = ["[PAD]", "[UNK]", "[START]", "[END]", "▁hola", "▁ho", "##la", "##l", "▁.", "!", "▁¡", "▁casa", "##s",
          "▁Dol", "##a", "▁3", "##0", "▁x"]
ID = {p: i for i, p in enumerate(PIECES)}
LEXICON_WORDS = frozenset({"hola", "casa", "casas", "x", "la"})


def _pay(words: list[str], candidates: list[str], source: frozenset[str] = frozenset()) -> list[bool]:
    """Which candidates pay after the pieces `words` (one row)."""
    check = WordCheck(PIECES, LEXICON_WORDS, penalty=5.0)
    word = None  # the row's unclosed word, followed as the beam follows it
    for p in words:
        word = check.follow(word, ID[p])
    paid = check.penalties([word], [source], np.array([[ID[c] for c in candidates]]))
    assert set(paid.ravel()) <= {0.0, 5.0}
    return [bool(p) for p in paid[0]]


def test_lexicon_is_the_lowercased_word_types_of_the_target_side():
    pairs = [("Hello, Tom!", "¡Hola, Tom!"), ("The 3 cats.", "Los 3 gatos."), ("hello", "hola")]
    assert target_lexicon(pairs, "en-es") == ["gatos", "hola", "los", "tom"]
    assert target_lexicon(pairs, "es-en") == ["cats", "hello", "the", "tom"]


def test_a_word_that_can_still_become_a_lexicon_word_goes_on_free():
    assert _pay(["▁ho"], ["##la", "##l"]) == [False, False]  # "hola", "hol" (on its way to "hola")
    assert _pay(["▁casa"], ["##s"]) == [False]


def test_closing_a_prefix_that_is_no_word_pays_and_so_does_a_dead_end():
    # "ho" closed by "!", by EOS, by a new word: all pay; "hola" + "la" is a prefix of nothing
    assert _pay(["▁ho"], ["!", "[END]", "▁casa"]) == [True, True, True]
    assert _pay(["▁hola"], ["##la", "!", "[END]", "▁casa"]) == [True, False, False, False]


def test_a_word_no_lexicon_word_starts_like_pays_once_where_it_starts():
    assert _pay(["▁¡"], ["▁Dol", "▁casa"]) == [True, False]
    assert _pay(["▁¡", "▁Dol"], ["##a", "!"]) == [False, False]  # (it paid already)


def test_the_starts_of_sources_kept_stay_bounded_and_verdicts_hold(monkeypatch):
    """A file's sources are each seen for one batch: their word starts are kept for a few batches, not for the
    whole file (a translate run's resident memory grew with it), and a source seen again is judged the same."""
    monkeypatch.setattr(decode, "SOURCES", 4)
    check = WordCheck(PIECES, LEXICON_WORDS, penalty=5.0)
    word = check.follow(None, ID["▁ho"])  # on its way to "hola": closing it is free where the source has "ho"
    candidates = np.array([[ID["!"], ID["##l"]]])
    first = check.penalties([word], [frozenset({"ho"})], candidates)
    for k in range(20):
        check.penalties([word], [frozenset({f"do{k}"})], candidates)
        assert len(check.source_starts) <= decode.SOURCES + 1
    again = check.penalties([word], [frozenset({"ho"})], candidates)
    assert first.tolist() == again.tolist() == [[0.0, 0.0]]
    assert check.penalties([word], [frozenset()], candidates).tolist() == [[5.0, 0.0]]


def test_source_words_names_and_numbers_are_no_made_up_words():
    source = source_words("Hello, DOLA!")
    assert source == {"hello", "dola"} and source_words("Hello, DOLA!", 2) == source
    assert source_words("Hello, my DOLA!", 2) is None  # (a longer line is not checked)
    assert _pay(["▁¡"], ["▁Dol"], None) == [False]
    assert _pay(["▁¡"], ["▁Dol"], source) == [False]
    assert _pay(["▁¡", "▁Dol", "##a"], ["!", "[END]"], source) == [False, False]
    assert _pay(["▁¡", "▁Dol"], ["##a"], frozenset({"dolares"})) == [False]  # (on its way to the source's word)
    assert _pay(["▁¡", "▁Dol"], ["##a"], frozenset({"dolor"})) == [True]
    assert _pay(["▁3", "##0"], ["[END]", "##0"]) == [False, False]
    assert _pay([], ["▁x", "[END]", "!"]) == [False, False, False]  # nothing open yet
    assert _pay(["▁¡"], ["##la", "##s"]) == [False, True]  # "##" after a mark opens a word ("la", "s")


def test_search_with_the_check_keeps_made_up_words_out_and_reports_true_log_probabilities():
    """A random model over a vocabulary the beam sees whole (2 x beam candidates): every output word is
    in the lexicon, and what was paid stays out of the log-probability; without the check the same model
    makes words outside it."""
    model = random_model(3)
    letters = [chr(ord("a") + k) for k in range(20)]
    pieces = ["[PAD]", "[UNK]", "[START]", "[END]"] + [f"##{c}" if k % 2 else f"▁{c}{c}" for k, c in enumerate(letters)]
    lexicon = frozenset({"aa", "cc", "ccd", "ee"})
    sentences = random_sentences(3, n=6)
    src = np.zeros((len(sentences), max(map(len, sentences))), np.int64)
    for r, s in enumerate(sentences):
        src[r, : len(s)] = s
    src_len = np.array([len(s) for s in sentences])

    def words(tokens):
        text = "".join(pieces[t].replace("▁", " ").replace("##", "") for t in tokens)
        return [w for w in text.split() if w.isalpha()]  # ("[UNK]" is none)

    free = search(model, src, src_len, beam=12, nbest=3)
    checked = search(model, src, src_len, beam=12, nbest=3, words=WordCheck(pieces, lexicon, penalty=50.0),
                     sources=[frozenset()] * len(sentences))
    assert any(w not in lexicon for hyps in free for h in hyps for w in words(h.tokens))
    for hyps in checked:
        for h in hyps:
            assert set(words(h.tokens)) <= lexicon
            assert h.logprob > -50 and h.score == pytest.approx(h.logprob / (len(h.tokens) + 1))


def test_write_and_load_a_models_lexicon(tmp_path, tiny_model_dir):
    model = shutil.copytree(tiny_model_dir, tmp_path / "model")
    corpus = write_tsv(tmp_path / "c.tsv", [("Hi there!", "¡Hola, amigo!"), ("The car.", "El coche.")])
    assert load_lexicon(model, {"data": {}}) is None
    path = write_lexicon(model, corpus)
    assert path == model / LEXICON
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["direction"] == "en-es" and record["words"] == ["amigo", "coche", "el", "hola"]
    assert Translator(model).words.words == {"amigo", "coche", "el", "hola"}
    with pytest.raises(UserError, match="not this model's"):
        load_lexicon(model, {"data": {"direction": "es-en"}})
    path.write_text("{", encoding="utf-8")
    with pytest.raises(UserError, match="damaged"):
        Translator(model)


def test_a_spanish_source_lexicon_holds_its_accents(tmp_path, tiny_model_dir):
    """For Spanish typed without them (text.spanish.accented): the corpus's forms and the neighbours that choose."""
    from mtcli.checkpoint import load_accents, load_model, save_model

    model = shutil.copytree(tiny_model_dir, tmp_path / "model")
    weights, _ = load_model(model)
    save_model(model, weights, {"data": {"direction": "es-en"}})
    es_en = {"data": {"direction": "es-en"}}
    corpus = write_tsv(tmp_path / "c.tsv", [("Is it OK?", "¿Está bien?"), ("The year.", "El año.")] * 3)
    write_lexicon(model, corpus)
    assert load_accents(model, es_en) == {"words": {"ano": "año", "esta": "está"}, "before": {}, "after": {}}
    assert load_accents(tiny_model_dir, {"data": {}}) is None  # (an English source's: none)
    record = json.loads((model / LEXICON).read_text(encoding="utf-8"))
    (model / LEXICON).write_text(json.dumps({**record, "accents": ["año"]}), encoding="utf-8")
    with pytest.raises(UserError, match="damaged"):
        load_accents(model, es_en)


def test_ensembles_and_registered_models_carry_the_lexicon(tmp_path, monkeypatch, tiny_model_dir):
    from mtcli import registry

    model = shutil.copytree(tiny_model_dir, tmp_path / "model")
    write_lexicon(model, write_tsv(tmp_path / "c.tsv", [("Hi!", "¡Hola!")]))
    assert LEXICON in registry.model_files(model)
    monkeypatch.setenv("MTCLI_HOME", str(tmp_path / "home"))
    added = registry.add(model, "with-lexicon")
    assert (added / LEXICON).read_bytes() == (model / LEXICON).read_bytes()
    out = tmp_path / "ens"
    out.mkdir()
    from mtcli.checkpoint import save_ensemble

    save_ensemble(out, [model, model])
    assert (out / LEXICON).is_file()


def test_the_shipped_model_ships_its_lexicon_and_makes_no_word_up_where_it_did(shipped_model):
    """Inputs whose raw translations were made up before the check ("¡Dola!", "Crite", "Contácúbeos."), and
    longer ones, checked since every line is ("reemplipintes", "counciado", "fabricamente")."""
    tr = Translator(shipped_model)
    lines = ["Hello!", "Welcome!", "Goodbye!", "Congratulations!", "Push", "Print", "Copy", "Contact us",
             "The archaeologists deciphered the inscription on the sarcophagus.",
             "Our startup sells refurbished smartphones online.", "He was flabbergasted by the exorbitant invoice.",
             "She meticulously proofread the manuscript before submitting it."]
    for line, ((text, _),) in zip(lines, tr.translate(lines)[0]):
        assert all(w.lower() in tr.words.words or w.lower() in source_words(line) for w in WORD.findall(text)), text


def test_the_verdicts_remembered_stay_bounded_and_hold_once_forgotten(monkeypatch):
    """The memo of lexicon verdicts is emptied past VERDICTS entries (at 100,000 it held ~14 MB of a file's peak at
    beam 4), and a word judged after that is judged the same."""
    monkeypatch.setattr(decode, "VERDICTS", 4)
    check = WordCheck(PIECES, LEXICON_WORDS, penalty=5.0)
    candidates = np.array([[ID["!"], ID["##la"], ID["##s"]]])
    first = check.penalties(["ho"], [frozenset()], candidates)
    for k in range(30):
        check.penalties([f"zq{k}"], [frozenset()], candidates)
        assert len(check.memo) <= decode.VERDICTS + 1 + candidates.size
    assert check.penalties(["ho"], [frozenset()], candidates).tolist() == first.tolist() == [[5.0, 0.0, 5.0]]
