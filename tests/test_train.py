"""Training on a tiny self-written corpus: it learns, it resumes exactly, a damaged checkpoint is a clear
error. (Real signals and kills with --resume: tests/test_resume.py.)"""

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

from mtcli.checkpoint import METRICS, SRC_TOK, STATE, TGT_TOK, WEIGHTS, load_model
from mtcli.config import ModelConfig, TrainConfig
from mtcli.data import make_batches, prepare
from mtcli.distributed import Replicas
from mtcli.errors import UserError
from mtcli.metrics import teacher_forced
from mtcli.train import load_state, train
from tests.conftest import tiny_pairs, write_tsv

VOCAB = dict(src_vocab=200, tgt_vocab=220)


@pytest.fixture
def tiny(tiny_corpus, tmp_path):
    return prepare(tiny_corpus, tmp_path / "prepared", **VOCAB)


def cfg(**kw):
    return ModelConfig(**{**VOCAB, "d_model": 32, "d_ff": 64, "n_heads": 2, "n_layers": 1, **kw})


def test_learns_a_tiny_corpus(tmp_path):
    """Training learns: a fixed budget of steps reaches >= 99% masked token accuracy on what it trained on.
    One translation per English sentence, so that 100% is possible."""
    pairs = list({en: (en, es) for en, es in reversed(tiny_pairs())}.values())
    p = prepare(write_tsv(tmp_path / "pairs.tsv", pairs), tmp_path / "prepared", **VOCAB)
    tcfg = TrainConfig(batch_size=8, warmup=100, label_smoothing=0.0, max_epochs=60, patience=100)  # 480 steps
    train(p, tmp_path / "run", cfg(dropout=0.0, attn_dropout=0.0), tcfg)
    last = load_state(tmp_path / "run")[0]  # the final weights, not the best on selection
    assert teacher_forced(last, make_batches(p.splits["train"], 64, 0, 0, shuffle=False))["accuracy"] >= 0.99


