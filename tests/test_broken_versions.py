"""The three broken versions an audit found the suite blind to, each put in at a named seam and
caught by the same checks that pass on the real code:

- beam search where each hypothesis keeps its own key/value cache instead of its parent's
  (seam: decode.decoder_hidden / DecoderState.history, or Model.reorder_state in the older decoder);
- a --resume that reads the saved state and then trains from scratch (seam: mtcli.train.load_state,
  swapped inside the `mtcli train` subprocess by tests/test_resume.py's hook);
- a tokenizer whose NFC normaliser is a no-op (seam: mtcli.tokenizer._pipeline).

If a refactor removes a seam, the patch below fails loudly (or the check stops failing, which fails
the test): move the patch to the new seam, never weaken the check."""

from __future__ import annotations

import signal

import numpy as np
import pytest
from tokenizers import normalizers

import mtcli.tokenizer as tokenizer_module
from mtcli import decode
from mtcli.checkpoint import load_model
from mtcli.model import Model
from mtcli.tokenizer import BOS, EOS
from tests.test_resume import interrupt_and_resume, tiny_training  # noqa: F401 (fixture)
from tests.test_search import SEEDS, SENTENCES, check, random_model, random_sentences
from tests.test_tokenizer import ACCENTED, SHIPPED_ES, TRICKY, check_normalisation


def beam_keeps_its_own_cache(monkeypatch) -> None:
    """Each hypothesis continues with the keys/values of the cache row it sits in, not with those of
    the hypothesis it extends. Two seams, for the two ways decode.py has reordered beams:
    - cache rows addressed through DecoderState.history (decode.decoder_hidden reads a row's past
      from history[row]): every row is made to read its own row's past;
    - caches copied by Model.reorder_state: after a search's first reorder (one row per sentence ->
      `beam` rows), every reorder keeps each row where it is."""
    if hasattr(decode, "decoder_hidden"):
        real_hidden = decode.decoder_hidden

        def decoder_hidden(model, state, tokens, rows, t=None, kept=None):
            past = np.arange(state.history.shape[1]) < np.reshape(state.t if t is None else t, (-1, 1))
            state.history[rows] = np.where(past, np.asarray(rows)[:, None], state.history[rows])
            return real_hidden(model, state, tokens, rows, t, kept)

        monkeypatch.setattr(decode, "decoder_hidden", decoder_hidden)
        return
    real_reorder, real_search = Model.reorder_state, decode.beam_search
    rows: list[int] = []

    def reorder_state(state, index, *args, **kwargs):
        rows.append(len(index))
        if len(rows) > 1 and rows[-2] == len(index):
            index = np.arange(len(index))
        return real_reorder(state, index, *args, **kwargs)

    def beam_search(*args, **kwargs):
        rows.clear()
        return real_search(*args, **kwargs)

    monkeypatch.setattr(Model, "reorder_state", staticmethod(reorder_state))
    monkeypatch.setattr(decode, "beam_search", beam_search)


def normaliser_is_a_no_op(monkeypatch) -> None:
    real = tokenizer_module._pipeline

    def pipeline(vocab, lowercase=False):
        hf = real(vocab, lowercase)
        hf.normalizer = normalizers.Sequence([])
        return hf

    monkeypatch.setattr(tokenizer_module, "_pipeline", pipeline)


def test_beam_search_keeping_its_own_cache_is_caught(monkeypatch, shipped_model):
    beam_keeps_its_own_cache(monkeypatch)
    caught = 0
    for seed in SEEDS:
        for beam in (2, 4):
            try:
                check(random_model(seed), random_sentences(seed), beam, nbest=beam)
            except AssertionError as e:
                assert "hypotheses differ" in str(e)
                caught += 1
    assert caught == 2 * len(SEEDS), f"the reference check caught {caught} of {2 * len(SEEDS)} cases"
    # and on the shipped model: its n-best lists are no longer the reference's
    model, _ = load_model(shipped_model, dtype=np.float64)
    src_tok = decode.Translator(shipped_model).src_tok
    sentences = [np.array([BOS, *ids, EOS]) for ids in src_tok.encode_batch(SENTENCES)]
    with pytest.raises(AssertionError, match="hypotheses differ"):
        check(model, sentences, 4, nbest=4)


def test_resume_from_scratch_is_caught(tiny_training, tmp_path):
    with pytest.raises(AssertionError, match="the resumed run began at step"):
        interrupt_and_resume(tiny_training, tmp_path, signal.SIGINT, seed=3, broken="resume-from-scratch")


def test_no_op_normaliser_is_caught(monkeypatch, shipped_model):
    normaliser_is_a_no_op(monkeypatch)
    tok = tokenizer_module.train_tokenizer(TRICKY * 3, 300)
    with pytest.raises(AssertionError, match="NFD of"):
        check_normalisation(tok, ACCENTED)
    shipped = decode.Translator(shipped_model).tgt_tok
    with pytest.raises(AssertionError, match="NFD of"):
        check_normalisation(shipped, SHIPPED_ES)
