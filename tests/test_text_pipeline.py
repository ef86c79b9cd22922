"""The pipeline as a whole, with fake models: one result per line, sentences decoded in one batch, raw options, any text with any model, n-best and scores, Engine.from_translator."""

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mtcli.config import DEFAULTS, TranslationOptions
from mtcli.text.normalize import normalize
from mtcli.text.pipeline import RAW, Engine, TextOptions, translate_lines
from mtcli.text.shorthand import SHORTHAND

from tests.text.fakes import encode, engine, upper


def test_one_result_per_line_blank_lines_and_indentation_kept():
    lines = ["Tom is here. He is tired.", "", "   ", "\tIndented text.", "two  spaces   here"]
    results = translate_lines(lines, engine(upper))
    assert [r.line for r in results] == [1, 2, 3, 4, 5]
    assert [r.text for r in results] == ["TOM IS HERE. HE IS TIRED.", "", "", "\tINDENTED TEXT.", "TWO SPACES HERE."]
    assert results[0].sentences == 2 and len(results[0].nbest) == 2


def test_sentences_are_decoded_one_by_one_in_one_batch():
    calls = []

    def decode(lines):
        calls.append(list(lines))
        return upper(lines)

    translate_lines(["A b. C d! E f?", "G h."], engine(decode))
    assert calls == [["A b.", "C d.", "E f?", "G h."]]  # a short "!" goes as "." (ShortExclamation)


def test_raw_options_give_the_line_to_the_model_as_it_is():
    seen = []
    translate_lines(["a  b. c d"], engine(lambda lines: seen.extend(lines) or upper(lines)), RAW)
    assert seen == ["a b. c d"]


