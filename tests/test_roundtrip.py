"""The n-best ranked again by the way back (mtcli.roundtrip, issues 40 and 41)."""

from types import SimpleNamespace

import numpy as np
import pytest

from mtcli import registry
from mtcli.config import Options, TranslationOptions
from mtcli.decode import TranslationHypothesis, TranslationResult, Translator
from mtcli.roundtrip import ROUNDTRIP_BEAM, RoundTrip, for_direction, is_short
from mtcli.text.pipeline import Engine, translate_lines


class Forward:
    """A translator whose n-best per line is given; it records the options of each call."""

    def __init__(self, nbest: dict[str, list[tuple[str, float]]]):
        self.nbest, self.calls = nbest, []

    def translate_batch(self, lines, options):
        self.calls.append((list(lines), options))
        return [TranslationResult([TranslationHypothesis([], t, s, s) for t, s in self.nbest[line][: options.num_hypotheses]])
                for line in lines]


class Back:
    """A back model reading each (translation, source) with a given mean log-probability per token."""

    def __init__(self, mean: dict[str, float], forward: Forward | None = None):
        self.mean, self.read = mean, []
        self.forward, self.calls_seen = forward, []  # (the forward calls made when each reading was)

    def force(self, sources, targets, attention=True, batch=None):
        assert not attention  # (a reading's log-probabilities are all it needs)
        self.read += list(zip(sources, targets))
        self.calls_seen.append(len(self.forward.calls) if self.forward else None)
        return [SimpleNamespace(logprobs=np.full(4, self.mean[s])) for s in sources]


NBEST = {"Hello.": [("Salí.", -0.5), ("Hola.", -0.7), ("Salgan.", -0.9)],
         "I would like to book a table.": [("Me gustaría reservar una mesa.", -0.3), ("Quiero una mesa.", -0.6)],
         "   ": [("", 0.0)]}
BACK = {"Salí.": -3.0, "Hola.": -0.2, "Salgan.": -2.0, "Me gustaría reservar una mesa.": -0.1, "Quiero una mesa.": -0.1}


def test_short_means_one_to_three_words():
    assert [is_short(t) for t in ("Hello!", "Log in", "Thanks a lot!", "I'm so sorry.", "Nice to meet you.", "5 €", "")] \
        == [True, True, True, True, False, False, False]


def test_the_way_back_reorders_a_short_line_and_the_scores_stay_the_models():
    back = Back(BACK)
    [r] = RoundTrip(lambda: back, weight=0.3, margin=1.0).translate(Forward(NBEST), ["Hello."],
                                                                   TranslationOptions(num_hypotheses=3))
    # Salí.: -0.5 + 0.3 x -3.0 = -1.4; Hola.: -0.7 + 0.3 x -0.2 = -0.76; Salgan.: -0.9 + 0.3 x -2.0 = -1.5
    assert [(h.text, h.score) for h in r.hypotheses] == [("Hola.", -0.7), ("Salí.", -0.5), ("Salgan.", -0.9)]
    assert sorted(back.read) == [("Hola.", "Hello."), ("Salgan.", "Hello."), ("Salí.", "Hello.")]


def test_hypotheses_far_below_the_best_are_not_read_back_and_follow_in_their_order():
    back = Back(BACK | {"Salgan.": 0.0})  # (it would win if it were read)
    [r] = RoundTrip(lambda: back, weight=0.3, margin=0.3).translate(Forward(NBEST), ["Hello."],
                                                                   TranslationOptions(num_hypotheses=3))
    assert [h.text for h in r.hypotheses] == ["Hola.", "Salí.", "Salgan."]
    assert sorted(back.read) == [("Hola.", "Hello."), ("Salí.", "Hello.")]


def test_reading_fewer_back_keeps_the_choices_of_reading_all():
    """rank reads each line's `keep` best forward scores back first, then only the hypotheses whose forward score
    reaches the keep-th best value so far (the way back only lowers a score): its first `keep` are those of reading
    every hypothesis near the best back (ties in the forward order), from fewer readings."""
    rng = np.random.default_rng(40)
    reads = alls = 0
    for trial in range(300):
        n = int(rng.integers(1, 9))
        texts = [f"t{trial}.{i}" for i in range(n)]  # (in the forward order: the beam's, not the scores')
        scores, means = np.round(rng.uniform(-1.2, 0, n), 1), np.round(rng.uniform(-3, 0, n), 1)  # (ties too)
        result = TranslationResult([TranslationHypothesis([], t, float(s), float(s)) for t, s in zip(texts, scores)])
        near = [i for i in range(n) if scores[i] >= scores.max() - 0.5]
        for keep in (1, 2, 3):
            back = Back(dict(zip(texts, means)))
            [r] = RoundTrip(lambda: back, weight=0.3, margin=0.5).rank(["Hi."], [result], keep)
            every = (sorted(near, key=lambda i: (-(scores[i] + 0.3 * means[i]), i)) +
                     [i for i in range(n) if i not in near])[:keep]  # (the far ones after, in their order)
            assert [h.text for h in r.hypotheses] == [texts[i] for i in every], (trial, keep)
            reads, alls = reads + len(back.read), alls + len(near)
    assert reads < alls


