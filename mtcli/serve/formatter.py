"""Text work (sentences, kept spans, markup: the pipeline around decoding) in processes of its own.

In the server's process a text that takes seconds to prepare held the event loop with it: a regular
expression runs without letting other threads have the interpreter, so /health and every other
client waited (measured: 3.6 s for one request of 19,999 `_`). Here each request's text work runs in
a thread of a formatter process (`formatters` of them; a new request goes to the one with the fewest
requests at text work), and the pipeline's sentences come back to the server's batcher to be decoded
with every other request's: handed to it by the thread that reads the formatter's messages, their
translations sent back by the batcher's thread that receives them, never through the event loop. The
event loop only sends a request's job and receives its answer.

A request that passes its deadline is cancelled: its decoding stops at once, and a formatter still at
its text work RUNAWAY_SECONDS later is ended (its other requests fail with 503) and started again,
so no text keeps a core busy for long, after a shutdown included.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import os
import pickle
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from mtcli.serve.batcher import RETRY_SECONDS

START_SECONDS = 60.0  # for a formatter to import the text pipeline (a stuck one is ended)
JOB_THREADS = 4096  # a formatter's threads for jobs at once (more than the server's connections: none waits)
RUNAWAY_SECONDS = 1.0  # after its request is cancelled, text work still running this long ends its process
log = logging.getLogger(__name__)


class FormatterFailed(RuntimeError):
    """The formatter process of a request stopped (ended as a runaway, killed): answered 503."""


class Cancelled(Exception):
    """Raised in a formatter's job when the server cancelled it (its request gave up)."""


@dataclass
class Tools:
    """What a job function gets besides its arguments, in the formatter: the pipeline's Engine of each
    direction the server translates ("en-es": ...), its decode going to that direction's decoders."""

    engines: dict


# As worker.py's decoders: a new interpreter that finds modules on the server's sys.path (sent first).
_CHILD = ("import sys; del sys.path[0]; from multiprocessing.connection import Connection; "
          "pipe = Connection(int(sys.argv[1])); sys.path[:] = pipe.recv(); "
          "from mtcli.serve.formatter import main; main(pipe)")


class FormatterProcess:
    """The server's end of one formatter process. `setup` is the pickled {direction: sentence.Lexicon} that its
    Engines are made of (texts.setup)."""

    def __init__(self, setup: bytes):
        ours, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen([sys.executable, "-c", _CHILD, str(theirs.fileno())],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                            start_new_session=True)  # (a terminal's Ctrl-C is not for it)
        self.pipe = Connection(ours.detach())
        try:
            self.pipe.send(sys.path)
            self.pipe.send_bytes(setup)
            if not self.pipe.poll(START_SECONDS):
                raise FormatterFailed(f"the formatter did not start within {START_SECONDS:g} s")
            if self.pipe.recv() != ("ready",):
                raise FormatterFailed("the formatter did not start")
        except BaseException as e:
            self.kill()
            self.close()
            if isinstance(e, (EOFError, OSError)):
                raise FormatterFailed(f"the formatter stopped while starting (exit code {self.process.poll()})") from None
            raise
        self.jobs: set[int] = set()  # jobs sent and not yet answered
        self.alive = True
        # messages are sent by a thread of their own: a formatter whose text work holds its interpreter
        # reads nothing meanwhile, and a message larger than the socket's buffer would hold the loop
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        threading.Thread(target=self._send_all, name="mtcli-formatter-send", daemon=True).start()

    def send(self, message) -> None:
        """Queue the message (pickled here: an error is the caller's)."""
        self._outbox.put(pickle.dumps(message))

    def _send_all(self) -> None:
        while (data := self._outbox.get()) is not None:
            try:
                self.pipe.send_bytes(data)
            except OSError:  # (it has stopped: the reading thread reports it)
                return

    def read(self, loop: asyncio.AbstractEventLoop, on_message: Callable, on_exit: Callable) -> None:
        """In a thread of its own: on_message(self, message) of each message (in this thread), then the end (on the
        event loop)."""
        while True:
            try:
                message = self.pipe.recv()
            except (EOFError, OSError, pickle.UnpicklingError):
                break
            on_message(self, message)
        with contextlib.suppress(RuntimeError):  # (the loop has closed: the server is gone)
            loop.call_soon_threadsafe(on_exit, self)

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()

    def release(self) -> None:
        """Stop sending and close the pipe."""
        if hasattr(self, "_outbox"):
            self._outbox.put(None)
        self.pipe.close()

    def close(self) -> None:
        """Once it has ended: release the pipe and reap the process."""
        self.release()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class _Job:
    process: FormatterProcess
    future: asyncio.Future
    kept: dict | None = None  # given to decode: what the decoders read, for the check (Service.quality)
    decoding: list | None = None  # while its sentences are being decoded (one call at a time): [what cancels it]
    cancelled: bool = False
    runaway: asyncio.TimerHandle | None = field(default=None, repr=False)


