"""Greedy and beam search (batched, cached) against the plain reference search of
tests/reference_search.py: the same hypotheses, n-best lists and scores, on random models and on
the shipped model."""

from __future__ import annotations

import mmap
import sys
from dataclasses import replace

import numpy as np
import pytest

from mtcli import decode
from mtcli.checkpoint import load_ensemble
from mtcli.config import DEFAULTS, ModelConfig
from mtcli.model import Model
from mtcli.tokenizer import BOS, EOS, PAD
from tests import reference_search as ref


# --- the thin call layer: the only place that knows decode.py's signatures ---------------------


def search(model, src: np.ndarray, src_len: np.ndarray, beam: int, nbest: int = 1,
           alpha: float = 1.0, **rules) -> list[list[decode.Hypothesis]]:
    """mtcli's n-best lists for a padded batch; beam 0 means decode.greedy. rules: the output
    budget and the repeat guard (a, b, ngram: TranslationOptions' max_decoding_length_a/_b and
    no_repeat_ngram_size), when not the defaults."""
    if rules:
        names = {"a": "max_len_a", "b": "max_len_b", "ngram": "ngram"}
        return decode.search(model, src, src_len, max(beam, 1), nbest, alpha, **{names[k]: v for k, v in rules.items()})
    if beam == 0:
        return [[h] for h in decode.greedy(model, src, src_len)]
    return decode.beam_search(model, src, src_len, beam, nbest, alpha)


def stream(models: list, sentences: list[np.ndarray], beam: int, nbest: int, slots: int,
           seed: int) -> list[list[decode.Hypothesis]]:
    """mtcli's n-best lists for sentences that join a running decode.BeamSearch a few at a time, at
    random steps and into whatever slots are free (as a server's requests do), in input order."""
    rng = np.random.default_rng(seed)
    decoder = decode.BeamSearch(models, slots, replace(DEFAULTS, beam_size=beam, num_hypotheses=nbest))
    waiting, found, where = list(enumerate(sentences)), {}, {}
    while waiting or decoder.active.any():
        n = min(decoder.free, len(waiting), rng.integers(0 if decoder.active.any() else 1, 3))
        if n:
            joining, waiting = waiting[:n], waiting[n:]
            where.update(zip(decoder.add(*pad([s for _, s in joining])).tolist(), [i for i, _ in joining]))
        for slot, hyps in decoder.step():
            found[where.pop(slot)] = hyps
    return [found[i] for i in range(len(sentences))]


# --- the check ---------------------------------------------------------------------------------


def pad(sentences: list[np.ndarray], extra: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(B, S) PAD-filled batch and lengths; `extra` more PAD columns than needed."""
    lens = np.array([len(s) for s in sentences])
    src = np.full((len(sentences), lens.max() + extra), PAD, np.int64)
    for i, s in enumerate(sentences):
        src[i, : len(s)] = s
    return src, lens


def check(model, sentences: list[np.ndarray], beam: int, nbest: int = 1, alpha: float = 1.0,
          batched: bool = True, rel: float = 1e-9, **rules) -> list[list[ref.Hyp]]:
    """mtcli's search on the sentences (one batch, or each alone) gives the reference's hypotheses:
    same tokens in the same order, same scores and log-probabilities. Returns the reference's.
    rules: a, b, ngram of the reference's beam_search, for both."""
    batches = [sentences] if batched else [[s] for s in sentences]
    got = [hs for batch in batches for hs in search(model, *pad(batch), beam, nbest, alpha, **rules)]
    want = [ref.beam_search(model, s, max(beam, 1), nbest if beam else 1, alpha if beam else 1.0, **rules)
            for s in sentences]
    for i, (g, w) in enumerate(zip(got, want)):
        assert [h.tokens for h in g] == [h.tokens for h in w], f"sentence {i}: hypotheses differ"
        for a, b in zip(g, w):
            assert a.logprob == pytest.approx(b.logprob, rel=rel, abs=rel), f"sentence {i}: logprob"
            assert a.score == pytest.approx(b.score, rel=rel, abs=rel), f"sentence {i}: score"
    return want


# --- random models ----------------------------------------------------------------------------


def random_model(seed: int) -> Model:
    """A small float64 model whose output distribution is peaked (no near-ties between candidates)
    and whose EOS is likely enough that hypotheses end at many lengths, some at the length limit."""
    cfg = ModelConfig(src_vocab=20, tgt_vocab=24, d_model=16, d_ff=32, n_heads=2, n_layers=2,
                      max_src_len=12, max_tgt_len=16, dropout=0.0, attn_dropout=0.0)
    model = Model(cfg, seed=seed, dtype=np.float64)
    model.params["out"]["w"] *= 3.0
    model.params["out"]["b"][EOS] += 1.0 + seed % 3 * 0.5
    return model


def random_sentences(seed: int, n: int = 5, longest: int = 12) -> list[np.ndarray]:
    """English id sequences with BOS/EOS of different lengths (3 to `longest`, max_src_len)."""
    rng = np.random.default_rng(seed)
    lens = rng.permutation(np.linspace(3, longest, n).astype(int))
    return [np.r_[BOS, rng.integers(4, 20, k - 2), EOS] for k in lens]


SEEDS = range(4)


@pytest.mark.parametrize("seed", SEEDS)
def test_greedy_matches_the_reference(seed):
    model, sentences = random_model(seed), random_sentences(seed)
    check(model, sentences, beam=0)
    check(model, sentences, beam=0, batched=False)


@pytest.mark.parametrize("beam", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("seed", SEEDS)
def test_beam_matches_the_reference_batched_and_alone(seed, beam):
    model, sentences = random_model(seed), random_sentences(seed)
    want = check(model, sentences, beam, nbest=beam)
    check(model, sentences, beam, nbest=1, batched=False)
    if beam > 1:
        assert any(len(hs) > 1 for hs in want)


@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.4])
def test_length_penalty_and_nbest_beyond_the_beam(alpha):
    model, sentences = random_model(1), random_sentences(11)
    check(model, sentences, beam=4, nbest=3, alpha=alpha)
    check(model, sentences, beam=3, nbest=5, alpha=alpha)  # nbest is capped at the beam


