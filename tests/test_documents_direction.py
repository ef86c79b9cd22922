"""Attack 2026-12-03b's G, H, O, X: a document's direction is what most of it is, each part's own language keeps
it or is warned (G); Spanish one-word UI strings alone (H); a malformed PO refused (O); a minified JSON file's
warnings name the key (X)."""

from __future__ import annotations

import json

import pytest

from mtcli.errors import UserError
from mtcli.route import KEEP_SURE, document_language, judged_parts, plan
from mtcli.text.formats.po import read as read_po
from mtcli.text.formats.units import Settings

MIX5 = {"a": "Meeting notes", "b": "Gracias por todo, nos vemos pronto.", "c": "Pls send me the report ASAP.",
        "d": "El equipo terminó el informe a tiempo.", "e": "Once a week we meet in Los Angeles.",
        "f": "No, I am not coming.", "g": "No"}
BUTTONS = ["Save", "Cancel", "Open", "Delete", "Thx!", "Hola amigo"]
MIX_PO = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' + "".join(
    f'msgid "{m}"\nmsgstr ""\n\n' for m in BUTTONS)


def told(text: str, prior: str | None = None) -> tuple[str | None, float]:
    from mtcli.langid import detect

    d = detect(text, prior)
    return d.language, d.confidence


# --- G: the direction by most of the document, each part judged ---

@pytest.mark.parametrize("parts", [list(MIX5.values()), BUTTONS])
def test_a_document_is_what_most_of_it_is(parts):
    # (told as one text both were Spanish: the few long Spanish parts outweighed the many English ones)
    assert document_language(parts, lambda t: told(t))[0] == "en"
    source, target, judge, whole = plan(parts, told, None, None, "en")
    assert (source, target, whole) == ("en", "es", None)
    kept = [p for p in parts if judge(p)[0]]
    assert kept == [p for p in parts if p in (MIX5["b"], MIX5["d"], "Hola amigo")]


def test_a_part_told_the_target_less_surely_is_translated_with_a_warning():
    def detect(text, prior):
        return {"sure": ("es", KEEP_SURE), "unsure": ("es", KEEP_SURE - 0.01)}.get(text, ("en", 0.9))
    judge = judged_parts("en", "es", detect)
    assert judge("sure")[0] and not judge("sure")[1]
    assert judge("unsure") == (None, "this part of the document looks like Spanish already; it was translated as "
                                     "if it were English")
    assert judge("other") == (None, None)
    assert plan(["Hola amigo"], told, "en", None, "en") == ("en", "es", None, None)  # (--from en: the user's word)


def test_with_a_target_given_each_part_decides_and_a_whole_document_in_it_is_kept():
    source, target, judge, whole = plan(list(MIX5.values()), told, None, "en", "en")
    assert (source, target, whole) == ("es", "en", None)
    assert judge(MIX5["c"])[0] and not judge(MIX5["b"])[0]  # (the English kept, the Spanish translated)
    spanish = [MIX5["b"], MIX5["d"]]
    assert plan(spanish, told, None, "es", "en")[3].startswith("the document is Spanish already")


@pytest.mark.slow
def test_a_mixed_json_file_goes_the_way_of_most_of_it(shipped_model, run_cli, tmp_path):
    source = tmp_path / "mix5.json"
    source.write_text(json.dumps(MIX5, ensure_ascii=False))
    code, out, err = run_cli("translate", "-i", source, "-o", "-")
    got = json.loads(out)
    assert code == 0 and got["b"] == MIX5["b"] and got["d"] == MIX5["d"]  # (Spanish already: kept)
    assert got["a"] != "Meeting didn't go" and got["c"] != MIX5["c"] and got["g"] == "No"
    # X: a minified file's warnings name the key of each
    assert 'line 1: key "b": this part of the document is Spanish already' in err
    assert 'line 1: key "d": this part' in err


@pytest.mark.slow
def test_a_po_of_english_buttons_and_one_spanish_msgid(shipped_model, run_cli, tmp_path):
    source = tmp_path / "mix.po"
    source.write_text(MIX_PO)
    code, out, err = run_cli("translate", "-i", source, "-o", "-")
    assert code == 0 and 'msgid "Cancel"\nmsgstr "Cancelar"' in out and 'msgid "Hola amigo"\nmsgstr ""' in out
    assert "this part of the document is Spanish already" in err