def test_without_weight_the_forward_order_stands():
    [r] = RoundTrip(lambda: Back(BACK), weight=0.0).translate(Forward(NBEST), ["Hello."], TranslationOptions())
    assert [h.text for h in r.hypotheses] == ["Salí."]


def test_every_line_is_read_back_only_short_lines_decoded_wider_and_greedy_is_left_alone():
    forward = Forward(NBEST)
    back = Back(BACK, forward)
    rt = RoundTrip(lambda: back)
    lines = ["I would like to book a table.", "Hello.", "   "]
    out = rt.translate(forward, lines, TranslationOptions())
    assert [r.hypotheses[0].text for r in out] == ["Me gustaría reservar una mesa.", "Hola.", ""]
    assert [h.text for h in out[0].hypotheses] == ["Me gustaría reservar una mesa."]  # (cut to the n-best asked for)
    # the short lines first, read back too before the others are decoded: after them, their beam's buffers had come
    # on top of what the check keeps of the others until it reads them (2,000 unseen lines: the file's peak)
    (short_lines, wide), (long_lines, long_options) = forward.calls
    assert short_lines == ["Hello."] and wide.beam_size == wide.num_hypotheses == ROUNDTRIP_BEAM
    assert long_lines == ["I would like to book a table.", "   "] and long_options.beam_size == 4
    assert long_options.num_hypotheses == 4  # (the beam's every hypothesis, for the ranking)
    assert {t for _, t in back.read} == {"Hello.", "I would like to book a table."}
    assert back.calls_seen[0] == 1  # (the short line read back before the others were decoded)
    forward.calls.clear()
    greedy = TranslationOptions(beam_size=1)
    assert [r.hypotheses[0].text for r in rt.translate(forward, ["Hello."], greedy)] == ["Salí."]
    assert forward.calls == [(["Hello."], greedy)]


def test_the_way_back_reorders_a_long_line_too():
    nbest = {"I was born in July.": [("Nací en jurado.", -0.28), ("Nací en julio.", -0.37)]}
    back = Back({"Nací en jurado.": -2.5, "Nací en julio.": -0.4})
    [r] = RoundTrip(lambda: back).translate(Forward(nbest), ["I was born in July."], TranslationOptions())
    assert [h.text for h in r.hypotheses] == ["Nací en julio."]


def test_a_line_with_one_hypothesis_near_its_best_is_not_read_and_loads_nothing():
    loaded = []
    rt = RoundTrip(lambda: loaded.append(1) or Back(BACK))
    nbest = {"I would like to book a table.": [("Me gustaría reservar una mesa.", -0.3), ("Quiero una mesa.", -1.9)]}
    [r] = rt.translate(Forward(nbest), ["I would like to book a table."], TranslationOptions())
    assert r.hypotheses[0].text == "Me gustaría reservar una mesa." and not loaded
    rt.translate(Forward(NBEST), ["Hello."], TranslationOptions())
    assert loaded == [1]


@pytest.mark.parametrize("every", [False, True])
def test_the_back_model_is_let_go_once_a_calls_ranking_is_done(every):
    """done() once per call, after the last lines it ranks (the short ones, or with `every` the rest too), so a file's
    chunk decodes its other lines and is checked without the back model; the next call loads it again."""
    held, events = [], []  # (the model loaded, as the CLI holds it until done)
    forward = Forward(NBEST)
    forward.translate_batch = lambda lines, options, f=forward.translate_batch: events.append("decode") or f(lines, options)

    def back():
        if not held:
            events.append("load")
            held.append(Back(BACK))
        return held[0]

    rt = RoundTrip(back, every=every, done=lambda: events.append("done") or held.clear())
    for _ in range(2):
        rt.translate(forward, ["Hello.", "I would like to book a table."], TranslationOptions())
    call = ["decode", "load", "done", "decode"] if not every else ["decode", "load", "decode", "done"]
    assert events == call + call