class Formatters:
    """`count` formatter processes, each started (again after RETRY_SECONDS, doubling, while it
    cannot start) in the background. `decode(direction, sentences, kept, done)` has the batcher of that direction
    decode them (`kept`: the job's, see run) and call done(their n-best lists, or the error) from any thread, and
    returns what cancels it (Batcher.submit); `setup()` -> each direction's Batcher.setup, sent with them. Every
    method runs on the event loop but _received, in each process's reading thread: a job's sentences go to the
    batcher and their translations back to the formatter without waking the event loop."""

    def __init__(self, open_process: Callable[[], FormatterProcess], count: int,
                 decode: Callable[[str, list[str], dict | None, Callable[[object], None]], Callable[[], None]],
                 setup: Callable[[], dict] = dict):
        self._open, self.count, self._decode, self._setup = open_process, count, decode, setup
        self._processes: list[FormatterProcess | None] = [None] * count
        self._jobs: dict[int, _Job] = {}
        self._lock = threading.Lock()  # a job's decoding begun (a reading thread) or cancelled (the loop): one at once
        self._ids = itertools.count()
        self._starting: set[asyncio.Task] = set()
        self.closing = False
        self.failures = 0  # formatters that stopped, could not start, or were ended as runaways
        self.runaways = 0  # of them: ended because a cancelled request's text work went on

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._available = asyncio.Event()
        for i in range(self.count):
            self._restart(i)

    def _restart(self, i: int) -> None:
        task = self._loop.create_task(self._start(i))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _start(self, i: int) -> None:
        retry = RETRY_SECONDS[0]
        while not self.closing:
            try:
                process = await asyncio.to_thread(self._open)
            except Exception as e:
                self.failures += 1
                log.error("formatter %d could not start (next try in %g s): %s", i, retry, e)
                await asyncio.sleep(retry)
                retry = min(2 * retry, RETRY_SECONDS[1])
                continue
            if self.closing:
                process.kill()
                await asyncio.to_thread(process.close)
                return
            self._processes[i] = process
            threading.Thread(target=process.read, args=(self._loop, self._received, self._on_exit),
                             name=f"mtcli-formatter-{i}", daemon=True).start()
            self._available.set()
            return

    @property
    def running(self) -> int:
        return sum(p is not None for p in self._processes)

    async def run(self, fn: Callable, *args, kept: dict | None = None):
        """fn(tools, *args) in a formatter, its result or its error. Waits for a formatter while none
        runs; cancelling the caller cancels the job. `kept` goes with each of its decodings."""
        while not (alive := [p for p in self._processes if p is not None]):
            self._available.clear()
            await self._available.wait()
        process = min(alive, key=lambda p: (sum(not self._jobs[j].decoding for j in p.jobs), len(p.jobs)))
        job = next(self._ids)
        future = self._loop.create_future()
        self._jobs[job] = _Job(process, future, kept)  # (before its decoding can come)
        process.jobs.add(job)
        process.send(("job", job, fn, args))
        try:
            return await future
        except asyncio.CancelledError:
            self._cancel(job)
            raise

    def _cancel(self, job: int) -> None:
        state = self._jobs.get(job)
        if state is None or state.cancelled:
            return
        with self._lock:
            state.cancelled = True
            decoding = state.decoding
        if decoding:
            decoding[0]()
        state.process.send(("cancel", job))  # (its thread, waiting for the decoding, raises Cancelled)
        state.runaway = self._loop.call_later(RUNAWAY_SECONDS, self._end_runaway, job)

    def _end_runaway(self, job: int) -> None:
        state = self._jobs.get(job)
        if state is not None and state.process.alive:  # its text work has gone on since it was cancelled
            self.runaways += 1
            log.error("a cancelled request's text work went on for %g s: its formatter was ended", RUNAWAY_SECONDS)
            state.process.kill()  # (its reading thread then reports the end: _on_exit)

    def _received(self, process: FormatterProcess, message: tuple) -> None:
        """(The process's reading thread.) A job's sentences handed to the batcher here, their translations sent
        back from the thread that answers them; its other messages to the event loop."""
        op, job, *rest = message
        if op != "decode":
            self._loop.call_soon_threadsafe(self._on_message, process, message)
            return
        with self._lock:
            state = self._jobs.get(job)
            if state is None:
                return
            if state.cancelled:
                process.send(("decoded", job, Cancelled()))
                return
            state.decoding = pending = [None]
            try:
                pending[0] = self._decode(*rest, state.kept, functools.partial(self._decoded, process, job, pending))
            except Exception as e:  # (raised in the job, which answers it as an error)
                self._decoded(process, job, pending, e)

    def _decoded(self, process: FormatterProcess, job: int, pending: list, result) -> None:
        """(Any thread.) A decoding's n-best lists, or its error, sent to the job."""
        state = self._jobs.get(job)
        if state is not None and state.decoding is pending:
            state.decoding = None
        process.send(("decoded", job, result, self._setup()))

    def _on_message(self, process: FormatterProcess, message: tuple) -> None:
        op, job, *rest = message
        state = self._jobs.get(job)
        if state is None:
            return
        if op in ("done", "error"):
            del self._jobs[job]
            process.jobs.discard(job)
            if state.runaway is not None:
                state.runaway.cancel()
            if not state.future.done():
                (state.future.set_result if op == "done" else state.future.set_exception)(rest[0])

    def _on_exit(self, process: FormatterProcess) -> None:
        process.alive = False
        i = self._processes.index(process) if process in self._processes else None
        if i is not None:
            self._processes[i] = None
        for job in list(process.jobs):
            state = self._jobs.pop(job)
            if state.decoding:
                state.decoding[0]()
            if state.runaway is not None:
                state.runaway.cancel()
            if not state.future.done():
                state.future.set_exception(FormatterFailed("the text worker stopped"))
        if not self.closing:
            self.failures += 1
            log.error("formatter %s stopped (exit code %s) with %d request(s) in progress", i,
                      process.process.poll(), len(process.jobs))
        process.jobs.clear()
        if self.closing:
            process.release()  # (close() reaps it)
        else:
            self._loop.run_in_executor(None, process.close)
            if i is not None:
                self._restart(i)

    async def close(self, timeout: float) -> None:
        """Stop every formatter: those still busy after `timeout` seconds are ended."""
        self.closing = True
        for task in list(self._starting):
            task.cancel()
        processes = [p for p in self._processes if p is not None]
        for process in processes:
            process.send(("close",))

        def reap(process: FormatterProcess) -> None:
            try:
                process.process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.error("a formatter still busy %g s after the shutdown began: ended", timeout)
                process.kill()
                process.process.wait()

        await asyncio.gather(*(asyncio.to_thread(reap, p) for p in processes))


