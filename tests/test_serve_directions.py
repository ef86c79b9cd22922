"""mtcli serve both ways: a server of an en-es and an es-en model (tiny ones, trained here), and one of
a single model, spoken to over HTTP by httpx and the libretranslatepy client."""

from __future__ import annotations

import pytest

from tests.conftest import require, train_tiny_model

httpx = pytest.importorskip("httpx", reason="a test dependency: pip install -e '.[test]'")

from mtcli.serve.config import ServeConfig  # noqa: E402
from tests.test_serve import running  # noqa: E402

SPANISH = "¿Dónde está la estación de autobuses?"
ENGLISH = "Where is the bus station?"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A tiny model of each direction, by direction."""
    return {d: train_tiny_model(tmp_path_factory.mktemp(d), max_epochs=2, direction=d) for d in ("en-es", "es-en")}


@pytest.fixture(scope="module")
def offline(models):
    """What offline decoding gives through the same text pipeline, with the source language's options:
    offline(direction, texts) -> each text's best translation."""
    from mtcli.decode import Translator
    from mtcli.config import Options
    from mtcli.serve.texts import translate_texts
    from mtcli.text.pipeline import Engine

    engines = {d: Engine.from_translator(Translator(path), ServeConfig().decoding) for d, path in models.items()}
    return lambda d, texts: [r[0] for r in translate_texts(texts, "text", 1, engines[d], Options().text_for(d[:2]))]


@pytest.fixture(scope="module")
def client(models):
    with running([models["en-es"], models["es-en"]]) as base, httpx.Client(base_url=base, timeout=120) as c:
        yield c


def post(client, route="/translate", **fields):
    return client.post(route, json=fields)


def test_languages_and_spec_list_both_directions(client):
    assert client.get("/languages").json() == [{"code": "en", "name": "English", "targets": ["es"]},
                                               {"code": "es", "name": "Spanish", "targets": ["en"]}]
    fields = {f["name"]: f for f in client.get("/spec").json()["paths"]["/translate"]["post"]["parameters"]}
    assert fields["source"]["enum"] == ["en", "es", "auto"] and fields["target"]["enum"] == ["en", "es"]


def test_each_direction_goes_to_its_own_decoders(client, offline):
    r = post(client, q=SPANISH, source="es", target="en")
    assert r.status_code == 200, r.text
    assert r.json() == {"translatedText": offline("es-en", [SPANISH])[0]}  # (models without a fitted check: no quality)
    assert post(client, q=ENGLISH, source="en", target="es").json() == {"translatedText": offline("en-es", [ENGLISH])[0]}
    health = client.get("/health/details").json()
    assert set(health["directions"]) == {"en-es", "es-en"}
    assert all(d["decoders"] == d["decoders_running"] >= 1 and d["sentences"] >= 1 for d in health["directions"].values())
    assert health["decoders"] == sum(d["decoders"] for d in health["directions"].values())


def test_auto_tells_each_text_and_translates_it_its_way(client, offline):
    r = post(client, q=SPANISH, source="auto", target="en")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["translatedText"] == offline("es-en", [SPANISH])[0]
    assert body["detectedLanguage"]["language"] == "es" and 75 <= body["detectedLanguage"]["confidence"] <= 100
    # a list: each text its own language; one in the target language already comes back as it came
    r = post(client, q=[ENGLISH, SPANISH], source="auto", target="es")
    assert r.json()["translatedText"] == [offline("en-es", [ENGLISH])[0], SPANISH]
    assert [d["language"] for d in r.json()["detectedLanguage"]] == ["en", "es"]
    r = post(client, q=[ENGLISH, SPANISH, "12:30"], source="auto", target="en")
    assert r.json()["translatedText"][:2] == [ENGLISH, offline("es-en", [SPANISH])[0]]
    assert r.json()["detectedLanguage"][2] == {"confidence": 0.0, "language": "es"}  # nothing to tell: into en from es
    # HTML is told by its text: its tag and attribute names and its script are not English prose
    page = '<div class="header" title="x"><p>Hola, <b>amigo</b>.</p><script>go("Hello the world");</script></div>'
    r = post(client, q=page, source="auto", target="en", format="html")
    assert r.status_code == 200 and r.json()["detectedLanguage"]["language"] == "es", r.text


def test_a_source_equal_to_the_target_is_returned_as_it_came(client):
    assert post(client, q=[ENGLISH], source="en", target="en").json() == {"translatedText": [ENGLISH]}


def test_detect_gives_the_language_and_its_confidence(client):
    (es,) = post(client, "/detect", q="Hace muy buen tiempo hoy en Madrid.").json()
    (en,) = post(client, "/detect", q="The weather is very nice in Madrid today.").json()
    assert es["language"] == "es" and en["language"] == "en"
    assert 75 <= es["confidence"] <= 100 and 75 <= en["confidence"] <= 100
    assert post(client, "/detect", q="12:30").json() == [{"confidence": 0.0, "language": "en"}]


