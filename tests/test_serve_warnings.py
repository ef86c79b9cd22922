"""serve's `warnings` extension field (attack 2026-12-02b): what `mtcli translate` warns on stderr for a text, the
server answers too, in every format and for a string or a list `q`; before, a Spanish text given as English (the
CLI: "this looks like Spanish already; ...") or a line whose mark was left out came back with no word of it."""

from __future__ import annotations

import io
import json
import re

import pytest

httpx = pytest.importorskip("httpx", reason="a test dependency: pip install -e '.[test]'")

from tests.test_serve import running  # noqa: E402

SPANISH = "El gato duerme en el sofá rojo todos los días."
ENGLISH = "The cat sleeps on the red sofa every day."
DOCUMENTS = {  # a format, and a Spanish text in it
    "text": SPANISH,
    "html": f"<p>{SPANISH}</p>",
    "markdown": f"# Título\n\n{SPANISH}",
    "srt": f"1\n00:00:01,000 --> 00:00:02,000\n{SPANISH}\n",
    "vtt": f"WEBVTT\n\n00:01.000 --> 00:02.000\n{SPANISH}\n",
}


@pytest.fixture(scope="module")
def client(shipped_model):
    with running([shipped_model, shipped_model.parent / "es-en"]) as base, \
            httpx.Client(base_url=base, timeout=120) as c:
        yield c


def post(client, **fields):
    return client.post("/translate", json=fields)


def cli_warnings(run_cli, tmp_path, text: str, source: str, fmt: str) -> list[str]:
    """What `mtcli translate -i FILE --from SOURCE` warns on stderr for the text in that format."""
    return cli_file_warnings(run_cli, tmp_path, f"in.{ {'text': 'txt', 'markdown': 'md'}.get(fmt, fmt)}",
                             text.encode(), source)


def cli_file_warnings(run_cli, tmp_path, name: str, data: bytes, source: str) -> list[str]:
    """What `mtcli translate -i NAME --from SOURCE` warns on stderr for a file of these bytes."""
    path = tmp_path / name
    path.write_bytes(data)
    _, _, err = run_cli("translate", "--no-check", "--from", source, "-i", path, "-o", tmp_path / f"out-{name}")
    return re.findall(r"^warning: ((?:line|paragraph) \d+: .*)$", err, re.MULTILINE)


@pytest.mark.parametrize("fmt", DOCUMENTS)
@pytest.mark.parametrize("source, target, text", [("en", "es", SPANISH), ("es", "en", ENGLISH)])
def test_a_text_given_in_the_wrong_language_is_warned_as_the_cli_warns_it(client, run_cli, tmp_path, fmt, source,
                                                                          target, text):
    document = DOCUMENTS[fmt].replace(SPANISH, text)
    answer = post(client, q=document, source=source, target=target, format=fmt).json()
    seen, given = ("Spanish", "English") if source == "en" else ("English", "Spanish")
    assert any(f"looks like {seen} already; it was translated as if it were {given}" in w for w in answer["warnings"])
    assert answer["warnings"] == cli_warnings(run_cli, tmp_path, document, source, fmt)
    hello = DOCUMENTS[fmt].replace(SPANISH, "Hello.")  # (a short text: nothing to warn)
    many = post(client, q=[hello, document], source=source, target=target, format=fmt).json()
    assert many["warnings"][0] == [] and many["warnings"][1] == answer["warnings"]


def test_the_right_language_auto_and_short_texts_get_no_field(client):
    for fields in ({"q": ENGLISH, "source": "en", "target": "es"}, {"q": SPANISH, "source": "auto", "target": "en"},
                   {"q": "Hola amigo.", "source": "en", "target": "es"},  # (under SURE_WORDS words: not sure)
                   {"q": [ENGLISH, "The plant is green."], "source": "en", "target": "es"}):
        assert "warnings" not in post(client, **fields).json()