@pytest.mark.parametrize("a, b, ngram", [(0.5, 2, 2), (1.0, 0, 3), (2.0, 4, 0), (1.5, 10, 1), (1.0, 30, 0)])
def test_output_budget_and_repeat_guard_are_the_options(a, b, ngram):
    """Other budgets (a * source length + b) and n-gram sizes than the defaults, as a Python caller
    sets them in TranslationOptions: each reaches the search (no default taken instead). Budgets
    shorter and longer than the default's, an n-gram guard of 1 (no token twice), 2 and 3, and none (0)."""
    model, sentences = random_model(3), random_sentences(3)
    for beam in (1, 3):
        want = check(model, sentences, beam, nbest=beam, a=a, b=b, ngram=ngram)
        assert want != [ref.beam_search(model, s, beam, beam) for s in sentences]  # the defaults' differ


def test_exact_ties_rank_like_the_reference():
    """Candidates of exactly equal log-probability keep the reference's order: the earlier
    hypothesis first, then the smaller token id (stable sorts throughout), and so do ended
    hypotheses of equal score. Pairs of tokens get all-zero output weights and one bias: their
    logits are exactly the bias in every row (no rounding of a dot product breaks the tie), and
    their embeddings differ, so which one a beam keeps changes what follows."""
    model, sentences = random_model(0), random_sentences(7, n=4, longest=9)
    w, b = model.params["out"]["w"], model.params["out"]["b"]
    for pair, bias in (((5, 11), 6.0), ((8, 17), 5.5), ((12, 21), 5.0)):
        w[:, pair] = 0.0
        b[list(pair)] = bias
    for beam in (2, 4, 8):
        want = check(model, sentences, beam, nbest=beam)
        assert sum(tok in (5, 11, 8, 17, 12, 21) for hs in want for h in hs for tok in h.tokens) >= 20
        assert any(len({h.score for h in hs}) < len(hs) for hs in want)  # ended hypotheses of equal score


def test_beam_wider_than_the_vocabulary_allows():
    """The smallest vocabulary a model may have (16 ids, PAD and BOS never produced) and a beam of
    16, as `mtcli translate --beam 16` may ask of it: fewer allowed tokens than candidates, and
    fewer than the beam. The missing candidates (-inf) are never kept or ended: also where budgets of
    1 to 3 tokens (a Python caller's max_decoding_length_a/_b) end a sentence with fewer than `beam`
    hypotheses while the batch's longer ones go on."""
    cfg = ModelConfig(src_vocab=20, tgt_vocab=16, d_model=16, d_ff=32, n_heads=2, n_layers=2,
                      max_src_len=12, max_tgt_len=16, dropout=0.0, attn_dropout=0.0)
    model = Model(cfg, seed=1, dtype=np.float64)
    model.params["out"]["w"] *= 3.0
    sentences = random_sentences(2, n=3, longest=6)
    check(model, sentences, beam=16, nbest=16)
    want = check(model, sentences, beam=16, nbest=16, a=0.5, b=0)
    assert min(len(hs) for hs in want) < 16


