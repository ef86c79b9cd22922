"""Sentences from concurrent requests decoded together, by a few decoding threads.

A request's sentences join a FIFO queue in chunks of at most `max_batch`. A collector task on the
event loop hands whole chunks from the front to a free decoder (`decoders` threads, one per core by
default, each decoding its own batch): what is queued, up to `max_batch`, shared evenly among the
free decoders. The event loop never decodes: it stays free to read and answer requests.

A batch costs less per sentence the more it holds, so a free decoder is held back while more
sentences are on their way, never longer than `max_wait` nor than `hold_share` of the time the last
batch took (so that waiting costs the decoders at most that share of their time):
- chunks that the last batches answered have not come back yet. A client that got its answer sends
  its next request; the text pipeline follows a first decoding with a second. Without this hold,
  closed-loop clients split into groups that take turns at the decoders: one group's requests queue
  while the other's are decoded, and each batch holds a fraction of the clients.
- otherwise, chunks are still arriving: the last one came less than `quiet` ago (a burst of
  requests that reach an idle server together is decoded together).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass

NBest = list[tuple[str, float]]  # (text, score), best first
Decode = Callable[[list[str]], list[NBest]]


@dataclass
class _Chunk:
    lines: list[str]
    result: asyncio.Future  # of list[NBest], one per line


class Batcher:
    def __init__(self, decode: Decode, max_batch: int, max_wait: float, quiet: float, hold_share: float,
                 decoders: int = 1):
        self._decode, self.max_batch, self.max_wait, self.quiet = decode, max_batch, max_wait, quiet
        self.hold_share = hold_share
        self.decoders = decoders
        self._queue: deque[_Chunk] = deque()
        self._queued = 0  # sentences in the queue
        self._free = decoders
        self._pool = ThreadPoolExecutor(decoders, thread_name_prefix="mtcli-decode")
        self._task: asyncio.Task | None = None
        self._decoding: set[asyncio.Task] = set()
        self._expected = 0  # chunks answered lately whose follow-ups have not arrived...
        self._expect_until = -math.inf  # ...and when waiting for them stops
        self._last_arrival = -math.inf
        self._last_batch = math.inf  # seconds the last batch took to decode (none yet: no bound)
        # what /health reports: batches decoded, their sentences, decoder-seconds (wall) and CPU seconds
        self.batches = self.sentences = 0
        self.busy = self.cpu = 0.0

    async def start(self) -> None:
        self._changed = asyncio.Event()  # a chunk arrived or a decoder came free
        self._task = asyncio.create_task(self._collect(), name="mtcli-batcher")

    async def translate(self, lines: list[str]) -> list[NBest]:
        """The n-best list of each line, in order."""
        loop = asyncio.get_running_loop()
        chunks = [_Chunk(lines[i : i + self.max_batch], loop.create_future())
                  for i in range(0, len(lines), self.max_batch)]
        if chunks:
            self._queue.extend(chunks)
            self._queued += len(lines)
            self._last_arrival = loop.time()
            self._expected = max(0, self._expected - len(chunks))
            self._changed.set()
        return [nbest for part in await asyncio.gather(*(c.result for c in chunks)) for nbest in part]

    def _longest_hold(self) -> float:
        """max_wait, and at most hold_share of the last batch's decoding time: waiting can cost the
        decoders no more than that share of their time."""
        return min(self.max_wait, self.hold_share * self._last_batch)

    def _hold(self, now: float, deadline: float) -> float:
        """Seconds a free decoder should still wait for more sentences (0: start now)."""
        if now >= deadline or self._queued >= self.max_batch * self._free:
            return 0.0
        if now < self._expect_until:  # a batch was answered lately: wait for its chunks to come back
            return min(deadline, self._expect_until) - now if self._expected else 0.0
        return max(0.0, min(deadline, self._last_arrival + self.quiet) - now)

    async def _changes(self, timeout: float | None = None) -> None:
        self._changed.clear()
        with suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)

    async def _collect(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while not (self._free and self._queue):
                await self._changes()
            deadline = loop.time() + self._longest_hold()
            while wait := self._hold(loop.time(), deadline):
                await self._changes(wait)
            share = min(self.max_batch, math.ceil(self._queued / self._free))
            batch = [self._queue.popleft()]
            size = len(batch[0].lines)
            while self._queue and size + len(self._queue[0].lines) <= share:
                size += len(self._queue[0].lines)
                batch.append(self._queue.popleft())
            self._queued -= size
            self._free -= 1
            task = asyncio.create_task(self._run(batch))
            self._decoding.add(task)
            task.add_done_callback(self._decoding.discard)

    def _timed(self, lines: list[str]) -> tuple[list[NBest], float, float]:
        """decode(lines) in a decoding thread, with the wall and CPU seconds it took."""
        wall, cpu = time.perf_counter(), time.thread_time()
        return self._decode(lines), time.perf_counter() - wall, time.thread_time() - cpu

    async def _run(self, batch: list[_Chunk]) -> None:
        loop = asyncio.get_running_loop()
        lines = [line for c in batch for line in c.lines]
        try:
            results, wall, cpu = await loop.run_in_executor(self._pool, self._timed, lines)
        except Exception as e:  # a decoding bug fails this batch's requests, not the server
            for c in batch:
                if not c.result.done():
                    c.result.set_exception(e)
            return
        finally:
            self._free += 1
            self._changed.set()
        self.batches += 1
        self.sentences += len(lines)
        self.busy += wall
        self.cpu += cpu
        self._last_batch = wall
        now = loop.time()
        self._expected = (self._expected if now < self._expect_until else 0) + len(batch)
        self._expect_until = now + self._longest_hold()
        start = 0
        for c in batch:
            if not c.result.done():  # a request that gave up (cancelled) is skipped
                c.result.set_result(results[start : start + len(c.lines)])
            start += len(c.lines)

    async def close(self) -> None:
        """Finish every queued sentence, then stop the collector and the decoding threads."""
        while self._queue or self._decoding:
            await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
        self._pool.shutdown(wait=True)
