"""mtcli serve: a real server on 127.0.0.1 (a free port) with the shipped model, spoken to by the
libretranslatepy client, httpx, raw sockets and headless Chromium."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import require, skip_system

httpx = pytest.importorskip("httpx", reason="a test dependency: pip install -e '.[test]'")

from mtcli.decode import TranslationHypothesis, TranslationResult  # noqa: E402
from mtcli.serve.config import ServeConfig  # noqa: E402
from mtcli.serve.server import bind, server, url  # noqa: E402

UNSURE = "The quarterly reconciliation spreadsheet crashed twice."  # the shipped en-es check flags it (confidence 0.01)
SENTENCES = ["The plant is green.", "Where is the station?", "I like it.", "Tom is my friend.",
             "We play tennis every Sunday.", "Do you want to come with me?", "It's late.", "Thank you very much."]


@contextmanager
def running_app(model: Path, **options):
    """The server in a thread of this process, its decoders and formatters started; yields its base URL
    and its Starlette app."""
    cfg = ServeConfig(port=0, **options)
    sock = bind(cfg.host, cfg.port)
    srv = server(model, cfg, sock)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    with httpx.Client(base_url=url(sock), timeout=30) as c:  # decoders and formatters start in the background
        while not ((d := c.get("/health/details").json())["decoders_running"] == d["decoders"] and
                   d["formatters_running"] == d["formatters"]):
            assert time.monotonic() < deadline, f"decoders or formatters did not start: {d}"
            time.sleep(0.02)
    try:
        yield url(sock), srv.config.app
    finally:
        srv.should_exit = True
        thread.join(60)


@contextmanager
def running(model: Path, **options):
    """The server in a thread of this process; yields its base URL."""
    with running_app(model, **options) as (u, _):
        yield u


@pytest.fixture(scope="module")
def base(shipped_model):
    with running(shipped_model, body_timeout=1.0) as u:
        yield u


@pytest.fixture(scope="module")
def client(base):
    with httpx.Client(base_url=base, timeout=120) as c:
        yield c


@pytest.fixture(scope="module")
def offline(shipped_model):
    """What offline decoding gives, through the same formatting: the reference for every answer."""
    from mtcli.decode import Translator
    from mtcli.serve.texts import translate_texts
    from mtcli.text.pipeline import Engine

    offline_engine = Engine.from_translator(Translator(shipped_model), ServeConfig().decoding)
    return lambda texts, fmt="text", n=1: translate_texts(texts, fmt, n, offline_engine)


def translate(client, **fields):
    body = json.dumps({"source": "en", "target": "es", **fields})  # ASCII: a lone surrogate travels as \ud800
    return client.post("/translate", content=body, headers={"content-type": "application/json"})


# --- LibreTranslate clients -------------------------------------------------------------------

def test_libretranslatepy_client(base, offline):
    require("libretranslatepy", "a test dependency: pip install -e '.[test]'")
    from libretranslatepy import LibreTranslateAPI

    lt = LibreTranslateAPI(base)
    assert lt.translate(SENTENCES[0], "en", "es", timeout=120) == offline([SENTENCES[0]])[0][0]
    assert lt.translate("Good morning!\nThank you.", "auto", "es", timeout=120) == \
        offline(["Good morning!\nThank you."])[0][0]
    assert {"code": "en", "name": "English", "targets": ["es"]} in lt.languages()
    (detected,) = lt.detect("Where is the station?")
    assert detected["language"] == "en" and 90 <= detected["confidence"] <= 100


def test_lists_alternatives_and_auto(client, offline):
    r = translate(client, q=SENTENCES[:3], alternatives=2)
    assert r.status_code == 200, r.text
    body = r.json()
    expected = offline(SENTENCES[:3], n=3)
    assert body["translatedText"] == [e[0] for e in expected]
    assert body["alternatives"] == [e[1:] for e in expected]
    assert all(len(alts) <= 2 and best not in alts for best, alts in zip(body["translatedText"], body["alternatives"]))
    assert "detectedLanguage" not in body
    r = translate(client, q=["Thank you.", "Gracias, amigo mío."], source="auto")
    en, es = r.json()["detectedLanguage"]
    assert en["language"] == "en" and es["language"] == "es" and 50 <= en["confidence"] <= 100
    assert r.json()["translatedText"] == [offline(["Thank you."])[0][0], "Gracias, amigo mío."]  # Spanish already


def test_html_keeps_markup(client, offline):
    page = ('<div class="x"><p>The plant is <b>green</b>.</p>\n<a href="/station.html" title="Where?">'
            'Where is the station?</a><script>if (a < b) go("Hello");</script><br/>&amp; 3 &lt; 4</div>')
    r = translate(client, q=page, format="html")
    assert r.status_code == 200, r.text
    out = r.json()["translatedText"]
    assert out == offline([page], "html")[0][0]
    for markup in ('<div class="x">', "<p>", "<b>", "</b>", "</p>\n", '<a href="/station.html" title="¿Dónde está?">',
                   '<script>if (a < b) go("Hello");</script><br/>&amp; 3 &lt; 4</div>'):
        assert markup in out
    assert "estación" in out
    assert translate(client, q=[page, "<i>I like it.</i>"], format="html").json()["translatedText"][1] == \
        offline(["<i>I like it.</i>"], "html")[0][0]


def test_markup_nested_past_the_limit_is_refused_in_one_line_and_at_the_limit_translated(client):
    """2,400 nested <b> ran out of the formatter's stack (RecursionError, issue 38): refused with 400 now."""
    from mtcli.text.markup import MAX_DEPTH

    def page(n):
        return "<p>" + "<b>" * n + "The plant is green." + "</b>" * n + "</p>"

    for n in (2400, MAX_DEPTH + 1):
        r = translate(client, q=page(n), format="html")
        assert r.status_code == 400, r.text
        assert f"nested more than {MAX_DEPTH} deep" in r.json()["error"] and "\n" not in r.json()["error"]
    r = translate(client, q=page(MAX_DEPTH), format="html")
    assert r.status_code == 200, r.text
    out = r.json()["translatedText"]
    assert out.count("<b>") == out.count("</b>") == MAX_DEPTH and "planta" in out


