"""Sentences from concurrent requests decoded together, in one worker thread.

A request's sentences join a FIFO queue in chunks of at most `max_batch`. A collector task on the
event loop takes whole chunks from the front, up to `max_batch` sentences, and hands them to the one
decoding thread; while that thread decodes, new requests queue up and form the next batch. An idle
decoder waits up to `max_wait` for a batch to fill before it starts, so requests that arrive together
are decoded together. The event loop never decodes: it stays free to read and answer requests.
"""

from __future__ import annotations

import asyncio
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
    def __init__(self, decode: Decode, max_batch: int, max_wait: float):
        self._decode, self.max_batch, self.max_wait = decode, max_batch, max_wait
        self._queue: deque[_Chunk] = deque()
        self._queued = 0  # sentences in the queue
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="mtcli-decode")
        self._task: asyncio.Task | None = None
        self.batches = 0  # decoded so far, with `sentences` sentences in `busy` seconds: what /health reports
        self.sentences = 0
        self.busy = 0.0

    async def start(self) -> None:
        self._arrived, self._full, self._idle = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._idle.set()
        self._task = asyncio.create_task(self._collect(), name="mtcli-batcher")

    async def translate(self, lines: list[str]) -> list[NBest]:
        """The n-best list of each line, in order."""
        loop = asyncio.get_running_loop()
        chunks = [_Chunk(lines[i : i + self.max_batch], loop.create_future())
                  for i in range(0, len(lines), self.max_batch)]
        for chunk in chunks:
            self._queue.append(chunk)
            self._queued += len(chunk.lines)
        if chunks:
            self._arrived.set()
            if self._queued >= self.max_batch:
                self._full.set()
        return [nbest for part in await asyncio.gather(*(c.result for c in chunks)) for nbest in part]

    async def _collect(self) -> None:
        while True:
            await self._arrived.wait()
            if self._queued < self.max_batch:
                with suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._full.wait(), self.max_wait)
            batch = [self._queue.popleft()]
            while self._queue and len(self._queue[0].lines) + sum(len(c.lines) for c in batch) <= self.max_batch:
                batch.append(self._queue.popleft())
            self._queued -= sum(len(c.lines) for c in batch)
            if not self._queue:
                self._arrived.clear()
            if self._queued < self.max_batch:
                self._full.clear()
            lines = [line for c in batch for line in c.lines]
            self._idle.clear()
            start = time.perf_counter()
            try:
                results = await asyncio.get_running_loop().run_in_executor(self._worker, self._decode, lines)
            except Exception as e:  # a decoding bug fails this batch's requests, not the server
                for c in batch:
                    if not c.result.done():
                        c.result.set_exception(e)
                continue
            finally:
                self._idle.set()
                self.busy += time.perf_counter() - start
            self.batches += 1
            self.sentences += len(lines)
            start = 0
            for c in batch:
                if not c.result.done():  # a request that gave up (cancelled) is skipped
                    c.result.set_result(results[start : start + len(c.lines)])
                start += len(c.lines)

    async def close(self) -> None:
        """Finish every queued sentence, then stop the collector and the worker thread."""
        while self._queue or not self._idle.is_set():
            await asyncio.sleep(self.max_wait)
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
        self._worker.shutdown(wait=True)