def test_the_cli_lets_the_back_model_go_unless_lines_or_a_check_use_it(monkeypatch):
    from mtcli import cli

    monkeypatch.setattr(cli, "_load_translator", lambda path, lazy=False: object())
    shipped = cli._Shipped()
    back = shipped.back("es-en")
    shipped.done_back("es-en")
    assert "es-en" not in shipped.loaded and shipped.back("es-en") is not back
    spanish = shipped("es-en")  # (a Spanish line's engine: the same model, kept)
    shipped.done_back("es-en")
    assert shipped.back("es-en") is spanish
    shipped.forget("es-en")  # (no Spanish line in a chunk, but a check reads back with it)
    assert shipped.loaded["es-en"] is spanish
    shipped.done_back("es-en")
    assert "es-en" not in shipped.loaded


def test_only_english_to_spanish_is_ranked_again():
    assert isinstance(for_direction("en-es", lambda: None), RoundTrip)
    assert for_direction("es-en", lambda: None) is None


@pytest.fixture(scope="module")
def both_ways(shipped_model):
    return Translator(registry.shipped("en-es")), Translator(registry.shipped("es-en"))


def test_the_shipped_pair_says_hello_and_july(both_ways):
    """The shipped model alone put `Salí.` first for `Hello.` (issue 40) and a black and black dog; read back, `Hola.`
    and `blanco y negro` win (the way back once chose `julio` over `jurado` too: a month is the pipeline's now)."""
    tr, back = both_ways
    text = Options().text_for("en")
    plain = Engine.from_translator(tr, TranslationOptions())
    ranked = Engine.from_translator(tr, TranslationOptions(), RoundTrip(lambda: back))
    lines = ["Hello.", "I have a black and white dog."]
    before, after = ([r.text for r in translate_lines(lines, e, text)] for e in (plain, ranked))
    assert before == ["Salí.", "Tengo un perro negro y negro."] and after == ["Hola.", "Tengo un perro blanco y negro."]


def test_translate_ranks_short_lines_by_default_every_line_or_none_when_told(run_cli, shipped_model):
    lines = ["Hello.", "I have a black and white dog."]
    dogs = ("Tengo un perro negro y negro.", "Tengo un perro blanco y negro.")
    for rerank, expected in ((None, ["Hola.", dogs[0]]), ("all", ["Hola.", dogs[1]]), ("off", ["Salí.", dogs[0]])):
        code, out, err = run_cli("translate", "--no-check", *(["--rerank", rerank] if rerank else []), *lines)
        assert code == 0 and out.split("\n")[:2] == expected, (rerank, out, err)


def test_short_lines_alone_leave_the_others_unread_and_decoded_as_asked():
    forward, back = Forward(NBEST), Back(BACK)
    out = RoundTrip(lambda: back, every=False).translate(forward, ["I would like to book a table.", "Hello."],
                                                         TranslationOptions())
    assert [r.hypotheses[0].text for r in out] == ["Me gustaría reservar una mesa.", "Hola."]
    assert {t for _, t in back.read} == {"Hello."}
    assert forward.calls[1] == (["I would like to book a table."], TranslationOptions())
    assert for_direction("en-es", lambda: back, "off") is None
    assert for_direction("en-es", lambda: back).every is False and for_direction("en-es", lambda: back, "all").every


@pytest.mark.parametrize("args, env, named", [
    (["--greedy"], {}, "--greedy"), (["--beam", "1"], {}, "--beam 1"), ([], {"MTCLI_BEAM": "1"}, "MTCLI_BEAM=1"),
    (["-m", "en-es"], {}, "-m"), (["--from", "es"], {}, "--from es"), (["--to", "en"], {}, "--to en"),
    ([], {"MTCLI_FROM": "es"}, "MTCLI_FROM=es")])
def test_rerank_asked_where_nothing_is_ranked_is_an_error_naming_what_said_so(run_cli, shipped_model, monkeypatch,
                                                                            args, env, named):
    # (MTCLI_BEAM=1 had been blamed on --greedy or --beam 1, and --from es ranked nothing in silence)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = run_cli("translate", "--rerank", "all", *args, "Hola.")
    assert code == 2 and not out and err.count("\n") == 1 and "--rerank" in err and named in err, err


def test_a_damaged_lexicon_stops_info_and_evaluate_before_any_work(run_cli, shipped_model, tmp_path):
    # (translate's shipped models read it when first needed; info had shown such a model as sound)
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(shipped_model, bad)
    (bad / "lexicon.json").write_text('{"words": [', encoding="utf-8")
    data = tmp_path / "pairs.tsv"
    data.write_text("Hello.\tHola.\n", encoding="utf-8")
    for args in (["info", "-m", bad], ["evaluate", "-m", bad, "--data", data], ["translate", "-m", bad, "Hello."]):
        code, out, err = run_cli(*args)
        assert code == 2 and not out and "lexicon.json is damaged" in err and "Traceback" not in err, args