def test_each_line_of_a_text_is_warned_as_the_cli_warns_it(client, run_cli, tmp_path):
    text = f"The plant is green.\n{SPANISH}\nThe \u200fhouse is red."
    answer = post(client, q=text, source="en", target="es").json()
    assert answer["warnings"][0].startswith("line 2: this looks like Spanish")
    assert answer["warnings"][1].startswith("line 3: bidirectional marks (U+200F)")
    assert answer["warnings"] == cli_warnings(run_cli, tmp_path, text, "en", "text")


def test_the_spec_describes_the_field(client):
    spec = client.get("/spec").json()
    assert "warnings" in str(spec)


def docx_of(*paragraphs: str) -> bytes:
    docx = pytest.importorskip("docx")  # (python-docx: a test dependency, as in test_serve_files.py)
    d = docx.Document()
    for text in paragraphs:
        d.add_paragraph(text)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


FILES = {  # a file's name, and its bytes with a Spanish text, a mark with no sure place, or both
    "notes.txt": f"The plant is green.\n{SPANISH}\nThe \u200fhouse is red.\n".encode(),
    "page.html": f"<p>The plant is green.</p>\n<p>{SPANISH}</p>\n".encode(),
    "subs.srt": DOCUMENTS["srt"].encode(),
    "strings.json": json.dumps({"a": "The plant is green.", "b": SPANISH, "c": "The \u200fhouse is red."}).encode(),
    "report.docx": None,  # (made in the test: python-docx)
}


@pytest.mark.parametrize("name", FILES)
def test_translate_file_answers_the_warnings_the_cli_gives_for_that_file(client, run_cli, tmp_path, name):
    """Before, /translate_file had no channel for warnings (attack 2026-12-02b, try 232): the same file got a word
    from `mtcli translate -i` and none from the server."""
    data = FILES[name] or docx_of("The plant is green.", SPANISH, "The \u200fhouse is red.")
    answer = client.post("/translate_file", files={"file": (name, data)}, data={"source": "en", "target": "es"})
    assert answer.status_code == 200, answer.text
    warnings = answer.json()["warnings"]
    assert any("looks like Spanish already" in w for w in warnings)
    assert warnings == cli_file_warnings(run_cli, tmp_path, name, data, "en")
    quiet = client.post("/translate_file", files={"file": ("ok.txt", b"The plant is green.\n")},
                        data={"source": "en", "target": "es"}).json()
    assert "warnings" not in quiet and "translatedFileUrl" in quiet


PLACEHOLDERS = ["{name} {count}", "%{user_name} %1 $HOME", "%s: %d", "{{ user }} &nbsp;", "<%= user.name %>",
                "{0} https://example.org/a 42"]


@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_a_text_of_placeholders_alone_has_no_language_as_libretranslate_answers_it(client, run_cli, tmp_path, text):
    """LibreTranslate answers a text it cannot tell English with confidence 0 (libretranslate/language.py); a text
    of placeholders, numbers and URLs was told English 68.7 (attack 2026-12-02b, try 234). `mtcli translate` with
    the source told keeps such a line as it is, and /translate with `source: auto` too."""
    assert post(client, q=text, source="auto", target="es").json() == {
        "translatedText": text, "detectedLanguage": {"confidence": 0.0, "language": "en"}}
    assert client.post("/detect", json={"q": text}).json() == [{"confidence": 0.0, "language": "en"}]
    path = tmp_path / "in.txt"
    path.write_text(text + "\n", encoding="utf-8")
    assert run_cli("translate", "--no-check", "-i", path)[1] == text + "\n"
    assert client.post("/detect", json={"q": f"Hello {text}"}).json()[0]["confidence"] > 50  # (words: told)


@pytest.mark.parametrize("confidence, warned", [(0.98951, False), (0.99, True)])
def test_the_servers_wrong_language_warning_reads_the_unrounded_confidence(monkeypatch, confidence, warned):
    # (the 0-100 figure /detect shows is rounded to 0.1: 0.98951 had passed the CLI's 0.99 as 99.0)
    import mtcli.langid
    from mtcli.serve import texts

    monkeypatch.setattr(mtcli.langid, "detect", lambda text, prior=None: mtcli.langid.Detection("es", confidence))
    said = texts._said("Necesito comprar pan y leche hoy.", "text", "en", [])
    assert bool(said) == warned and all(line.startswith("line 1: ") for line in said)


