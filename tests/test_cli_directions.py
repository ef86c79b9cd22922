"""`mtcli translate` both ways: the shipped model of each line's direction, --from/--to, -m of one direction."""

import json

import pytest

from mtcli import registry
from tests.conftest import train_tiny_model


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """A package's models directory with a tiny model for each direction."""
    root = tmp_path_factory.mktemp("shipped")
    for direction in ("en-es", "es-en"):
        model = train_tiny_model(tmp_path_factory.mktemp(direction), max_epochs=2, direction=direction)
        model.rename(root / direction)
    return root


@pytest.fixture
def shipped(both, monkeypatch, tmp_path):
    monkeypatch.setattr(registry, "SHIPPED_DIR", both)
    monkeypatch.setenv("MTCLI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MTCLI_MODEL", raising=False)
    return both


def lines_of(out):
    return [json.loads(line) for line in out.splitlines()]


def test_each_argument_goes_the_way_of_its_language(shipped, run_cli):
    code, out, err = run_cli("translate", "--json", "Where is the blue station?", "¿Dónde está la estación azul?")
    assert code == 0, err
    en, es = lines_of(out)
    assert en["language"] == "en" and es["language"] == "es"
    assert 0 < en["confidence"] <= 1 and 0 < es["confidence"] <= 1


def test_from_and_to_force_the_direction(shipped, run_cli):
    code, out, err = run_cli("translate", "--json", "--from", "es", "Where is the blue station?")
    assert code == 0, err
    assert lines_of(out)[0]["language"] == "es" and lines_of(out)[0]["confidence"] is None
    code, out, err = run_cli("translate", "--to", "es", "¿Dónde está la estación azul?")
    assert code == 0 and out == "¿Dónde está la estación azul?\n"
    assert "argument 1: this is Spanish already" in err


def test_environment_gives_the_languages_and_the_command_line_wins(shipped, run_cli, monkeypatch):
    monkeypatch.setenv("MTCLI_FROM", "es")
    assert lines_of(run_cli("translate", "--json", "Hello.")[1])[0]["language"] == "es"
    assert lines_of(run_cli("translate", "--json", "--from", "en", "Hola.")[1])[0]["language"] == "en"


def test_a_model_given_with_m_fixes_the_direction_and_refuses_another(shipped, run_cli):
    code, out, err = run_cli("translate", "-m", shipped / "es-en", "--json", "Where is the blue station?")
    assert code == 0 and lines_of(out)[0]["language"] == "es"
    code, _, err = run_cli("translate", "-m", shipped / "es-en", "--from", "en", "Hi.")
    assert code == 2 and "Spanish to English (es-en)" in err and "drop -m" in err
    code, _, err = run_cli("translate", "--from", "es", "--to", "es", "Hola.")
    assert code == 2 and "the same language" in err


def test_a_missing_direction_is_one_line(shipped, run_cli, monkeypatch, tmp_path):
    only = tmp_path / "only"
    only.mkdir()
    (only / "en-es").symlink_to(shipped / "en-es")
    monkeypatch.setattr(registry, "SHIPPED_DIR", only)
    code, _, err = run_cli("translate", "--from", "es", "Hola.")
    assert code == 2 and "ships no es-en model" in err and "Traceback" not in err


def test_models_lists_both_shipped_models_and_info_says_the_direction(shipped, run_cli):
    code, out, _ = run_cli("models")
    assert code == 0 and "en-es" in out and "es-en" in out
    code, out, _ = run_cli("info", "es-en")
    assert code == 0 and json.loads(out)["direction"] == "es-en"
    assert set(json.loads(out)["vocab"]) == {"es", "en"}
    code, _, err = run_cli("models", "remove", "es-en")
    assert code == 2 and "shipped with mtcli" in err


def test_a_spanish_document_is_translated_as_a_whole(shipped, run_cli, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("# ¿Dónde está la estación azul?\n\nNo te vayas, es tarde.\n", encoding="utf-8")
    code, out, err = run_cli("translate", "-i", doc, "-o", "-")
    assert code == 0, err
    assert out.startswith("# ") and "estación" not in out


def test_the_way_backs_model_is_let_go_after_each_chunks_ranking(shipped, run_cli, monkeypatch, tmp_path):
    """A file of English whose chunks each have a short line that the way back ranks (--rerank short, the default):
    the Spanish model it reads with is loaded for each chunk's ranking and freed before the chunk's other lines are
    decoded and checked (it had stayed for the whole file: 29 MB of each chunk's peak), and the lines are translated
    as with it kept."""
    import weakref

    from mtcli import cli, roundtrip, session
    from mtcli.text import pipeline

    src = tmp_path / "in.txt"
    src.write_text("Hello.\nThe dog runs in the park.\n" * 3)
    code, kept, err = run_cli("translate", "-i", src, "-o", "-")
    assert code == 0, err
    monkeypatch.setattr(pipeline, "LINES_PER_CALL", 2)
    loads, alive, load, rank, warn = [], [], cli._load_translator, roundtrip.RoundTrip.rank, session.warn

    def loaded(path, **how):
        loads.append(weakref.ref(translator := load(path, **how)))
        return translator

    def ranked(*args, **kwargs):
        found = rank(*args, **kwargs)
        alive.append(("ranked", sum(ref() is not None for ref in loads)))
        return found

    def chunk_done(results, where="line"):
        warn(results, where)
        alive.append(("chunk", sum(ref() is not None for ref in loads)))

    monkeypatch.setattr(cli, "_load_translator", loaded)
    monkeypatch.setattr(roundtrip.RoundTrip, "rank", ranked)
    monkeypatch.setattr(session, "warn", chunk_done)
    code, out, err = run_cli("translate", "-i", src, "-o", "-")
    assert code == 0, err
    assert out == kept and alive == [("ranked", 2), ("chunk", 1)] * 3 and len(loads) == 4


def test_the_model_of_a_language_no_line_of_a_chunk_has_is_let_go(shipped, run_cli, monkeypatch, tmp_path):
    """A file of English with one Spanish line near its start: the Spanish model that line loaded is let go
    before the next chunk, which has no Spanish line, is decoded (it had stayed resident for the rest of the file),
    and every line is translated as before."""
    import weakref

    from mtcli import cli, route, session
    from mtcli.text import pipeline

    monkeypatch.setattr(pipeline, "LINES_PER_CALL", 2)
    monkeypatch.setattr(route, "LET_GO_LINES", 2)
    models, alive, load, warn = {}, [], cli._load_translator, session.warn

    def loaded(path, **how):
        models[path.name] = weakref.ref(translator := load(path, **how))
        return translator

    def chunk_done(results, where="line"):
        warn(results, where)
        alive.append(sorted(name for name, ref in models.items() if ref() is not None))

    monkeypatch.setattr(cli, "_load_translator", loaded)
    monkeypatch.setattr(session, "warn", chunk_done)
    src = tmp_path / "in.txt"
    src.write_text("".join(f"{line}\n" for line in ["The dog runs.", "¿Dónde está la estación de tren?"]
                           + ["The dog runs.", "The cat sleeps."] * 3))
    code, _, err = run_cli("translate", "--greedy", "-i", src, "-o", tmp_path / "out.txt")
    assert code == 0, err
    assert alive == [["en-es", "es-en"]] + [["en-es"]] * 3
    assert len((tmp_path / "out.txt").read_text().splitlines()) == 8