@pytest.mark.parametrize("threads", [1, 2])
def test_resume_reproduces_an_uninterrupted_run(tiny, tmp_path, monkeypatch, threads):
    tcfg = TrainConfig(batch_size=8, warmup=20, max_epochs=3, patience=10)
    full = train(tiny, tmp_path / "full", cfg(), tcfg, threads=threads)

    calls = {"n": 0}
    real = Replicas.forward_backward
    stop_at = len(make_batches(tiny.splits["train"], 8, 0, 0)) + 4  # the 4th batch of epoch 2

    def interrupted(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == stop_at:  # like Ctrl-C mid-epoch
            raise KeyboardInterrupt
        return real(self, *a, **k)

    monkeypatch.setattr(Replicas, "forward_backward", interrupted)
    part = train(tiny, tmp_path / "part", cfg(), tcfg, threads=threads)
    assert part.done == "interrupted" and (part.epoch, part.batch) == (1, 3)
    monkeypatch.setattr(Replicas, "forward_backward", real)
    resumed = train(tiny, tmp_path / "part", cfg(), tcfg, resume=True, threads=threads)

    strip = lambda h: [{k: v for k, v in r.items() if k != "seconds"} for r in h]  # noqa: E731
    assert strip(resumed.history) == strip(full.history)
    a, _ = load_model(tmp_path / "full")
    b, _ = load_model(tmp_path / "part")
    np.testing.assert_array_equal(a.flat, b.flat)


def test_metrics_log_and_plot(tiny, tmp_path, run_cli):
    train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=2))
    rows = [json.loads(line) for line in (tmp_path / "run" / METRICS).read_text().splitlines()]
    assert [r["epoch"] for r in rows] == [1, 2]
    assert {"train_error", "train_accuracy", "selection_error", "selection_accuracy", "lr"} <= set(rows[0])
    code, out, _ = run_cli("plot", tmp_path / "run")
    assert code == 0 and (tmp_path / "run" / "curves.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("damage, reason", [("truncate", "damaged"), ("flip", "checksum mismatch")])
def test_damaged_checkpoint_is_a_clear_error(tiny, tmp_path, damage, reason, run_cli):
    train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=1))
    for name in (STATE, WEIGHTS):
        path = tmp_path / "run" / name
        data = bytearray(path.read_bytes())
        if damage == "truncate":
            data = data[: len(data) // 2]
        else:
            data[-100] ^= 0xFF  # inside the tensor bytes: only the checksum can tell
        path.write_bytes(bytes(data))
    with pytest.raises(UserError, match=f"{STATE}: .*{reason}"):
        load_state(tmp_path / "run")
    code, _, err = run_cli("translate", "-m", tmp_path / "run", "Hello.")
    last = err.strip().splitlines()[-1]  # (earlier lines are the training's own output)
    assert code == 2 and last.startswith("error:") and WEIGHTS in last and reason in last, err


def test_tensors_read_mapped_are_those_written(tmp_path):
    """load_tensors(mapped=True) (a model's weights: arrays over the file's mapped bytes) reads what was written, of
    every dtype mtcli writes and some it does not, as read-only arrays."""
    from mtcli.checkpoint import load_tensors, save_tensors

    tensors = {"h": np.arange(6, dtype=np.float16).reshape(2, 3), "f": np.linspace(0, 1, 5, dtype=np.float32),
               "i": np.array([-2**40, 3]), "u": np.arange(3, dtype=np.uint16), "b": np.array([True, False]),
               "e": np.zeros((0, 4), np.float32), "d": np.array(2.5)}
    path = tmp_path / "t.safetensors"
    save_tensors(path, tensors, {"x": 1})
    (copied, meta), (mapped, meta_too) = load_tensors(path), load_tensors(path, mapped=True)
    assert meta == meta_too == {"x": 1} and copied.keys() == mapped.keys() == tensors.keys()
    for name, t in tensors.items():
        assert mapped[name].dtype == t.dtype and mapped[name].shape == t.shape and np.array_equal(mapped[name], t)
        assert not mapped[name].flags.writeable


@pytest.mark.parametrize("damage, reason", [
    (lambda meta, tensors: meta["model"].update(d_model="wide"), "d_model"),
    (lambda meta, tensors: meta["train"].update(batch_size="many"), "batch_size"),
    (lambda meta, tensors: meta["loop"].update(epoch=[]), "epoch"),
    (lambda meta, tensors: meta.update(step=-1), "step: expected a whole number"),
    (lambda meta, tensors: meta["loop"].update(history=[{"epoch": "first"}]), "history row 1"),
    (lambda meta, tensors: meta["loop"].update(rng={"bit_generator": "PCG64", "state": 7}),
     r"a random generator state is invalid \((TypeError|KeyError|ValueError)"),
    (lambda meta, tensors: tensors.update(average=np.zeros(3, np.float32)), "average does not match the parameters"),
])
def test_a_state_damaged_behind_its_checksum_is_named(tiny, tmp_path, damage, reason):
    """A training state that another tool rewrote (checksum recomputed, so only the fields can tell):
    every field is checked and the error names the file and what is wrong, in one line."""
    from mtcli.checkpoint import load_tensors, save_tensors

    train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=1))
    path = tmp_path / "run" / STATE
    tensors, meta = load_tensors(path)
    damage(meta, tensors)
    save_tensors(path, tensors, meta)
    with pytest.raises(UserError, match=f"^{path}: invalid training state.*{reason}"):
        load_state(tmp_path / "run")


def test_resume_keeps_the_saved_model_and_says_what_changed(tiny, tmp_path):
    """--resume refuses another model shape given on the command line (naming each field, saved and
    asked), and names each training setting it overrides, saved -> new."""
    from rich.console import Console

    train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=1))
    with pytest.raises(UserError, match=r"with its saved model: d_ff 64 \(not 48\), d_model 32 \(not 16\); drop"):
        train(tiny, tmp_path / "run", cfg(d_model=16, d_ff=48), TrainConfig(max_epochs=2), resume=True,
              fixed=("d_model", "d_ff", "n_layers"))
    console = Console(record=True, width=400)
    train(tiny, tmp_path / "run", cfg(d_model=16), TrainConfig(batch_size=8, max_epochs=2), resume=True,
          console=console, overrides=("batch_size", "max_epochs"))  # (d_model not given: the saved one)
    text = console.export_text()
    assert "with batch_size 16 -> 8, max_epochs 1 -> 2; the other settings are the saved run's" in text, text


def test_a_directory_holding_a_model_is_never_trained_over(tiny, tmp_path):
    """Without --resume, a directory with a training state or with weights alone (a finished run whose
    state was removed, a downloaded model) is refused, naming --resume; nothing in it changes."""
    train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=1))
    (tmp_path / "run" / STATE).unlink()
    before = (tmp_path / "run" / WEIGHTS).read_bytes()
    with pytest.raises(UserError, match="already holds a model: continue it with --resume"):
        train(tiny, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=1))
    assert (tmp_path / "run" / WEIGHTS).read_bytes() == before