# --- the formatter process --------------------------------------------------------------------

def _sendable(e: BaseException) -> BaseException:
    """The error as it can travel back (its own class if it pickles)."""
    try:
        pickle.dumps(e)
        return e
    except Exception:
        return RuntimeError(f"{type(e).__name__}: {e}")


def main(pipe: Connection) -> None:
    """The child (see _CHILD): the setup next, then jobs, each in a thread, until told to close or
    the server is gone. A job's decode sends its sentences to the server and waits for them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C and SIGTERM are the server's to handle
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from dataclasses import replace

    from mtcli.text.pipeline import Engine

    try:
        made = pipe.recv()  # (the parent sent it with send_bytes of its pickle: what recv reads)
    except (EOFError, OSError):
        return
    sending = threading.Lock()
    waiting: dict[int, list] = {}  # job -> [event, reply] while its decode waits
    cancelled: set[int] = set()
    current = threading.local()
    # each direction's decoders' one-time work (Batcher.setup) as the last decoding's answer told: a decoder's start
    # that a line waited for is charged to no line's budget, as the CLI's kernels compiled (text/retry.py)
    setups: dict[str, float] = {}

    def send(message) -> None:
        with sending, contextlib.suppress(OSError):
            pipe.send(message)

    def decode(direction: str, lines: list[str]) -> list:
        job = current.job
        if job in cancelled:
            raise Cancelled()
        slot = waiting[job] = [threading.Event(), None]
        send(("decode", job, direction, lines))
        slot[0].wait()
        del waiting[job]
        if isinstance(slot[1], BaseException):
            raise slot[1]
        return slot[1]

    tools = Tools({direction: replace(Engine.of(lexicon, functools.partial(decode, direction)),
                                      setup=functools.partial(setups.get, direction, 0.0))
                   for direction, lexicon in made.items()})

    def run(job: int, fn: Callable, args: tuple) -> None:
        current.job = job
        try:
            reply = ("done", job, fn(tools, *args))
        except BaseException as e:
            reply = ("error", job, _sendable(e))
        send(reply)
        cancelled.discard(job)

    # a thread a job, kept for the next job once done: starting one took ~0.15 ms of a request's ~2.5 ms here (py-spy,
    # 32 clients); as many at once as jobs are (each waits for its decoding), never a job queued behind others
    jobs = ThreadPoolExecutor(JOB_THREADS, "mtcli-job")
    send(("ready",))
    while True:
        try:
            op, *rest = pipe.recv()
        except (EOFError, OSError):
            break
        if op == "job":
            jobs.submit(run, *rest)
        elif op in ("decoded", "cancel"):
            job = rest[0]
            if op == "cancel":
                cancelled.add(job)
            elif len(rest) > 2:  # (before the job's thread wakes: its budget reads them)
                setups.update(rest[2])
            if slot := waiting.get(job):
                slot[1] = rest[1] if op == "decoded" else Cancelled()
                slot[0].set()
        elif op == "close":
            break
    pipe.close()
    os._exit(0)  # (a job still at its text work is abandoned: the server has stopped waiting for it)
