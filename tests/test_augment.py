"""Training-time augmentation, the weights' moving average and validation BLEU (mtcli/augment.py, train.py)."""

import re

import numpy as np
import pytest

from mtcli.augment import augment_pairs, augment_split, short_variants
from mtcli.checkpoint import load_model
from mtcli.config import ModelConfig, TrainConfig
from mtcli.data import make_batches, prepare, read_corpus
from mtcli.distributed import Replicas
from mtcli.train import load_state, train

VOCAB = dict(src_vocab=200, tgt_vocab=220)
ALL = dict(numbers=0.5, lowercase=0.3, titlecase=0.2, uppercase=0.1, strip_punct=0.3)


@pytest.fixture
def tiny(tiny_corpus, tmp_path):
    return prepare(tiny_corpus, tmp_path / "prepared", **VOCAB)


def cfg(**kw):
    return ModelConfig(**VOCAB, **{"d_model": 32, "d_ff": 64, "n_heads": 2, "n_layers": 1, **kw})


def _split(tiny, probs, epoch, seed=0):
    pairs = read_corpus(tiny.manifest["data"]["path"]).pairs
    return augment_split(tiny.splits["train"], pairs, tiny.src_tok, tiny.tgt_tok, probs, seed, epoch, 56, 54)


def _texts(tiny, split):
    return [(tiny.src_tok.decode(split.src_seq(i)), tiny.tgt_tok.decode(split.tgt_seq(i))) for i in range(len(split))]


def test_modifiers_do_what_they_say():
    rng = np.random.default_rng(0)
    pair = [("Where is Tom's 3rd book, 12 pages?", "¿Dónde está el 3er libro de Tom, 12 páginas?")]
    assert augment_pairs(pair, {"lowercase": 1}, rng)[0] == (pair[0][0].lower(), pair[0][1].lower())
    assert augment_pairs(pair, {"uppercase": 1}, rng)[0] == (pair[0][0].upper(), pair[0][1].upper())
    assert augment_pairs(pair, {"titlecase": 1}, rng)[0][0] == "Where Is Tom's 3rd Book, 12 Pages?"
    assert augment_pairs(pair, {"strip_punct": 1}, rng)[0] == ("Where is Tom's 3rd book, 12 pages", pair[0][1])
    en, es = augment_pairs(pair, {"numbers": 1}, rng)[0]
    digits = lambda s: re.findall(r"\b\d+\b", s)  # noqa: E731
    assert digits(en) != ["12"] and digits(en) == digits(es) and "3rd" in en
    assert augment_pairs(pair, {"numbers": 1}, rng) != augment_pairs(pair, {}, rng)
    assert augment_pairs([("I have no numbers.", "No tengo números.")], {"numbers": 1}, rng) == {}


def test_short_pairs_come_back_with_the_other_final_marks_and_cases():
    pairs = [("Hello!", "Hola."), ("Thank you.", "¡Gracias!"), ("Excuse me", "Perdón"), ("Are you there?", "¿Estás?"),
             ("I think Tom is going home now.", "Creo que Tom se va a casa ya."), ("Hola.", "Hi.")]
    marks = {}
    for seed in range(40):
        copies = short_variants(pairs[:5], 1.0, np.random.default_rng(seed), (False, True))
        assert sorted(row for row, _ in copies) == [0, 0, 1, 1, 2, 2]  # both other marks, every time
        for row, pair in copies:
            marks.setdefault(row, set()).add(pair)
    cased = lambda *ps: {(c(a), c(b)) for a, b in ps for c in (str, str.lower, str.upper)}  # noqa: E731
    assert marks == {  # never the pair's own mark; questions and long pairs never; case alike on both sides
        0: cased(("Hello.", "Hola."), ("Hello", "Hola")),
        1: cased(("Thank you!", "¡Gracias!"), ("Thank you", "Gracias")),
        2: cased(("Excuse me!", "¡Perdón!"), ("Excuse me.", "Perdón.")),
    }
    spanish_source = short_variants(pairs[5:], 1.0, np.random.default_rng(1), (True, False))
    assert {p for _, p in spanish_source} <= cased(("¡Hola!", "Hi!"), ("Hola", "Hi"))
    # with English case factors the Spanish keeps its case whatever the English's
    factored = [p for seed in range(30) for _, p in short_variants(pairs[:1], 1.0, np.random.default_rng(seed),
                                                                   (False, True), spanish_case=False)]
    assert {es for _, es in factored} == {"Hola", "Hola."}
    assert {en for en, _ in factored} == {"Hello", "hello", "HELLO", "Hello.", "hello.", "HELLO."}
    assert short_variants(pairs, 0.0, np.random.default_rng(0), (False, True)) == []
    assert len(short_variants(pairs[:3] * 100, 0.5, np.random.default_rng(0), (False, True))) in range(250, 351)


