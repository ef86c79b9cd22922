"""`mtcli translate -i DOCUMENT -o OUT` at the command line: the options that belong to one format only, the
output that would destroy the input, and a bad document: one line, exit 2, nothing written (all refused
before a model is loaded)."""

import pytest

from tests.documents_fixtures import PO, docx_bytes


def test_output_never_the_input(run_cli, tmp_path):
    po = tmp_path / "es.po"
    po.write_text(PO)
    code, out, err = run_cli("translate", "-i", po, "-o", po)
    assert code == 2 and "is the input file" in err and po.read_text() == PO
    link = tmp_path / "link.po"
    link.symlink_to(po)
    code, out, err = run_cli("translate", "-i", po, "-o", link)
    assert code == 2 and po.read_text() == PO


@pytest.mark.parametrize("args, words", [
    (["--keys", "menu.*", "--format", "po"], "--keys picks the values of a JSON file"),
    (["--overwrite", "--format", "json"], "--overwrite translates again the messages of a PO or XLIFF file"),
    (["--overwrite"], "--format text has none"),
    (["--format", "docx", "--json"], "--json and text arguments are for plain lines"),
])
def test_options_of_another_format_are_refused(run_cli, tmp_path, args, words):
    source = tmp_path / "a.txt"
    source.write_text("Hello.\n")
    code, _, err = run_cli("translate", "-i", source, "-o", tmp_path / "out", *args)
    assert code == 2 and words in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("name, data, words", [
    ("bad.docx", docx_bytes(1)[:3000], "bad.docx: not a readable zip package"),
    ("bad.po", PO.replace('msgctxt "menu"', 'msgctxt "menu" stray').encode(), "bad.po: not a PO file: Syntax error"),
    ("bad.json", b'{"a": [1, 2}', "bad.json: not JSON: line 1, column 12"),
    ("bad.xlf", b'<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://example.org/x.dtd"><xliff/>', "has a DTD"),
])
def test_a_bad_document_is_one_line_and_nothing_written(run_cli, tmp_path, name, data, words):
    pytest.importorskip("docx")
    source = tmp_path / name
    source.write_bytes(data)
    code, _, err = run_cli("translate", "-i", source, "-o", tmp_path / f"out.{name}")
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / f"out.{name}").exists()