def test_long_sentences_are_cut_never_truncated():
    seen = []
    words = " ".join("w" + chr(97 + i % 26) + chr(97 + i // 26) for i in range(40))
    line = f"{words}, and {words}; {words}"
    (r,) = translate_lines([line], engine(lambda lines: seen.extend(lines) or upper(lines), limit=30))
    assert all(len(encode(s)) <= 30 for s in seen)
    assert r.split == 1 and r.text.replace(" ", "") == (line + ".").upper().replace(" ", "")


def test_warnings_belong_to_their_line():
    def garble(lines):
        return [[(re.sub(r"\d+", "", line), -1.0)] for line in lines]

    results = translate_lines(["Fine.", "At 7:15 we go.", "", "Also fine."], engine(garble), first=10)
    assert [bool(r.warnings) for r in results] == [False, True, False, False]
    assert results[1].line == 11


HOSTILE = st.text(st.characters(blacklist_categories=["Cs"]), max_size=80)


@settings(max_examples=150, deadline=None)
@given(st.lists(HOSTILE, max_size=5), st.sampled_from(["keep", "garble", "drop", "empty"]))
@example(["\x9b0@ 12 apples"], "keep")
@example(["b4 2 of them"], "keep")
def test_any_lines_any_model(lines, behaviour):
    """Whatever the text and whatever the model does: one result per line, no line breaks in a result,
    and every number of the input in the output (of its text: a terminal escape's parameters, "\x9b0@",
    are dropped with the escape; a chat word's digit is the word's, "b4" -> "before": shorthand.SHORTHAND)."""
    def decode(batch):
        out = {"keep": lambda s: s.upper(), "garble": lambda s: re.sub(r"\d", "7", s),
               "drop": lambda s: re.sub(r"\d+", "", s), "empty": lambda s: ""}[behaviour]
        return [[(out(s), -1.0)] for s in batch]

    results = translate_lines(lines, engine(decode, limit=12))
    assert len(results) == len(lines)
    for line, r in zip(lines, results):
        assert "\n" not in r.text and "\r" not in r.text
        chat = r"(?<![\w'’/@#.-])(?:" + "|".join(map(re.escape, SHORTHAND["en"])) + r")(?![\w'’/@-])"
        for number in re.findall(r"\d+", re.sub(chat, "", normalize(line), flags=re.IGNORECASE)):
            if number.isascii():
                assert number in r.text, (line, r.text)


def test_options_are_one_place():
    assert TextOptions() == TextOptions(segment=True, protect=True, case=True, punctuate=True, keep_stop=True)


def test_invisible_controls_do_not_reach_the_model():
    seen = []
    translate_lines(["\x1b[31mError:\x1b[0m pay \u202eten\u202c now\u200d."], engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert seen == ["Pay ten now."]  # (after its label, "Error: ")


def test_the_nbest_of_a_line_join_each_sentence_s_kth_with_the_mean_score():
    out = translate_lines(["Tom is here. 42.", "Tom is here. He is tired."], engine(upper))
    assert out[0].nbest == [("TOM IS HERE. 42.", -0.25), ("TOM IS HERE. (2) 42.", -0.45)]
    assert out[1].nbest == [("TOM IS HERE. HE IS TIRED.", -0.5), ("TOM IS HERE. (2) HE IS TIRED. (2)", -0.9)]


def test_split_counts_the_sentences_cut_in_pieces():
    words = " ".join("w" + chr(97 + i % 26) + chr(97 + i // 26) for i in range(14))
    out = translate_lines([f"{words}. {words}.", "Tom is here. He is tired."], engine(upper, limit=10))
    assert [r.split for r in out] == [2, 0] and out[0].sentences == 2


def test_raw_options_change_nothing_in_the_line():
    seen = []
    out = translate_lines(["- buy 25 apples (or so)", ""], engine(lambda ls: seen.extend(ls) or upper(ls)), RAW)
    assert seen == ["- buy 25 apples (or so)"]
    assert [r.text for r in out] == ["- BUY 25 APPLES (OR SO)", ""] and [r.sentences for r in out] == [1, 0]


def test_scores_of_lines_without_a_translation_and_lines_at_the_limit():
    from mtcli.schema import MAX_LINE_CHARS

    out = translate_lines(["", "- \u200b", "x" * MAX_LINE_CHARS], engine(upper))
    assert [r.nbest for r in out[:2]] == [[("", 0.0)], [("-", 0.0)]]
    assert out[2].text == "x" * MAX_LINE_CHARS and not out[2].warnings
    (r,) = translate_lines([" " * MAX_LINE_CHARS + "word."], engine(upper))  # nothing but spaces before the cut
    assert r.text == " " * (MAX_LINE_CHARS - 1) + "word."
    assert r.warnings == [f"longer than {MAX_LINE_CHARS:,} characters: its first {MAX_LINE_CHARS - 1:,} were translated, "
                          "the other 6 are kept as they came"]
    line = "word " * (MAX_LINE_CHARS // 5 + 20)  # the model answers nothing: the rest, without a space first
    (r,) = translate_lines([line], engine(lambda ls: [[("", -1.0)] for _ in ls]))
    assert r.text == " ".join(["word"] * 20)


def test_engine_from_a_translator_passes_the_options_the_length_and_the_names():
    from types import SimpleNamespace

    class Tok:
        def __init__(self, tokens):
            self.tokens, self.vocab_size, self.pieces_by_id = tokens, len(tokens), tuple(tokens)

        def encode(self, text):
            return [5] * len(text.split())

        def pieces(self, ids):
            return list(ids)

    got = []

    def translate_batch(lines, options):
        got.append(options)
        return [SimpleNamespace(hypotheses=[SimpleNamespace(text=line, score=-1.0)]) for line in lines]

    tr = SimpleNamespace(src_tok=Tok(["[UNK]", "▁Tom", "▁Boston", "▁where", "▁tom"]), tgt_tok=Tok(["▁Tom"]),
                         model=SimpleNamespace(cfg=SimpleNamespace(max_src_len=20)), translate_batch=translate_batch)
    asked = [TranslationOptions(beam_size=3, num_hypotheses=2, length_penalty=0.7),
             TranslationOptions(beam_size=3, num_hypotheses=2, length_penalty=0.7, max_batch_size=8, batch_type="examples")]
    for options in asked:
        eng = Engine.from_translator(tr, options)
        assert eng.limit == 18 and eng.names == {"tom": "Tom", "boston": "Boston"}
        (r,) = translate_lines(["where does tom live in boston"], eng)
        assert r.text == "Where does Tom live in Boston?"
    assert len(got) == 2 and all(g is a for g, a in zip(got, asked))  # the options as given, not rebuilt
    (r,) = translate_lines(["where does tom live in boston"], Engine.from_translator(tr))
    assert got[-1] is DEFAULTS  # (none given: config's)


def test_the_stages_strip_in_this_order_and_restore_in_the_reverse_one():
    from mtcli.text.pipeline import STAGES

    assert [stage.name for stage in STAGES] == ["chat head", "label", "shorthand", "dropped subject", "opening", "optional plural",
                                                "currencies", "edges", "greetings", "floating emoji", "continuation",
                                                "acronyms", "first names", "already", "glossary", "spans", "dash clause", "inner ellipsis", "short exclamation", "lone word", "casing",
                                                "final stop"]
    assert len({stage.name for stage in STAGES}) == len(STAGES)  # (each its own place in Sentence.aside)


def test_a_stage_whose_strip_did_not_run_restores_nothing():
    from mtcli.text.pipeline import STAGES
    from mtcli.text.sentence import Sentence

    for stage in STAGES:
        s = Sentence(0, "Hello.")
        assert stage.restore(s, [("Hola.", -1.0), ("Buenas.", -2.0)], {}) == [("Hola.", -1.0), ("Buenas.", -2.0)]
        assert s.kept == [], stage.name