@pytest.mark.parametrize("name, data", [("notes.txt", f"{SPANISH}\n".encode()),
                                        ("page.html", f"<p>{SPANISH}</p>\n".encode()),
                                        ("report.docx", None)])
def test_a_file_already_in_the_target_language_is_said_as_the_cli_says_it(client, run_cli, tmp_path, name, data):
    """Before, the server sent such a file back as it came with no word (the CLI says it on stderr): a user of the
    page could not tell a file kept from a file translated."""
    data = data or docx_of(SPANISH)
    answer = client.post("/translate_file", files={"file": (name, data)}, data={"source": "auto", "target": "es"})
    assert answer.status_code == 200, answer.text
    (warning,) = answer.json()["warnings"]
    assert re.fullmatch(r"(line|paragraph) 1: (this|the document) is Spanish already \(confidence (0\.\d\d|1\.00)\); "
                        r"kept as it came", warning), warning
    path = tmp_path / name
    path.write_bytes(data)
    _, _, err = run_cli("translate", "--no-check", "--to", "es", "-i", path, "-o", tmp_path / f"out-{name}")
    assert f"warning: {warning}" in err
    assert client.get(answer.json()["translatedFileUrl"]).content == data  # (kept byte for byte)


def test_a_text_already_in_the_target_language_is_said(client):
    answer = post(client, q=[SPANISH, f"{SPANISH}\n{SPANISH}", ENGLISH], source="auto", target="es").json()
    assert answer["translatedText"][:2] == [SPANISH, f"{SPANISH}\n{SPANISH}"]
    (one,), (two,), three = answer["warnings"]
    assert one.startswith("line 1: this is Spanish already (confidence ") and one.endswith("); kept as it came")
    assert two.startswith("line 1: the text is Spanish already") and three == []
    assert "warnings" not in post(client, q=SPANISH, source="auto", target="en").json()  # (translated: no word)


@pytest.mark.parametrize("check", [True, False], ids=["checked", "unchecked"])
@pytest.mark.parametrize("reading", [True, False], ids=["members read", "first member only"])
def test_the_servers_process_keeps_the_members_its_check_reads(check, reading, shipped_model, tmp_path):
    """The server's process drops an ensemble's members after the first (its decoders decode) unless its check
    reads them (a combination of the members' log-probabilities): every direction's check is made and reads what
    it needs."""
    from mtcli import registry
    from mtcli.confidence import FILE
    from mtcli.serve.app import checkers
    from mtcli.serve.config import ServeConfig
    from mtcli.serve.server import drop_unread_members, load

    model = tmp_path / "en-es"  # (the shipped files, with a check that reads both members when `reading`)
    model.mkdir()
    for f in registry.shipped("en-es").iterdir():
        (model / f.name).symlink_to(f)
    data = json.loads((registry.shipped("en-es") / FILE).read_text("utf-8"))
    for scorer in data["scorers"].values():
        for name in ("member0", "member1") if reading else ():
            for key, value in (("features", name), ("mean", 0.0), ("scale", 1.0), ("coef", 0.1)):
                scorer[key].append(value)
    (model / FILE).unlink()
    (model / FILE).write_text(json.dumps(data), "utf-8")
    cfg = ServeConfig(check=check)
    translators = load([model, registry.shipped("es-en")])
    members = {t.direction: len(t.models) for t in translators}
    drop_unread_members(translators, cfg)
    made = checkers(translators, cfg)  # (a check reading members a translator has not is refused: Checker)
    assert sorted(made) == (["en-es", "es-en"] if check else [])
    for t in translators:
        reads = check and made[t.direction].scorer.reads_members
        assert len(t.models) == (members[t.direction] if reads else 1)
    assert members["en-es"] == 2 and (len(translators[0].models) == 2) == (check and reading)