def test_more_sentences_than_source_positions():
    """A batch of nine sentences of 3 to 5 tokens (more sentences than padded source positions, as
    short lines of `mtcli translate -i` are batched): the decoder's rows are per sentence, not per
    source position."""
    model, sentences = random_model(2), random_sentences(4, n=9, longest=5)
    assert len(sentences) > max(len(s) for s in sentences)
    check(model, sentences, beam=0)
    check(model, sentences, beam=3, nbest=3)


def test_padding_columns_change_nothing():
    model, sentences = random_model(2), random_sentences(5, n=3, longest=8)
    got = search(model, *pad(sentences, extra=4), 3, 3)
    want = [ref.beam_search(model, s, 3, 3) for s in sentences]
    assert [[h.tokens for h in hs] for hs in got] == [[h.tokens for h in hs] for hs in want]


def test_the_cases_cover_every_rule():
    """The random cases above reach what the rules are about: hypotheses ending early and at the
    length limit, and hypotheses long and repetitive enough that the 4-gram guard bans tokens
    during their search. (If a change of the random models lost one of these, the checks would go
    blind to it.)"""
    ends_early = at_limit = guard = 0
    for seed in SEEDS:
        model = random_model(seed)
        for s in random_sentences(seed):
            budget = ref.limit(model, len(s))
            for beam in (1, 4):
                for h in ref.beam_search(model, s, beam, beam):
                    at_limit += len(h.tokens) + 1 == budget
                    ends_early += len(h.tokens) + 1 < budget
                    guard += any(ref.repeats(h.tokens[:k]) for k in range(len(h.tokens)))
    assert ends_early >= 10 and at_limit >= 10 and guard >= 5, (ends_early, at_limit, guard)


# --- the shipped model ------------------------------------------------------------------------

SENTENCES = [
    "Can you help me carry these boxes upstairs?",
    "The plant is green.",
    "Where is the station?",
    "I think Tom doesn't want to go to the party tonight.",
    "She reads a book every evening before she goes to sleep.",
    "We have to leave now.",
]


@pytest.fixture(scope="module")
def translator(shipped_model):
    return decode.Translator(shipped_model)


@pytest.fixture(scope="module")
def shipped64(shipped_model, translator):
    """The shipped weights in float64 (every model of the ensemble): the cached and the reference
    search then agree to 1e-9."""
    models, _ = load_ensemble(shipped_model, dtype=np.float64)
    return models, [np.array([BOS, *ids, EOS]) for ids in translator.src_tok.encode_batch(SENTENCES)]


@pytest.mark.parametrize("beam, nbest, alpha", [(0, 1, 1.0), (4, 4, 1.0), (5, 2, 0.6)])
def test_shipped_model_matches_the_reference(shipped64, beam, nbest, alpha):
    model, sentences = shipped64
    check(model, sentences, beam, nbest, alpha)


def test_translator_matches_the_reference(translator, monkeypatch):
    """The user's path (float32 weights, batches sorted by length, text out): the reference's
    n-best texts and scores (float32 rounding apart). (The reference is the plain beam: the coverage
    penalty's last ranking is tested in test_coverage.py.)"""
    monkeypatch.setattr(translator, "coverage", None)
    got, _ = translator.translate(SENTENCES, beam=4, nbest=2)
    src, _, _ = translator.encode(SENTENCES)
    for line, nbest in enumerate(got):
        n = int((src[line] != PAD).sum())
        want = ref.beam_search(translator.models, src[line, :n], 4, 2)
        assert [text for text, _ in nbest] == [translator.tgt_tok.decode(h.tokens) for h in want]
        assert [score for _, score in nbest] == pytest.approx([h.score for h in want], rel=1e-4)
    assert got[1][0][0] == "La planta es verde."


