"""Throughput and latency of `mtcli serve` under 1, 8 and 32 concurrent clients, against offline batch
translation of the same sentences by the same decoder.

English sentences of the unseen test set, sampled evenly across the length distribution (from the
shortest to the longest), are sent one per request (POST /translate, JSON) by N clients at once,
each sending its next request when the last is answered, for --duration seconds. The clients are
coroutines of this one process on a minimal HTTP/1.1 keep-alive client (asyncio streams), so they
take little of the CPU the server needs; their CPU use is printed. The server runs in its own process
on 127.0.0.1 (a free port); nothing leaves the machine and every loop is bounded by time.

Offline: the same sentences translated in this process while the server is idle, by the same
decoder through the same text handling, as `mtcli translate` does (batches of 64 sorted by length).
It runs before every round and once after the last, so each load is compared with the offline runs
on either side of it (the machine's load drifts); ratios are medians over rounds. Beside wall-clock
speed: the server's CPU seconds per sentence (all its threads), split among its own process, the
decoders and the formatters, how long a sentence waited before it joined a decoder's batch (in the
queue, then for the decoder's step in progress to end), and how often the server's own threads switched
(woken, or preempted) a sentence; offline's line gives the cores it used.

--capped: offline also with no more sentences in progress than each load's clients can keep in the server (N
clients: N sentences, N / threads a thread, at least one), so that each load is also compared with what offline does at the
batch sizes that load allows ("of capped": sentences/s, and offline's CPU a sentence over the server's).

--answers FILE: no load; the server's answers (status and JSON) to a fixed set of requests (`requests`: lists,
alternatives, source auto, HTML) written to FILE, to check that a change to the server changes no answer.

--steady N,N,...: no server; what a decoder's step costs with N sentences in progress (each finished
one replaced at once, BLAS and Numba on one thread as in a decoder process): CPU per sentence and per
step, the share of it spent joining (encoding the sentences that arrive) and the CPU of a line's joining. An
ensemble's members step in two threads as in the server (`--set parallel_members=false`: one thread), the member
thread's CPU apart.

    python benchmarks/serve_load.py [--duration 30] [--clients 1,8,32] [--rounds 1] [--sentences 600] [--capped]
    python benchmarks/serve_load.py --steady 1,4,8,16,32,64
    python benchmarks/serve_load.py --answers FILE [--clients 1]   (then the other tree's, and cmp the files)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import fields, replace
from pathlib import Path
from urllib.parse import urlsplit

from mtcli import registry
from mtcli.data import read_corpus
from mtcli.serve.config import ServeConfig

UNSEEN = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv"
TICK = os.sysconf("SC_CLK_TCK")
# the server process: `mtcli serve` with a whole ServeConfig (the CLI exposes only some of it)
SERVE = ("import json, sys; from pathlib import Path; from mtcli.serve.config import ServeConfig; "
         "from mtcli.serve.server import serve; serve(Path(sys.argv[1]), ServeConfig(**json.loads(sys.argv[2])), "
         "lambda url: print('mtcli serve:', url, file=sys.stderr, flush=True))")


def sample(path: Path, n: int, seed: int) -> list[str]:
    """n distinct English sentences at evenly spaced ranks of length, in random order."""
    english = sorted(set(en for en, _ in read_corpus(path).pairs), key=lambda s: (len(s), s))
    picked = [english[round(k * (len(english) - 1) / max(n - 1, 1))] for k in range(min(n, len(english)))]
    random.Random(seed).shuffle(picked)
    return picked


def children(pid: int) -> list[int]:
    return [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]


def cpu_seconds(pid: int) -> dict[str, float]:
    """User + system CPU time, all threads, of the server's process and of its child processes by kind
    (decoders, formatters; "other": any other)."""
    def own(p: int) -> float:
        stat = Path(f"/proc/{p}/stat").read_text()
        return sum(map(int, stat[stat.rindex(")") + 2 :].split()[11:13])) / TICK

    spent = {"server": own(pid), "decoders": 0.0, "formatters": 0.0, "other": 0.0}
    for child in children(pid):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # (one that has just ended)
            command = Path(f"/proc/{child}/cmdline").read_bytes()
            kind = "decoders" if b"serve.worker" in command else "formatters" if b"serve.formatter" in command else "other"
            spent[kind] += own(child)
    return spent


def switches(pid: int) -> int:
    """Context switches of the process's threads (all of the server's own last as long as it does): each is a
    thread that slept and was woken, or was preempted, on a core that a decoder would have used."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            status = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines())
            total += sum(int(status[k]) for k in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"))
    return total


def resident_mb(pid: int) -> tuple[float, float]:
    """Resident memory of a process and its child processes (the decoders, the formatters), MB: summed
    resident sizes (pages two processes share counted twice) and summed proportional sizes (shared pages
    split among their sharers: what the tree as a whole holds)."""
    try:
        rollup = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
    except (FileNotFoundError, ProcessLookupError):  # (a child that has just ended)
        return 0.0, 0.0
    rss, pss = (int(rollup[k].split()[0]) / 1024 for k in ("Rss", "Pss"))
    for child in children(pid):
        child_rss, child_pss = resident_mb(child)
        rss, pss = rss + child_rss, pss + child_pss
    return rss, pss


class Connection:
    """One keep-alive HTTP/1.1 connection: just enough of a client to POST JSON and read the answer."""

    def __init__(self, url: str):
        self.host, self.port = urlsplit(url).hostname, urlsplit(url).port
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        data = b"" if body is None else json.dumps(body).encode()
        writer.write(f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in head[1:] if line)
        if "content-length" not in headers:
            raise ConnectionError(f"answer without Content-Length: {head[0]}")
        content = await reader.readexactly(int(headers["content-length"]))
        if headers.get("connection") == "close":
            await self.close()
        return int(head[0].split()[1]), content

    async def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


def requests(sentences: list[str]) -> list[dict]:
    """A fixed set of /translate requests for --answers: each sentence alone, then every fifth with 3
    alternatives, in lists of 5, told with source auto (a Spanish text among them: kept as it came), as HTML."""
    fifth = sentences[::5]
    return ([{"q": q, "source": "en", "target": "es"} for q in sentences]
            + [{"q": q, "source": "en", "target": "es", "alternatives": 3} for q in fifth]
            + [{"q": fifth[k : k + 5], "source": "en", "target": "es"} for k in range(0, len(fifth), 5)]
            + [{"q": q, "source": "auto", "target": "es"} for q in fifth[:20] + ["¿Dónde está la estación de tren?"]]
            + [{"q": f"<p>{q}</p>", "source": "en", "target": "es", "format": "html"} for q in fifth[:20]])


async def answers(url: str, asked: list[dict], clients: int) -> list:
    """Each request's status and JSON answer, in order, sent by `clients` closed-loop clients."""
    out: list = [None] * len(asked)
    todo = iter(range(len(asked)))

    async def client() -> None:
        conn = Connection(url)
        for k in todo:
            status, body = await conn.request("POST", "/translate", asked[k])
            out[k] = [status, json.loads(body)]
        await conn.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return out


def start_server(model: str, cfg: ServeConfig) -> tuple[subprocess.Popen, str]:
    options = {f.name: getattr(cfg, f.name) for f in fields(cfg)} | {"port": 0}
    env = os.environ | {"OPENBLAS_NUM_THREADS": "1"}  # (as `mtcli serve` starts it: mtcli.__main__)
    proc = subprocess.Popen([sys.executable, "-c", SERVE, model, json.dumps(options)], stderr=subprocess.PIPE, text=True,
                            env=env)
    line = ""
    while "http://" not in line:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            sys.exit("mtcli serve exited before it listened")
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # drain its log
    url = line[line.index("http://"):].split()[0]
    deadline = time.monotonic() + 600  # (minutes on a loaded machine)
    while True:  # it listens before its decoders and formatters have started: ready once they all run
        try:
            d = asyncio.run(health(url))
            if d["decoders_running"] == d["decoders"] and d["formatters_running"] == d["formatters"]:
                return proc, url
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()  # (its decoders and formatters leave as their pipes close)
            sys.exit("mtcli serve did not start")
        time.sleep(0.1)


async def health(url: str) -> dict:
    conn = Connection(url)
    try:
        return json.loads((await conn.request("GET", "/health/details"))[1])
    finally:
        await conn.close()


async def load(url: str, pid: int, sentences: list[str], clients: int, duration: float) -> dict:
    """Each client sends one sentence per request until `duration` has passed."""
    latencies: list[float] = []
    failures: Counter = Counter()  # why, how often
    nxt = 0
    before, server_cpu, client_cpu, woken = await health(url), cpu_seconds(pid), time.process_time(), switches(pid)
    start = time.perf_counter()
    end = start + duration

    async def client() -> None:
        nonlocal nxt
        conn = Connection(url)
        while time.perf_counter() < end:
            q = sentences[nxt % len(sentences)]
            nxt += 1
            t = time.perf_counter()
            try:
                status, body = await asyncio.wait_for(
                    conn.request("POST", "/translate", {"q": q, "source": "en", "target": "es"}), 120)
                why = "" if status == 200 and isinstance(json.loads(body).get("translatedText"), str) else \
                    f"{status} {body[:200].decode(errors='replace')}"
            except (OSError, EOFError, ValueError, asyncio.TimeoutError, asyncio.LimitOverrunError) as e:
                why = f"{type(e).__name__}: {e}"
                await conn.close()
            if why:
                failures[why] += 1
            else:
                latencies.append(time.perf_counter() - t)
        await conn.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    elapsed = time.perf_counter() - start
    spent, woken = {k: v - server_cpu[k] for k, v in cpu_seconds(pid).items()}, switches(pid) - woken
    server_cpu, client_cpu = sum(spent.values()), time.process_time() - client_cpu
    after = await health(url)
    answered = max(len(latencies), 1)
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else latencies * 99
    for why, n in failures.most_common(5):
        print(f"  failed {n}x: {why}", flush=True)
    return {"rate": len(latencies) / elapsed, "p50": q[49], "p99": q[98], "failed": sum(failures.values()),
            "batch": (after["step_sentences"] - before["step_sentences"]) / max(after["steps"] - before["steps"], 1),
            "busy": (after["decoding_seconds"] - before["decoding_seconds"]) / elapsed / after["decoders"],
            "cpu": server_cpu / answered,  # server CPU seconds per sentence answered
            "split": {k: v / answered for k, v in spent.items()},
            "wait": (after["queue_wait_seconds"] - before["queue_wait_seconds"])
            / max(after["joined_sentences"] - before["joined_sentences"], 1),
            "decoding": (after["decoding_cpu_seconds"] - before["decoding_cpu_seconds"]) / max(server_cpu, 1e-9),
            "client": client_cpu / elapsed, "woken": woken / answered, "rss": resident_mb(pid), "idle": await idle_resident(pid)}


async def idle_resident(pid: int) -> tuple[float, float]:
    """resident_mb once the decoders have been idle long enough to release their caches (worker.IDLE_SECONDS)."""
    from mtcli.serve import worker

    await asyncio.sleep(getattr(worker, "IDLE_SECONDS", 0.0) + 1.0)
    return resident_mb(pid)


def offline(decoding, sentences: list[str]) -> tuple[float, float]:
    """Sentences/s of batch translation in this process through the server's text handling (decoding:
    its engine: a thread a core, each with a continuous batch of up to max_batch sentences and one BLAS
    thread, in one process), and CPU seconds per sentence (their product: the cores it used)."""
    from mtcli.serve.texts import translate_texts

    t, cpu = time.perf_counter(), time.process_time()
    translate_texts(sentences, "text", 1, decoding)
    return len(sentences) / (time.perf_counter() - t), (time.process_time() - cpu) / len(sentences)


def steady(model_dir: Path, cfg: ServeConfig, sentences: list[str], levels: list[int]) -> None:
    """What a decoder's step costs with n sentences in progress, each finished one replaced at once: in
    this process, BLAS and Numba on one thread (as in a decoder process); an ensemble's members in two threads
    with cfg.parallel_members, whose CPU is then given apart: a step takes about the longer of the two where
    each thread has a core of its own."""
    import numba
    from threadpoolctl import threadpool_limits

    from mtcli.decode import Translator

    numba.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        translator = Translator(model_dir, inter_threads=1)
        stream = translator.stream(cfg.max_batch, cfg.decoding, cfg.parallel_members)
        members = stream.search.helper  # (None: one thread)
        translator.translate_batch(sentences[:8], cfg.decoding)  # (the compiled kernels loaded)
        print(f"{'in progress':>11} {'CPU ms/sent':>11} {'of it joining':>13} {'ms/step':>8} {'steps/sent':>10} "
              f"{'join ms/line':>12}"
              + ("  (ms/step: the decoding thread's; the member thread's apart)" if members else ""))
        for n in levels:
            queued, held, done, steps, joining, joined = itertools.cycle(sentences), 0, 0, 0, 0.0, 0
            start, apart = time.thread_time(), members.cpu if members else 0.0
            while done < len(sentences):
                if held < n:
                    t = time.thread_time()
                    stream.add([next(queued) for _ in range(n - held)])
                    joining, joined, held = joining + time.thread_time() - t, joined + n - held, n
                finished = len(stream.step())
                steps, held, done = steps + 1, held - finished, done + finished
            cpu = time.thread_time() - start
            apart = members.cpu - apart if members else 0.0
            while held:  # (the next level starts with none)
                held -= len(stream.step())
            print(f"{n:11} {(cpu + apart) / done * 1e3:11.1f} {joining / (cpu + apart):13.0%} {cpu / steps * 1e3:8.2f} "
                  f"{steps * n / done:10.1f} {joining / joined * 1e3:12.2f}" + (f"  member thread {apart / steps * 1e3:.2f} ms/step" if members else ""),
                  flush=True)


def option(text: str) -> tuple[str, object]:
    """NAME=VALUE for a ServeConfig field, VALUE in the field's type."""
    name, _, value = text.partition("=")
    default = {f.name: getattr(ServeConfig(), f.name) for f in fields(ServeConfig)}
    if name not in default or name in ("host", "port"):
        raise argparse.ArgumentTypeError(f"not a server setting: {name}")
    if isinstance(default[name], bool):
        return name, value.lower() in ("1", "true", "yes")
    return name, type(default[name])(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=registry.SHIPPED, help="a name from `mtcli models` or a model directory")
    ap.add_argument("--data", type=Path, default=UNSEEN, help="TSV whose English side is sampled")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds per load (at most 600)")
    ap.add_argument("--clients", default="1,8,32", help="concurrent clients, comma-separated (at most 256 each)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of offline + every load, alternating")
    ap.add_argument("--sentences", type=int, default=600, help="sentences sampled")
    ap.add_argument("--set", type=option, action="append", default=[], metavar="NAME=VALUE",
                    help="a server setting (mtcli.serve.config), e.g. decoders=1 or max_batch=32; repeatable")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steady", metavar="N,N,...", help="no server: a decoder's step with N sentences in progress")
    ap.add_argument("--answers", type=Path, metavar="FILE", help="no load: the server's JSON answers to a fixed set of "
                    "requests written to FILE, sent by --clients's first number of clients (compare two trees' files)")
    ap.add_argument("--capped", action="store_true",
                    help="offline also with no more sentences in progress than each load's clients")
    args = ap.parse_args()
    cfg = ServeConfig(**dict(args.set))
    if args.steady:
        steps = [int(n) for n in args.steady.split(",")]
        if not all(0 < n <= cfg.max_batch for n in steps):
            sys.exit(f"--steady: 1-{cfg.max_batch} sentences each")
        return steady(registry.resolve(args.model), cfg, sample(args.data, args.sentences, args.seed), steps)
    levels = [int(c) for c in args.clients.split(",")]
    if not (0 < args.duration <= 600 and all(0 < c <= 256 for c in levels) and 0 < args.rounds <= 10):
        sys.exit("--duration 0-600 s, --clients 1-256 each, --rounds 1-10")
    model_dir = registry.resolve(args.model)
    sentences = sample(args.data, args.sentences, args.seed)
    if args.answers:
        proc, url = start_server(str(model_dir), cfg)
        try:
            got = asyncio.run(answers(url, requests(sentences), levels[0]))
        finally:
            proc.terminate()
            proc.wait(60)
        args.answers.write_text(json.dumps(got, ensure_ascii=False, sort_keys=True, indent=0) + "\n", encoding="utf-8")
        return print(f"{len(got)} answers ({sum(status != 200 for status, _ in got)} not 200) written to {args.answers}")
    mean_len = statistics.mean(len(s.split()) for s in sentences)
    from mtcli.serve.app import decoders_of

    decoders, parallel = decoders_of(cfg, 1, model_dir)
    print(f"{args.model}, beam {cfg.beam}, {decoders} decoder(s) of {cfg.max_batch} sentences at once"
          f"{' (the members in two threads)' if parallel else ''}: "
          f"{len(sentences)} sentences of {args.data.name} ({mean_len:.1f} words on average), "
          f"{args.duration:g} s per load, {args.rounds} round(s); load average {os.getloadavg()[0]:.1f}", flush=True)
    from mtcli.decode import Translator
    from mtcli.serve.texts import translate_texts
    from mtcli.text.pipeline import Engine

    translator = Translator(model_dir)
    # offline: batches of up to max_batch a thread; capped (--capped): no more in progress than c closed-loop
    # clients keep in the server (c sentences over the threads), the batches the server's load allows it
    caps = [None] + (levels if args.capped else [])
    engines = {cap: Engine.from_translator(translator, cfg.decoding if cap is None else replace(
        cfg.decoding, max_batch_size=max(1, cap // translator.inter_threads))) for cap in caps}
    translate_texts(sentences[:8], "text", 1, engines[None])  # warm-up: compiled kernels load
    proc, url = start_server(str(model_dir), cfg)
    # a formatter's first language test loads py3langid (~1-3 s of CPU): in every formatter before the loads, not
    # in the first load's figures (it had made the formatters' CPU at 8 clients, run first, 1.5-5x that at 32)
    asyncio.run(load(url, proc.pid, sentences, 2 * cfg.formatters, 1.0))
    offline_runs: dict[int | None, list[tuple[float, float]]] = {cap: [] for cap in caps}
    runs: dict[int, list[dict]] = {c: [] for c in levels}

    def measure_offline(label: str) -> None:
        for cap in caps:
            offline_runs[cap].append(offline(engines[cap], sentences))
            rate, cpu = offline_runs[cap][-1]
            print(f"{label}: offline{'' if cap is None else f' capped at {cap}':>14} {rate:7.1f} sentences/s  "
                  f"{cpu * 1e3:5.1f} ms CPU/sentence  ({rate * cpu:.2f} cores)", flush=True)

    try:
        for r in range(args.rounds):
            measure_offline(f"round {r + 1}")
            for c in levels:
                m = asyncio.run(load(url, proc.pid, sentences, c, args.duration))
                m["round"] = r
                runs[c].append(m)
                print(f"round {r + 1}: {c:3} clients {m['rate']:7.1f} sentences/s  p50 {m['p50'] * 1e3:6.0f} ms  "
                      f"p99 {m['p99'] * 1e3:6.0f} ms  failed {m['failed']}  mean batch {m['batch']:.1f}  "
                      f"decoders busy {m['busy']:.0%}  server {m['cpu'] * 1e3:.1f} ms CPU/sentence "
                      f"({m['decoding']:.0%} decoding; server {m['split']['server'] * 1e3:.1f}, decoders "
                      f"{m['split']['decoders'] * 1e3:.1f}, formatters {m['split']['formatters'] * 1e3:.1f})  "
                      f"waited {m['wait'] * 1e3:.1f} ms to join  server's process switched {m['woken']:.1f} times a sentence  clients {m['client']:.0%} of a core  "
                      f"server resident {m['rss'][0]:.0f} MB (proportional {m['rss'][1]:.0f} MB), idle "
                      f"{m['idle'][0]:.0f} MB ({m['idle'][1]:.0f} MB)", flush=True)
        measure_offline("end")
    finally:
        proc.terminate()
        proc.wait(60)
    rates, cpus = zip(*offline_runs[None])
    print(f"\noffline batch translation: {statistics.median(rates):.1f} sentences/s, "
          f"{statistics.median(cpus) * 1e3:.1f} ms CPU/sentence (medians of {len(rates)}); "
          f"load average {os.getloadavg()[0]:.1f}")

    def offline_mean(cap: int | None, m: dict, k: int) -> float:
        """Offline's rate (k 0) or CPU a sentence (k 1), capped at cap: the mean of its runs before and after load m."""
        return statistics.mean(run[k] for run in offline_runs[cap][m["round"] : m["round"] + 2])

    def of_offline(c: int, cap: int | None) -> tuple[float, float]:
        """Load c's rate over offline's (capped at cap) and offline's CPU a sentence over the server's, medians."""
        return (statistics.median(m["rate"] / offline_mean(cap, m, 0) for m in runs[c]),
                statistics.median(offline_mean(cap, m, 1) / m["cpu"] for m in runs[c]))

    print(f"{'clients':>7} {'sentences/s':>12} {'of offline':>10} {'of capped':>9} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'failed':>6} {'batch':>6} {'wait ms':>7} {'CPU ms/sent':>11} {'of offline':>10} {'of capped':>9} "
          f"{'client CPU':>10} {'server MB':>9} {'idle MB':>7}")
    for c in levels:
        med = {k: statistics.median(m[k] for m in runs[c]) for k in ("rate", "p50", "p99", "batch", "wait", "cpu", "client")}
        (rate, cost), capped = of_offline(c, None), of_offline(c, c) if args.capped else None
        failed = sum(m["failed"] for m in runs[c])
        rss, idle = (max(m[k][0] for m in runs[c]) for k in ("rss", "idle"))  # (the largest: the goal is a bound)
        print(f"{c:7} {med['rate']:12.1f} {rate:10.0%} {f'{capped[0]:.0%}' if capped else '-':>9} "
              f"{med['p50'] * 1e3:7.0f} {med['p99'] * 1e3:7.0f} {failed:6} {med['batch']:6.1f} {med['wait'] * 1e3:7.1f} "
              f"{med['cpu'] * 1e3:11.1f} {cost:10.0%} {f'{capped[1]:.0%}' if capped else '-':>9} {med['client']:10.0%} "
              f"{rss:9.0f} {idle:7.0f}")


if __name__ == "__main__":
    main()
