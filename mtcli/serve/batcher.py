"""Sentences from concurrent requests decoded together by a few decoders, in batches that sentences
join and leave at every step (continuous batching).

Each decoder (`decoders` of them, one per core by default: a thread here driving a process of its own,
worker.DecoderProcess) keeps up to `max_batch` sentences in progress in its stream. Before every decoding step it takes queued
sentences into its free slots, and after it answers every sentence that step finished. A sentence
that arrives while others are being decoded joins them at the next step instead of waiting for the
batch to end, and a batch never thins out to its longest sentence's tail: it holds as many sentences
as the traffic has, and no decoder ever waits for more. Queued sentences are shared so that the
decoders hold about as many each. The event loop never decodes: it stays free to read and answer
requests.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

NBest = list[tuple[str, float]]  # (text, score), best first


class Stream(Protocol):
    """What a decoder steps (worker.DecoderProcess: a decode.TranslationStream in its own process)."""

    free: int  # slots open for more lines
    cpu: float  # CPU seconds spent decoding so far

    def add(self, lines: list[str]) -> list[int]: ...  # the slot each line took

    def step(self) -> list[tuple[int, object]]: ...  # lines done, by slot: TranslationResult-like

    def close(self) -> None: ...


@dataclass
class _Request:
    lines: list[str]
    answers: list[NBest | None]
    left: int  # lines not yet answered
    future: asyncio.Future  # of answers, set on the event loop


def _settle(future: asyncio.Future, value) -> None:
    """On the event loop: a request that gave up (cancelled) is skipped."""
    if not future.done():
        future.set_exception(value) if isinstance(value, BaseException) else future.set_result(value)


class Batcher:
    def __init__(self, open_stream: Callable[[], Stream], decoders: int = 1):
        self._open, self.decoders = open_stream, decoders
        self._lock = threading.Condition()  # guards the queue, what each decoder holds, requests' `left`
        self._queue: deque[tuple[_Request, int]] = deque()  # (request, line) not yet in a stream
        self._held = [0] * decoders  # lines in each decoder's stream
        self._closing = False
        self._threads: list[threading.Thread] = []
        # what /health reports: decoding steps, the lines they decoded (summed over steps: the mean
        # batch is step_sentences / steps), lines answered, decoder-seconds (wall) and CPU seconds
        self.steps = self.step_sentences = self.sentences = 0
        self.busy = self.cpu = 0.0

    async def start(self) -> None:
        """Open every decoder's stream (a stream that cannot open is an error here, not at the first request)."""
        self._loop = asyncio.get_running_loop()
        opened = await asyncio.gather(*(asyncio.to_thread(self._open) for _ in range(self.decoders)),
                                      return_exceptions=True)
        if failed := [e for e in opened if isinstance(e, BaseException)]:
            for stream in opened:
                if not isinstance(stream, BaseException):
                    stream.close()
            raise failed[0]
        self._threads = [threading.Thread(target=self._decoder, args=(d, stream), name=f"mtcli-decode-{d}", daemon=True)
                         for d, stream in enumerate(opened)]
        for thread in self._threads:
            thread.start()

    async def translate(self, lines: list[str]) -> list[NBest]:
        """The n-best list of each line, in order; an empty line gets one empty translation."""
        request = _Request(lines, [None] * len(lines), 0, self._loop.create_future())
        for i, line in enumerate(lines):
            if not line.strip():
                request.answers[i] = [("", 0.0)]
        todo = [i for i, answer in enumerate(request.answers) if answer is None]
        if not todo:
            return request.answers
        request.left = len(todo)
        with self._lock:
            self._queue.extend((request, i) for i in todo)
            self._lock.notify_all()
        return await request.future

    def _share(self, d: int, free: int) -> int:
        """How many queued lines decoder d takes now: up to an even share of all lines in progress."""
        fair = math.ceil((len(self._queue) + sum(self._held)) / self.decoders)
        return min(len(self._queue), free, max(0, fair - self._held[d]))

    def _decoder(self, d: int, stream: Stream | None) -> None:
        """Decoder d's thread: take lines, step, answer, until closed with nothing left."""
        try:
            owner = {}  # slot -> (request, line)
            while True:
                with self._lock:
                    while not self._queue and not self._held[d]:
                        if self._closing:
                            return
                        self._lock.wait()
                if stream is None:  # the last one failed: a new one, or every queued line fails with it
                    try:
                        stream = self._open()
                    except Exception as e:
                        with self._lock:
                            queued = list(self._queue)
                            self._queue.clear()
                        self._fail(queued, e)
                        continue
                with self._lock:
                    joining = [self._queue.popleft() for _ in range(self._share(d, stream.free))]
                    self._held[d] += len(joining)
                    size = self._held[d]
                wall, cpu = time.perf_counter(), stream.cpu
                try:
                    if joining:
                        owner.update(zip(stream.add([r.lines[i] for r, i in joining]), joining))
                    done = stream.step()
                except Exception as e:  # a decoding bug fails the requests of this stream, not the server
                    with self._lock:
                        self._held[d] = 0
                    self._fail([*owner.values(), *joining], e)
                    stream.close()
                    stream, owner = None, {}
                    continue
                wall, cpu = time.perf_counter() - wall, stream.cpu - cpu
                finished = []
                with self._lock:
                    self.busy, self.cpu = self.busy + wall, self.cpu + cpu
                    self.steps, self.step_sentences = self.steps + 1, self.step_sentences + size
                    self._held[d] -= len(done)
                    self.sentences += len(done)
                    for slot, result in done:
                        request, i = owner.pop(slot)
                        request.answers[i] = [(h.text, h.score) for h in result.hypotheses]
                        request.left -= 1
                        if not request.left:
                            finished.append(request)
                for request in finished:
                    self._loop.call_soon_threadsafe(_settle, request.future, request.answers)
        finally:
            if stream is not None:
                stream.close()

    def _fail(self, lines: list[tuple[_Request, int]], error: Exception) -> None:
        """The requests of these lines fail with the error."""
        for request in {id(r): r for r, _ in lines}.values():
            self._loop.call_soon_threadsafe(_settle, request.future, error)

    async def close(self) -> None:
        """Finish every queued line, then stop the decoders."""
        with self._lock:
            self._closing = True
            self._lock.notify_all()
        for thread in self._threads:
            await asyncio.to_thread(thread.join)