@pytest.mark.parametrize("beam", [0, 1, 4])
@pytest.mark.parametrize("seed", [0, 2])
def test_an_ensemble_matches_the_reference(seed, beam):
    """Two (and three) different models decoded together: the mean of their log-probabilities at
    every step, as the reference computes it from full forward passes; batched and alone."""
    models = [random_model(seed), random_model(seed + 10)]
    sentences = random_sentences(seed)
    check(models, sentences, beam, nbest=max(beam, 1))
    check(models + [random_model(seed + 20)], sentences, beam, batched=False)


@pytest.mark.parametrize("seed", [0, 3])
def test_sentences_joining_a_running_search_get_the_reference_hypotheses(seed):
    """Continuous batching: each sentence starts at its own step, beside others half done, in slots
    that finished sentences left; its hypotheses are still the reference's (one model, an ensemble)."""
    sentences = random_sentences(seed, n=12)
    for models in ([random_model(seed)], [random_model(seed), random_model(seed + 10)]):
        got = stream(models, sentences, beam=3, nbest=3, slots=4, seed=seed)
        want = [ref.beam_search(models if len(models) > 1 else models[0], s, 3, 3) for s in sentences]
        for i, (g, w) in enumerate(zip(got, want)):
            assert [h.tokens for h in g] == [h.tokens for h in w], f"sentence {i}: hypotheses differ"
            assert [h.score for h in g] == pytest.approx([h.score for h in w], rel=1e-9, abs=1e-9), f"sentence {i}"


def test_a_search_takes_no_more_than_it_can_hold():
    """More sentences than free slots, or a source longer than its caches, are refused before any
    is taken (a caller that skipped the check would otherwise overwrite sentences in progress)."""
    model = random_model(0)
    decoder = decode.BeamSearch([model], 2, replace(DEFAULTS, beam_size=2), max_src=6)
    decoder.add(*pad(random_sentences(0, n=1, longest=4)))
    for sentences in (random_sentences(1, n=2, longest=4), [np.full(7, 5)]):
        with pytest.raises(ValueError, match="free slots"):
            decoder.add(*pad(sentences))
    assert decoder.free == 1 and decoder.active.sum() == 1


def test_an_ensemble_of_one_model_twice_is_the_model():
    model, sentences = random_model(1), random_sentences(1)
    src, lens = pad(sentences)
    alone, twice = decode.search(model, src, lens, 4, 4), decode.search([model, model], src, lens, 4, 4)
    assert [[h.tokens for h in hs] for hs in alone] == [[h.tokens for h in hs] for hs in twice]
    assert np.allclose([h.logprob for hs in alone for h in hs], [h.logprob for hs in twice for h in hs])


def _wide_model(seed: int) -> Model:
    """random_model's kind, wide enough that a slot's cache rows span whole pages (8 KB a row of 16 positions)."""
    cfg = ModelConfig(src_vocab=20, tgt_vocab=24, d_model=64, d_ff=64, n_heads=2, n_layers=1,
                      max_src_len=12, max_tgt_len=16, dropout=0.0, attn_dropout=0.0)
    model = Model(cfg, seed=seed, dtype=np.float64)
    model.params["out"]["w"] *= 3.0
    model.params["out"]["b"][EOS] += 1.0
    return model


