"""mtcli.langid: English or Spanish or nothing to tell, on lines written here (and on a sample of the corpus
when it is there). Each behaviour is asked of both languages, so a detector that always answers one language,
or answers at random, fails."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
import threading
import time

import pytest

from mtcli import langid
from mtcli.langid import Detection, detect, detect_many, detect_stream
from tests.conftest import REPO, SHARED_CORPUS

SENTENCES = {
    "en": ["The train to the airport leaves every twenty minutes.", "Could you tell me where the station is?",
           "My grandmother grows tomatoes in her garden.", "We should have left before the storm started.",
           "Tom and Mary are not my upstairs neighbours.", "I visited Los Angeles and El Paso last year."],
    "es": ["El tren al aeropuerto sale cada veinte minutos.", "¿Podría decirme dónde está la estación?",
           "Mi abuela cultiva tomates en su jardín.", "Deberíamos habernos ido antes de la tormenta.",
           "Tom y Mary no son mis vecinos de arriba.", "Ella conduce un BMW nuevo."],
}
SHORT = {  # one to three words
    "en": ["Hello!", "Thanks", "Good morning", "I'm lost", "Where is it?", "Don't", "The", "Please help",
           "She was", "It's so late now.", "No problem.", "No worries!"],
    "es": ["Hola", "Gracias", "Buenos días", "¿Qué?", "Le", "Te", "Se", "Por favor", "Ella es", "Yo", "¡Vamos!"],
}
UNACCENTED = ["donde esta la estacion", "como estas", "manana vamos a la playa", "que hora es", "no se si llovera",
              "el nino tiene sueno"]
NOTHING = ["", "   ", "123", "3.14", "12:30", "+34 600 123 456", "$15", "15 €", "...", "!?", ":-)", "😀", "👍🎉",
           "https://example.org/path?q=1", "www.example.com", "user@example.com", "#42", "→", "東京"]
SHARED_WORDS = ["No", "Hotel", "Taxi", "Menu", "Piano", "Tom"]  # alike in both languages: the prior decides
# ("OK", "USA", "TV": acronyms both languages' tables know, nothing to tell: text/acronyms.py, test_stage_acronyms.py)


def cases(table: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(text, lang) for lang, texts in table.items() for text in texts]


@pytest.mark.parametrize(("text", "lang"), cases(SENTENCES))
def test_sentences(text, lang):
    d = detect(text)
    assert d.language == lang
    assert d.confidence > 0.9


@pytest.mark.parametrize(("text", "lang"), cases(SHORT))
def test_short_lines(text, lang):
    d = detect(text)
    assert d.language == lang
    assert 0.5 < d.confidence <= 1.0


@pytest.mark.parametrize("text", UNACCENTED)
def test_spanish_without_accents_or_marks(text):
    assert detect(text).language == "es"
    assert detect(text.capitalize() + "?").language == "es"


@pytest.mark.parametrize(("text", "lang"), cases(SENTENCES) + [(t, "es") for t in UNACCENTED])
def test_caps_and_lowercase(text, lang):
    assert detect(text.upper()).language == lang
    assert detect(text.lower().rstrip(".?!")).language == lang


@pytest.mark.parametrize("text", NOTHING)
def test_nothing_to_tell(text):
    assert detect(text) == Detection(None, 0.0)
    assert detect(text, prior="es") == Detection(None, 0.0)  # a prior never invents a language


@pytest.mark.parametrize("text", ["{name} {count}", "%{user_name} %1 $HOME", "%s: %d", "{{ user }} &nbsp;",
                                  "$t(common.save)", "%APPNAME%"])
def test_a_templates_placeholders_alone_have_nothing_to_tell(text):
    """Their names are no words of either language ("{user_name} %1" was English 0.61); words beside them are."""
    assert detect(text) == Detection(None, 0.0)
    assert detect(f"{text} la casa es roja").language == "es" and detect(f"{text} the house is red").language == "en"


@pytest.mark.parametrize(("text", "lang"), [
    ("Hello {nombre}", "en"), ("Welcome back, {usuario}!", "en"), ("You have %(mensajes)d new messages.", "en"),
    ("Hola {name}", "es"), ("Tienes {count} mensajes nuevos.", "es"), ("Bienvenido, {{username}}.", "es"),
])
def test_a_placeholders_name_is_no_evidence_beside_words(text, lang):
    """att6: "Hello {nombre}" was told Spanish (0.90) by its placeholder's name and translated as Spanish ("I've
    written {nombre}."): the words beside the placeholders tell the language."""
    assert detect(text).language == lang


@pytest.mark.parametrize(("text", "lang"), [
    ("{count, plural, one {un archivo} other {# archivos}}", "es"),
    ("{n, plural, offset:1 =0 {ningún archivo} one {un archivo} other {# archivos}}", "es"),
    ("{gender, select, male {él} female {ella} other {ellos}} llegó", "es"),
    ("Tienes {n, number} {count, plural, one {mensaje} other {mensajes}}", "es"),
    ("{count, plural, one {a file} other {# files}}", "en"),
    ("{count, plural, one {You have a message} other {You have # messages}}", "en"),
])
def test_an_icu_messages_structure_is_no_evidence(text, lang):
    """att7: a Spanish ICU message with short branches was told English (0.99) by its type and selectors ("plural",
    "one", "other"), then translated as English: kept as it came, unwarned; with --from es warned "this looks like
    English already". The branches' words tell the language."""
    assert detect(text).language == lang