def test_form_multipart_and_query_bodies(client, offline):
    want = offline(SENTENCES[1:3])
    r = client.post("/translate", data={"q": SENTENCES[1], "source": "en", "target": "es", "alternatives": "1"})
    assert r.json()["translatedText"] == want[0][0] and len(r.json()["alternatives"]) <= 1
    r = client.post("/translate", files={"q": (None, SENTENCES[2]), "source": (None, "en"), "target": (None, "es")})
    assert r.json()["translatedText"] == want[1][0] and set(r.json()) == {"translatedText", "quality"}
    r = client.post("/translate", params={"q": SENTENCES[1:3], "source": "en", "target": "es"})  # a repeated q
    assert r.json()["translatedText"] == [w[0] for w in want] and len(r.json()["quality"]) == 2


def test_concurrent_requests_are_batched_and_answered_in_order(client, offline):
    expected = {s: t[0] for s, t in zip(SENTENCES, offline(SENTENCES))}
    before = client.get("/health/details").json()
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda s: translate(client, q=s).json()["translatedText"], SENTENCES * 2))
    assert answers == [expected[s] for s in SENTENCES * 2]
    after = client.get("/health/details").json()
    done, steps = after["sentences"] - before["sentences"], after["steps"] - before["steps"]
    assert done == 16 and after["step_sentences"] - before["step_sentences"] > steps  # requests shared steps
    assert after["joined_sentences"] - before["joined_sentences"] == 16  # each sentence joined a batch once
    assert 0 <= after["queue_wait_seconds"] - before["queue_wait_seconds"] < 16 * 30  # (its wait, summed)


# --- a decoder in its own process ---------------------------------------------------------------

def stream_all(stream, lines: list[str], slots: int) -> dict[str, list[tuple[str, float]]]:
    """Every line through a stream of `slots` slots, joining as slots free up: line -> n-best."""
    owner, done, todo = {}, {}, list(lines)
    while todo or stream.free < slots:
        taken = stream.add(todo[: stream.free]) if todo and stream.free else []
        owner.update(zip(taken, todo))
        todo = todo[len(taken):]
        done.update((owner.pop(slot), [(h.text, h.score) for h in r.hypotheses]) for slot, r in stream.step())
    return done


def decoder_all(decoder, lines: list[str]) -> dict[str, list[tuple[str, float]]]:
    """Every line through a worker.Decoder, sent as it has room: line -> n-best."""
    done, todo, sent = {}, list(enumerate(lines)), 0
    while len(done) < len(lines):
        room = decoder.slots - (sent - len(done))
        if todo and room:
            decoder.send([i for i, _ in todo[:room]], [line for _, line in todo[:room]])
            sent, todo = sent + len(todo[:room]), todo[room:]
            continue
        results, (steps, in_progress, wall, cpu, waited) = decoder.receive()
        assert steps >= 1 and in_progress >= len(results) and cpu > 0 and waited >= 0
        done.update((lines[i], [(h.text, h.score) for h in r.hypotheses]) for i, r in results)
    return done


def test_decoder_process_decodes_as_the_stream_in_this_process(shipped_model):
    from mtcli.decode import Translator
    from mtcli.serve.worker import DecoderProcess, DecoderStopped

    o = ServeConfig().decoding
    remote = DecoderProcess(shipped_model, 4, o)
    try:
        here = stream_all(Translator(shipped_model).stream(4, o), SENTENCES, 4)
        there = decoder_all(remote, SENTENCES)
        assert len(here) == len(SENTENCES) and there.keys() == here.keys()
        for line, nbest in here.items():  # (sentences meet in other batches: scores to float tolerance)
            assert [t for t, _ in there[line]] == [t for t, _ in nbest], line
            assert [s for _, s in there[line]] == pytest.approx([s for _, s in nbest], abs=1e-5), line
        remote.stop()
        with pytest.raises(DecoderStopped):
            remote.receive()
    finally:
        remote.close()
    assert remote.process.returncode == 0


def test_an_ensembles_decoder_takes_two_cores_for_its_members_in_two_threads(tmp_path):
    """With parallel_members an ensemble's direction gets half as many decoders, each stepping its members in two
    threads (decode.Members), at least one; a single model's, one a core as before (and without it, every model's)."""
    from mtcli.checkpoint import MEMBER, WEIGHTS
    from mtcli.serve.app import decoders_of

    ensemble, single = tmp_path / "ensemble", tmp_path / "single"
    for model, files in ((ensemble, [WEIGHTS, MEMBER.format(1)]), (single, [WEIGHTS])):
        model.mkdir()
        for name in files:
            (model / name).touch()
    two, four = ServeConfig(decoders=2, parallel_members=True), ServeConfig(decoders=4, parallel_members=True)
    assert decoders_of(two, 1, ensemble) == (1, True) and decoders_of(four, 1, ensemble) == (2, True)
    assert decoders_of(two, 2, ensemble) == (1, True) and decoders_of(two, 2, single) == (1, False)
    assert decoders_of(two, 1, single) == (2, False)
    assert decoders_of(ServeConfig(decoders=2), 1, ensemble) == (2, False)


def test_a_released_stream_decodes_as_before(shipped_model):
    """An idle decoder's stream gives back the pages of its caches (release) and decodes the same
    translations after it, with each best one's coverage reading for the server's check."""
    from mtcli.decode import Translator

    def resident() -> int:  # (kB)
        return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0])

    stream = Translator(shipped_model).stream(64, ServeConfig().decoding)
    before = stream_all(stream, SENTENCES * 8, 64)
    used = resident()
    stream.release()
    if sys.platform == "linux":
        assert used - resident() > 8 * 1024, "the caches' pages were not given back"
    assert stream.free == 64 and stream_all(stream, SENTENCES * 8, 64) == before
    slot, = stream.add(SENTENCES[:1])
    while not (done := stream.step()):
        pass
    assert done[0][0] == slot and done[0][1].reading.tgt == Translator(shipped_model).tgt_tok.encode_batch(
        [done[0][1].hypotheses[0].text])[0]


def test_an_idle_decoder_releases_its_stream(monkeypatch):
    """worker.decode_lines releases the stream once nothing has come for IDLE_SECONDS with no line in
    progress, never while a line is in progress."""
    from mtcli.serve import worker

    class Releasing(SlowStream):
        def release(self):
            released.append(len(self.left))

    released = []
    monkeypatch.setattr(worker, "IDLE_SECONDS", 0.05)
    decoder = in_thread(Releasing([], 0.02, 5))  # a line takes 0.1 s: longer than IDLE_SECONDS
    try:
        decoder.send([0], ["a"])
        assert decoder.receive()[0][0][0] == 0
        time.sleep(0.3)
        assert released and set(released) == {0}
        decoder.send([1], ["b"])  # and it decodes on
        assert decoder.receive()[0][0][0] == 1
    finally:
        decoder.stop()