@pytest.mark.slow
def test_a_spanish_heading_in_an_english_guide_is_kept(shipped_model, run_cli, tmp_path):
    source = tmp_path / "guide.md"
    source.write_text("# Quick guide\n\n## Instalación rápida\n\nDownload the installer and run it.\n")
    code, out, err = run_cli("translate", "-i", source, "-o", "-")
    assert code == 0 and "## Instalación rápida\n" in out and "line 3: this part of the document is Spanish" in err


# --- H: Spanish one-word UI strings alone ---

@pytest.mark.slow
def test_spanish_ui_words_alone_in_a_document(shipped_model, run_cli, tmp_path):
    source = tmp_path / "es3.json"
    source.write_text('{"yes": "Sí", "cancel": "Cancelar", "save": "Guardar", "no": "No", "off": "Apagado"}')
    code, out, _ = run_cli("translate", "-i", source, "-o", "-")
    assert code == 0 and json.loads(out) == {"yes": "Yes", "cancel": "Cancel", "save": "Save", "no": "No",
                                             "off": "Off"}


def test_the_ui_table_reads_each_row_both_ways():
    from mtcli.text.casing import REPLIES, UI_WORDS

    assert all(REPLIES["en"][en] == es and REPLIES["es"][es] == en for en, es in UI_WORDS)
    assert REPLIES["es"]["cancelar"] == "cancel" and "si" not in REPLIES["es"]  # ("si" is "if")


# --- O: a malformed PO refused, naming its line ---

@pytest.mark.parametrize("data, line", [
    ('msgid "Open file\nmsgstr ""\n', 1),
    ('msgid "a"\nmsgstr ""\n\nmsgid Hello\nmsgstr ""\n', 4),
    ('msgid "Odd \\q escape"\nmsgstr ""\n', 1),
    ('msgid "a"\nmsgstr ""\n"and more\n', 3),
])
def test_a_po_line_without_its_quotes_is_refused(data, line):
    with pytest.raises(UserError, match=rf"^m\.po: not a PO file: Syntax error in po file m\.po \(line {line}\)"):
        read_po(data.encode(), "m.po", Settings())


def test_a_well_formed_po_still_reads():
    data = ('# comment\n#, fuzzy\nmsgctxt "menu"\nmsgid "Say \\"hi\\"\\t\\n"\nmsgid_plural "x"\n'
            'msgstr[0] ""\nmsgstr[1] ""\n\nmsgid "Long "\n"line\u2028two"\nmsgstr ""\n')
    units, _ = read_po(data.encode(), "ok.po", Settings())
    assert units.texts


@pytest.mark.slow
def test_a_malformed_po_exits_2_and_writes_nothing(run_cli, tmp_path):
    source, out = tmp_path / "m.po", tmp_path / "out.po"
    source.write_text('msgid "Open file\nmsgstr ""\n\nmsgid Hello\nmsgstr ""\n')
    code, _, err = run_cli("translate", "-i", source, "-o", out)
    assert code == 2 and "(line 1)" in err and len(err.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.slow
def test_the_server_translates_a_mixed_file_the_way_of_most_of_it(shipped_model):
    from tests.test_serve import running_app

    httpx = pytest.importorskip("httpx", reason="a test dependency: pip install -e '.[test]'")
    with running_app([shipped_model, shipped_model.parent / "es-en"]) as (base, _), \
            httpx.Client(base_url=base, timeout=120) as client:
        answer = client.post("/translate_file", files={"file": ("mix5.json", json.dumps(MIX5).encode())},
                             data={"source": "auto", "target": "es"}).json()
        got = json.loads(client.get(answer["translatedFileUrl"]).content)
        guide = "# Guía rápida\n\nDescarga el instalador y ejecútalo.\n\nThanks for using this program.\n"
        page = client.post("/translate", json={"q": guide, "source": "auto", "target": "es", "format": "markdown"})
    # (it had come back untranslated whole: "the document is Spanish already")
    assert got["b"] == MIX5["b"] and got["c"] != MIX5["c"] and got["e"] != MIX5["e"]
    # a document mostly in the target language: its other parts translated all the same, as the CLI's --to
    text = page.json()["translatedText"]
    assert "Descarga el instalador y ejecútalo." in text and "Thanks for using" not in text


def test_a_document_nested_too_deep_is_refused_before_its_parts_are_told():
    from mtcli.route import Router
    from mtcli.text.markup import MAX_DEPTH

    deep = ["<p>" + "<b>" * 5_000 + "green" + "</b>" * 5_000 + "</p>"]
    with pytest.raises(UserError, match=rf"^line 1: markup nested more than {MAX_DEPTH} deep"):
        Router(lambda direction: None).translate_document(deep, "html")