def test_short_copies_are_added_to_the_epoch_and_the_rest_is_unchanged(tiny):
    plain, probs = tiny.splits["train"], {"lowercase": 0.3}
    without, with_short = _split(tiny, probs, 0), _split(tiny, {**probs, "short": 1.0}, 0)
    n = len(plain)
    assert len(with_short) > n and len(without) == n
    np.testing.assert_array_equal(with_short.index[:n], plain.index)  # the other modifiers drew as before
    assert _texts(tiny, with_short)[:n] == _texts(tiny, without)
    for en, es in _texts(tiny, with_short)[n:]:
        assert len(en.split()) <= 3 and "?" not in en and (es.startswith("¡") == en.endswith("!"))


def test_augmentation_is_seeded_by_epoch_and_off_by_default(tiny):
    assert _split(tiny, {}, 0) is tiny.splits["train"]
    a, again, other = _split(tiny, ALL, 0), _split(tiny, ALL, 0), _split(tiny, ALL, 1)
    for name in ("src", "tgt", "src_offsets", "index"):
        np.testing.assert_array_equal(getattr(a, name), getattr(again, name))
    assert not np.array_equal(a.src, other.src)
    np.testing.assert_array_equal(a.index, tiny.splits["train"].index)  # the same pairs, modified
    texts, plain = _texts(tiny, a), _texts(tiny, tiny.splits["train"])
    changed = sum(t != p for t, p in zip(texts, plain))
    assert 0.3 * len(plain) < changed < 0.95 * len(plain)
    lower = _texts(tiny, _split(tiny, {"lowercase": 1.0}, 0))
    assert all(en == en.lower() and es == es.lower() for en, es in lower)


def test_selection_and_test_splits_are_never_augmented(tiny, tmp_path, monkeypatch):
    seen = []
    real = make_batches

    def spy(split, *a, **k):
        seen.append(split)
        return real(split, *a, **k)

    monkeypatch.setattr("mtcli.train.make_batches", spy)
    train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=1, augment_lowercase=1.0))
    assert tiny.splits["selection"] in seen  # evaluated as tokenized
    assert not any(s is tiny.splits["train"] for s in seen)  # trained on the lowercased copy


def test_moving_average_is_what_gets_saved(tiny, tmp_path):
    """Decay ~0: the average is the weights themselves; decay 0.9: it is not, and the saved model is it."""
    train(tiny, tmp_path / "plain", cfg(), TrainConfig(batch_size=16, max_epochs=1, ema_decay=1e-30))
    model, _, _, _, average = load_state(tmp_path / "plain")
    np.testing.assert_array_equal(average, model.flat)
    np.testing.assert_array_equal(load_model(tmp_path / "plain")[0].flat, model.flat)

    train(tiny, tmp_path / "ema", cfg(), TrainConfig(batch_size=16, max_epochs=1, ema_decay=0.9))
    model, _, _, _, average = load_state(tmp_path / "ema")
    assert not np.array_equal(average, model.flat)
    np.testing.assert_array_equal(load_model(tmp_path / "ema")[0].flat, average)


def test_bleu_picks_the_best_epoch(tiny, tmp_path):
    loop = train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=3, patience=5, bleu_sample=40,
                                                            early_stop_on="bleu"))
    bleus = [r["selection_bleu"] for r in loop.history]
    assert len(bleus) == 3 and all(0 <= b <= 100 for b in bleus)
    assert loop.best_epoch == 1 + int(np.argmax(bleus)) and loop.best_bleu == pytest.approx(max(bleus), abs=0.01)


@pytest.mark.parametrize("threads", [1, 2])
def test_resume_with_augmentation_and_average_is_exact(tiny, tmp_path, monkeypatch, threads):
    tcfg = TrainConfig(batch_size=8, warmup=20, max_epochs=3, patience=10, ema_decay=0.95,
                       augment_lowercase=0.3, augment_numbers=0.5, augment_strip_punct=0.3)
    full = train(tiny, tmp_path / "full", cfg(), tcfg, threads=threads)
    calls = {"n": 0}
    real = Replicas.forward_backward
    stop_at = len(make_batches(tiny.splits["train"], 8, 0, 0)) + 4  # mid epoch 2

    def interrupted(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == stop_at:
            raise KeyboardInterrupt
        return real(self, *a, **k)

    monkeypatch.setattr(Replicas, "forward_backward", interrupted)
    assert train(tiny, tmp_path / "part", cfg(), tcfg, threads=threads).done == "interrupted"
    monkeypatch.setattr(Replicas, "forward_backward", real)
    resumed = train(tiny, tmp_path / "part", cfg(), tcfg, resume=True, threads=threads)
    strip = lambda h: [{k: v for k, v in r.items() if k != "seconds"} for r in h]  # noqa: E731
    assert strip(resumed.history) == strip(full.history)
    for a, b in zip(load_state(tmp_path / "full"), load_state(tmp_path / "part")):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(load_model(tmp_path / "full")[0].flat, load_model(tmp_path / "part")[0].flat)