def test_urls_and_numbers_do_not_hide_the_words():
    assert detect("Mira https://example.org/en/the-page 42").language == "es"
    assert detect("See https://example.org/es/la-pagina 42").language == "en"


@pytest.mark.parametrize("word", SHARED_WORDS)
def test_prior_decides_a_word_of_both_languages(word):
    alone = detect(word)
    assert alone.language in ("en", "es")
    assert alone.confidence < langid.PRIOR_ODDS / (langid.PRIOR_ODDS + 1)  # weak: below what the prior outweighs
    assert detect(word, prior="es").language == "es"
    assert detect(word, prior="en").language == "en"


@pytest.mark.parametrize(("text", "lang"), [("Gracias", "es"), ("¿Dónde?", "es"), ("Buenas noches", "es"),
                                            ("Thank you", "en"), ("I don't know", "en"), ("Good night", "en")])
def test_strong_evidence_beats_the_prior(text, lang):
    other = "en" if lang == "es" else "es"
    d = detect(text, prior=other)
    assert d.language == lang
    assert d.confidence < detect(text).confidence  # the prior against it still costs confidence
    assert detect(text, prior=lang).confidence >= detect(text).confidence


def test_prior_must_be_a_language():
    with pytest.raises(ValueError):
        detect("Hotel", prior="fr")


def test_detection_is_frozen_and_bounded():
    d = detect("Hola, ¿qué tal?")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.language = "en"
    for text, _ in cases(SENTENCES) + cases(SHORT):
        assert 0.5 <= detect(text).confidence <= 1.0


def test_detect_many_is_detect_for_each():
    lines = [t for t, _ in cases(SHORT)] + NOTHING[:4] + SHARED_WORDS
    assert detect_many(lines) == [detect(t) for t in lines]
    assert detect_many(lines, prior="es") == [detect(t, prior="es") for t in lines]
    assert detect_many([]) == []


def test_stream_follows_the_running_majority():
    spanish = ["Hoy hace mucho calor en Madrid.", "Vamos a la playa mañana.", "No", "Hotel", "12:30", "Taxi"]
    english = ["It is very hot in Madrid today.", "We are going to the beach tomorrow.", "No", "Hotel", "12:30", "Taxi"]
    assert [d.language for d in detect_stream(spanish)] == ["es", "es", "es", "es", None, "es"]
    assert [d.language for d in detect_stream(english)] == ["en", "en", "en", "en", None, "en"]
    # the prior given holds until a line of strong evidence; then the majority takes over
    assert [d.language for d in detect_stream(["Hotel", "Gracias", "Taxi"], prior="en")] == ["en", "es", "es"]
    # a majority: two English lines outweigh one Spanish line
    mixed = ["Good morning to all the neighbours.", "Buenos días a todos los vecinos.", "See you at the market tomorrow.", "Hotel"]
    assert [d.language for d in detect_stream(mixed)][-1] == "en"


def test_importing_does_not_load_the_library():
    code = "import sys, mtcli.langid; print('py3langid' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_threads_share_one_model(monkeypatch):
    """Eight threads start on a process that has not loaded the model: it is made once, and every thread gets
    the answers of a single thread."""
    lines = [t for t, _ in cases(SENTENCES) + cases(SHORT)] + SHARED_WORDS
    expected = [detect(t, prior="es") for t in lines]
    loaded = langid._identifier
    made = []

    def slow_load(*args, **kwargs):  # the loaded model again, slowly: a wide window for a second load
        made.append(1)
        time.sleep(0.2)
        return loaded

    monkeypatch.setattr(langid, "_load_identifier", slow_load)
    monkeypatch.setattr(langid, "_identifier", None)
    start = threading.Barrier(8)
    results = [None] * 8

    def work(i):
        start.wait()
        results[i] = detect_many(lines, prior="es")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == [1]
    assert results == [expected] * 8