def _whole_pages(a: np.ndarray) -> np.ndarray:
    """The bytes of the whole pages inside a contiguous array's memory."""
    page = mmap.PAGESIZE
    start = -(-a.ctypes.data // page) * page - a.ctypes.data
    end = (a.ctypes.data + a.nbytes) // page * page - a.ctypes.data
    return a.reshape(-1).view(np.uint8)[start:end]


def test_a_files_stream_gives_back_the_pages_of_the_slots_its_budget_no_longer_fills(monkeypatch):
    """A file's lines (search with a token budget: shortest first, slots for the shortest, positions for the
    longest): a free slot beyond what the budget holds of the sentences still waiting is never taken again (a new
    sentence takes the lowest free slot), and what its sentences wrote had stayed resident to the stream's end
    (2,000 unseen lines: +42 MB). Its caches' pages are given back (zeros again), and every sentence still gets
    the reference's hypotheses."""
    models = [_wide_model(0), _wide_model(1)]
    sentences = sorted(random_sentences(5, n=16), key=len)
    budget = replace(DEFAULTS, max_batch_size=48, batch_type="tokens")  # (2 x 3 = 6 tokens a slot: 8 slots, then 2)
    let_go, held = decode.BeamSearch.let_go, []

    def watched(decoder, slots, most):
        assert not decoder.active[slots].any() and (slots >= most).all()
        rows = [a[s * 2 : s * 2 + 2] for s in slots for state in decoder.states for a in state.self_k]
        held.append(sum(int(np.count_nonzero(_whole_pages(r))) for r in rows))
        let_go(decoder, slots, most)
        if sys.platform == "linux":  # (elsewhere nothing is given back)
            assert not any(np.count_nonzero(_whole_pages(r)) for r in rows)

    monkeypatch.setattr(decode.BeamSearch, "let_go", watched)
    src, lens = pad(sentences)
    got = decode.search(models, src, lens, 2, 2, batch=budget)
    assert len(held) >= 2 and sum(held) > 0  # (slots let go as the budget shrank, and at the end: what they held)
    for i, (g, s) in enumerate(zip(got, sentences)):
        assert [h.tokens for h in g] == [h.tokens for h in ref.beam_search(models, s, 2, 2)], f"sentence {i}"


# (in a process of its own: a long-lived one's heap may hold a free block that big, which malloc takes before mapping)
_MAPPED = """
import ctypes
import numpy as np
from mtcli import decode
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
decode.one_heap()
large = np.ones(24 << 20, np.uint8)  # (mapped, then freed: the threshold glibc would raise)
del large
mapped = libc.mallinfo2().hblks
array = np.ones(decode.MMAP_BYTES, np.uint8)
print(libc.mallinfo2().hblks - mapped)
"""


def test_arrays_of_mmap_bytes_stay_mapped_apart_from_the_heap_after_a_larger_one_is_freed():
    """glibc raises its threshold for mapping a block to the largest mapped block freed (a model's loading: 8-16 MB),
    and arrays below it came from the heap, whose free pages stay resident (a file's chunk peaked with 100 MB of the
    heap free); with one_heap's fixed threshold an array of MMAP_BYTES is still a mapping of its own."""
    import ctypes
    import os
    import subprocess

    if not sys.platform.startswith("linux") or not hasattr(ctypes.CDLL(None), "mallinfo2"):
        pytest.skip("glibc's allocator (2.33 or later)")
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_MMAP_THRESHOLD_"}
    run = subprocess.run([sys.executable, "-c", _MAPPED], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1"]


_REUSED = """
import resource
import numpy as np
from mtcli import decode
decode.one_heap()
faults = []
for _ in range(21):  # (a step's temporary: allocated, written, freed)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    np.ones(decode.TOP_PAD_BYTES // 4, np.uint8)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(sum(faults[1:]))
"""


def test_a_steps_temporaries_freed_at_the_heaps_top_are_not_faulted_in_again():
    """glibc gave back the free top of the heap beyond 128 KB at every free, so each decoding step's temporaries were
    faulted in (and zeroed by the kernel) again at the next step (~4 % of a beam-4 run's CPU); with one_heap's
    TOP_PAD_BYTES a block freed at the top is written again without a page fault."""
    import ctypes
    import os
    import subprocess

    if not sys.platform.startswith("linux") or not hasattr(ctypes.CDLL(None), "mallopt"):
        pytest.skip("glibc's allocator")
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_TOP_PAD_"}
    run = subprocess.run([sys.executable, "-c", _REUSED], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) < 100  # (given back each time: 512 faults a round, 10,240 in all)


def test_an_ensemble_keeps_its_members_log_probabilities_only_for_a_check_that_reads_them():
    """Beam search keeps, with the coverage reading, each member's log-probability of its candidates only where
    the check reads them (Coverage.members): the shipped en-es check reads none, and their arrays had held ~7 MB
    of a 2,000-line file's peak (and their mean a buffer of its own). The hypotheses are the same either way."""
    models = [random_model(0), random_model(10)]
    src, lens = pad(random_sentences(0))
    pieces = tuple(f"▁w{i}" for i in range(20))
    found = {}
    for members in (False, True):
        coverage = decode.Coverage(0, (0,), pieces, members)
        decoder = decode.BeamSearch(models, 5, replace(DEFAULTS, beam_size=3), coverage=coverage)
        assert (decoder.members is not None) == members and len(decoder.room) == len(models) + members + 1
        found[members] = decode.search(models, src, lens, 3, 3, coverage=coverage)
        assert all((h.reading.members is not None) == members for hs in found[members] for h in hs)
    assert [[(h.tokens, h.score, h.logprob) for h in hs] for hs in found[False]] == \
        [[(h.tokens, h.score, h.logprob) for h in hs] for hs in found[True]]
