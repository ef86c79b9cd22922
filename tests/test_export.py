"""mtcli export: CTranslate2 running the exported model gives mtcli's greedy tokens; the Argos
Translate package holds what Argos loads, and Argos's own steps (SentencePiece pieces in, CTranslate2,
pieces detokenized) give mtcli's translation."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from mtcli.decode import Translator, _max_len, greedy
from mtcli.errors import UserError
from mtcli.export import (ctranslate2_source, export, export_ctranslate2, sentencepiece_spellings, target_tokens)
from tests.conftest import require, tiny_pairs, train_tiny_model

LINES = ["Tom likes the cat.", "Where is Mary's dog?", "Come here, Ana!", "I have 7 books.", "Don't go, it's late!",
         "Pedro likes the bread and the car.", "zebra quantum"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return train_tiny_model(tmp_path_factory.mktemp("export"), n_layers=2, max_epochs=6)


def _ctranslate2_greedy(ct2, tr, src, lens):
    """CTranslate2's greedy search under mtcli's rules, one sentence at a time (its length budget
    is per call): tokens spelled as the export spells them."""
    limits = _max_len(tr.model, lens)
    out = []
    for row, n, limit in zip(src, lens, limits):
        tokens = ctranslate2_source(tr.src_tok, row[1 : n - 1])  # the model adds BOS/EOS itself (config.json)
        r = ct2.translate_batch([tokens], beam_size=1, max_decoding_length=int(limit) - 1, no_repeat_ngram_size=4,
                                suppress_sequences=[["[PAD]"], ["[START]"]])
        out.append(r[0].hypotheses[0])
    return out


def test_ctranslate2_gives_mtcli_greedy_tokens(model_dir, tmp_path):
    require("ctranslate2", "pip install 'mtcli[export]'")
    import ctranslate2

    tr = Translator(model_dir)
    export_ctranslate2(tr.model, tr.src_tok, tr.tgt_tok, tmp_path / "ct2")
    ct2 = ctranslate2.Translator(str(tmp_path / "ct2"), device="cpu", intra_threads=1)
    src, lens, _ = tr.encode(LINES + [en for en, _ in tiny_pairs()[::7]])
    spelled = target_tokens(tr.tgt_tok)
    want = [[spelled[i] for i in h.tokens] for h in greedy(tr.model, src, lens)]
    assert _ctranslate2_greedy(ct2, tr, src, lens) == want
    assert sum(len(w) for w in want) > 3 * len(want)  # real outputs, not empty ones
    long = " ".join(["Tom likes the cat and"] * 30)  # past mtcli's positions: translated, not an error
    assert ct2.translate_batch([ctranslate2_source(tr.src_tok, tr.src_tok.encode(long))])[0].hypotheses[0]

    # an untrained model too: no EOS, so every output runs into its length budget and the 4-gram guard
    rng_model = type(tr.model)(tr.model.cfg, seed=5)
    export_ctranslate2(rng_model, tr.src_tok, tr.tgt_tok, tmp_path / "ct2-random")
    ct2 = ctranslate2.Translator(str(tmp_path / "ct2-random"), device="cpu", intra_threads=1)
    want = [[spelled[i] for i in h.tokens] for h in greedy(rng_model, src[:4], lens[:4])]
    assert _ctranslate2_greedy(ct2, tr, src[:4], lens[:4]) == want


def _argos_agrees(model_dir, tmp_path, lines) -> int:
    """Argos Translate's steps (argostranslate.translate.apply_packaged_translation): SentencePiece
    pieces, CTranslate2 with the package's model, pieces joined and "▁" read as a space. Where
    SentencePiece segments a line as mtcli does, the very same translation; returns how many did."""
    require("ctranslate2", "pip install 'mtcli[export]'")
    require("sentencepiece", "pip install 'mtcli[export]'")
    import ctranslate2
    import sentencepiece

    out = tmp_path / "en_es.argosmodel"
    export(model_dir, out, "argos")
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        (root,) = {n.split("/")[0] for n in names}
        assert {f"{root}/metadata.json", f"{root}/sentencepiece.model", f"{root}/model/model.bin"} <= set(names)
        z.extractall(tmp_path / "installed")
    package = tmp_path / "installed" / root
    meta = json.loads((package / "metadata.json").read_text())
    assert (meta["from_code"], meta["to_code"]) == ("en", "es")
    sp = sentencepiece.SentencePieceProcessor(model_file=str(package / "sentencepiece.model"))
    ct2 = ctranslate2.Translator(str(package / "model"), device="cpu")
    tr = Translator(model_dir)
    agree, spellings = 0, sentencepiece_spellings(tr.src_tok)
    for line in lines:
        pieces = sp.encode(line, out_type=str)
        hyp = ct2.translate_batch([pieces], beam_size=1, max_decoding_length=40)[0].hypotheses[0]
        text = sp.decode_pieces(hyp).replace("▁", " ").lstrip(" ")
        want = tr.translate([line], beam=1)[0][0][0][0]
        same_ids = [spellings.get(p, -1) for p in pieces] == tr.src_tok.encode(line)
        if same_ids:
            assert text == want
        agree += same_ids
    return agree


def test_argos_package_translates_as_mtcli(model_dir, tmp_path):
    assert _argos_agrees(model_dir, tmp_path, LINES) >= len(LINES) - 2


def test_argos_package_of_a_model_with_case_factors_spells_the_cases(tmp_path):
    """SentencePiece gives no factors: each lowercase piece is spelled in the three cases, each standing
    for the piece with that factor, so ALL CAPS, Capitalised and lowercase words reach the model as in mtcli."""
    model_dir = train_tiny_model(tmp_path, max_epochs=4, case_factors=True, augment_uppercase=0.3)
    lines = ["the cat likes the bread.", "THE CAT LIKES THE BREAD.", "The cat likes the bread.", "The Cat Likes The Bread."]
    assert _argos_agrees(model_dir, tmp_path, lines) == len(lines)


def test_export_refuses_bad_requests(model_dir, tmp_path):
    with pytest.raises(UserError):
        export(model_dir, tmp_path / "x", "onnx")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    require("ctranslate2", "pip install 'mtcli[export]'")
    with pytest.raises(UserError):
        export(model_dir, tmp_path / "full", "ctranslate2")
    with pytest.raises(UserError):
        export(model_dir, tmp_path / "q", "ctranslate2", quantization="int3")
    assert np.array_equal(sorted(p.name for p in (tmp_path / "full").iterdir()), ["keep.txt"])


def test_a_failed_export_leaves_nothing_behind_and_is_a_user_error(model_dir, tmp_path, monkeypatch):
    """A full disk or a file size limit mid-export (CTranslate2's OSError names no file): one error,
    no half-written model directory and no temporary one."""
    import errno
    import os
    from pathlib import Path

    import mtcli.export

    require("ctranslate2", "pip install 'mtcli[export]'")

    def half(model, src_tok, tgt_tok, out_dir, quantization="float32", aliases=None):
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        (Path(out_dir) / "model.bin").write_bytes(b"half a model")
        raise OSError(errno.EFBIG, "File too large")

    umask = os.umask(0o022)
    try:
        export(model_dir, tmp_path / "whole", "ctranslate2")  # (a directory anyone may read, as mkdir makes it)
    finally:
        os.umask(umask)
    assert oct((tmp_path / "whole").stat().st_mode & 0o777) == oct(0o755)
    assert {p.name for p in (tmp_path / "whole").iterdir()} >= {"model.bin", "config.json"}
    monkeypatch.setattr(mtcli.export, "export_ctranslate2", half)
    for fmt, out in (("ctranslate2", tmp_path / "out" / "ct2"), ("argos", tmp_path / "out" / "m.argosmodel")):
        with pytest.raises(UserError, match="File too large"):
            export(model_dir, out, fmt)
    assert list((tmp_path / "out").iterdir()) == []


def test_export_refuses_outputs_it_cannot_write(model_dir, tmp_path, run_cli, monkeypatch):
    """-o - of a directory, an .argosmodel named with a trailing slash, and a file of the model itself."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("export", model_dir, "-o", "-")
    assert code == 2 and "standard output" in err and not (tmp_path / "-").exists()
    code, _, err = run_cli("export", model_dir, "-f", "argos", "-o", "pkg/")
    assert code == 2 and "directory" in err and not (tmp_path / "pkg").exists()
    weights = (model_dir / "model.safetensors").read_bytes()
    code, _, err = run_cli("export", model_dir, "-f", "argos", "-o", model_dir / "model.safetensors")
    assert code == 2 and "destroy" in err and (model_dir / "model.safetensors").read_bytes() == weights


def test_argos_to_stdout_is_the_package_alone(model_dir, monkeypatch, capsysbinary):
    import io
    import sys

    from mtcli.cli import main

    require("ctranslate2", "pip install 'mtcli[export]'")
    monkeypatch.setattr(sys, "argv", ["mtcli", "export", str(model_dir), "-f", "argos", "-o", "-"])
    with pytest.raises(SystemExit) as e:
        main()
    captured = capsysbinary.readouterr()
    assert e.value.code == 0 and b"wrote -" in captured.err
    assert captured.out[-22:-18] == b"PK\x05\x06"  # the zip's end record last: nothing printed after it
    assert zipfile.ZipFile(io.BytesIO(captured.out)).testzip() is None


def test_a_model_that_lowercases_its_english_is_not_packed_for_argos(model_dir, tmp_path, monkeypatch):
    """Argos tokenizes with the package's SentencePiece model, which cannot lowercase: a model trained on
    --lowercase-en data would get capitals it never saw, so the package is refused in one line."""
    import mtcli.export

    load = mtcli.export.Tokenizer.load

    def lowercasing(path):
        tok = load(path)
        tok.lowercase = path.name == "src.json"
        return tok

    monkeypatch.setattr(mtcli.export.Tokenizer, "load", staticmethod(lowercasing))
    with pytest.raises(UserError, match="export --format ctranslate2 and lowercase"):
        export(model_dir, tmp_path / "x.argosmodel", "argos")
    assert not (tmp_path / "x.argosmodel").exists()


def test_a_model_with_case_factors_exports_them_as_ctranslate2_source_features(tmp_path):
    """Each English token goes to CTranslate2 as piece￨case, summed into one embedding as mtcli sums
    them: its greedy tokens are mtcli's for every casing (the case table trained away from zero)."""
    require("ctranslate2", "pip install 'mtcli[export]'")
    import ctranslate2

    tr = Translator(train_tiny_model(tmp_path, max_epochs=4, case_factors=True, augment_uppercase=0.3,
                                     augment_lowercase=0.3))
    assert tr.model.cfg.case_factors and np.abs(tr.model.params["src_case"]["w"]).max() > 0.01
    export_ctranslate2(tr.model, tr.src_tok, tr.tgt_tok, tmp_path / "ct2")
    ct2 = ctranslate2.Translator(str(tmp_path / "ct2"), device="cpu", intra_threads=1)
    lines = [en for en, _ in tiny_pairs()[::9]]
    src, lens, _ = tr.encode(lines + [e.upper() for e in lines] + [e.lower() for e in lines] + ["McTom IS here"])
    assert len({i // tr.src_tok.vocab_size for i in src.ravel()}) == 3
    spelled = target_tokens(tr.tgt_tok)
    want = [[spelled[i] for i in h.tokens] for h in greedy(tr.model, src, lens)]
    assert _ctranslate2_greedy(ct2, tr, src, lens) == want
    assert ctranslate2_source(tr.src_tok, tr.src_tok.encode("Tom"))[0].endswith("￨Capitalised")


def test_export_checks_the_tokenizers_as_translate_does(model_dir, tmp_path, monkeypatch):
    """A tokenizer that would give the model ids it does not read (case factors it lacks) is refused by
    export as by translate, in one line, before anything is written."""
    import mtcli.export

    load = mtcli.export.Tokenizer.load

    def factored(path):
        tok = load(path)
        return tok.with_case_factors() if path.name == "src.json" else tok

    monkeypatch.setattr(mtcli.export.Tokenizer, "load", staticmethod(factored))
    for fmt, out in (("ctranslate2", tmp_path / "ct2"), ("argos", tmp_path / "x.argosmodel")):
        with pytest.raises(UserError, match="disagree on case factors"):
            export(model_dir, out, fmt)
        assert not out.exists()
    with pytest.raises(UserError, match="disagree on case factors"):
        Translator(model_dir)