def test_the_seed_decides_the_initial_weights_and_out_may_be_nested(tiny, tmp_path):
    from rich.console import Console

    from mtcli.model import Model
    from mtcli.train import _start

    out = tmp_path / "a" / "nested" / "run"  # parents made as needed
    model, *_ = _start(tiny, out, cfg(), TrainConfig(seed=3), False, Console(quiet=True), ())
    assert np.array_equal(model.flat, Model(cfg(), seed=3).flat)
    assert not np.array_equal(model.flat, Model(cfg(), seed=0).flat)
    assert sorted(p.name for p in out.iterdir()) == sorted([SRC_TOK, TGT_TOK])


def test_a_resumed_run_that_dies_resumes_again(tiny, tmp_path, monkeypatch):
    """A resumed run's own checkpoints are states a later --resume accepts (one that dies without a
    word, as on a power cut, leaves its last periodic checkpoint behind)."""
    import mtcli.train as train_module

    monkeypatch.setattr(train_module, "CHECKPOINT_SECONDS", 0.0)  # a checkpoint after every step
    tcfg, out = TrainConfig(batch_size=8, max_epochs=2), tmp_path / "run"
    real, calls = Replicas.forward_backward, {"n": 0}

    def failing_at(n: int, error: BaseException):
        def forward_backward(self, *a, **k):
            calls["n"] += 1
            if calls["n"] == n:
                raise error
            return real(self, *a, **k)
        return forward_backward

    monkeypatch.setattr(Replicas, "forward_backward", failing_at(3, KeyboardInterrupt()))
    assert train(tiny, out, cfg(), tcfg).done == "interrupted"
    calls["n"] = 0
    monkeypatch.setattr(Replicas, "forward_backward", failing_at(3, RuntimeError("power cut")))
    with pytest.raises(RuntimeError, match="power cut"):
        train(tiny, out, cfg(), tcfg, resume=True)
    _, adam, loop, _, _ = load_state(out)  # the resumed run's last periodic checkpoint
    assert loop.done == "" and adam.t == 4
    monkeypatch.setattr(Replicas, "forward_backward", real)
    assert train(tiny, out, cfg(), tcfg, resume=True).done.startswith("--max-epochs")


def test_resuming_a_finished_run_trains_no_epoch_past_max_epochs(tiny, tmp_path):
    """A run that reached --max-epochs, resumed as it was (the command run again), stops at once: no
    epoch beyond the limit, the model unchanged."""
    out, tcfg = tmp_path / "run", TrainConfig(batch_size=16, max_epochs=2)
    train(tiny, out, cfg(), tcfg)
    weights = (out / WEIGHTS).read_bytes()
    done = train(tiny, out, cfg(), tcfg, resume=True)
    assert done.done == "--max-epochs 2 reached" and done.epoch == 2 and len(done.history) == 2
    assert (out / WEIGHTS).read_bytes() == weights and len((out / METRICS).read_text().splitlines()) == 2
    assert train(tiny, out, cfg(), TrainConfig(max_epochs=3), resume=True, overrides=("max_epochs",)).epoch == 3


def test_resume_of_a_directory_that_holds_no_run_creates_nothing(tiny, tmp_path, run_cli):
    with pytest.raises(UserError, match="holds no saved run"):
        train(tiny, tmp_path / "none", cfg(), TrainConfig(max_epochs=1), resume=True)
    assert not (tmp_path / "none").exists()
    code, _, err = run_cli("train", "--out", "-", "--prepared", tiny.out_dir, "--max-epochs", "1")
    assert code == 2 and "standard output" in err and err.count("\n") == 1


def test_resume_can_start_the_moving_average(tiny, tmp_path):
    """--ema-decay given on resuming a run that kept no average: the average starts from the resumed
    weights and is saved with the state (not silently left out)."""
    out = tmp_path / "run"
    train(tiny, out, cfg(), TrainConfig(batch_size=16, max_epochs=1))
    assert load_state(out)[4] is None
    train(tiny, out, cfg(), TrainConfig(batch_size=16, max_epochs=2, ema_decay=0.9), resume=True,
          overrides=("max_epochs", "ema_decay"))
    model, _, _, _, average = load_state(out)
    assert average is not None and average.shape == model.flat.shape and not np.array_equal(average, model.flat)


