"""mtcli.confidence (issue 41): the teacher-forced reading it rests on, words and alignments, the fitted
combination, and what `mtcli translate` shows of it (stderr, --json, --flagged, --min-confidence, --align)."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mtcli import confidence as conf
from mtcli import decode
from mtcli.config import DEFAULTS
from mtcli.errors import UserError
from mtcli.roundtrip import RoundTrip, read_back

ALIGNED = Path(__file__).parent / "data" / "align-en-es.tsv"
SETS = Path(__file__).parents[1] / "benchmarks" / "sets"


@pytest.fixture(scope="module")
def es_en():
    from mtcli import registry
    from mtcli.decode import Translator

    return Translator(registry.shipped("es-en"))


@pytest.fixture(scope="module")
def en_es():
    from mtcli import registry
    from mtcli.decode import Translator

    return Translator(registry.shipped("en-es"))


def test_forced_reading_gives_the_beams_own_log_probability(es_en):
    """A single model's teacher-forced log-probabilities add up to what beam search found for its output;
    an almost-right translation (one word changed) reads less probable; attention rows are distributions."""
    lines = ["¿Puedes prestarme tu bicicleta mañana?", "Me gusta el té verde."]
    found = [r.hypotheses[0] for r in es_en.translate_batch(lines)]
    forced = es_en.force(lines, [h.text for h in found])
    for h, f in zip(found, forced):
        assert [es_en.tgt_tok.id_to_token(i) for i in f.tgt] == h.tokens
        assert f.logprobs.sum() == pytest.approx(h.logprob, abs=1e-3)
        assert f.attention.shape[:2] == (es_en.model.cfg.n_layers, es_en.model.cfg.n_heads)
        assert np.allclose(f.attention.sum(-1), 1, atol=1e-4)
    worse = es_en.force(lines[1:], [found[1].text.replace("green", "red")])[0]
    assert worse.logprobs.sum() < forced[1].logprobs.sum() - 1
    lowest = es_en.force(lines[1:], [found[1].text], layers=1)[0]
    assert lowest.logprobs is None and np.allclose(lowest.attention[0], forced[1].attention[0], atol=1e-5)


def test_the_check_reads_what_decoding_kept(en_es, monkeypatch):
    """The check's reading from what decoding kept (each source's ids and encoder output, by text) and of the
    scorer's heads alone is the whole reading's: the same attention (other heads NaN), the same confidences as
    with nothing kept; a source decoded in another form (the pipeline's changes) is encoded again; once read,
    what was kept is forgotten."""
    lines = ["I will call you next week when I get back from Madrid.", "Where is the station?"]
    checker = conf.Checker(en_es, None, replace(DEFAULTS, check="fast"))
    try:
        assert en_es.encoded is not None and checker.heads == [7] and checker.layers == 1
        # (without the coverage penalty, whose readings the check would take instead: the next test)
        found = en_es.translate_batch([*lines, "WHERE IS THE STATION?"], replace(DEFAULTS, num_hypotheses=2,
                                                                                 coverage_penalty=0.0))
        assert set(en_es.encoded.found) == {*lines, "WHERE IS THE STATION?"} and not en_es.encoded.readings
        nbests = [[(h.text, h.score) for h in r.hypotheses] for r in found]
        sources, targets = [lines[0], "Where is the station ?"], [nb[0][0] for nb in nbests[:2]]  # (the 2nd: not kept)
        encoded = []
        monkeypatch.setattr(decode, "encode", lambda model, src, n, encode=decode.encode: encoded.append(len(src))
                            or encode(model, src, n))
        whole = en_es.force(sources, targets)  # (all layers and heads)
        heads = en_es.force(sources, targets, 1, [7])
        monkeypatch.undo()
        assert encoded == [1, 1]  # the sentence not kept, each time
        for w, h in zip(whole, heads):
            assert w.src == h.src and h.attention.shape == (1, *w.attention.shape[1:])
            assert np.allclose(h.attention[0, 7], w.attention[0, 7], atol=1e-5) and np.isnan(h.attention[0, :7]).all()
        kept = checker.check(lines, nbests[:2])
        assert en_es.encoded.found == {}
        again = checker.check(lines, nbests[:2])  # (nothing kept: encoded again)
        assert [c.confidence for c in kept] == pytest.approx([c.confidence for c in again], abs=1e-6)
        assert [c.flagged for c in kept] == [c.flagged for c in again]
    finally:
        en_es.encoded = None


@pytest.mark.parametrize("beam", [DEFAULTS.beam_size, 1], ids=["beam", "greedy"])
def test_the_check_reads_no_translation_the_coverage_penalty_read(beam, en_es, monkeypatch):
    """Beam search's coverage penalty reads each finished hypothesis with the check's own head of layer 0 (greedy,
    which ranks nothing again, keeps the reading all the same); the check takes the winner's reading (by source
    text and target ids, with each member's log-probabilities) instead of reading it again: no forced pass for those
    lines, and the same confidences, warnings and alignments as a check that reads them again. A source whose
    reading is kept keeps no encoder output (a chunk of a file held ~30 MB of them until its check)."""
    import mtcli.decode as decode

    lines = ["I will call you next week when I get back from Madrid.", "Where is the station?", "Thanks!"]
    checker = conf.Checker(en_es, None, replace(DEFAULTS, check="fast", return_alignments=True))
    try:
        found = en_es.translate_batch(lines, replace(DEFAULTS, beam_size=beam, num_hypotheses=min(2, beam)))
        assert set(en_es.encoded.readings) == set(lines) and en_es.encoded.found == {}
        nbests = [[(h.text, h.score) for h in r.hypotheses] for r in found]
        rows = []
        forced = decode.forced
        monkeypatch.setattr(decode, "forced", lambda model, src, *a, **kw: rows.append(len(src)) or forced(model, src, *a, **kw))
        taken = checker.check(lines, nbests)
        assert rows == [] and en_es.encoded.readings == {}
        again = checker.check(lines, nbests)  # (nothing kept now: encoded and read again)
        # (the lowest block's heads, then each member's log-probabilities where the fit reads them)
        passes = 1 + len(en_es.models) * checker.members
        assert sum(rows) == passes * len(lines)
        for a, b in zip(taken, again):
            assert a.confidence == pytest.approx(b.confidence, abs=1e-6) and a.warnings == b.warnings
            assert a.alignment == b.alignment
        # another translation than the one decoded: read, not taken
        en_es.translate_batch(lines[1:2])
        rows.clear()
        checker.check(lines[1:2], [[("¿Dónde está el tren?", -0.5)]])
        assert rows == [1] * passes
    finally:
        en_es.encoded = None


def test_an_ensembles_reading_has_each_members_log_probabilities(en_es, monkeypatch):
    """Beam search keeps, with the coverage reading, each member's log-probability of each token of the winner
    (the check's member0, member1) where the check reads them: those a whole forced pass of each member reads, EOS
    last; a reading again without what decoding kept computes them so. The shipped check reads none: none kept."""
    lines = ["I will call you next week when I get back from Madrid.", "Where is the station?", "Thanks!"]
    conf.Checker(en_es, None, replace(DEFAULTS, check="fast"))  # (its translator keeps what decoding reads)
    assert len(en_es.models) == 2 and not en_es.coverage.members
    try:
        en_es.translate_batch(lines[1:2])
        assert en_es.encoded.readings[lines[1]].members is None
        monkeypatch.setattr(en_es, "coverage", replace(en_es.coverage, members=True))  # (a fit reading the members)
        found = en_es.translate_batch(lines, replace(DEFAULTS, num_hypotheses=2))
        kept = dict(en_es.encoded.readings)
    finally:
        en_es.encoded = None
    targets = [r.hypotheses[0].text for r in found]
    again = en_es.force(lines, targets, 1, [7], members=True)
    for line, a in zip(lines, again):
        assert kept[line].members.shape == a.members.shape == (2, len(a.tgt) + 1)
        assert np.allclose(kept[line].members, a.members, atol=1e-4)
    first = en_es.force(lines, targets)  # (the first member's whole pass, as before)
    assert all(f.members is None and np.allclose(f.logprobs, a.members[0], atol=1e-4) for f, a in zip(first, again))
    assert np.ptp([a.members.mean(1) for a in again], axis=1).max() > 1e-3  # (two members, two readings)


@pytest.mark.parametrize("models, extra", [(1, None), (2, "member2"), (3, "member5")])
def test_a_check_reading_members_the_model_has_not_is_refused_in_one_line(models, extra, tmp_path: Path):
    """A confidence.json whose combination reads ensemble members the model does not have (en-es's beside one model,
    as the first member alone, or one fitted for a larger ensemble) is refused in words, not a KeyError mid-run."""
    from types import SimpleNamespace

    from mtcli import registry

    data = json.loads((registry.shipped("en-es") / conf.FILE).read_text("utf-8"))
    for scorer in data["scorers"].values():  # (a combination reading two members, and `extra`)
        for name in ["member0", "member1", *([extra] if extra else [])]:
            for key, value in (("features", name), ("mean", 0.0), ("scale", 1.0), ("coef", 0.1)):
                scorer[key].append(value)
    (tmp_path / conf.FILE).write_text(json.dumps(data), "utf-8")
    cfg = SimpleNamespace(n_layers=6)
    translator = SimpleNamespace(model_dir=tmp_path, model=SimpleNamespace(cfg=cfg), models=[object()] * models)
    with pytest.raises(UserError, match=r"confidence\.json reads the members of a larger ensemble than this model"):
        conf.Checker(translator, None, replace(DEFAULTS, check="full"))


def test_a_model_without_a_fitted_check_is_not_read_again(es_en, monkeypatch, tmp_path: Path):
    """A model without confidence.json (one you trained; es-en before its fit): its lines get no confidence
    (none flagged) and are not read again, unless alignments are asked for (the last layer, all heads)."""
    line = "¿Dónde está la estación?"
    nbest = [(r.hypotheses[0].text, r.hypotheses[0].score) for r in es_en.translate_batch([line])]
    monkeypatch.setattr(es_en, "model_dir", tmp_path)  # (a directory without confidence.json)
    checker = conf.Checker(es_en, None, replace(DEFAULTS, check="fast"))
    aligning = conf.Checker(es_en, None, replace(DEFAULTS, check="fast", return_alignments=True))
    monkeypatch.undo()
    assert not checker.active and (aligning.layers, aligning.heads) == (es_en.model.cfg.n_layers, None)
    with monkeypatch.context() as m:
        m.setattr(es_en, "force", lambda *a, **k: pytest.fail("read again"))
        (check,) = checker.check([line], [nbest])
    assert check.confidence is None and not check.flagged and not check.warnings
    (check,) = aligning.check([line], [nbest])
    assert check.confidence is None and check.alignment
    es_en.encoded = None


def test_words_and_spaced_words_group_pieces():
    pieces = ["▁next", "▁wee", "##k", "?", "▁¿", "dónde"]
    assert conf.words(pieces) == [(0, 1, "next"), (1, 3, "week"), (3, 4, "?"), (4, 5, "¿"), (5, 6, "dónde")]
    assert conf.spaced_words(pieces) == [(0, 1), (1, 4), (4, 6)]  # "next", "week?", "¿dónde"


@pytest.mark.parametrize("line", ["Hello {name}.", "Hello {name}, you have %d messages.",
                                  "Welcome back, {user}! You have {count} new messages."])
def test_a_line_with_a_placeholder_is_aligned_its_spans_to_theirs(line, run_cli):
    """A placeholder's braces are pieces the vocabulary lacks ("▁{" is one [UNK], no space marker): the words
    between spaces are counted from each word's own pieces (no alignment at all before), in --json too, and each
    kept span is linked to its source span."""
    code, out, _ = run_cli("translate", "--from", "en", "--no-check", "--align", line)
    translation, links = out.rstrip("\n").split(" ||| ")
    code, out, _ = run_cli("translate", "--from", "en", "--no-check", "--align", "--json", line)
    assert all(sentence["alignment"] for sentence in json.loads(out)["quality"]["sentences"])
    pairs = [tuple(map(int, link.split("-"))) for link in links.split()]
    src, tgt = line.split(), translation.split()
    assert sorted(j for _, j in pairs) == list(range(len(tgt)))
    assert all(src[i].strip(".,!") == tgt[j].strip(".,!") for i, j in pairs if "{" in tgt[j])
    assert sum("{" in tgt[j] for _, j in pairs) == line.count("{")
    assert not any(i == k for i, j in pairs for k, m in pairs if "{" in tgt[m] and j != m)  # (no other word to a span)


def test_text_words_count_a_words_pieces_where_no_space_marker_starts_it(en_es):
    tok = en_es.src_tok
    pieces = ["▁hello", "[UNK]", "n", "##ame", "[UNK]", "."]  # "Hello {name}.": "▁{" is one [UNK]
    assert conf.spaced_words(pieces) == [(0, 6)]
    assert conf.text_words(tok, "Hello {name}.", pieces) == [(0, 1), (1, 6)]
    assert conf.text_words(tok, "Hello {name}. Bye", pieces) is None  # (a text cut to the model's length)


def test_a_kept_span_is_linked_to_its_source_word_and_no_other_word_to_it():
    """Each kept span to its source span; the other target words to the source word each attends to most of the rest
    (attack 2026-12-02d E: "Hello {name}." was aligned 1-0 1-1, "Holanda" to "{name}.")."""
    source, target = "Hello {name}, bye {name2}".split(), "Hola {name} adiós {name2}".split()
    tgt = [(0, 1), (1, 5), (5, 6), (6, 10)]
    unknown = [False, True, False, False, True, False, True, False, False, True]
    att = np.array([[0.5, 0.1, 0.3, 0.1], [0.6, 0.2, 0.1, 0.1], [0.1, 0.2, 0.6, 0.1], [0.1, 0.7, 0.1, 0.1]])
    assert conf.kept_spans(att, source, target, unknown, tgt) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    pairs = [(0, 0), (0, 1), (2, 2), (1, 3)]  # (no piece it lacks: the attention's)
    assert conf.kept_spans(att, source, target, [False] * 10, tgt) == sorted(pairs, key=lambda p: p[1])
    att[0] = [0.1, 0.8, 0.05, 0.05]  # ("Hola" attends to "{name}," most: to "Hello" of the rest)
    assert conf.kept_spans(att, source, target, unknown, tgt)[0] == (0, 0)
    kept = [(0, 0), (0, 1)]  # (every source word a kept span's: the attention's, no word left unlinked)
    assert conf.kept_spans(np.array([[0.2, 0.8], [0.9, 0.1]]), ["{a}", "{b}"], ["x", "{a}"], [False, True], kept) \
        == [(1, 0), (0, 1)]


def test_a_table_rows_cells_are_checked_and_aligned_each_on_its_own(run_cli, tmp_path):
    """Attack 2026-12-02d F: each cell of a row is translated on its own (text.lines.in_cells); read whole, its tab a
    piece the vocabulary lacks, the row got no alignment. Cells pair when both sides have as many, with text alike."""
    assert conf.sentence_pairs("Red\tThe car. It is old.", "Rojo\tEl coche. Es viejo.") == [
        ("Red", "Rojo"), ("The car.", "El coche."), ("It is old.", "Es viejo.")]
    assert conf.sentence_pairs("Red\t\tBlue", "Rojo\t\tAzul") == [("Red", "Rojo"), ("Blue", "Azul")]
    assert conf.sentence_pairs("Red\tBlue", "Rojo Azul") == [("Red\tBlue", "Rojo Azul")]  # (not as many: whole)
    assert conf.sentence_pairs("Red\tBlue", "Rojo\t") == [("Red\tBlue", "Rojo")]  # (a cell lost: whole, stripped)
    (row := tmp_path / "row.txt").write_text("Red\tThe green car\n", "utf-8")
    code, out, _ = run_cli("translate", "--from", "en", "--no-check", "--align", "-i", row)
    translation, links = out.rstrip("\n").split(" ||| ")
    pairs = [tuple(map(int, link.split("-"))) for link in links.split()]
    assert sorted(j for _, j in pairs) == list(range(len(translation.split())))
    assert {i for i, _ in pairs} <= {0, 1, 2, 3} and any(i == 0 for i, _ in pairs) and any(i > 0 for i, _ in pairs)


def test_uncovered_runs_name_content_words_only():
    spans = conf.words(["▁see", "▁you", "▁next", "▁week", ".", "▁at", "▁the", "▁station"])
    low = np.array([0.5, 0.5, 0.01, 0.02, 0.0, 0.01, 0.01, 0.9])
    assert conf.uncovered_runs(spans, low, 0.03) == ["next week"]  # "." never; "at the" alone: function words
    assert conf.uncovered_runs(spans, np.where(np.arange(8) == 7, 0.01, low), 0.03) == ["next week", "at the station"]
    assert conf.uncovered_runs(spans, np.full(8, 0.5), 0.03) == []
    assert conf.as_written("i d like", "Well, I'd like that") == "I'd like"


def test_align_reads_the_given_positions():
    """Target word j attends to source word j at the positions that read it (shift 1), to the next one at
    the positions predicting it: each choice gives its own alignment."""
    # source ids: BOS, 2 pieces of word 0, 1 of word 1, EOS; target: 3 pieces (word 0, then word 1 in two),
    # a row for each position (the one predicting piece 0 first, the one reading the last piece last)
    att = np.array([[0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0.2, 0, 0.8, 0], [0, 0, 0, 1, 0]], float)[None, None]
    src, tgt = [(0, 2), (2, 3)], [(0, 1), (1, 3)]
    assert conf.align(att, src, tgt, 0, [0], shift=0) == [(0, 1), (1, 0)]
    assert conf.align(att, src, tgt, 0, [0], shift=1) == [(0, 0), (1, 1)]


def test_scorer_and_its_file(tmp_path: Path):
    sc = conf.Scorer(("logprob", "margin"), (0.0, 0.0), (1.0, 1.0), (2.0, 0.5), 0.0, 0.4)
    assert sc.confidence({"logprob": -2.0, "margin": 0.0}) < 0.4 < sc.confidence({"logprob": 0.5, "margin": 1.0})
    assert conf.Scorer.from_json(json.loads(json.dumps(sc.to_json()))) == sc
    assert conf.load_fitted(tmp_path, 2) == conf.Fitted({}, 1)  # no file: nothing fitted, the last layer aligns
    (tmp_path / conf.FILE).write_text('{"scorers": {"full": {"features": []}}}')
    with pytest.raises(UserError, match="damaged"):
        conf.load_fitted(tmp_path, 2)


def test_an_omission_part_flags_what_either_part_puts_under_its_threshold():
    """With an omission part, the confidence is under the threshold exactly when the main part or the omission
    part is under its own (their thresholds differ), and the file keeps it."""
    sc = conf.Scorer(("logprob",), (0.0,), (1.0,), (2.0,), 0.0, 0.3, om_features=("lowcov", "named"),
                     om_mean=(0.0, 0.0), om_scale=(1.0, 1.0), om_coef=(-3.0, -1.0), om_bias=2.0, om_threshold=0.6)
    main = conf.Scorer(("logprob",), (0.0,), (1.0,), (2.0,), 0.0, 0.3)
    omission = conf.Scorer(("lowcov", "named"), (0.0, 0.0), (1.0, 1.0), (-3.0, -1.0), 2.0, 0.6)
    rng = np.random.default_rng(0)
    for logprob, lowcov, named in zip(rng.normal(0, 1, 300), rng.exponential(0.5, 300), rng.integers(0, 3, 300)):
        s = {"logprob": logprob, "lowcov": lowcov, "named": float(named)}
        c = sc.confidence(s)
        assert (c < sc.threshold) == (main.confidence(s) < main.threshold or omission.confidence(s) < omission.threshold)
        assert c <= main.confidence(s) + 1e-12
    assert conf.Scorer.from_json(json.loads(json.dumps(sc.to_json()))) == sc


def test_a_short_line_is_read_by_the_short_part_alone():
    """A short line's confidence is the short part's, moved so that its own threshold falls on the main one's: under
    the threshold exactly when the short part puts it under its own, whatever the main and omission parts say; a
    longer line's is the main part's as before; the file keeps the short part."""
    short = conf.Scorer(("logprob", "total_logprob"), (-0.4, -2.0), (0.3, 1.8), (0.4, 0.9), 0.7, 0.47)
    sc = conf.Scorer(("logprob",), (0.0,), (1.0,), (2.0,), 0.0, 0.78, om_features=("lowcov",), om_mean=(0.0,),
                     om_scale=(1.0,), om_coef=(-3.0,), om_bias=2.0, om_threshold=0.6, short=short)
    alone = replace(sc, short=None)
    rng = np.random.default_rng(0)
    for logprob, tokens, lowcov in zip(rng.normal(-0.5, 0.4, 300), rng.integers(2, 9, 300), rng.exponential(2, 300)):
        s = {"logprob": logprob, "total_logprob": logprob * tokens, "lowcov": lowcov, "short_line": 1.0}
        assert (sc.confidence(s) < sc.threshold) == (short.confidence(s) < short.threshold)
        assert sc.confidence({**s, "short_line": 0.0}) == alone.confidence(s)
    assert conf.Scorer.from_json(json.loads(json.dumps(sc.to_json()))) == sc


def test_shipped_short_parts_flag_a_wrong_short_translation(en_es, es_en):
    """Each direction's shipped check, short part and all, still flags a short line translated as something else
    entirely, scored by the model's own log-probability of it (the beam's score of that text: no luck of decoding),
    and reads it by the short part (without it the confidence differs)."""
    for tr, source, wrong in ((en_es, "Thank you.", "El perro come manzanas verdes."),
                              (es_en, "Gracias.", "The dog eats green apples.")):
        f = tr.force([source], [wrong])[0]
        checker = conf.Checker(tr, None, replace(DEFAULTS, check="fast"))
        assert checker.scorer.short is not None
        check = checker.check([source], [[(wrong, float(f.logprobs.mean()))]])[0]
        assert check.flagged and check.confidence < checker.scorer.threshold
        checker.scorer = replace(checker.scorer, short=None)
        assert checker.check([source], [[(wrong, float(f.logprobs.mean()))]])[0].confidence != check.confidence


def test_surface_variants_of_the_nbest_are_one_group():
    """The n-best's surface variants (measured for the short part, benchmarks/confidence_short.py, not shipped): case,
    inverted marks and the marks at either end do not count; the group's summed probability over the best's own."""
    from benchmarks.confidence import surface, variants

    assert surface("¡Hola!") == surface("Hola.") == surface(" hola ") != surface("Salí.")
    found = variants([("¡Hola!", -1.0), ("Salí.", -0.9), ("Hola.", -1.1), ("Salgan.", -1.2)], 3)
    assert found["n_variants"] == 1 and found["variants"] == pytest.approx(np.log1p(np.exp(-0.4)))
    assert found["words_margin"] == pytest.approx(-0.1) and found["group_total"] == pytest.approx(np.logaddexp(-4, -4.4))
    assert variants([("¡Hola!", -1.0), ("Salí.", -0.9)], 3)["variants"] == 0.0


@pytest.mark.slow
def test_right_everyday_short_lines_are_rarely_flagged(en_es, es_en):
    """Of the everyday short inputs written as a test set (greetings, thanks, yes/no, prices, times:
    benchmarks/sets/short-everyday-*.tsv, never fitted on) translated as `mtcli translate` does and right by their
    answers, at most 15 % are flagged (2026-12-03: 3 of 33 en-es, 4 of 31 es-en; en-es without its short part 9)."""
    from benchmarks.first_inputs import acceptable, read_set
    from mtcli.config import Options, TranslationOptions
    from mtcli.roundtrip import for_direction, is_short
    from mtcli.text.pipeline import Engine, translate_lines

    for tr, back in ((en_es, es_en), (es_en, en_es)):
        rows = [r for r in read_set(SETS / f"short-everyday-{tr.direction}.tsv") if is_short(r[0])]
        options = TranslationOptions(num_hypotheses=2, check="fast")  # (what the CLI hands the check)
        checker = conf.Checker(tr, lambda: back, options)
        engine = Engine.from_translator(tr, options, for_direction(tr.direction, lambda: back))
        results = translate_lines([r[0] for r in rows], engine, Options().text_for(tr.direction[:2]))
        checks = checker.check([r[0] for r in rows], [r.nbest for r in results])
        right = [c for c, r, (_, answers, *_) in zip(checks, results, rows) if c and acceptable(r.nbest[0][0], answers)]
        assert len(right) >= 30  # (else the model changed: look at its translations again)
        assert sum(c.flagged for c in right) <= 0.15 * len(right)


@pytest.mark.slow
@pytest.mark.parametrize("line, translation", [("Hey", "Oye"), ("Maybe.", "Tal vez."), ("Stairs", "Escaleras")])
def test_right_short_translations_are_not_flagged(run_cli, line, translation):
    """Right translations of short lines of the development set (benchmarks/sets/short-dev-en-es.tsv), which the one
    threshold flagged (confidence 0.47, 0.74, 0.64 against 0.78), are not flagged through the CLI."""
    code, out, err = run_cli("translate", "--from", "en", "--json", line)
    row = json.loads(out)
    assert code == 0 and row["translations"][0]["text"] == translation
    assert not row["quality"]["flagged"] and "probably wrong" not in err


def test_short_named_and_lowcov_read_what_a_translation_left_out(en_es):
    """A translation without the sentence's end reads shorter than usual, names the words it left out and has a
    content word with almost no coverage; the model's own translation of the same sentence does none of it."""
    scorer = conf.load_fitted(en_es.model_dir, en_es.model.cfg.n_layers).scorers["fast"]
    vocab = conf.Vocab.of(en_es)
    source = "I will call you next week when I get back from Madrid."
    own = en_es.translate_batch([source])[0].hypotheses[0].text
    cut = "Te llamaré."
    found = {}
    for target, f in zip((own, cut), en_es.force([source, source], [own, cut], 1, scorer.heads)):
        found[target] = conf.read(f, source, target, [-0.2], None, scorer, vocab)[0]
    assert found[own]["named"] == 0 and found[own]["short"] < 0.2
    assert found[cut]["named"] >= 2 and found[cut]["short"] > 1.0
    assert found[cut]["short"] == pytest.approx(scorer.ratio - np.log((len(cut) + 1) / (len(source) + 1)))
    assert found[cut]["lowcov"] > -np.log(scorer.named) > found[own]["lowcov"] >= 0


def test_the_first_word_is_never_read_as_left_out(en_es, monkeypatch):
    """Coverage under `named` at the sentence's first word (after punctuation) names nothing and leaves lowcov
    alone; the same coverage at a later content word names it and sets lowcov; function words never set it."""
    scorer = conf.load_fitted(en_es.model_dir, en_es.model.cfg.n_layers).scorers["fast"]
    vocab = conf.Vocab.of(en_es)
    source, target = '"Where is the red car?"', '"¿Dónde está el coche rojo?"'
    f = en_es.force([source], [target], 1, scorer.heads)[0]
    spans = conf.words([vocab.src[i % vocab.src_size] for i in f.src[1:-1]])
    assert [w for _, _, w in spans] == ['"', "where", "is", "the", "red", "car", "?", '"']

    def read(low: int, coverage: float = 1e-3):
        c = np.full(len(spans), 0.5)
        c[low] = coverage
        monkeypatch.setattr(conf, "word_coverage", lambda *a: c)
        return conf.read(f, source, target, [-0.2], None, scorer, vocab)

    first, runs = read(1)
    assert first["named"] == 0 and runs == [] and first["lowcov"] == pytest.approx(-np.log(0.5))
    later, runs = read(4)
    assert later["named"] == 1 and runs == ["red"] and later["lowcov"] == pytest.approx(-np.log(1e-3))
    assert read(4, 0.0)[0]["lowcov"] == pytest.approx(-np.log(conf.LOWEST_COVERAGE))
    assert read(3)[0]["lowcov"] == pytest.approx(-np.log(0.5))  # "the": a function word


# Everyday Spanish questions (written for this, not from the corpus) with the shipped es-en model's translation,
# judged right by hand: an interrogative after a preposition ("¿Por qué ...?", "¿A qué hora ...?"), "está" in a
# contraction ("Where's"). Before the interrogatives and estar's forms were function words, 17 of these 40 were
# flagged, most as leaving out "qué", "quién" or "dónde".
EVERYDAY_QUESTIONS = Path(__file__).parent / "data" / "everyday-questions-es-en.tsv"


@pytest.mark.slow
def test_everyday_questions_translated_right_are_rarely_flagged(es_en):
    """Of everyday Spanish questions the es-en model translates right (EVERYDAY_QUESTIONS), at most the check's
    false-flag budget (10 %) is flagged; none as leaving out a word (it had named "qué" in "¿Por qué no?" ->
    "Why not?")."""
    pairs = [line.split("\t") for line in EVERYDAY_QUESTIONS.read_text("utf-8").splitlines() if not line.startswith("#")]
    sources = [s for s, _ in pairs]
    found = es_en.translate_batch(sources, replace(DEFAULTS, num_hypotheses=2))
    checker = conf.Checker(es_en, None, replace(DEFAULTS, check="fast"))
    checks = checker.check(sources, [[(h.text, h.score) for h in r.hypotheses] for r in found])
    same = [c for c, r, (_, right) in zip(checks, found, pairs) if r.hypotheses[0].text == right]
    assert len(pairs) == 40 and len(same) >= 0.9 * len(pairs)  # (else the model changed: judge its translations again)
    assert sum(c.flagged for c in same) <= 0.1 * len(same)
    assert not [w for c in same for w in c.warnings if "left out" in w]


def test_interrogatives_and_estar_are_never_read_as_left_out(es_en, monkeypatch):
    """Coverage under `named` at "qué" after "Por" (one English word: "Why") names nothing and leaves lowcov
    alone, as at "está" (a contraction's "'s"); at a content word it names it and sets lowcov."""
    scorer = conf.load_fitted(es_en.model_dir, es_en.model.cfg.n_layers).scorers["fast"]
    vocab = conf.Vocab.of(es_en)
    source, target = "¿Por qué está cerrada la tienda?", "Why is the store closed?"
    f = es_en.force([source], [target], 1, scorer.heads)[0]
    spans = conf.words([vocab.src[i % vocab.src_size] for i in f.src[1:-1]])
    assert [w.lower() for _, _, w in spans] == ["¿", "por", "qué", "está", "cerrada", "la", "tienda", "?"]

    def read(*low: int):
        c = np.full(len(spans), 0.5)
        c[list(low)] = 1e-3
        monkeypatch.setattr(conf, "word_coverage", lambda *a: c)
        return conf.read(f, source, target, [-0.2], None, scorer, vocab)

    found, runs = read(2, 3)
    assert found["named"] == 0 and runs == [] and found["lowcov"] == pytest.approx(-np.log(0.5))
    found, runs = read(6)
    assert found["named"] == 1 and runs == ["tienda"] and found["lowcov"] == pytest.approx(-np.log(1e-3))


LITER = ("I bought a liter of milk.", "Compré un litro de leche.", "Compré un labio de leche.")  # (the model's: wrong)


def test_the_way_back_is_the_other_models_reading_of_the_source(es_en):
    """The way back (roundtrip.read_back) is the back model's log-probability of each source token given the
    translation, EOS included: what its own decoding of that translation scored, the source as target; one wrong
    word ("labio" for *liter*) reads the source's word as improbable. read() keeps its mean, its lowest token
    and their gap to the beam's score (the dual signal); the way back's ranking reads the same means."""
    source, right, wrong = LITER
    own = es_en.translate_batch([right], replace(DEFAULTS, beam_size=1))[0].hypotheses[0]
    assert read_back(es_en, [own.text], [right])[0].sum() == pytest.approx(own.logprob, abs=1e-3)
    good, bad = read_back(es_en, [source, source], [right, wrong])
    assert len(good) == len(bad) == len(es_en.tgt_tok.encode(source)) + 1
    assert bad.mean() < good.mean() - 0.5 and bad.min() < good.min() - 3
    assert RoundTrip(lambda: es_en).back_scores([source], [[right, wrong]]) == [pytest.approx([good.mean(), bad.mean()])]
    scorer = conf.Scorer(("logprob",), (0.0,), (1.0,), (1.0,), 0.0, 0.5)
    f = decode.Forced(None, np.zeros((1, 1, 9, 10)), list(range(10)), list(range(8)))
    found = conf.read(f, source, wrong, [-0.2], None, scorer, conf.Vocab(("▁a",) * 10, ("▁b",) * 10, 10), bad)[0]
    assert found["back"] == pytest.approx(bad.mean()) and found["back_min"] == pytest.approx(bad.min())
    assert found["dual"] == pytest.approx(abs(-0.2 - bad.mean()))
    assert "back" not in conf.read(f, source, wrong, [-0.2], None, scorer, conf.Vocab(("▁a",) * 10, ("▁b",) * 10, 10))[0]


def test_the_full_check_reads_the_way_back_instead_of_a_round_trip(en_es, es_en, monkeypatch):
    """`--round-trip`'s check (the shipped "full" combinations of both directions) reads the way back, once per
    call and in place of the greedy round trip (never made); it puts a wrong word (*cinema* read back as
    "compañera") further under the threshold than the default check does, and leaves a right translation alone."""
    for fitted in (conf.load_fitted(t.model_dir, t.model.cfg.n_layers) for t in (en_es, es_en)):
        assert fitted.scorers["full"].features == ("logprob", "back", "back_min")
    monkeypatch.setattr(conf, "round_trip", lambda *a: pytest.fail("translated back"))
    reads = []
    monkeypatch.setattr(conf, "read_back", lambda *a: reads.append(a[1]) or read_back(*a))
    lines = ["See you at the cinema tonight.", "Where is the station?"]
    nbests = [[("Esta noche te veo en la compañera.", -0.5)], [("¿Dónde está la estación?", -0.1)]]
    full = conf.Checker(en_es, lambda: es_en, replace(DEFAULTS, check="full")).check(lines, nbests)
    fast = conf.Checker(en_es, None, replace(DEFAULTS, check="fast")).check(lines, nbests)
    assert reads == [lines]
    assert full[0].flagged and full[0].confidence < fast[0].confidence - 0.05
    assert full[0].warnings == ["may have mistranslated: 'cinema'"] and fast[0].warnings != full[0].warnings
    assert not full[1].flagged and not fast[1].flagged


CASCADE = [("Where is the station?", "¿Dónde está la estación?", -0.03),  # (sure: not read back; -0.1 is read)
           ("See you at the cinema tonight.", "Esta noche te veo en la compañera.", -0.5),  # (unsure: read back)
           ("Thank you.", "Gracias.", -0.1),  # (short, right: its part reads no way back)
           ("Hello.", "Salí.", -1.6)]  # (short, flagged: read back for its warning's word)


def test_the_way_back_reads_only_the_sentences_the_default_check_is_unsure_of(en_es, es_en, monkeypatch):
    """`--round-trip`'s cascade: a sentence the default check is sure of is not read back, its confidence the default
    check's moved onto the full check's threshold (not flagged); one it is unsure of is read back, its confidence and
    warnings those of reading every sentence back (`first` None, which reads all but the short lines); a short line
    (whose part reads no way back) is read back only when flagged, for the word its warning names."""
    reads = []
    monkeypatch.setattr(conf, "read_back", lambda *a: reads.append(a[1]) or read_back(*a))
    checker = conf.Checker(en_es, lambda: es_en, replace(DEFAULTS, check="full"))
    full = checker.scorer
    assert full.first is not None and full.first.features == ("logprob",) and full.read_below > full.first.threshold
    lines, nbests = [s for s, _, _ in CASCADE], [[(t, score)] for _, t, score in CASCADE]
    found = checker.check(lines, nbests)
    checker.scorer = replace(full, first=None)
    whole = checker.check(lines, nbests)
    assert reads == [[lines[1], lines[3]], [lines[0], lines[1], lines[3]]]
    assert [r.flagged for r in found] == [False, True, False, True] == [r.flagged for r in whole]
    for k in (1, 2, 3):  # (read back, or short: reading every sentence back's; read in other batches, within 1e-5)
        assert found[k].confidence == pytest.approx(whole[k].confidence, abs=1e-5) and found[k].warnings == whole[k].warnings
    assert found[3].warnings[0].startswith("may have mistranslated")
    sure = conf.Checker(en_es, None, replace(DEFAULTS, check="fast")).check(lines[:1], nbests[:1])[0]
    assert found[0].confidence == pytest.approx(conf._moved(sure.confidence, full.first.threshold, full.threshold))
    assert full.threshold < found[0].confidence != whole[0].confidence


def test_a_cascade_is_kept_in_confidence_json():
    """The cascade's default check (`first`) and its bound are written and read back with the full combination; a
    file without them reads every sentence back."""
    first = conf.Scorer(("logprob",), (-0.5,), (0.2,), (1.5,), 1.0, 0.7)
    full = conf.Scorer(("logprob", "back"), (-0.5, -1.0), (0.2, 0.5), (1.0, 1.0), 1.0, 0.6, first=first, read_below=0.9)
    again = conf.Scorer.from_json(json.loads(json.dumps(full.to_json())))
    assert again == full and again.first == first
    assert not full.reads_back({"logprob": 0.5}) and full.reads_back({"logprob": -0.5})
    assert full.confidence({"logprob": 0.5}) == pytest.approx(conf._moved(first.confidence({"logprob": 0.5}), 0.7, 0.6))
    data = full.to_json()
    del data["first"], data["read_below"]
    assert conf.Scorer.from_json(data).reads_back({"logprob": 0.5})


def test_the_full_checks_omission_part_reads_the_way_backs_lowest_token(en_es, es_en):
    """`--round-trip`'s omission part (both directions) reads the way back's lowest token beside the coverage: a
    translation the coverage finds whole and the model is sure of, but whose source has a token the way back reads as
    improbable (a word left out or mistranslated), is flagged by it where its main part alone lets it pass; the same
    with that token read as likely is not flagged. (Without `back_min` in it, en-es held out: 0.86 -> 0.76.)"""
    for t in (en_es, es_en):
        full = conf.load_fitted(t.model_dir, t.model.cfg.n_layers).scorers["full"]
        assert full.om_features == ("lowcov", "named", "back_min") and full.reads_way_back
        sure = {"logprob": full.mean[0], "back": full.mean[1], "lowcov": 0.3, "named": 0.0, "short_line": 0.0}
        improbable = {**sure, "back_min": full.mean[2] - 3 * full.scale[2]}
        assert full.confidence({**sure, "back_min": full.mean[2]}) > full.threshold
        assert full.confidence(improbable) < full.threshold
        assert replace(full, om_features=()).confidence(improbable) > full.threshold  # (the main part alone)


def test_a_check_whose_omission_part_alone_reads_the_way_back_reads_it(en_es, es_en, monkeypatch):
    """The check reads the way back when any part of its combination reads it, the omission part's alone included
    (else its signal would be missing)."""
    om = conf.Scorer(("logprob",), (0.0,), (1.0,), (1.0,), 0.0, 0.5, om_features=("lowcov", "back_min"),
                     om_mean=(0.0, -3.0), om_scale=(1.0, 1.0), om_coef=(-1.0, 1.0), om_bias=2.0, om_threshold=0.5)
    assert om.reads_way_back and not replace(om, om_features=()).reads_way_back
    assert replace(om, om_features=(), short=replace(om, features=("back",), om_features=())).reads_way_back
    monkeypatch.setattr(conf, "load_fitted", lambda *a: conf.Fitted({"full": om}, 0, (7,), 1))
    reads = []
    source = "I bought a liter of milk."
    way_back = np.full(len(es_en.tgt_tok.encode(source)) + 1, -0.1)
    way_back[1] = -12.0  # (*bought*)
    monkeypatch.setattr(conf, "read_back", lambda back, s, t: reads.append(s) or [way_back])
    checker = conf.Checker(en_es, lambda: es_en, replace(DEFAULTS, check="full"))
    found = checker.check([source], [[("Compré un litro de leche.", -0.1)]])[0]
    assert reads == [[source]] and found.flagged and found.warnings == ["may have mistranslated: 'bought'"]


def test_a_flagged_sentence_names_the_word_the_way_back_doubts():
    """The word named is the source word (its pieces joined, as the source writes it) whose token the way back reads
    least likely, only when that is clearly low, never a function word; left-out words still come first."""
    pieces = ["▁i", "▁drank", "▁a", "▁li", "##ter", "▁of", "▁water", "."]
    low = np.array([-0.1, -0.3, -0.2, -0.4, -7.0, -9.0, -0.2, -0.1, -0.05])  # (EOS last; "of" lower still)
    assert conf.doubted(pieces, low, "I drank a Liter of water.") == "Liter"
    assert conf.doubted(pieces, np.r_[low[:4], -2.0, low[5:]], "I drank a liter of water.") is None  # not clearly low
    flat = np.full(9, -5.0)
    flat[4] = -7.0
    assert conf.doubted(pieces, flat, "I drank a liter of water.") is None  # not far under the sentence's mean
    cut = np.array([-0.1, -6.0, -0.2, -0.4, -0.1])  # (a source cut to the decoder's length: its pieces read, EOS)
    assert conf.doubted(pieces, cut, "I drank a liter of water.") == "drank"
    found = {"roundtrip": 0.0}
    assert conf._reason([], None, found, "liter") == "may have mistranslated: 'liter'"
    assert conf._reason(["water"], None, found, "liter") == "may have left out: 'water'"
    assert conf._reason([], None, found) == "the model was unsure of it"


def test_a_number_is_never_named_as_mistranslated_or_left_out():
    """A number the pipeline keeps as it came (and checks came back) is no word the model got wrong: `--round-trip`
    had named '100' in "Item 100." -> "Es 100." (the way back reads a number's pieces unlikely), and the check "1" of
    "-$1,250.50"; the next doubted word is named instead, or none."""
    pieces = ["▁item", "▁100", "▁is", "▁sold", "."]
    back = np.array([-7.5, -9.0, -0.1, -0.2, -0.1, -0.05])  # (EOS last; "100" read lowest)
    assert conf.doubted(pieces, back, "Item 100 is sold.") == "Item"
    assert conf.doubted(pieces, np.r_[-0.5, back[1:]], "Item 100 is sold.") is None
    found = {"roundtrip": 0.0}
    assert conf._reason(["1"], None, found) == "the model was unsure of it"
    assert conf._reason(["1", "last year"], None, found) == "may have left out: 'last year'"
    assert conf._reason(["3", "1"], None, found, "Item") == "may have mistranslated: 'Item'"


def test_a_kept_span_is_never_the_word_named_nor_lowers_the_mean_it_is_read_against():
    """What the pipeline kept as it came (a name, a URL: read back piece by piece, unlikely) and a glossary's term (the
    user's) are never the word named; nor do a URL's pieces, read low, hide the word the model got wrong."""
    pieces = ["▁zy", "##x", "##q", "##or", "▁bought", "▁a", "▁li", "##ter", "▁of", "▁milk", "."]
    back = np.array([-9.0, -8.0, -7.0, -6.0, -0.5, -0.2, -0.3, -6.5, -0.1, -0.4, -0.1, -0.05])  # (EOS last)
    line = "Zyxqor bought a liter of milk."
    assert conf.doubted(pieces, back, line) == "Zyxqor"
    assert conf.doubted(pieces, back, line, conf.spared(line, ["Zyxqor"])) == "liter"
    line = "See https://example.com/liter for the liter."
    pieces = ["▁see", "▁https", ":", "/", "/", "▁example", ".", "▁com", "/", "▁liter", "▁for", "▁the", "▁liter", "."]
    back = np.array([-2.9, -8.1, -7.5, -9.4, -9.9, -9.8, -5.4, -11.5, -11.0, -9.7, -4.2, -0.9, -7.6, -2.4, -0.1])
    assert conf.doubted(pieces, back, line) == "com"
    assert conf.doubted(pieces, back, line, conf.spared(line, ["https://example.com/liter"])) == "liter"
    line = "Send it to bob@example.com, the plumber."  # ("@" a piece the back model lacks: with the address)
    pieces = ["▁send", "▁it", "▁to", "▁bob", "[UNK]", "example", ".", "com", ",", "▁the", "▁plumber", "."]
    back = np.array([-0.4, -0.3, -1.7, -9.4, -10.5, -10.9, -6.0, -10.8, -0.6, -3.1, -6.4, -0.2, -0.1])
    assert conf.doubted(pieces, back, line, conf.spared(line, ["bob@example.com"])) == "plumber"


def test_an_icu_messages_structure_is_never_named_as_left_out(run_cli):
    """An ICU message's argument, type and selectors are kept byte for byte: never a word left out (the check forces
    the line whole, though only the branches were translated: "may have left out: 'one', 'other'")."""
    line = "{n, plural, =0 {No files} one {One file} other {# files}}"
    places = conf.spared(line)
    assert [line[a:b].strip() for a, b in places] == ["{n, plural,", "=0", "one", "other"]
    assert [conf.outside(r, line, places) for r in ["one", "=0 {No", "other {#"]] == [None, "No", None]
    assert conf.outside("files", "Delete the files.", conf.spared("Delete the files.")) == "files"
    code, out, err = run_cli("translate", "--from", "en", "{count, plural, one {a file} other {# files}}", line)
    assert code == 0 and "'one'" not in err and "'other'" not in err and "=0" not in err


def test_round_trip_names_no_kept_span_nor_a_glossary_term(run_cli, tmp_path):
    """Attack 2026-12-02d A and Q through the CLI: the name and the URL kept as they came, the user's own term."""
    (terms := tmp_path / "g.tsv").write_text("flux capacitor\tcondensador de flujo\n", "utf-8")
    code, out, err = run_cli("translate", "--from", "en", "--round-trip", "-g", terms, "The flux capacitor is broken.",
                             "Zyxqor bought a liter of milk.", "See https://example.com/liter for the liter.")
    assert code == 0 and "condensador de flujo" in out
    for word in ("capacitor", "flux", "Zyxqor", "com", "example", "https"):
        assert f"'{word}'" not in err
    assert "argument 2: probably wrong" in err and "may have mistranslated: 'liter'" in err


def test_a_shouted_line_names_the_word_the_lowercase_line_would(run_cli):
    """Attack 2026-12-02d C: the way back spells a shouted word letter by letter, each letter likely after the one
    before; the word named is read from the line as the pipeline translated it, lowercased (and named as typed)."""
    code, out, err = run_cli("translate", "--from", "en", "--round-trip", "I BOUGHT A LITER OF MILK.",
                             "I bought a liter of milk.")
    assert code == 0 and out.split("\n")[0].isupper()
    assert "argument 1: probably wrong" in err and "may have mistranslated: 'LITER'" in err
    assert "may have mistranslated: 'liter'" in err


def test_shipped_en_es_has_a_fitted_check_that_separates(en_es):
    """The shipped coefficients flag a translation that drops half the sentence, not the model's own one."""
    fitted = conf.load_fitted(en_es.model_dir, en_es.model.cfg.n_layers)
    assert set(fitted.scorers) == {"full", "fast"}
    checker = conf.Checker(en_es, None, replace(DEFAULTS, check="fast"))
    source = "I will call you next week when I get back from Madrid."
    own = en_es.translate_batch([source], replace(DEFAULTS, num_hypotheses=2))[0].hypotheses
    good = checker.check([source], [[(h.text, h.score) for h in own]])[0]
    bad = checker.check([source], [[("Te llamaré.", own[0].score - 1.0), ("Te llamo.", own[0].score - 1.1)]])[0]
    assert good.confidence > 100 * bad.confidence and bad.flagged
    assert bad.warnings and "left out" in bad.warnings[0]
    assert checker.check([source], [[(source, 0.0)]]) == [None]  # kept as it came: nothing to check


def test_hand_aligned_pairs_are_well_formed():
    rows = [line.split("\t") for line in ALIGNED.read_text("utf-8").splitlines() if not line.startswith("#")]
    assert len(rows) == 50
    for en, es, links in rows:
        pairs = [tuple(map(int, p.split("-"))) for p in links.split()]
        assert all(i < len(en.split()) and j < len(es.split()) for i, j in pairs), en


@pytest.mark.slow
def test_alignment_beats_the_last_layer_baseline(en_es):
    """The head and shift mtcli aligns with: a lower alignment error rate on the hand-aligned pairs than each
    target word's highest-attention source word in the last layer (benchmarks/align.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("align_bench", Path(__file__).parents[1] / "benchmarks" / "align.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    pairs = bench.read_pairs(ALIGNED)
    gold = [p[2] for p in pairs]
    fitted = conf.load_fitted(en_es.model_dir, 2)
    ours = bench.aer(bench.alignments(en_es, pairs, fitted.align_layer, fitted.align_heads, fitted.align_shift), gold)
    baseline = bench.aer(bench.alignments(en_es, pairs, 1, range(8)), gold)
    assert ours < baseline and ours < 0.1


@pytest.mark.slow
def test_translate_flags_lines(run_cli, tmp_path: Path):
    src = tmp_path / "in.txt"
    src.write_text("Where is the station?\nI will call you next week.\n\nGood morning!\n", "utf-8")
    flagged = tmp_path / "flagged.txt"
    code, out, err = run_cli("translate", "--from", "en", "-i", str(src), "--json", "--flagged", str(flagged))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert "quality" not in rows[2]  # a blank line: nothing to check
    quality = [r.get("quality") for r in rows]
    assert all(0 <= q["confidence"] <= 1 for q in quality if q)
    assert {"source", "translation", "confidence", "flagged", "warnings"} <= set(quality[0]["sentences"][0])
    numbers = [int(n) for n in flagged.read_text().split()]
    assert numbers == [r["line"] for r in rows if r.get("quality") and r["quality"]["flagged"]]
    assert (f"{len(numbers)} of 3 lines flagged" in err) == bool(numbers)  # (a clean run says nothing)
    assert "⚠" not in out  # piped: the translations as they are
    # every line below a confidence of 1: exit status 4, the output written all the same
    code, out, err = run_cli("translate", "--from", "en", "--min-confidence", "1", "Where is the station?")
    assert code == 4 and out.strip() == "¿Dónde está la estación?" and "below --min-confidence 1" in err
    code, out, err = run_cli("translate", "--from", "en", "--min-confidence", "0", "Where is the station?")
    assert code == 0
    code, out, err = run_cli("translate", "--from", "en", "--no-check", "--json", "Where is the station?")
    assert code == 0 and "quality" not in json.loads(out)
    code, out, err = run_cli("translate", "--from", "en", "--no-check", "--align", "Where is the station?")
    assert code == 0 and out.strip() == "¿Dónde está la estación? ||| 0-0 1-1 2-2 3-3"


@pytest.mark.parametrize("args, message", [
    (["--no-check", "--round-trip"], "--round-trip reads the check that --no-check turns off"),
    (["--no-check", "--min-confidence", "0.5"], "--min-confidence reads the check"),
    (["--align", "--nbest", "2"], "--align"),
    (["--format", "markdown", "--flagged", "x.txt"], "is for plain lines"),
])
def test_contradicting_check_options_are_refused(run_cli, args, message):
    code, out, err = run_cli("translate", *args, "-i", "-")
    assert code == 2 and message in err and not out


def test_a_warning_names_whole_words_each_once_and_no_negation_the_translation_has():
    """Attack 2026-12-03's P (and the lead's): 'banan' (the last piece the model read of "bananas"), 'didn' of a
    negation the translation has ("No me gustó ..."), 'over' three times beside 'over until'."""
    names = conf.named_runs
    assert names(["didn"], "I didn't like the movie.", "No me gustó la película.") == []
    assert names(["doesn"], "She doesn't eat meat.", "Ella come carne.") == ["doesn't"]
    assert names(["milk", "banan"], "I bought milk and bananas", "Compré leche") == ["milk", "bananas"]
    source = "practice it over and over in the same way, over and over until they can"
    assert names(["over", "over", "over", "over until"], source, "la práctica") == ["over until"]
    assert names(["next week", "next"], "See you next week.", "Te veo.") == ["next week"]
    assert names(["the"], "Take the bus.", "Toma.") == []  # (a function word alone: never)
    assert names(["zyxqor"], "Ask Zyxqor now.", "Pregunta.", [(4, 10)]) == []  # (spared: kept as it came)
