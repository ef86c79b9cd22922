"""Throughput and latency of `mtcli serve` under 1, 8 and 32 concurrent clients, against offline batch
translation of the same sentences.

English sentences of the unseen test set, sampled evenly across the length distribution, are sent one
per request (POST /translate, JSON) by N clients at once, each sending its next request when the last
is answered, for --duration seconds. The server runs in its own process on 127.0.0.1 (a free port);
nothing leaves the machine and every loop is bounded by time. Offline: the same sentences translated
in this process in batches of 64 through the same text handling, while the server is idle. Rounds
alternate the offline run and the loads; medians are printed.

    python benchmarks/serve_load.py [--duration 30] [--clients 1,8,32] [--rounds 1] [--sentences 600]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

from mtcli import registry
from mtcli.data import read_corpus
from mtcli.serve.config import ServeConfig

UNSEEN = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv"


def sample(path: Path, n: int, seed: int) -> list[str]:
    """n distinct English sentences at evenly spaced ranks of length, in random order."""
    english = sorted(set(en for en, _ in read_corpus(path).pairs), key=lambda s: (len(s), s))
    picked = [english[round(k * (len(english) - 1) / max(n - 1, 1))] for k in range(min(n, len(english)))]
    random.Random(seed).shuffle(picked)
    return picked


def start_server(model: str, beam: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "mtcli", "serve", "-m", model, "--port", "0", "--beam", str(beam)],
                            stderr=subprocess.PIPE, text=True)
    line = ""
    while "http://" not in line:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            sys.exit("mtcli serve exited before it listened")
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # drain its log
    url = line[line.index("http://"):].split()[0]
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(url + "/health", timeout=5).raise_for_status()
            return proc, url
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                sys.exit("mtcli serve did not answer /health")
            time.sleep(0.1)


async def load(url: str, sentences: list[str], clients: int, duration: float) -> dict:
    """Each client sends one sentence per request until `duration` has passed."""
    latencies: list[float] = []
    failures: Counter = Counter()  # why, how often
    nxt = 0
    async with httpx.AsyncClient(base_url=url, timeout=120,
                                 limits=httpx.Limits(max_connections=clients)) as http:
        before = (await http.get("/health")).json()
        start = time.perf_counter()
        end = start + duration

        async def client() -> None:
            nonlocal nxt
            while time.perf_counter() < end:
                q = sentences[nxt % len(sentences)]
                nxt += 1
                t = time.perf_counter()
                try:
                    r = await http.post("/translate", json={"q": q, "source": "en", "target": "es"})
                    why = "" if r.status_code == 200 and isinstance(r.json().get("translatedText"), str) else \
                        f"{r.status_code} {r.text[:200]}"
                except httpx.HTTPError as e:
                    why = f"{type(e).__name__}: {e}"
                if why:
                    failures[why] += 1
                else:
                    latencies.append(time.perf_counter() - t)

        await asyncio.gather(*(client() for _ in range(clients)))
        elapsed = time.perf_counter() - start
        after = (await http.get("/health")).json()
    batches = after["batches"] - before["batches"]
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else latencies * 99
    for why, n in failures.most_common(5):
        print(f"  failed {n}x: {why}", flush=True)
    return {"rate": len(latencies) / elapsed, "p50": q[49], "p99": q[98], "failed": sum(failures.values()),
            "done": len(latencies),
            "batch": (after["sentences"] - before["sentences"]) / max(batches, 1),
            "busy": (after["decoding_seconds"] - before["decoding_seconds"]) / elapsed}


def offline(model_dir: Path, sentences: list[str], cfg: ServeConfig) -> float:
    """Sentences/s of batch translation in this process, through the server's text handling."""
    from mtcli.decode import Translator
    from mtcli.serve.texts import engine, translate_texts

    decoding = engine(Translator(model_dir), cfg)
    translate_texts(sentences[:8], "text", 1, decoding)  # warm-up: compiled kernels load
    t = time.perf_counter()
    translate_texts(sentences, "text", 1, decoding)
    return len(sentences) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=registry.SHIPPED, help="a name from `mtcli models` or a model directory")
    ap.add_argument("--data", type=Path, default=UNSEEN, help="TSV whose English side is sampled")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds per load (at most 600)")
    ap.add_argument("--clients", default="1,8,32", help="concurrent clients, comma-separated (at most 256 each)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of offline + every load, alternating")
    ap.add_argument("--sentences", type=int, default=600, help="sentences sampled")
    ap.add_argument("--beam", type=int, default=ServeConfig.beam)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    levels = [int(c) for c in args.clients.split(",")]
    if not (0 < args.duration <= 600 and all(0 < c <= 256 for c in levels) and 0 < args.rounds <= 10):
        sys.exit("--duration 0-600 s, --clients 1-256 each, --rounds 1-10")
    cfg = ServeConfig(beam=args.beam)
    model_dir = registry.resolve(args.model)
    sentences = sample(args.data, args.sentences, args.seed)
    mean_len = statistics.mean(len(s.split()) for s in sentences)
    print(f"{args.model}, beam {cfg.beam}: {len(sentences)} sentences of {args.data.name} "
          f"({mean_len:.1f} words on average), {args.duration:g} s per load, {args.rounds} round(s)", flush=True)
    proc, url = start_server(str(model_dir), cfg.beam)
    rates: list[float] = []
    runs: dict[int, list[dict]] = {c: [] for c in levels}
    try:
        for r in range(args.rounds):
            rates.append(offline(model_dir, sentences, cfg))
            print(f"round {r + 1}: offline {rates[-1]:.1f} sentences/s", flush=True)
            for c in levels:
                runs[c].append(asyncio.run(load(url, sentences, c, args.duration)))
                m = runs[c][-1]
                print(f"round {r + 1}: {c:3} clients {m['rate']:7.1f} sentences/s  p50 {m['p50'] * 1e3:6.0f} ms  "
                      f"p99 {m['p99'] * 1e3:6.0f} ms  failed {m['failed']}  mean batch {m['batch']:.1f}  "
                      f"decoder busy {m['busy']:.0%}", flush=True)
    finally:
        proc.terminate()
        proc.wait(60)
    base = statistics.median(rates)
    print(f"\noffline batch translation: {base:.1f} sentences/s (median of {len(rates)})")
    print(f"{'clients':>7} {'sentences/s':>12} {'of offline':>10} {'p50 ms':>7} {'p99 ms':>7} {'failed':>6} {'batch':>6}")
    for c in levels:
        med = {k: statistics.median(m[k] for m in runs[c]) for k in ("rate", "p50", "p99", "batch")}
        failed = sum(m["failed"] for m in runs[c])
        print(f"{c:7} {med['rate']:12.1f} {med['rate'] / base:10.0%} {med['p50'] * 1e3:7.0f} {med['p99'] * 1e3:7.0f} "
              f"{failed:6} {med['batch']:6.1f}")


if __name__ == "__main__":
    main()