def test_train_on_selection_trains_on_both_splits_and_keeps_every_epoch(tiny, tmp_path, run_cli):
    """--train-on train+selection: the selection split's pairs join the training batches (steps count
    them), no early stopping (each epoch's weights are the model), and the model then refuses to be
    scored on the selection split it learned."""
    def steps(split):
        return len(make_batches(split, 8, 0, 0))

    tcfg = TrainConfig(batch_size=8, max_epochs=3, patience=1, train_on="train+selection")
    done = train(tiny, tmp_path / "both", cfg(), tcfg)
    assert done.done.startswith("--max-epochs") and done.best_epoch == 3  # patience 1 never stopped it
    from mtcli.data import EncodedSplit, training_pairs
    both = training_pairs(tiny, "train+selection", 56, 54)
    train_only, sel = tiny.splits["train"], tiny.splits["selection"]
    assert len(both) == len(train_only) + len(sel) and sorted(both.index) == sorted([*train_only.index, *sel.index])
    for i, row in enumerate(sel.index):  # each selection pair's ids, unchanged
        j = list(both.index).index(row)
        np.testing.assert_array_equal(both.src_seq(j), sel.src_seq(i))
        np.testing.assert_array_equal(both.tgt_seq(j), sel.tgt_seq(i))
    _, _, loop, _, _ = load_state(tmp_path / "both")
    assert [r["step"] for r in loop.history] == [steps(both) * k for k in (1, 2, 3)]
    assert steps(both) > steps(train_only)
    model, meta = load_model(tmp_path / "both")
    np.testing.assert_array_equal(model.flat, load_state(tmp_path / "both")[0].flat)  # the last epoch, saved
    assert meta["train"]["train_on"] == "train+selection"

    corpus = tiny.manifest["data"]["path"]
    code, _, err = run_cli("evaluate", "-m", tmp_path / "both", "--split", "selection", "--corpus", corpus)
    assert code == 2 and "trained on the selection split" in err
    # so is an ensemble of which any model (here the second) learned the selection split
    train(tiny, tmp_path / "plain", cfg(), TrainConfig(batch_size=8, max_epochs=1))
    assert run_cli("ensemble", tmp_path / "plain", tmp_path / "both", "-o", tmp_path / "pair")[0] == 0
    code, _, err = run_cli("evaluate", "-m", tmp_path / "pair", "--split", "selection", "--corpus", corpus)
    assert code == 2 and "trained on the selection split" in err
    assert run_cli("evaluate", "-m", tmp_path / "plain", "--split", "selection", "--corpus", corpus,
                   "--limit", "3")[0] == 0
    with pytest.raises(UserError, match="cannot pick epochs"):
        train(tiny, tmp_path / "bleu", cfg(), TrainConfig(train_on="train+selection", bleu_sample=4))
    with pytest.raises(UserError, match="train, train\\+selection or train\\+selection\\+test"):
        train(tiny, tmp_path / "bad", cfg(), TrainConfig(train_on="selection"))
    assert EncodedSplit.concat(sel).src.tolist() == sel.src.tolist()


def test_train_on_selection_leaves_out_pairs_cut_at_the_length_limit(tiny):
    """Selection pairs over the limits were cut (EOS kept) to score them; trained on, a cut Spanish side
    would teach stopping mid-sentence, so pairs at a limit stay out."""
    from mtcli.data import training_pairs
    sel = tiny.splits["selection"]
    longest = int(sel.tgt_lens.max())
    kept = training_pairs(tiny, "train+selection", 56, longest - 1)  # the longest Spanish sides are at the limit
    assert len(kept) == len(tiny.splits["train"]) + int((sel.tgt_lens < longest).sum())


def test_data_tokenized_with_longer_limits_than_the_models_is_refused_before_any_work(tiny_corpus, tmp_path):
    """Only the Python API can pair them (the CLI tokenizes with the model's limits): a clear error, no
    traceback from deep in the batching, and no run directory."""
    prepared = prepare(tiny_corpus, tmp_path / "long", **VOCAB, max_src_len=80, max_tgt_len=80)
    with pytest.raises(UserError, match="up to 80 English and 81 Spanish ids, longer than the model's 56 and"):
        train(prepared, tmp_path / "run", cfg(), TrainConfig(batch_size=16, max_epochs=1))
    assert not (tmp_path / "run").exists()


