"""Corpus reading, the split, prepare's cache and over-long handling, batching."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from conftest import tiny_pairs, write_tsv

from mtcli.data import (
    CHUNK_BATCHES,
    Batch,
    load_prepared,
    make_batches,
    prepare,
    read_corpus,
    resolve_data_path,
    resolve_prepared_dir,
    split_pairs,
)
from mtcli.errors import UserError
from mtcli.tokenizer import BOS, EOS, PAD

SMALL = dict(src_vocab=200, tgt_vocab=220)  # what the tiny corpus can fill sensibly


# --- reading -------------------------------------------------------------------------


def _read(tmp_path, name, raw: bytes):
    path = tmp_path / name
    path.write_bytes(raw)
    return read_corpus(path)


def test_tsv_with_bom_crlf_attribution_and_malformed_lines(tmp_path):
    raw = (
        "\ufeffGood morning, robot.\tBuenos días, robot.\r\n"  # 1: BOM, CRLF
        "Thanks, Zorro.\tGracias, Zorro.\tCC-BY 2.0 (France) Attribution: example\r\n"  # 2: third column
        "Only English here\r\n"  # 3: missing column
        "\tSin inglés.\r\n"  # 4: empty English
        "\r\n"  # 5: blank, ignored
        "Bye.\t   \r\n"  # 6: empty Spanish
    ).encode("utf-8")
    raw += "Caf\xe9?\tBad bytes.\r\n".encode("latin-1")  # 7: not UTF-8
    raw += "How are you?\t¿Cómo estás?".encode("utf-8")  # 8: no final newline
    corpus = _read(tmp_path, "spa.txt", raw)
    assert corpus.pairs == [
        ("Good morning, robot.", "Buenos días, robot."),
        ("Thanks, Zorro.", "Gracias, Zorro."),
        ("How are you?", "¿Cómo estás?"),
    ]
    assert (corpus.skipped, corpus.skipped_lines) == (4, [3, 4, 6, 7])
    assert corpus.sha256 == hashlib.sha256(raw).hexdigest()
    assert corpus.format == "tsv"


def test_kaggle_csv_with_quotes_commas_bom_crlf_and_malformed_rows(tmp_path):
    raw = (
        "\ufeffenglish,spanish\r\n"  # 1
        'Hi Bob.,Hola Bob.\r\n'  # 2
        '"Yes, I know the robot.","Sí, conozco al robot."\r\n'  # 3: commas inside quotes
        '"He said ""wait"".","Él dijo ""espera""."\r\n'  # 4: doubled quotes
        'Lonely\r\n'  # 5: missing column
        '"",Vacío.\r\n'  # 6: empty English
        '"Two\r\nlines.","Dos líneas."\r\n'  # 7-8: a quoted line break
    ).encode("utf-8")
    raw += b"Bad,caf\xe9\r\n"  # 9: not UTF-8
    raw += "Bye Bob.,Adiós Bob.\r\n".encode("utf-8")  # 10
    corpus = _read(tmp_path, "data.csv", raw)
    assert corpus.pairs == [
        ("Hi Bob.", "Hola Bob."),
        ("Yes, I know the robot.", "Sí, conozco al robot."),
        ('He said "wait".', 'Él dijo "espera".'),
        ("Two\r\nlines.", "Dos líneas."),
        ("Bye Bob.", "Adiós Bob."),
    ]
    assert (corpus.skipped, corpus.skipped_lines, corpus.format) == (3, [5, 6, 9], "csv")


def test_utf16_with_a_bom_is_read_and_nul_bytes_are_skipped_lines(tmp_path):
    """A Windows "Unicode" (UTF-16) test set is read as text, not scored as NUL-riddled noise; a line
    with a NUL byte (binary data, UTF-16 without a BOM) is skipped and named like invalid UTF-8."""
    text = "Good morning.\tBuenos días.\r\nBye.\tAdiós.\r\n"
    for encoding, bom in (("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")):
        corpus = _read(tmp_path, "test.tsv", bom + text.encode(encoding))
        assert corpus.pairs == [("Good morning.", "Buenos días."), ("Bye.", "Adiós.")] and corpus.skipped == 0
    corpus = _read(tmp_path, "spa.txt", b"Hi.\tHola.\nH\x00i.\tHola.\n" + text.replace("\r", "").encode("utf-16-le"))
    assert corpus.pairs == [("Hi.", "Hola.")] and corpus.skipped_lines == [2, 3, 4, 5]  # 3-5: UTF-16 text without its BOM


def test_cr_line_ends_are_line_ends(tmp_path):
    """A file with CR line ends (old Mac) is three pairs, not one line whose Spanish side swallows the
    next English sentence."""
    corpus = _read(tmp_path, "test.tsv", b"Hi.\tHola.\rBye.\tAdi\xc3\xb3s.\rno tab\rYes.\tS\xc3\xad.\r")
    assert corpus.pairs == [("Hi.", "Hola."), ("Bye.", "Adiós."), ("Yes.", "Sí.")] and corpus.skipped_lines == [3]


def test_dash_reads_the_corpus_from_stdin(monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("Hi.\tHola.\nBye.\tAdiós.\n".encode())))
    assert read_corpus("-").pairs == [("Hi.", "Hola."), ("Bye.", "Adiós.")]


def test_csv_recognised_by_header_and_column_order(tmp_path):
    corpus = _read(tmp_path, "pairs.txt", 'spanish,english\n"Hola, Ana.","Hi, Ana."\n'.encode())
    assert corpus.pairs == [("Hi, Ana.", "Hola, Ana.")]


def test_only_first_skipped_line_numbers_are_kept(tmp_path):
    corpus = _read(tmp_path, "spa.txt", ("no tab\n" * 20 + "Yes.\tSí.\n").encode())
    assert (corpus.skipped, corpus.skipped_lines) == (20, [1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "corpus not found"),
        ("dir", "is a directory"),
        (b"", "no valid English-Spanish pair"),
        (b"no tab here\nnor here\n", "no valid English-Spanish pair"),
        (b"\xff\xfe\x00\x01\tx\n", "no valid English-Spanish pair"),
    ],
)
def test_unusable_corpus_is_a_user_error(tmp_path, content, message):
    path = tmp_path / "spa.txt"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(UserError, match=message):
        read_corpus(path)


def test_csv_without_header_is_a_user_error(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("Hi.,Hola.\n", encoding="utf-8")
    with pytest.raises(UserError, match="header"):
        read_corpus(path)


@pytest.mark.parametrize(
    "resolve, env, default",
    [
        (resolve_data_path, "MTCLI_DATA", "data/spa-eng/spa.txt"),
        (resolve_prepared_dir, "MTCLI_PREPARED", "data/prepared"),
    ],
)
def test_path_precedence(monkeypatch, tmp_path, resolve, env, default):
    monkeypatch.delenv(env, raising=False)
    assert str(resolve(None)) == default
    monkeypatch.setenv(env, str(tmp_path / "env"))
    assert resolve(None) == tmp_path / "env"
    assert resolve(tmp_path / "explicit") == tmp_path / "explicit"


# --- split ---------------------------------------------------------------------------


def _english_sides(pairs, parts):
    return {name: {" ".join(pairs[i][0].split()).casefold() for i in rows} for name, rows in parts.items()}


def _check_disjoint(sides):
    assert not (sides["train"] & sides["selection"] or sides["train"] & sides["test"])
    assert not sides["selection"] & sides["test"]


def _check_partition(parts, n):
    rows = sorted(parts["train"] + parts["selection"] + parts["test"])
    assert rows == list(range(n))


def test_grouped_split_keeps_each_english_sentence_on_one_side():
    pairs = tiny_pairs() + [("tom LIKES the cat.", "A Tom le gusta el gato.")]  # same sentence, other case
    parts = split_pairs(pairs, seed=3)
    _check_partition(parts, len(pairs))
    sides = _english_sides(pairs, parts)
    _check_disjoint(sides)


def test_random_split_sizes_and_seeds():
    pairs = tiny_pairs()
    n = len(pairs)
    parts = split_pairs(pairs, seed=0, method="random")
    _check_partition(parts, n)
    assert [len(parts[k]) for k in ("train", "selection")] == [round(0.6 * n), round(0.8 * n) - round(0.6 * n)]
    assert split_pairs(pairs, seed=0, method="random") == parts
    assert split_pairs(pairs, seed=1, method="random") != parts


@pytest.mark.parametrize(
    "kwargs", [dict(method="stratified"), dict(fractions=(0.5, 0.5, 0.5)), dict(fractions=(1.0, 0.0))]
)
def test_bad_split_options(kwargs):
    with pytest.raises(UserError):
        split_pairs(tiny_pairs(), **kwargs)


def test_real_grouped_split(prepared, corpus_path):
    pairs = read_corpus(corpus_path).pairs
    parts = split_pairs(pairs)
    sizes = {k: len(v) for k, v in parts.items()}
    print(f"\nreal grouped split sizes: {sizes}")
    for name, frac in zip(parts, (0.6, 0.2, 0.2)):
        assert abs(sizes[name] / len(pairs) - frac) < 0.002
    sides = _english_sides(pairs, parts)
    _check_disjoint(sides)


# --- prepare -------------------------------------------------------------------------


def _arrays(prep):
    return {(name, k): getattr(s, k) for name, s in prep.splits.items() for k in s.ARRAYS}


def test_prepare_is_deterministic_and_encodes_with_bos_eos(tiny_corpus, tmp_path):
    a = prepare(tiny_corpus, tmp_path / "a", seed=5, **SMALL)
    b = prepare(tiny_corpus, tmp_path / "b", seed=5, **SMALL)
    c = prepare(tiny_corpus, tmp_path / "c", seed=6, **SMALL)
    assert all(np.array_equal(v, _arrays(b)[k]) for k, v in _arrays(a).items())
    assert any(not np.array_equal(v, _arrays(c)[k]) for k, v in _arrays(a).items())

    pairs = read_corpus(tiny_corpus).pairs
    train = a.splits["train"]  # the tokenizers saw every character of it: decoding is exact
    assert train.src.dtype == train.tgt.dtype == np.uint16
    for i in range(len(train)):
        src, tgt = train.src_seq(i), train.tgt_seq(i)
        assert src[0] == tgt[0] == BOS and src[-1] == tgt[-1] == EOS
        assert (a.src_tok.decode(src), a.tgt_tok.decode(tgt)) == pairs[train.index[i]]
    assert sum(a.manifest["split_sizes"].values()) == a.manifest["data"]["pairs"] == len(pairs)
    assert a.manifest["vocab"] == {"en": 200, "es": 220}
    assert (a.src_tok.vocab_size, a.tgt_tok.vocab_size) == (200, 220)


def test_prepare_reuses_cache_and_rebuilds_on_change(tiny_corpus, tmp_path):
    out = tmp_path / "prep"
    first = prepare(tiny_corpus, out, **SMALL)
    assert not first.reused
    again = prepare(tiny_corpus, out, **SMALL)
    assert again.reused and again.manifest == first.manifest
    assert not prepare(tiny_corpus, out, seed=1, **SMALL).reused  # option changed
    assert not prepare(tiny_corpus, out, seed=1, force=True, **SMALL).reused
    write_tsv(tiny_corpus, tiny_pairs()[:-1])  # data changed
    assert not prepare(tiny_corpus, out, seed=1, **SMALL).reused
    (out / "train.npz").write_bytes(b"damaged")
    with pytest.raises(UserError, match="damaged"):
        load_prepared(out)
    assert not prepare(tiny_corpus, out, seed=1, **SMALL).reused
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary files left


def test_the_corpus_recorded_by_a_relative_path_is_found_from_elsewhere(tiny_corpus, tmp_path, monkeypatch):
    """Training's augmentation reads the corpus again by the manifest's path: tokenized as `--data
    spa.txt`, it is found from any directory (and `tokenize --data -` is refused: stdin is read once)."""
    from mtcli.train import _corpus_pairs

    monkeypatch.chdir(tiny_corpus.parent)
    p = prepare(tiny_corpus.name, tmp_path / "prepared", **SMALL)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert _corpus_pairs(load_prepared(tmp_path / "prepared")) == read_corpus(tiny_corpus).pairs == _corpus_pairs(p)
    with pytest.raises(UserError, match="give the corpus as a file"):
        prepare("-", tmp_path / "from-stdin", **SMALL)
    assert not (tmp_path / "from-stdin").exists()


def test_load_prepared_without_data(tmp_path):
    with pytest.raises(UserError, match="run `mtcli tokenize`"):
        load_prepared(tmp_path)


def test_overlong_pairs_dropped_from_train_truncated_elsewhere(tmp_path):
    long_en = " ".join(["the cat likes the dog"] * 6) + "."
    pairs = []
    for i, pair in enumerate(tiny_pairs()):  # a long pair every 5 rows, so that every split gets some
        pairs += [pair, (f"{i} {long_en}", f"{i} gato.")] if i % 5 == 0 else [pair]
    prep = prepare(write_tsv(tmp_path / "spa.txt", pairs), tmp_path / "prep", max_src_len=20, max_tgt_len=19, **SMALL)
    over = prep.manifest["overlong"]
    n_long = sum(1 for en, _ in pairs if long_en in en)
    assert over["en"] == n_long and over["es"] == 0
    assert over["dropped_from_train"] + over["truncated"]["selection"] + over["truncated"]["test"] == n_long
    assert over["dropped_from_train"] > 0 and over["truncated"]["test"] > 0
    for name, split in prep.splits.items():
        assert split.src_lens.max() <= 20 and split.tgt_lens.max() <= 20
        assert all(split.src_seq(i)[-1] == EOS for i in range(len(split)))
    assert not any(long_en in pairs[i][0] for i in prep.splits["train"].index)
    assert len(prep.splits["train"]) == prep.manifest["split_sizes"]["train"]


def test_prepare_rejects_impossible_vocab_and_output(tiny_corpus, tmp_path):
    with pytest.raises(UserError, match="vocabulary size"):
        prepare(tiny_corpus, tmp_path, src_vocab=70000)
    with pytest.raises(UserError, match="is a file"):
        prepare(tiny_corpus, tiny_corpus)


# --- batching ------------------------------------------------------------------------


def _check_batches(batches: list[Batch], split, batch_size):
    seen = []
    for b in batches:
        assert b.src.dtype == b.tgt_in.dtype == b.tgt_out.dtype == b.src_len.dtype == b.tgt_len.dtype == np.int32
        assert len(b.src) == len(b.tgt_in) <= batch_size and b.tgt_in.shape == b.tgt_out.shape
        assert b.n_tokens == int((b.tgt_out != PAD).sum())
        for r in range(len(b.src)):
            n, t = b.src_len[r], b.tgt_len[r]
            assert b.src[r, 0] == BOS and b.src[r, n - 1] == EOS and not b.src[r, n:].any()
            assert b.tgt_in[r, 0] == BOS and b.tgt_out[r, t - 1] == EOS
            assert np.array_equal(b.tgt_in[r, 1:t], b.tgt_out[r, : t - 1])
            assert not b.tgt_in[r, t:].any() and not b.tgt_out[r, t:].any()
            seen.append(tuple(b.src[r, :n]) + (-1,) + tuple(b.tgt_out[r, :t]))
    expected = [tuple(split.src_seq(i)) + (-1,) + tuple(split.tgt_seq(i)[1:]) for i in range(len(split))]
    assert sorted(seen) == sorted(expected)  # every pair exactly once


def test_make_batches(tiny_corpus, tmp_path):
    split = prepare(tiny_corpus, tmp_path, **SMALL).splits["train"]
    batches = make_batches(split, 16, seed=0, epoch=0)
    _check_batches(batches, split, 16)
    same = make_batches(split, 16, seed=0, epoch=0)
    assert all(np.array_equal(x.src, y.src) and np.array_equal(x.tgt_out, y.tgt_out) for x, y in zip(batches, same))
    other = make_batches(split, 16, seed=0, epoch=1)
    assert any(x.src.shape != y.src.shape or not np.array_equal(x.src, y.src) for x, y in zip(batches, other))
    fixed = make_batches(split, 16, seed=0, epoch=0, shuffle=False)
    _check_batches(fixed, split, 16)
    widths = [b.tgt_in.shape[1] for b in fixed]
    assert widths == sorted(widths)
    again = make_batches(split, 16, seed=9, epoch=4, shuffle=False)
    assert all(np.array_equal(x.src, y.src) for x, y in zip(fixed, again))
    with pytest.raises(ValueError):
        make_batches(split, 0, seed=0, epoch=0)


def _padding_fraction(batches):
    real = sum(int(b.src_len.sum()) + 2 * b.n_tokens for b in batches)
    return 1 - real / sum(b.src.size + b.tgt_in.size + b.tgt_out.size for b in batches)


def test_real_batches_have_little_padding(prepared):
    train = prepared.splits["train"]
    shuffled = make_batches(train, 64, seed=0, epoch=0)
    fixed = make_batches(prepared.splits["selection"], 64, seed=0, epoch=0, shuffle=False)
    assert sum(len(b.src) for b in shuffled) == len(train)
    pad_train, pad_eval = _padding_fraction(shuffled), _padding_fraction(fixed)
    print(f"\npadding fraction: training batches {pad_train:.2%} (chunks of {CHUNK_BATCHES} batches), "
          f"evaluation batches {pad_eval:.2%}")
    assert pad_train < 0.10 and pad_eval < 0.05


def test_real_prepared_manifest(prepared):
    m = prepared.manifest
    print("\n" + json.dumps({k: m[k] for k in ("data", "split_sizes", "roundtrip", "overlong", "seconds")}))
    assert m["data"]["pairs"] == 118_964 and m["data"]["skipped"] == 0
    assert sum(m["split_sizes"].values()) + m["overlong"]["dropped_from_train"] == 118_964
    assert m["vocab"] == {"en": 4562, "es": 6134}
    assert (prepared.src_tok.vocab_size, prepared.tgt_tok.vocab_size) == (4562, 6134)


def test_case_factors_en_is_an_option_of_the_data_its_rerun_command_and_cache_key(tiny_corpus, tmp_path, monkeypatch):
    """--case-factors-en: the cased English vocabulary (its capitals respelled in lowercase where free),
    ids with factors, recorded in the manifest and repeated by the rebuild command; it excludes --lowercase-en."""
    from mtcli.data import rerun_command

    cased = prepare(tiny_corpus, tmp_path / "cased", **SMALL)
    factored = prepare(tiny_corpus, tmp_path / "cf", case_factors_en=True, **SMALL)
    assert factored.src_tok.case_factors and factored.src_tok.vocab == cased.src_tok.with_case_factors().vocab
    assert factored.manifest["case_factors"] == {"en": True} and "case_factors" not in cased.manifest
    assert factored.manifest["cache_key"] != cased.manifest["cache_key"]
    assert load_prepared(tmp_path / "cf").src_tok.case_factors
    assert prepare(tiny_corpus, tmp_path / "cf", case_factors_en=True, **SMALL).reused
    monkeypatch.setattr("mtcli.data.CASE_SCHEME", 1)  # data tokenized by an older reading of case is made anew
    assert not prepare(tiny_corpus, tmp_path / "cf", case_factors_en=True, **SMALL).reused
    assert "--case-factors-en" in rerun_command(tmp_path / "x", factored.manifest)
    assert "--case-factors-en" not in rerun_command(tmp_path / "x", cased.manifest)
    with pytest.raises(UserError, match="--lowercase-en and --case-factors-en exclude each other"):
        prepare(tiny_corpus, tmp_path / "both", lowercase_en=True, case_factors_en=True, **SMALL)


def test_lowercase_en_is_an_option_of_the_data_its_rerun_command_and_cache_key(tiny_corpus, tmp_path):
    """--lowercase-en: the English tokenizer lowercases, the manifest records it (and data made without it
    keeps the cache key it had before the option existed), the round trip is counted against the
    lowercased English, and the command that rebuilds damaged data repeats the option."""
    from mtcli.data import rerun_command

    cased = prepare(tiny_corpus, tmp_path / "cased", **SMALL)
    lower = prepare(tiny_corpus, tmp_path / "lower", lowercase_en=True, **SMALL)
    assert lower.src_tok.lowercase and not lower.tgt_tok.lowercase and not cased.src_tok.lowercase
    assert lower.manifest["lowercase"] == {"en": True} and "lowercase" not in cased.manifest
    assert lower.manifest["cache_key"] != cased.manifest["cache_key"]
    assert lower.manifest["roundtrip"] == cased.manifest["roundtrip"]  # (characters only selection/test have: [UNK])
    assert load_prepared(tmp_path / "lower").src_tok.lowercase
    assert prepare(tiny_corpus, tmp_path / "lower", lowercase_en=True, **SMALL).reused
    assert not prepare(tiny_corpus, tmp_path / "lower", **SMALL).reused  # the option changed: rebuilt cased
    assert not load_prepared(tmp_path / "lower").src_tok.lowercase
    assert "--lowercase-en" in rerun_command(tmp_path / "x", lower.manifest)
    assert "--lowercase-en" not in rerun_command(tmp_path / "x", cased.manifest)
    pairs = read_corpus(tiny_corpus).pairs
    train = lower.splits["train"]
    assert all(lower.src_tok.decode(train.src_seq(i)) == pairs[train.index[i]][0].lower() for i in range(len(train)))
