"""Sentences from concurrent requests decoded together by a few decoders, in batches that sentences
join and leave at every step (continuous batching).

Each decoder (`decoders` of them, one per core by default: worker.DecoderProcess, a process of its
own) has up to `slots` sentences in progress and steps on its own. A thread here feeds it queued
sentences as it has room, and another answers each sentence as soon as the decoder sends it back. A
sentence that arrives while others are being decoded joins them at the decoder's next step instead of
waiting for the batch to end, and a batch never thins out to its longest sentence's tail: it holds as
many sentences as the traffic has, and no decoder ever waits for more. Queued sentences are shared so
that the decoders hold about as many each. The event loop never decodes: it stays free to read and
answer requests.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

NBest = list[tuple[str, float]]  # (text, score), best first
RETRY_SECONDS = (1.0, 30.0)  # between tries to start a decoder that could not start: doubling, up to
STALL_SECONDS = 60.0  # a decoder that holds lines and answers none for this long is stuck (stopped by a
# signal, a bug): it is ended and started again (a line finishes within a few seconds of joining)
DRAIN_SECONDS = 2.0  # at shutdown the server has let its requests finish: what the decoders still hold
# then has no one waiting (uvicorn gave up on it), so stuck decoders are ended soon after
log = logging.getLogger(__name__)


class Decoder(Protocol):
    """What the batcher feeds (worker.Decoder: a decode.TranslationStream that steps on its own)."""

    slots: int  # lines it decodes at once
    stopping: bool  # stop() was called

    def send(self, ids: list[int], lines: list[str]) -> None: ...

    def receive(self) -> tuple[list[tuple[int, object]], tuple[int, int, float, float]]: ...  # see worker

    def stop(self) -> None: ...

    def kill(self) -> None: ...

    def close(self) -> None: ...


class DecoderFailed(RuntimeError):
    """A line's decoder failed (a bug, its process killed, a stuck one ended at shutdown): the
    server answers 503, as for a moment of overload; the details are in the server's log."""


@dataclass
class _Request:
    lines: list[str]
    answers: list[NBest | None]
    left: int  # lines not yet answered
    done: Callable[[object], None]  # given the answers or the error, once (see _settle)
    arrived: float = 0.0  # time.monotonic() when its lines were queued
    kept: object = None  # a decode.Encoded: each line's reading by the decoder (for the check), if asked for
    settled: bool = False  # answered, failed or cancelled: done is not called (again)


class _Queue:
    """Lines not yet sent to a decoder, taken from the waiting requests in turn (a line of each per
    round), so that a request of thousands of lines does not hold up the one-line requests behind it."""

    def __init__(self):
        self._requests: deque[tuple[_Request, deque[int]]] = deque()  # each with its lines left
        self._lines = 0

    def __len__(self) -> int:
        return self._lines

    def __iter__(self):
        return ((request, line) for request, lines in self._requests for line in lines)

    def extend(self, request: _Request, lines: list[int]) -> None:
        self._requests.append((request, deque(lines)))
        self._lines += len(lines)

    def popleft(self) -> tuple[_Request, int]:
        request, lines = self._requests[0]
        line = lines.popleft()
        self._lines -= 1
        if lines:
            self._requests.rotate(-1)  # its next line after the other requests' next
        else:
            self._requests.popleft()
        return request, line

    def clear(self) -> None:
        self._requests.clear()
        self._lines = 0

    def drop(self, request: _Request) -> None:
        """The request's lines not yet sent (it gave up: past its deadline, or its client left)."""
        for k, (r, lines) in enumerate(self._requests):
            if r is request:
                self._lines -= len(lines)
                del self._requests[k]
                return


def _settle(future: asyncio.Future, value) -> None:
    """On the event loop: a request that gave up (cancelled) is skipped."""
    if not future.done():
        future.set_exception(value) if isinstance(value, BaseException) else future.set_result(value)


_settling = threading.Lock()  # (a request's lines in two decoders may fail in both at once)


def _answer(request: _Request, value) -> None:
    """request.done(value), unless it was answered or cancelled already."""
    with _settling:
        if request.settled:
            return
        request.settled = True
    request.done(value)