def test_lines_sent_during_a_step_join_in_one_call():
    """worker.decode_lines joins every message that came during a step in one stream.add (their sentences encoded
    together, as offline's are), not a call a message."""
    class Counting(SlowStream):
        def add(self, lines):
            calls.append(list(lines))
            return super().add(lines)

    calls = []
    decoder = in_thread(Counting([], 0.2, 1))
    try:
        decoder.send([0], ["a"])
        time.sleep(0.05)  # (its step of 0.2 s under way)
        decoder.send([1], ["b"])
        decoder.send([2, 3], ["c", "d"])
        done = []
        while len(done) < 4:
            done += decoder.receive()[0]
        assert sorted(i for i, _ in done) == [0, 1, 2, 3]
        assert calls == [["a"], ["b", "c", "d"]], calls
    finally:
        decoder.stop()


@pytest.mark.parametrize("told", [None, "OMP_NUM_THREADS"])
def test_mtcli_serve_starts_blas_with_one_thread_unless_told_otherwise(told, monkeypatch):
    """`mtcli serve` starts OpenBLAS with one thread, as `mtcli translate` does (mtcli.__main__): its decoders run it
    on one thread each and its check on one, which then sets no thread count around every request's reading."""
    import mtcli.cli
    from mtcli.__main__ import BLAS_THREADS, main

    for name in BLAS_THREADS:
        monkeypatch.delenv(name, raising=False)
    if told:
        monkeypatch.setenv(told, "2")
    monkeypatch.setattr(sys, "argv", ["mtcli", "serve", "--port", "5000"])
    monkeypatch.setattr(mtcli.cli, "main", lambda: None)  # (the server itself not started)
    main()
    assert os.environ.get("OPENBLAS_NUM_THREADS") == (None if told else "1")


def test_a_decoder_process_that_dies_fails_its_requests_and_is_replaced(shipped_model, caplog):
    import asyncio

    from mtcli.serve.batcher import Batcher, DecoderFailed
    from mtcli.serve.worker import DecoderProcess

    opened = []

    def open_decoder():
        opened.append(DecoderProcess(shipped_model, 8, ServeConfig().decoding))
        return opened[-1]

    async def main():
        batcher = Batcher(open_decoder, 1)
        await started(batcher)
        try:
            # the line in progress when the process dies (stopped first, so it cannot answer before),
            # killed as the kernel's OOM killer would
            os.kill(opened[0].process.pid, signal.SIGSTOP)
            request = asyncio.ensure_future(batcher.translate(["The plant is green."]))
            while not batcher._owner[0]:
                await asyncio.sleep(0.01)
            os.kill(opened[0].process.pid, signal.SIGKILL)
            with pytest.raises(DecoderFailed, match=r"decoder failed \(DecoderStopped\)"):
                await request
            assert "decoder 0 failed with 1 line(s) in progress: the decoder stopped (exit code -9)" in caplog.text
            return await batcher.translate(["The plant is green."])  # a new process
        finally:
            await batcher.close()

    assert asyncio.run(main())[0][0][0] == "La planta es verde."
    assert len(opened) == 2 and all(p.process.poll() is not None for p in opened)


def test_a_dead_decoder_is_a_503_and_the_connection_serves_on(shipped_model):
    """A request whose decoder dies gets LibreTranslate's JSON error, 503 with Retry-After (a
    moment of trouble, as overload is), on a connection that stays open for the next request."""
    def decoders() -> set[int]:
        return {int(pid) for pid in subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "mtcli.serve.worker"],
                                                   capture_output=True, text=True).stdout.split()}

    others = decoders()  # (other tests' servers)
    with running(shipped_model, decoders=1) as base, httpx.Client(base_url=base, timeout=60) as c:
        mine = list(decoders() - others)
        assert len(mine) == 1
        os.kill(mine[0], signal.SIGSTOP)  # the request waits in it ...
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(translate, c, q="The plant is green.")
            time.sleep(0.5)
            os.kill(mine[0], signal.SIGKILL)  # ... until it dies
            r = pending.result()
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.json() == {"error": "Cannot translate text: the decoder failed (DecoderStopped); retry in a moment"}
        assert translate(c, q="The plant is green.").json()["translatedText"] == "La planta es verde."
        health = c.get("/health/details").json()
        assert health["decoder_failures"] == 1 and health["decoders_running"] == 1


def test_a_stuck_decoder_does_not_hold_the_shutdown():
    """At shutdown the decoders get `timeout` seconds for what is left; one stuck in a step is then
    ended and its lines fail (the server stops instead of waiting forever)."""
    import asyncio

    from mtcli.serve.batcher import Batcher, DecoderFailed

    release = threading.Event()

    class Stuck(SlowStream):
        def step(self):
            release.wait()
            return super().step()

    async def main():
        batcher = Batcher(lambda: in_thread(Stuck([], 0.001, 1)), 1)
        await batcher.start()
        pending = asyncio.ensure_future(batcher.translate(["stuck"]))
        await asyncio.sleep(0.1)
        start = time.monotonic()
        await batcher.close(0.5)
        with pytest.raises(DecoderFailed):
            await pending
        return time.monotonic() - start

    try:
        assert 0.5 <= asyncio.run(main()) < 5
    finally:
        release.set()