@pytest.mark.skipif(not SHARED_CORPUS.exists(), reason=f"needs the corpus {SHARED_CORPUS}")
def test_corpus_sample():
    """A quick cut of benchmarks/langid.py: 300 lines of four words or more of each side, all but 1 % right."""
    rows = [line.split("\t") for line in SHARED_CORPUS.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(4)
    right = total = 0
    for side, lang in ((0, "en"), (1, "es")):
        texts = sorted({r[side] for r in rows if len(r) > side and len(r[side].split()) >= 4})
        for text in rng.sample(texts, 300):
            right += detect(text).language == lang
            total += 1
    assert right / total >= 0.99


def test_model_cache_reused_and_made_again(tmp_path, monkeypatch):
    """py3langid's model is cached decompressed: the next load reads the cache (the model file is not read
    again); a cache of another py3langid or model file is replaced; a damaged one is made again, silently; an
    unwritable cache directory only costs the cache. Every way gives the library's own answers."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    library = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    library.set_languages(list(langid.LANGUAGES))
    lines = [t for t, _ in cases(SENTENCES) + cases(SHORT)] + UNACCENTED + SHARED_WORDS + ["", "123", "ÁRBOL"]
    expected = [library.classify(t) for t in lines]
    root = tmp_path / "langid"
    monkeypatch.setattr(langid, "_cache_root", lambda: root)
    made = []
    restricted = langid._restricted
    monkeypatch.setattr(langid, "_restricted", lambda path: made.append(1) or restricted(path))

    def answers():
        identifier = langid._load_identifier()
        return [identifier.classify(t) for t in lines]

    assert answers() == expected and made == [1]
    (key,) = [p.name for p in root.iterdir()]
    assert sorted(p.name for p in (root / key).iterdir()) == sorted(f"{n}.npy" for n in langid.CACHE_ARRAYS)
    assert answers() == expected and made == [1]  # read from the cache
    (root / key).rename(root / "0.3.0-0123456789abcdef")  # another py3langid's
    assert answers() == expected and made == [1, 1]
    assert [p.name for p in root.iterdir()] == [key]
    nextmove = root / key / "nextmove.npy"
    for damage in (lambda: nextmove.write_bytes(nextmove.read_bytes()[:1000]),  # cut short
                   lambda: (root / key / "row.npy").write_bytes(b"not an array"),
                   lambda: _out_of_range(root / key / "out.npy")):
        damage()
        assert answers() == expected
    assert len(made) == 5
    assert answers() == expected and len(made) == 5  # sound again
    monkeypatch.setattr(langid, "_cache_root", lambda: tmp_path / "a-file" / "langid")
    (tmp_path / "a-file").write_text("not a directory")
    assert answers() == expected and answers() == expected and len(made) == 7


def test_a_cache_made_now_is_read_back_mapped(tmp_path, monkeypatch):
    """The first load makes the cache and reads it back memory-mapped: the arrays it made had stayed in the heap
    for the whole run (~20 MB more resident than a run that found the cache)."""
    import numpy as np

    monkeypatch.setattr(langid, "_cache_root", lambda: tmp_path / "langid")
    assert all(isinstance(a, np.memmap) for a in langid._model_arrays().values())


def test_let_go_gives_back_the_pages_lines_visited_and_they_are_told_alike_after(tmp_path, monkeypatch):
    """A file's chunk is told, then decoded: the mapped rows its lines visited (~30 MB for 2,048 lines) are given back
    before (langid.let_go, the Router), and read again from the cache file by the next chunk's lines."""
    if not sys.platform.startswith("linux"):
        pytest.skip("pages given back on Linux only")
    monkeypatch.setattr(langid, "_cache_root", lambda: tmp_path / "langid")
    monkeypatch.setattr(langid, "_identifier", None)
    monkeypatch.setattr(langid, "_mapped", [])

    def resident_kb() -> int:  # (of the cache's mappings, from /proc/self/smaps)
        found, ours = 0, False
        with open("/proc/self/smaps") as smaps:
            for line in smaps:
                field = line.split()
                if not field[0].endswith(":"):
                    ours = len(field) > 5 and field[5].startswith(str(tmp_path))
                elif ours and field[0] == "Rss:":
                    found += int(field[1])
        return found

    lines = [s for ss in SENTENCES.values() for s in ss] * 3
    told = [detect(line) for line in lines]
    assert resident_kb() > 0
    langid.let_go()
    assert resident_kb() == 0
    assert [detect(line) for line in lines] == told and resident_kb() > 0


def _out_of_range(path) -> None:
    """A well-formed array whose first state names a feature the model does not have."""
    import numpy as np

    array = np.load(path)
    array[0] = 1 << 30
    np.save(path, array)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_long_text_is_told_without_overflow(lang):
    """Each word adds log-odds: 800 English words once summed past what exp() takes (OverflowError on every
    English document of a few pages, and a 500 from serve's source=auto)."""
    text = " ".join(SENTENCES[lang] * 150)
    for prior in (None, "en", "es"):
        d = detect(text, prior=prior)
        assert d.language == lang and 0.99 <= d.confidence <= 1.0


@pytest.mark.parametrize("exists", [False, True])
def test_the_cache_is_never_made_in_a_home_that_does_not_exist(tmp_path, exists):
    """Attack 2026-12-02b: with HOME=/nonexistent (a service account's), a translation created /nonexistent/.cache
    for langid's cache. A home that is not there gets no cache (the model is read each time); one that is, does."""
    import os

    home = tmp_path / "home"
    if exists:
        home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")} | {"HOME": str(home)}
    code = "from mtcli.langid import detect; print(detect('The cat sleeps on the red sofa.').language)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "en", out.stderr
    assert home.exists() == exists and (not exists or any((home / ".cache" / "mtcli" / "langid").iterdir()))