def test_unsupported_languages_are_worded_as_libretranslate(client):
    for fields, message in (({"source": "fr", "target": "en"}, "fr is not supported"),
                            ({"source": "es", "target": "zz"}, "zz is not supported"),
                            ({"source": "auto", "target": "zz"}, "zz is not supported")):
        r = post(client, q="Hola.", **fields)
        assert r.status_code == 400 and r.json() == {"error": message}


def test_libretranslate_behaviours_both_ways(client):
    """What LibreTranslate's own API tests check, written here over HTTP."""
    r = post(client, q="Hola mundo", source="es", target="en")
    assert r.status_code == 200 and r.json()["translatedText"] != "Hola mundo"
    r = post(client, q=["This is an English sentence", "Esta es una oración en español"], source="auto", target="es")
    assert [d["language"] for d in r.json()["detectedLanguage"]] == ["en", "es"]
    r = post(client, "/detect", q=["This is an English sentence", "Esta es una oración en español"])
    assert r.status_code == 200 and isinstance(r.json(), list) and len(r.json()) >= 1
    assert post(client, "/detect", q="This is an English sentence for detection").json()[0]["language"] == "en"
    assert post(client, q=["😀", "😁"], source="es", target="en").json() == {"translatedText": ["😀", "😁"]}
    r = post(client, q="Hola", source="es", target="en", format="xml")
    assert r.status_code == 400 and r.json() == {"error": "xml format is not supported"}
    assert client.get("/detect").status_code == 405


def test_libretranslatepy_client_both_ways(client, offline):
    require("libretranslatepy", "a test dependency: pip install -e '.[test]'")
    from libretranslatepy import LibreTranslateAPI

    lt = LibreTranslateAPI(str(client.base_url))
    assert lt.translate(SPANISH, "es", "en", timeout=120) == offline("es-en", [SPANISH])[0]
    assert lt.translate(ENGLISH, "en", "es", timeout=120) == offline("en-es", [ENGLISH])[0]
    assert lt.translate(SPANISH, "auto", "en", timeout=120) == offline("es-en", [SPANISH])[0]
    (detected,) = lt.detect("Hace muy buen tiempo hoy en Madrid.")
    assert detected["language"] == "es" and detected["confidence"] > 75
    assert {"code": "es", "name": "Spanish", "targets": ["en"]} in lt.languages()


def test_a_server_of_one_model_serves_its_direction_only(models, offline):
    with running(models["es-en"]) as base, httpx.Client(base_url=base, timeout=120) as c:
        assert c.get("/languages").json() == [{"code": "en", "name": "English", "targets": []},
                                              {"code": "es", "name": "Spanish", "targets": ["en"]}]
        assert c.get("/frontend/settings").json()["language"]["source"]["code"] == "es"
        r = post(c, q=ENGLISH, source="en", target="es")
        assert r.status_code == 400
        assert r.json() == {"error": "Spanish (es) is not available as a target language from English (en)"}
        r = post(c, q=[SPANISH, ENGLISH], source="auto", target="es")  # the English one has no way to Spanish
        assert r.status_code == 400 and "Spanish (es) is not available" in r.json()["error"]
        r = post(c, q=[SPANISH, ENGLISH], source="auto", target="en")
        assert r.json()["translatedText"] == [offline("es-en", [SPANISH])[0], ENGLISH]
        assert c.get("/health/details").json()["model"] == "model"


def test_cli_serves_every_shipped_model_or_the_one_given(models, run_cli, monkeypatch, tmp_path):
    """`mtcli serve`: both shipped directions by default, -m's model alone (what it would load, told
    by a stand-in for the server)."""
    from mtcli import registry
    from mtcli.serve import server

    shipped = tmp_path / "shipped"
    shipped.mkdir()
    for d, path in models.items():
        (shipped / d).symlink_to(path)
    monkeypatch.setattr(registry, "SHIPPED_DIR", shipped)
    monkeypatch.setenv("MTCLI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MTCLI_MODEL", raising=False)
    loaded, checks = [], []
    monkeypatch.setattr(server, "serve", lambda dirs, cfg, announce: (loaded.append(dirs), checks.append(cfg.check),
                                                                      announce("http://x")))
    code, _, err = run_cli("serve")
    assert code == 0 and loaded[-1] == [shipped / "en-es", shipped / "es-en"] and "(model en-es, es-en)" in err
    assert run_cli("serve", "--no-check")[0] == 0 and checks[-2:] == [True, False]  # (quality answered, or not)
    code, _, err = run_cli("serve", "-m", models["es-en"])
    assert code == 0 and loaded[-1] == [models["es-en"]]
    (shipped / "es-en").unlink()
    code, _, err = run_cli("serve")
    assert code == 0 and loaded[-1] == [shipped / "en-es"]