def test_a_lowercasing_english_tokenizer_trains_a_model_blind_to_case(tiny_corpus, tmp_path):
    """Data tokenized with --lowercase-en: the model translates ALL CAPS and lowercase English exactly as
    the normal text; augmentations of case, which would change only the Spanish side, are refused."""
    from mtcli.decode import Translator

    p = prepare(tiny_corpus, tmp_path / "prepared", lowercase_en=True, **VOCAB)
    for name in ("lowercase", "uppercase", "titlecase"):
        with pytest.raises(UserError, match=f"--augment-{name} would change only the Spanish"):
            train(p, tmp_path / name, cfg(), TrainConfig(batch_size=8, max_epochs=1, **{f"augment_{name}": 0.1}))
        assert not (tmp_path / name).exists()
    train(p, tmp_path / "run", cfg(), TrainConfig(batch_size=8, max_epochs=1, augment_strip_punct=0.5))
    en = tiny_pairs()[0][0]
    results = Translator(tmp_path / "run").translate_batch([en, en.upper(), en.lower()])
    # the same ids: the same text, and the same score but for float32 summation order across batch rows
    assert len({r.hypotheses[0].text for r in results}) == 1
    assert max(r.hypotheses[0].score for r in results) - min(r.hypotheses[0].score for r in results) < 1e-5