def test_a_decoder_ignores_python_files_in_the_current_directory(shipped_model, tmp_path, monkeypatch):
    """The child finds modules as the server does: a random.py where the server was started from is
    neither run nor imported (`python -m` would put the current directory first)."""
    from mtcli.serve.worker import DecoderProcess

    (tmp_path / "random.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    decoder = DecoderProcess(shipped_model, 2, ServeConfig().decoding)
    try:
        assert decoder_all(decoder, ["The plant is green."])["The plant is green."][0][0] == "La planta es verde."
    finally:
        decoder.stop()
        with pytest.raises(RuntimeError):
            decoder.receive()
        decoder.close()
    assert not (tmp_path / "ran").exists()


def test_a_decoder_that_cannot_load_its_model_is_a_clear_error(tmp_path):
    from mtcli.errors import UserError
    from mtcli.serve.worker import DecoderProcess

    with pytest.raises(UserError, match="missing: no such model directory"):
        DecoderProcess(tmp_path / "missing", 4, ServeConfig().decoding)


# --- the batcher, on a stand-in stream (no model) ----------------------------------------------

class SlowStream:
    """A decoder's stream in which every line takes `steps` steps of `seconds` each (sleeping, as a
    decoder leaves the event loop free); records each step's lines in progress, thread and times."""

    def __init__(self, log: list, seconds: float, steps: int, slots: int = 64):
        self.log, self.seconds, self.steps = log, seconds, steps
        self.left: dict[int, tuple[str, int]] = {}  # slot -> (line, steps to go)
        self.slots = slots

    @property
    def free(self) -> int:
        return self.slots - len(self.left)

    def add(self, lines: list[str]) -> list[int]:
        slots = [s for s in range(self.slots) if s not in self.left][: len(lines)]
        self.left.update((s, (line, self.steps)) for s, line in zip(slots, lines))
        return slots

    def step(self) -> list:
        start = time.monotonic()
        time.sleep(self.seconds)
        self.log.append((sorted(line for line, _ in self.left.values()), threading.current_thread().name,
                         start, time.monotonic()))
        self.left = {s: (line, n - 1) for s, (line, n) in self.left.items()}
        done = [(s, line) for s, (line, n) in self.left.items() if not n]
        for s, _ in done:
            del self.left[s]
        return [(s, TranslationResult([TranslationHypothesis([], line.upper(), 0.0, 0.0)])) for s, line in done]


async def started(batcher) -> None:
    """Start the batcher and wait until each of its decoders runs (they start in the background)."""
    import asyncio

    await batcher.start()
    deadline = time.monotonic() + 120
    while batcher.running < batcher.decoders:
        assert time.monotonic() < deadline, "the decoders did not start"
        await asyncio.sleep(0.01)


def in_thread(stream):
    """A stand-in stream behind worker.decode_lines in a thread of its own (the server runs it in a
    process): the worker.Decoder the batcher feeds."""
    import multiprocessing

    from mtcli.serve.worker import Decoder, decode_lines

    ours, theirs = multiprocessing.Pipe()
    threading.Thread(target=decode_lines, args=(theirs, stream), name=f"decoder-{id(stream)}", daemon=True).start()
    return Decoder(ours, stream.slots)


def batcher_run(streams: list, clients: int, rounds: int, pause: float, seconds: float = 0.01, steps: int = 3,
                decoders: int = 1) -> list[list[str]]:
    """Closed-loop clients of a Batcher on SlowStreams (each opened one appended to `streams`'s log):
    client k sends its first line k * pause seconds after the start and, `pause` after each answer,
    the next, `rounds` lines in all. Returns each client's answers."""
    import asyncio

    from mtcli.serve.batcher import Batcher

    async def main():
        batcher = Batcher(lambda: in_thread(SlowStream(streams, seconds, steps)), decoders)
        await started(batcher)

        async def client(k: int) -> list[str]:
            answers = []
            await asyncio.sleep(k * pause)
            for r in range(rounds):
                answers.append((await batcher.translate([f"c{k} r{r}", ""]))[0][0][0])
                await asyncio.sleep(pause)
            return answers

        try:
            return await asyncio.gather(*(client(k) for k in range(clients)))
        finally:
            await batcher.close()

    return asyncio.run(main())


def test_a_line_joins_the_lines_in_progress():
    """Continuous batching: a request that comes while another is being decoded is decoded beside it
    from the next step on (not after it), and each leaves as soon as it is done."""
    log = []
    answers = batcher_run(log, clients=2, rounds=1, pause=0.05, seconds=0.02, steps=10)
    assert answers == [["C0 R0"], ["C1 R0"]]
    together = [i for i, (lines, *_) in enumerate(log) if lines == ["c0 r0", "c1 r0"]]
    assert log[0][0] == ["c0 r0"] and together and len(log) == together[0] + 10, [lines for lines, *_ in log]


def test_the_wait_before_joining_a_batch_is_counted():
    """/health/details' queue_wait_seconds: a line that comes while its decoder is in a step waits for the
    step to end (it joins at the next); one that finds the decoder idle hardly waits."""
    import asyncio

    from mtcli.serve.batcher import Batcher

    async def main():
        batcher = Batcher(lambda: in_thread(SlowStream([], 0.5, 2)), 1)
        await started(batcher)
        first = asyncio.ensure_future(batcher.translate(["a"]))
        await asyncio.sleep(0.05)  # (its first step runs 0.5 s)
        started_at = time.monotonic()
        assert await batcher.translate(["b"]) == [[("B", 0.0)]]
        assert await first == [[("A", 0.0)]]
        await batcher.close()
        return batcher, time.monotonic() - started_at

    batcher, second = asyncio.run(main())
    assert batcher.joined == 2 and batcher.sentences == 2
    # the second line waited for the rest of the first step (~0.45 s; less only if this thread slept late)
    assert 0.2 < batcher.waited < second, batcher.waited


def test_closed_loop_clients_share_steps():
    log = []
    answers = batcher_run(log, clients=6, rounds=4, pause=0.005)
    assert answers == [[f"C{k} R{r}" for r in range(4)] for k in range(6)]
    assert sum(len(lines) for lines, *_ in log) == 6 * 4 * 3  # every line's steps, none lost or repeated
    assert max(len(lines) for lines, *_ in log) >= 4


def test_batcher_decoders_work_side_by_side():
    log = []
    answers = batcher_run(log, clients=4, rounds=1, pause=0.0, seconds=0.1, decoders=2)
    assert answers == [[f"C{k} R0"] for k in range(4)]
    threads = {thread for _, thread, *_ in log}
    assert len(threads) == 2 and max(len(lines) for lines, *_ in log) == 2  # the 4 shared out evenly
    (_, _, start1, end1), (_, _, start2, _) = sorted({thread: step for step in log for thread in [step[1]]}.values(),
                                                     key=lambda step: step[2])
    assert start2 < end1  # decoded at once


def test_light_traffic_stays_on_the_first_decoder():
    log = []
    answers = batcher_run(log, clients=1, rounds=6, pause=0.0, decoders=2)
    assert answers == [[f"C0 R{r}" for r in range(6)]]
    assert len({thread for _, thread, *_ in log}) == 1  # the second decoder's weights stay out of the caches


def test_only_the_feeding_thread_that_takes_a_line_is_woken():
    """A line queued or answered wakes the feeding thread of the decoder that takes queued lines, not every
    one: a thread woken for nothing takes a core from a decoder (two decoders, one client: only the first's)."""
    import asyncio

    from mtcli.serve.batcher import Batcher

    class Counted(threading.Condition):
        woken = 0

        def notify(self, n: int = 1) -> None:
            self.woken += 1
            super().notify(n)

    async def main():
        batcher = Batcher(lambda: in_thread(SlowStream([], 0.01, 3)), 2)
        batcher._woken = [Counted(batcher._lock) for _ in batcher._woken]
        await started(batcher)
        for woken in batcher._woken:
            woken.woken = 0
        try:
            for r in range(6):
                assert await asyncio.wait_for(batcher.translate([f"line {r}"]), 30) == [[(f"LINE {r}", 0.0)]]
            return [woken.woken for woken in batcher._woken]
        finally:
            await batcher.close()

    assert asyncio.run(main()) == [6, 0]  # (the first's once a line; answers free room with none queued)


def test_a_long_request_does_not_hold_up_a_short_one():
    """Queued lines are taken from the waiting requests in turn: a one-line request that comes after
    a 40-line one is answered within a few steps, long before it."""
    import asyncio

    from mtcli.serve.batcher import Batcher

    log = []

    async def main():
        batcher = Batcher(lambda: in_thread(SlowStream(log, 0.01, 1, slots=2)), 1)
        await batcher.start()
        try:
            long = asyncio.ensure_future(batcher.translate([f"long {k}" for k in range(40)]))
            await asyncio.sleep(0.03)
            assert (await batcher.translate(["short"])) == [[("SHORT", 0.0)]]
            assert not long.done()
            return await long
        finally:
            await batcher.close()

    assert asyncio.run(main()) == [[(f"LONG {k}", 0.0)] for k in range(40)]
    steps = [lines for lines, *_ in log]
    assert next(i for i, lines in enumerate(steps) if "short" in lines) <= 4 and len(steps) >= 20


def test_a_failing_decoder_fails_its_requests_only(monkeypatch):
    """A decoder that fails fails the lines it holds and is started again at once; a start that fails
    fails the lines waiting while no decoder runs, and is tried again after RETRY_SECONDS."""
    import asyncio

    from mtcli.serve import batcher as batcher_module
    from mtcli.serve.batcher import Batcher, DecoderFailed

    monkeypatch.setattr(batcher_module, "RETRY_SECONDS", (0.05, 0.1))

    class Broken(SlowStream):
        def add(self, lines):
            if "bad" in lines:
                raise RuntimeError("decoder bug")
            return super().add(lines)

        def step(self):
            if any(line == "boom" for line, _ in self.left.values()):
                raise RuntimeError("decoder bug")
            return super().step()

    opened, gate = [], threading.Event()

    def open_decoder():
        if len(opened) == 2:  # the third start waits for the test, then fails
            opened.append(None)
            gate.wait(30)
            raise OSError("cannot start a decoder")
        opened.append(in_thread(Broken([], 0.001, 2)))
        return opened[-1]

    async def main():
        batcher = Batcher(open_decoder, 1)
        await started(batcher)
        try:
            for line in ("boom", "bad"):  # in a step, joining
                with pytest.raises(DecoderFailed, match=r"failed \(RuntimeError\)"):
                    await batcher.translate([line])
            waiting = asyncio.ensure_future(batcher.translate(["fine"]))
            await asyncio.sleep(0.05)
            gate.set()
            with pytest.raises(DecoderFailed, match="could not start"):
                await waiting
            return await batcher.translate(["fine"])  # a fresh stream, RETRY_SECONDS later
        finally:
            await batcher.close()

    assert asyncio.run(main()) == [[("FINE", 0.0)]]
    assert len(opened) == 4 and all(decoder.pipe.closed for decoder in opened if decoder)  # a failed one is closed


def test_decoders_starting_side_by_side_count_once_as_one_time_work():
    """Batcher.setup: the wall seconds its decoders took to start (a model loaded, kernels compiled), which no line's
    budget is charged (formatter.main); two started side by side count once."""
    import asyncio

    from mtcli.serve.batcher import Batcher

    def open_decoder():
        time.sleep(0.3)
        return in_thread(SlowStream([], 0.001, 1))

    async def main():
        batcher = Batcher(open_decoder, 2)
        await started(batcher)
        await batcher.close()
        return batcher.setup

    assert 0.3 <= asyncio.run(main()) < 0.55


def _hola(direction, lines, kept, done):
    """A stand-in for Service._decode: each line's translation is "Hola.", at once."""
    done([[("Hola.", 0.0)] for _ in lines])
    return lambda: None


def _decoded_at(tools) -> float:
    """(A formatter's job.) When its decoding came back (the system's monotonic clock)."""
    tools.engines["en-es"].decode(["Hello."])
    return time.monotonic()


def test_a_jobs_decoding_needs_no_event_loop(shipped_model):
    """A formatter's sentences go to the batcher and their translations back to it from the formatter's reading
    thread and the batcher's, never through the event loop (two hops of it fewer a request): the job's decoding is
    answered while the loop is held."""
    import asyncio

    from mtcli.decode import Translator
    from mtcli.serve.formatter import FormatterProcess, Formatters
    from mtcli.serve.texts import setup

    made = setup([Translator(shipped_model, inter_threads=1)])

    async def main():
        formatters = Formatters(lambda: FormatterProcess(made), 1, _hola)
        await formatters.start()
        try:
            while not formatters.running:
                await asyncio.sleep(0.01)
            job = asyncio.ensure_future(formatters.run(_decoded_at))
            await asyncio.sleep(0)  # (the job sent)
            time.sleep(1.5)  # the event loop held
            freed = time.monotonic()
            return await asyncio.wait_for(job, 60), freed
        finally:
            await formatters.close(5)

    decoded, freed = asyncio.run(main())
    assert decoded < freed, freed - decoded


def _setup_around_a_decoding(tools) -> tuple[float, float]:
    """(A formatter's job.) Its en-es Engine's one-time work before and after a decoding."""
    engine = tools.engines["en-es"]
    before = engine.setup()
    engine.decode(["Hello."])
    return before, engine.setup()


def test_a_formatters_engine_reads_its_decoders_one_time_work(shipped_model):
    """The server's lines, as the CLI's, are charged nothing of the decoders' one-time work (text/retry.py): the
    formatter's Engine.setup reads the seconds its direction's batcher spent starting decoders, as each decoding's
    answer tells it (an Engine.of's reads 0: a first run's kernels compiled while a line waited had passed it
    through untranslated, "over its budget")."""
    import asyncio

    from mtcli.decode import Translator
    from mtcli.serve.formatter import FormatterProcess, Formatters
    from mtcli.serve.texts import setup

    made = setup([Translator(shipped_model, inter_threads=1)])

    async def main():
        formatters = Formatters(lambda: FormatterProcess(made), 1, _hola, lambda: {"en-es": 12.5})
        await formatters.start()
        try:
            return await asyncio.wait_for(formatters.run(_setup_around_a_decoding), 60)
        finally:
            await formatters.close(5)

    assert asyncio.run(main()) == (0.0, 12.5)


def _job_thread(tools, decodes: bool) -> str:
    """(A formatter's job.) The thread it ran in, after a decoding if asked."""
    if decodes:
        tools.engines["en-es"].decode(["Hello."])
    return threading.current_thread().name


def test_a_formatter_keeps_its_job_threads_and_never_queues_a_job(shipped_model):
    """A formatter runs the next job in a thread a job before it ran in (not a thread started a job), and jobs at
    once each in a thread of its own: two waiting for their decodings, which answer only once both have asked."""
    import asyncio

    from mtcli.decode import Translator
    from mtcli.serve.formatter import FormatterProcess, Formatters
    from mtcli.serve.texts import setup

    made = setup([Translator(shipped_model, inter_threads=1)])
    asked = []

    def decode(direction, lines, kept, done):
        asked.append((direction, lines, kept, done))
        if len(asked) == 2:
            for call in asked:
                _hola(*call)
        return lambda: None

    async def main():
        formatters = Formatters(lambda: FormatterProcess(made), 1, decode)
        await formatters.start()
        try:
            alone = [await asyncio.wait_for(formatters.run(_job_thread, False), 60) for _ in range(3)]
            both = await asyncio.wait_for(asyncio.gather(*(formatters.run(_job_thread, True) for _ in range(2))), 60)
            return alone, both
        finally:
            await formatters.close(5)

    alone, both = asyncio.run(main())
    assert len(set(alone)) == 1 and len(set(both)) == 2, (alone, both)


def test_decoders_that_cannot_start_are_tried_again_and_the_batcher_starts(monkeypatch):
    """Decoders killed while they start (both of them, twice) do not stop the batcher: each is started
    again, with backoff, and decodes once it runs."""
    import asyncio

    from mtcli.serve import batcher as batcher_module
    from mtcli.serve.batcher import Batcher
    from mtcli.serve.worker import DecoderStopped

    monkeypatch.setattr(batcher_module, "RETRY_SECONDS", (0.05, 0.2))
    tries = []

    def open_decoder():
        tries.append(time.monotonic())
        if len(tries) <= 4:
            raise DecoderStopped("the decoder stopped (exit code -9)")
        return in_thread(SlowStream([], 0.001, 1))

    async def main():
        batcher = Batcher(open_decoder, 2)
        await batcher.start()  # (does not wait for the decoders, nor fail with them)
        try:
            assert batcher.running == 0
            while batcher.running < 2:
                assert time.monotonic() - tries[0] < 10, "the decoders did not start"
                await asyncio.sleep(0.01)
            return batcher.failures, await asyncio.wait_for(batcher.translate(["first", "second"]), 10)
        finally:
            await batcher.close()

    assert asyncio.run(main()) == (4, [[("FIRST", 0.0)], [("SECOND", 0.0)]])
    assert len(tries) == 6 and 0.05 + 0.1 <= tries[-1] - tries[0] < 5  # each tried again after 0.05 s, then 0.1 s


def test_a_stuck_decoder_is_ended_and_replaced():
    """A decoder that holds lines and answers nothing for `stall` seconds (SIGSTOPped, a hung step)
    is ended: its lines fail, another decoder takes the next ones."""
    import asyncio

    from mtcli.serve.batcher import Batcher, DecoderFailed

    release = threading.Event()

    class Stuck(SlowStream):
        def step(self):
            if any(line == "stuck" for line, _ in self.left.values()):
                release.wait(30)
            return super().step()

    opened = []

    def open_decoder():
        opened.append(in_thread(Stuck([], 0.001, 1)))
        return opened[-1]

    async def main():
        batcher = Batcher(open_decoder, 1, stall=0.3)
        await started(batcher)
        try:
            start = time.monotonic()
            with pytest.raises(DecoderFailed):
                await asyncio.wait_for(batcher.translate(["stuck"]), 10)
            stalled = time.monotonic() - start
            return stalled, await asyncio.wait_for(batcher.translate(["fine"]), 10)
        finally:
            await batcher.close()

    try:
        stalled, answer = asyncio.run(main())
    finally:
        release.set()
    assert 0.3 <= stalled < 3 and answer == [[("FINE", 0.0)]] and len(opened) == 2


def test_a_request_that_gives_up_leaves_the_queue():
    """A cancelled request (past its deadline) has its lines not yet sent taken out of the queue: they
    are never decoded, and the requests after it go first."""
    import asyncio

    from mtcli.serve.batcher import Batcher

    log = []

    async def main():
        batcher = Batcher(lambda: in_thread(SlowStream(log, 0.01, 1, slots=2)), 1)
        await started(batcher)
        try:
            long = asyncio.ensure_future(batcher.translate([f"long {k}" for k in range(40)]))
            await asyncio.sleep(0.05)
            long.cancel()
            return await asyncio.wait_for(batcher.translate(["after"]), 10)
        finally:
            await batcher.close()

    assert asyncio.run(main()) == [[("AFTER", 0.0)]]
    decoded = {line for lines, *_ in log for line in lines}
    assert "after" in decoded and len(decoded - {"after"}) < 20  # most of the 40 never reached the decoder


def test_other_routes(client):
    assert client.get("/health").json()["status"] == "ok"
    settings = client.get("/frontend/settings").json()
    assert settings["charLimit"] == ServeConfig().char_limit and settings["apiKeys"] is False
    r = client.get("/")
    assert r.status_code == 200 and "<textarea" in r.text and r.headers["content-type"].startswith("text/html")
    r = client.options("/translate", headers={"Origin": "http://example.test", "Access-Control-Request-Method": "POST"})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"


# --- hostile requests ---------------------------------------------------------------------------

OK = {"q": "Hello.", "source": "en", "target": "es"}
LIMITS = ServeConfig()
HOSTILE = {
    "malformed JSON": dict(content=b'{"q": "Hello.", "source": "en",'),
    "not UTF-8": dict(content=b'{"q": "\xff\xfe\xfa", "source": "en", "target": "es"}'),
    "JSON array": dict(json=[OK]),
    "JSON string": dict(json="Hello."),
    "deep nesting": dict(content=b"[" * 200_000 + b"]" * 200_000),
    "huge number": dict(content=b'{"q": "a", "alternatives": ' + b"9" * 5000 + b"}"),
    "no q": dict(json={"source": "en", "target": "es"}),
    "empty q": dict(json={**OK, "q": ""}),
    "empty list": dict(json={**OK, "q": []}),
    "q a number": dict(json={**OK, "q": 42}),
    "q an object": dict(json={**OK, "q": {"text": "Hello."}}),
    "q list of numbers": dict(json={**OK, "q": ["Hello.", 7]}),
    "q nested list": dict(json={**OK, "q": [["Hello."]]}),
    "no source": dict(json={"q": "Hello.", "target": "es"}),
    "source fr": dict(json={**OK, "source": "fr"}),
    "source a list": dict(json={**OK, "source": ["en"]}),
    "es-en without its model": dict(json={**OK, "source": "es", "target": "en"}),
    "no target": dict(json={"q": "Hello.", "source": "en"}),
    "format pdf": dict(json={**OK, "format": "pdf"}),
    "format a number": dict(json={**OK, "format": 1}),
    "alternatives text": dict(json={**OK, "alternatives": "many"}),
    "alternatives true": dict(json={**OK, "alternatives": True}),
    "alternatives 2.5": dict(json={**OK, "alternatives": 2.5}),
    "alternatives NaN": dict(content=b'{"q": "a", "source": "en", "target": "es", "alternatives": NaN}'),
    "alternatives above the beam": dict(json={**OK, "alternatives": LIMITS.alternatives_limit + 1}),
    "10,000-item list": dict(json={**OK, "q": ["Hello."] * 10_000}),
    "too many characters": dict(json={**OK, "q": "a" * (LIMITS.char_limit + 1)}),
    "10 MB body": dict(json={**OK, "q": "Hello. " * (10 * 2**20 // 7)}),
    "10 MB form body": dict(data={**OK, "q": "x" * 10 * 2**20}),
    "too many form fields": dict(content="&".join(["q=a"] * 10_000), headers={"content-type":
                                                                             "application/x-www-form-urlencoded"}),
    "a file upload": dict(files={"q": ("q.txt", b"Hello.")}, data={"source": "en", "target": "es"}),
    "bad multipart": dict(content=b"--x\r\nnonsense", headers={"content-type": "multipart/form-data; boundary=x"}),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_request_gets_4xx(client, name):
    r = client.post("/translate", **HOSTILE[name])
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    assert isinstance(r.json()["error"], str) and r.json()["error"]
    assert translate(client, q="Hello.").status_code == 200  # and the server goes on


def test_odd_but_valid_text_is_translated(client):
    for q in ["\x00\x01", "🙂🙂", "   ", "3.50 + 7", "<b>not html</b>", "a\r\nb\rc"]:
        r = translate(client, q=q)
        assert r.status_code == 200 and isinstance(r.json()["translatedText"], str), (q, r.text)
    assert translate(client, q="🙂 42").json()["translatedText"] == "🙂 42"  # nothing for the model there


def test_wrong_method_and_route_are_json(client):
    assert client.get("/translate").json() == {"error": "Method Not Allowed"}
    assert client.post("/nowhere").status_code == 404 and "error" in client.post("/nowhere").json()


def _raw(base: str, head: bytes, body: bytes = b"", pace: float = 0.0) -> bytes:
    """Send a request over a plain socket, its body byte by byte every `pace` seconds (if pace > 0)
    until the server answers; the answer."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as s:
        try:
            s.sendall(head)
            step = 1 if pace else max(len(body), 1)
            for k in range(0, len(body), step):
                if select.select([s], [], [], pace)[0]:
                    break  # answered before the whole body arrived
                s.sendall(body[k : k + step])
        except OSError:  # the server answered and closed before the whole request was sent
            pass
        data = b""
        while chunk := s.recv(65536):
            data += chunk
            if b"\r\n\r\n" in data and data.endswith(b"}"):
                break
        return data


def test_slow_client_gets_408_and_others_are_served(base, client):
    body = json.dumps(OK).encode() * 3
    head = f"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(_raw, base, head.encode(), body, 0.05)  # ~7 s to send; the limit is 1 s
        time.sleep(0.3)
        t = time.monotonic()
        assert translate(client, q="Hello.").status_code == 200
        assert time.monotonic() - t < 30
        answer = slow.result()
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 1 s" in answer


def test_declared_oversized_body_is_refused_before_it_is_read(base):
    head = (f"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {10 * 2**20}\r\n\r\n").encode()
    assert _raw(base, head, b'{"q": "').startswith(b"HTTP/1.1 413")


def test_chunked_oversized_body_is_refused(client):
    def chunks():
        for _ in range(100):
            yield b"x" * 2**17

    r = client.post("/translate", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


# --- API key and the queue bound ---------------------------------------------------------------

def test_api_key_and_queue_limit(shipped_model):
    require("libretranslatepy", "a test dependency: pip install -e '.[test]'")
    from libretranslatepy import LibreTranslateAPI

    with running(shipped_model, api_key="s3cret", char_limit=400, queue_limit=400) as u, \
            httpx.Client(base_url=u, timeout=120) as c:
        assert c.post("/translate", json=OK).status_code == 400  # no key
        assert c.post("/translate", json={**OK, "api_key": "guess"}).status_code == 403
        assert c.post("/translate", json={**OK, "api_key": ["s3cret"]}).status_code == 403
        assert c.post("/detect", data={"q": "Hello."}).status_code == 400
        assert c.post("/translate", json={**OK, "api_key": "s3cret"}).status_code == 200
        for near in ("s3cre", "s", "s3cret!", "s3creT", "S3cret", "s3cret\n", " s3cret"):  # almost the key
            assert c.post("/translate", json={**OK, "api_key": near}).status_code == 403, near
            assert c.post("/detect", data={"q": "Hello.", "api_key": near}).status_code == 403, near
        assert c.get("/languages").status_code == 200 and c.get("/frontend/settings").json()["apiKeys"] is True
        assert LibreTranslateAPI(u, api_key="s3cret").translate("Hello.", timeout=120)
        # a request of 360 characters in flight leaves room for 40 more
        with ThreadPoolExecutor(1) as pool:
            big = pool.submit(c.post, "/translate", json={**OK, "q": ["Thank you very much."] * 18, "api_key": "s3cret"})
            deadline = time.monotonic() + 60
            while c.get("/health/details").json()["queued_characters"] == 0 and not big.done():
                assert time.monotonic() < deadline
                time.sleep(0.005)
            refused = c.post("/translate", json={**OK, "q": "a" * 100, "api_key": "s3cret"})
            assert big.result().status_code == 200
        assert refused.status_code == 429 and refused.headers["retry-after"] == "1"  # as LibreTranslate's clients expect
        assert refused.json()["error"].startswith("Slowdown:")
        assert c.post("/translate", json={**OK, "q": "a" * 100, "api_key": "s3cret"}).status_code == 200


# --- the command: start, answer, stop gracefully ---------------------------------------------

def test_cli_serves_and_finishes_requests_in_flight_on_sigterm(shipped_model):
    proc = subprocess.Popen([sys.executable, "-m", "mtcli", "serve", "-m", str(shipped_model), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        while "http://" not in line:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "mtcli serve exited"
        u = line[line.index("http://"):].split()[0]
        threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep the pipe from filling
        with httpx.Client(base_url=u, timeout=120) as c, ThreadPoolExecutor(1) as pool:
            deadline = time.monotonic() + 60
            while True:
                try:
                    c.get("/health")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
            texts = SENTENCES * 2
            inflight = pool.submit(c.post, "/translate", json={**OK, "q": texts})
            while c.get("/health/details").json()["queued_characters"] == 0:
                assert not inflight.done() and time.monotonic() < deadline
                time.sleep(0.005)
            proc.send_signal(signal.SIGTERM)
            r = inflight.result()
        assert r.status_code == 200 and len(r.json()["translatedText"]) == len(texts)
        assert all(r.json()["translatedText"])
        proc.wait(60)
        assert proc.returncode in (0, -signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cli_refuses_a_port_in_use(run_cli, shipped_model):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run_cli("serve", "-m", shipped_model, "--port", port)
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err and "Traceback" not in err
    code, _, err = run_cli("serve", "--char-limit", "200000")
    assert code == 2 and "queue-limit" in err


# --- the page, in a real browser ---------------------------------------------------------------

def _chromium() -> str:
    found = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if found is None:
        skip_system("Chromium", "Debian: apt-get install chromium")
    return found


class DevTools:
    """Just enough of the Chrome DevTools protocol: commands to one page over the browser's socket."""

    def __init__(self, ws):
        self.ws, self.n, self.session = ws, 0, None

    def send(self, method: str, **params):
        self.n += 1
        message = {"id": self.n, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.recv(timeout=60))
            if reply.get("id") == self.n:
                assert "error" not in reply, reply
                return reply["result"]

    def eval(self, expression: str):
        return self.send("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while not (value := self.eval(expression)):
            assert time.monotonic() < deadline, f"timed out waiting for {expression}"
            time.sleep(0.05)
        return value


@contextmanager
def browser():
    require("websockets", "a test dependency: pip install -e '.[test]'")
    from websockets.sync.client import connect

    binary = _chromium()
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--remote-debugging-port=0",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "HOME": profile})
        try:
            line = ""
            while "ws://" not in line:
                line = proc.stderr.readline()
                assert line or proc.poll() is None, "Chromium exited before it listened"
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            with connect(line[line.index("ws://"):].strip(), max_size=None, open_timeout=30) as ws:
                yield DevTools(ws)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_page_translates_what_is_typed(base, client):
    with browser() as cdp:
        target = cdp.send("Target.createTarget", url=base + "/")["targetId"]
        cdp.session = cdp.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        cdp.wait_for("document.readyState === 'complete' && document.getElementById('count').textContent")
        cdp.eval("document.getElementById('source').focus()")
        cdp.send("Input.insertText", text="Where is the station?")
        cdp.eval("document.getElementById('translate').click()")
        shown = cdp.wait_for("document.getElementById('target').textContent")
        assert shown == translate(client, q="Where is the station?").json()["translatedText"]
        assert cdp.eval("document.getElementById('status').textContent") == ""
        assert cdp.eval("document.getElementById('count').textContent") == f"21 / {LIMITS.char_limit}"
        # an error from the server is shown, not swallowed
        cdp.eval("document.getElementById('api-key').value = 'x'; document.getElementById('source').value = '';")
        cdp.send("Input.insertText", text="a" * 10)
        cdp.eval("fetch = () => Promise.resolve(new Response(JSON.stringify({error: 'Slowdown: busy'}), {status: 503}));"
                 "document.getElementById('translate').click()")
        assert cdp.wait_for("document.getElementById('status').className === 'error' && "
                            "document.getElementById('status').textContent") == "Slowdown: busy"


def test_page_marks_the_lines_probably_wrong(base, client):
    """A line the check flags is marked by a sign, an underline and its reason in words (not colour alone);
    the others are shown as they are."""
    text = f"Where is the station?\n{UNSURE}"
    answer = translate(client, q=text).json()
    lines = answer["translatedText"].split("\n")
    with browser() as cdp:
        target = cdp.send("Target.createTarget", url=base + "/")["targetId"]
        cdp.session = cdp.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        cdp.wait_for("document.readyState === 'complete' && document.getElementById('count').textContent")
        cdp.eval(f"document.getElementById('source').value = {json.dumps(text)}; document.getElementById('translate').click()")
        status = cdp.wait_for("document.querySelector('#target .why') && document.getElementById('status').textContent")
        assert status == "1 line is probably wrong (marked ⚠): check it"
        assert cdp.eval("[...document.querySelectorAll('#target .flagged')].map((e) => e.textContent)") == [lines[1]]
        assert cdp.eval("document.querySelector('#target .why').textContent") == \
            "probably wrong: " + "; ".join(answer["quality"]["lines"][1]["warnings"])
        assert cdp.eval("getComputedStyle(document.querySelector('#target .flagged'), '::before').content") == '"⚠ "'
        assert cdp.eval("document.getElementById('target').firstChild.textContent") == lines[0] + "\n"