class Batcher:
    def __init__(self, open_decoder: Callable[[], Decoder], decoders: int = 1, stall: float = STALL_SECONDS):
        self._open, self.decoders, self.stall = open_decoder, decoders, stall
        self._lock = threading.Lock()  # guards all below but the counters' readers
        self._woken = [threading.Condition(self._lock) for _ in range(decoders)]  # each feeding thread's (_wake)
        self._queue = _Queue()  # (request, line) not yet sent to a decoder
        self._current: list[Decoder | None] = [None] * decoders  # None: not running (being started)
        self._owner: list[dict[int, tuple[_Request, int]]] = [{} for _ in range(decoders)]  # lines sent, by id
        self._heard = [0.0] * decoders  # when each decoder last answered, or got lines while holding none
        self._ids = itertools.count()
        self._closing = False
        self._threads: list[threading.Thread] = []
        # what /health reports: decoding steps, the lines they decoded (summed over steps: the mean
        # batch is step_sentences / steps), lines answered, decoder-seconds (wall) and CPU seconds, lines
        # sent to a decoder and the seconds they waited before joining its batch (in the queue here, then
        # for the decoder's step in progress to end), summed
        self.steps = self.step_sentences = self.sentences = self.joined = 0
        self.busy = self.cpu = self.waited = 0.0
        self.failures = 0  # decoders that failed or could not start
        # wall seconds spent starting decoders (a model loaded, kernels compiled: minutes on a first run on a loaded
        # machine), starts side by side counted once: one-time work, charged to no line's budget (formatter.main)
        self.setup, self._setup_until = 0.0, 0.0

    async def start(self) -> None:
        """Start every decoder, each in the background: a decoder that cannot start (killed while it
        loads, ...) is tried again after RETRY_SECONDS, doubling, as one that fails later is. Lines
        sent meanwhile wait for a decoder; they fail only when no decoder runs and a start fails."""
        if hasattr(self, "_loop"):
            raise RuntimeError("the batcher has started already")
        self._loop = asyncio.get_running_loop()
        for d in range(self.decoders):
            self._thread(self._feed, d)

    def _thread(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, name=f"mtcli-{target.__name__[1:]}-{args[0]}", daemon=True)
        self._threads.append(thread)
        thread.start()

    async def translate(self, lines: list[str], kept=None) -> list[NBest]:
        """The n-best list of each line, in order; an empty line gets one empty translation. `kept` (a
        decode.Encoded) receives what the decoders read of each line's best translation, where they read it (a
        model with a fitted check), so that the server's check need not read it again."""
        future = self._loop.create_future()
        request = self.submit(lines, kept, lambda value: self._loop.call_soon_threadsafe(_settle, future, value))
        try:
            return await future
        except asyncio.CancelledError:  # the request gave up: its lines not yet sent are not decoded
            self.cancel(request)
            raise

    def submit(self, lines: list[str], kept, done: Callable[[object], None]) -> _Request:
        """translate's work from any thread, without the event loop: done(the n-best lists), or done(the error),
        called once, from the thread that answers the last line (here when none is to be decoded). A formatter's
        lines go so (formatter.Formatters), its answer sent back from that thread: two hops of the event loop
        fewer a request."""
        request = _Request(lines, [None] * len(lines), 0, done, time.monotonic(), kept)
        for i, line in enumerate(lines):
            if not line.strip():
                request.answers[i] = [("", 0.0)]
        todo = [i for i, answer in enumerate(request.answers) if answer is None]
        if not todo:
            _answer(request, request.answers)
            return request
        request.left = len(todo)
        with self._lock:
            self._queue.extend(request, todo)
            self._wake()
        return request

    def cancel(self, request: _Request) -> None:
        """(Any thread.) The request gave up: its lines not yet sent are not decoded, and it gets no answer."""
        with _settling:
            request.settled = True
        with self._lock:
            self._queue.drop(request)

    @property
    def running(self) -> int:
        """Decoders started and not failed."""
        return sum(decoder is not None for decoder in self._current)

    def _share(self, d: int) -> int:
        """How many queued lines decoder d takes now: up to an even share of all lines in progress,
        within its free slots, after the decoders before it have taken theirs (so that light traffic
        stays on the first decoder, whose weights are then warm in the caches)."""
        held = [len(owner) for owner in self._owner]
        queued = len(self._queue)
        fair = math.ceil((queued + sum(held)) / self.decoders)
        for e, decoder in enumerate(self._current[: d + 1]):
            take = min(queued, decoder.slots - held[e], max(0, fair - held[e])) if decoder else 0
            queued -= take
        return take

    def _wake(self, everyone: bool = False) -> None:
        """(Holding the lock.) The feeding threads of the decoders that take queued lines now, or every one (a
        decoder started or stopped, closing). Not all at every line queued or answered: each thread woken for
        nothing is two context switches, on a core a decoder was using (measured at 8 clients: the server's
        process slept and woke 23 times a request)."""
        for d, woken in enumerate(self._woken):
            if everyone or (self._current[d] is not None and self._queue and self._share(d)):
                woken.notify()

    def _feed(self, d: int) -> None:
        """Decoder d's feeding thread: the decoder started (again after RETRY_SECONDS, doubling, while
        it cannot start), then queued lines sent to it as its share allows, until closed with nothing
        left. A decoder that stops is started again at once; one stuck is ended first."""
        retry = RETRY_SECONDS[0]
        while True:
            with self._lock:
                while self._current[d] is not None and not (self._queue and self._share(d)):
                    if self._closing and not self._queue and not self._owner[d]:
                        self._current[d].stop()  # its receiving thread closes it
                        return
                    self._unstick(d)
                    self._woken[d].wait(min(1.0, self.stall))
                if self._closing and self._current[d] is None:
                    return  # (stopped, or never started: nothing is sent to it any more)
                decoder = self._current[d]
                if decoder is not None:
                    now = time.monotonic()
                    if not self._owner[d]:
                        self._heard[d] = now
                    joining = [(next(self._ids), self._queue.popleft()) for _ in range(self._share(d))]
                    self._owner[d].update(joining)
                    self.joined += len(joining)
                    self.waited += sum(now - r.arrived for _, (r, _) in joining)
            if decoder is not None:
                decoder.send([i for i, _ in joining], [r.lines[k] for _, (r, k) in joining])
                continue
            try:
                starting = time.monotonic()
                decoder = self._open()
            except Exception as e:  # the queued lines fail with it, unless another decoder takes them
                log.error("decoder %d could not start (next try in %g s): %s", d, retry, e)
                with self._lock:
                    self.failures += 1
                    queued = [] if any(self._current) else list(self._queue)
                    if queued:
                        self._queue.clear()
                self._fail(queued, DecoderFailed("the decoder could not start"))
                until = time.monotonic() + retry
                with self._lock:
                    while not self._closing and (left := until - time.monotonic()) > 0:
                        self._woken[d].wait(left)
                retry = min(2 * retry, RETRY_SECONDS[1])
                continue
            retry = RETRY_SECONDS[0]
            with self._lock:
                now = time.monotonic()
                self.setup += max(0.0, now - max(starting, self._setup_until))
                self._setup_until = now
                self._current[d] = decoder
                self._wake(everyone=True)
            self._thread(self._receive, d, decoder)

    def _unstick(self, d: int) -> None:
        """(Holding the lock.) Decoder d is ended if it holds lines and has answered none for `stall`
        seconds: its receiving thread then fails them and this thread starts another."""
        decoder = self._current[d]
        if self._owner[d] and not decoder.stopping and time.monotonic() - self._heard[d] > self.stall:
            log.error("decoder %d answered nothing in %g s with %d line(s) in progress: ended", d, self.stall,
                      len(self._owner[d]))
            decoder.kill()

    def _receive(self, d: int, decoder: Decoder) -> None:
        """Decoder d's receiving thread: lines answered as the decoder finishes them. A decoder that
        fails (a bug, its process killed) fails the lines it held, not the server."""
        while True:
            try:
                done, (steps, lines, wall, cpu, waited) = decoder.receive()
            except Exception as e:
                with self._lock:
                    held = list(self._owner[d].values())
                    self._owner[d].clear()
                    self._current[d] = None
                    failed = held or not decoder.stopping  # (not: stopped when asked, with nothing left)
                    self.failures += bool(failed)
                    self._wake(everyone=True)
                decoder.close()
                if failed:
                    log.error("decoder %d failed with %d line(s) in progress: %s", d, len(held), e)
                self._fail(held, DecoderFailed(f"the decoder failed ({type(e).__name__})"))
                return
            finished, readings = [], []
            with self._lock:
                self._heard[d] = time.monotonic()
                self.busy, self.cpu, self.waited = self.busy + wall, self.cpu + cpu, self.waited + waited
                self.steps, self.step_sentences = self.steps + steps, self.step_sentences + lines
                self.sentences += len(done)
                for i, result in done:
                    request, k = self._owner[d].pop(i)
                    request.answers[k] = [(h.text, h.score) for h in result.hypotheses]
                    if request.kept is not None and result.reading is not None:
                        readings.append((request.kept, request.lines[k], result.reading))
                    request.left -= 1
                    if not request.left:
                        finished.append(request)
                self._wake(everyone=self._closing)  # (closing: a decoder with none left is stopped)
            for kept, line, reading in readings:
                kept.add_readings([line], [reading])
            for request in finished:
                _answer(request, request.answers)

    def _fail(self, lines: list[tuple[_Request, int]], error: Exception) -> None:
        """The requests of these lines fail with the error."""
        for request in {id(r): r for r, _ in lines}.values():
            _answer(request, error)

    async def close(self, timeout: float = DRAIN_SECONDS) -> None:
        """Finish every queued line, then stop the decoders; after `timeout` seconds, whatever is
        left fails and the decoders are ended (one may be stuck)."""
        with self._lock:
            self._closing = True
            self._wake(everyone=True)
        try:
            await asyncio.wait_for(self._join(), timeout)
        except asyncio.TimeoutError:  # (not the builtin one before Python 3.11)
            with self._lock:
                queued = list(self._queue)
                self._queue.clear()
                decoders = [decoder for decoder in self._current if decoder]
                self._wake(everyone=True)
            log.error("%d decoder(s) still busy after %g s: ended", len(decoders), timeout)
            self._fail(queued, DecoderFailed("the server stopped before translating it"))
            for decoder in decoders:
                decoder.kill()
            try:  # (a feeding thread may be starting a decoder: daemon threads, left to the exit)
                await asyncio.wait_for(self._join(), DRAIN_SECONDS)
            except asyncio.TimeoutError:
                log.error("%d decoding thread(s) left running", len(self._threads))

    async def _join(self) -> None:
        while self._threads:
            await asyncio.to_thread(self._threads[0].join)
            self._threads.pop(0)