def test_case_factors_data_tunes_a_model_from_another_models_weights(tiny_corpus, tmp_path):
    """--case-factors-en keeps the cased vocabulary, so a model trained on the default data starts a
    model with case factors (--init-from: its weights copied, the factor table at zero); the case
    augmentations change the English only (its pieces stay, its factors change); other vocabularies,
    shapes and missing files are refused."""
    from mtcli.augment import augment_split
    from mtcli.decode import Translator
    from mtcli.model import Model
    from mtcli.train import _corpus_pairs, _init_from, _init_source

    plain = prepare(tiny_corpus, tmp_path / "plain", **VOCAB)
    factored = prepare(tiny_corpus, tmp_path / "cf", case_factors_en=True, **VOCAB)
    assert factored.src_tok.vocab == plain.src_tok.with_case_factors().vocab and factored.manifest["case_factors"] == {"en": True}
    assert int(factored.splits["train"].src.max()) >= VOCAB["src_vocab"]  # the ids carry factors
    train(plain, tmp_path / "base", cfg(), TrainConfig(batch_size=8, max_epochs=1))
    base, _ = load_model(tmp_path / "base")
    start = Model(cfg(case_factors=True), seed=5)
    _init_from(start, _init_source(str(tmp_path / "base"), factored, start.cfg))
    assert all(np.array_equal(start.params[g][n], t) for g, ts in base.params.items() for n, t in ts.items())
    assert not start.params["src_case"]["w"].any()

    tcfg = TrainConfig(batch_size=8, max_epochs=1, augment_uppercase=0.5, init_from=str(tmp_path / "base" / WEIGHTS))
    train(factored, tmp_path / "run", cfg(case_factors=True), tcfg)
    model, meta = load_model(tmp_path / "run")
    assert model.cfg.case_factors and model.params["src_case"]["w"].any()
    assert meta["train"]["init_from"] == str(tmp_path / "base" / WEIGHTS)
    en = tiny_pairs()[0][0]
    assert all(r.hypotheses[0].text for r in Translator(tmp_path / "run").translate_batch([en, en.upper(), en.lower()]))

    split, tok = factored.splits["train"], factored.src_tok
    up = augment_split(split, _corpus_pairs(factored), tok, factored.tgt_tok, {"uppercase": 1.0}, 0, 0, 56, 53)
    assert all(list(up.tgt_seq(i)) == list(split.tgt_seq(i)) and tok.pieces(up.src_seq(i)) == tok.pieces(split.src_seq(i))
               for i in range(len(split)))
    assert all(2 in {i // tok.vocab_size for i in up.src_seq(k)} for k in range(len(split)))  # ALL CAPS words
    assert not np.array_equal(up.src, split.src)

    other = prepare(tiny_corpus, tmp_path / "other", case_factors_en=True, src_vocab=210, tgt_vocab=220)
    with pytest.raises(UserError, match="its src.json vocabulary is not that of the tokenized data"):
        train(other, tmp_path / "x", ModelConfig(**{**cfg(case_factors=True).__dict__, "src_vocab": 210}), tcfg)
    for shape in ({"d_ff": 16}, {"n_layers": 2}, {"n_heads": 4}):  # (the base: 1 layer, 2 heads, d_ff 64)
        with pytest.raises(UserError, match=f"it is a model of {next(iter(shape))} "):
            train(factored, tmp_path / "y", cfg(case_factors=True, **shape), tcfg)
    with pytest.raises(UserError, match="no such weights file"):
        train(factored, tmp_path / "z", cfg(case_factors=True), TrainConfig(init_from=str(tmp_path / "none")))
    with pytest.raises(UserError, match="--init-from is empty"):
        train(factored, tmp_path / "z", cfg(case_factors=True), TrainConfig(init_from=" "), overrides=["init_from"])
    with pytest.raises(UserError, match="tokenize with --case-factors-en"):
        train(plain, tmp_path / "z", cfg(), TrainConfig(init_from=str(tmp_path / "run")))
    assert not (tmp_path / "y").exists() and not (tmp_path / "z").exists()  # refused before --out is made
    with pytest.raises(UserError, match="drop one"):
        train(factored, tmp_path / "run", None, tcfg, resume=True, overrides=["init_from"])
    with pytest.raises(UserError, match="trained on other tokenized data"):  # ids that mean other pieces
        train(factored, tmp_path / "base", None, TrainConfig(max_epochs=2), resume=True, overrides=["max_epochs"])
    train(factored, tmp_path / "run", None, TrainConfig(max_epochs=2), resume=True, overrides=["max_epochs"])
    (tmp_path / "link.safetensors").symlink_to(tmp_path / "base" / WEIGHTS)  # its tokenizers are the target's
    train(factored, tmp_path / "linked", cfg(case_factors=True), replace(tcfg, init_from=str(tmp_path / "link.safetensors")))
    shutil.copytree(tmp_path / "base", tmp_path / "edited")
    (tmp_path / "edited" / "src.json").write_text((tmp_path / "run" / "src.json").read_text())
    with pytest.raises(UserError, match="is not the tokenizer"):
        train(factored, tmp_path / "z", cfg(case_factors=True), replace(tcfg, init_from=str(tmp_path / "edited")))


def test_ids_past_the_models_tables_are_refused_before_any_step(tiny_corpus, tmp_path, tiny_model_dir):
    """The embedding kernel reads rows unchecked (a bounds check per step would cost the hot loop), so ids past a
    table were read from memory past it, silently: case-factored data fed to a model without case factors (a
    benchmark did it), a model of a smaller vocabulary. Each way data meets a model is checked once per array."""
    from mtcli.data import check_ids
    from mtcli.decode import Translator
    from mtcli.evaluate import evaluate_pairs

    factored = prepare(tiny_corpus, tmp_path / "cf", case_factors_en=True, **VOCAB)
    for wrong, side in ((cfg(), "source"), (cfg(case_factors=True, tgt_vocab=100), "target")):
        with pytest.raises(UserError, match=f"its train pairs hold {side} token ids up to .* past the .* the model "
                                            "reads: tokenized with other options"):
            train(factored, tmp_path / "run", wrong, TrainConfig(batch_size=8, max_epochs=1))
        assert not (tmp_path / "run").exists()  # refused before --out is made
    train(factored, tmp_path / "run", cfg(case_factors=True), TrainConfig(batch_size=8, max_epochs=1))  # near miss

    split = factored.splits["train"]  # the bounds: the last row read, the first past it refused
    top = int(split.src.max())
    check_ids({"train": split}, cfg(case_factors=True, src_vocab=top // 3 + 1, tgt_vocab=int(split.tgt.max()) + 1), "x")
    for wrong in (cfg(case_factors=True, src_vocab=top // 3), cfg(case_factors=True, tgt_vocab=int(split.tgt.max()))):
        with pytest.raises(UserError, match="^x: "):
            check_ids({"train": split}, wrong, "x")

    translator = Translator(tiny_model_dir)  # (no case factors) given a tokenizer whose ids carry them
    translator.src_tok = translator.src_tok.with_case_factors()
    with pytest.raises(UserError, match="its evaluation pairs hold source token ids"):
        evaluate_pairs(translator, [("THE CAT SLEEPS.", "El gato duerme.")], beam=1, alpha=0.6)
