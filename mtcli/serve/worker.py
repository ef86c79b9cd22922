"""A decoder in a process of its own: a decode.TranslationStream stepping on its own, lines sent to it
and finished translations sent back through a socket pair.

A decoding thread of the server's process would share the GIL with the threads that read, parse and
format requests, and with the other decoders: each waits for it between its kernel calls, dozens of
times a step (measured: two decoders of 16 sentences each, beam 4, the shipped ensemble: 148
sentences/s as threads of one process, 160 as processes). And the decoder steps without waiting for
the server between steps: it takes the lines sent meanwhile before each step and sends a line back
once it is done, so a step costs no round trip (~80 us each on this machine, ~15 a sentence).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

from mtcli.config import TranslationOptions

START_SECONDS = 120.0  # for a decoder to load its model (seconds on an idle machine; a stuck one is ended)
IDLE_SECONDS = 2.0  # a decoder with nothing to do this long gives back what its caches took (stream.release)
Stats = tuple[int, int, float, float, float]  # steps, lines in progress summed over them, wall and CPU seconds,
# and the seconds the lines joined waited from being sent to the start of their joining (summed)


class Decoder:
    """The server's end of a decoder that runs `decode_lines` (in a process, or a thread in tests):
    lines go in by id (`send`), come out translated as the decoder finishes them (`receive`)."""

    def __init__(self, pipe: Connection, slots: int):
        self.pipe, self.slots = pipe, slots  # slots: lines it decodes at once; never send more
        self.stopping = False

    def send(self, ids: list[int], lines: list[str]) -> None:
        try:
            self.pipe.send(("add", ids, lines, time.monotonic()))  # (the clock is the system's: the child reads it)
        except OSError:  # it has stopped: receive() reports why
            pass

    def receive(self) -> tuple[list[tuple[int, object]], Stats]:
        """The lines done since the last call (id, TranslationResult), and the decoder's work since
        then. Waits for some; raises the decoder's error, or DecoderStopped when it has ended."""
        kind, value, stats = self._recv()
        if kind == "error":
            raise value
        return value, stats

    def _recv(self):
        try:
            return self.pipe.recv()
        except (EOFError, OSError):
            raise DecoderStopped(f"the decoder stopped{self._why()}") from None

    def _why(self) -> str:
        return ""

    def stop(self) -> None:
        """Ask it to end; receive() then raises DecoderStopped."""
        self.stopping = True
        try:
            self.pipe.send(("close",))
        except OSError:
            pass

    def kill(self) -> None:
        """End it now (a stuck decoder, at shutdown): receive() raises DecoderStopped at once."""
        self.stopping = True
        with contextlib.suppress(OSError):  # (closed already: it has ended)
            with socket.socket(fileno=os.dup(self.pipe.fileno())) as end:
                end.shutdown(socket.SHUT_RDWR)  # (wakes a receive() blocked on it, as close() would not)

    def close(self) -> None:
        """Once it has ended (receive() raised): release the pipe."""
        self.pipe.close()


class DecoderStopped(RuntimeError):
    pass


# The child finds modules as this process does, on its sys.path (sent first). Not `python -m`, which
# puts the current directory first (a random.py there would run in the child), nor multiprocessing's
# spawn, which imports the embedding program's main module again in the child.
_CHILD = ("import sys; del sys.path[0]; from multiprocessing.connection import Connection; "
          "pipe = Connection(int(sys.argv[1])); sys.path[:] = pipe.recv(); "
          "from mtcli.serve.worker import main; main(pipe)")


class DecoderProcess(Decoder):
    """A Decoder in a child process (a new interpreter) that loads the model itself."""

    def __init__(self, model_dir: Path, slots: int, options: TranslationOptions, parallel: bool = False):
        """parallel: an ensemble's members stepped in two threads (decode.Members)."""
        ours, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen([sys.executable, "-c", _CHILD, str(theirs.fileno())],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                            start_new_session=True)  # (a terminal's Ctrl-C is not for it)
        super().__init__(Connection(ours.detach()), slots)
        try:
            self.pipe.send(sys.path)
            self.pipe.send((str(model_dir), slots, options, parallel))
            if not self.pipe.poll(START_SECONDS):
                self.process.kill()
                raise DecoderStopped(f"the decoder did not start within {START_SECONDS:g} s")
            kind, value, _ = self._recv()  # ("ready", ...) once the model is loaded
            if kind == "error":
                raise value
        except BaseException:
            self.close()
            raise

    def _why(self) -> str:
        try:
            self.process.wait(1)  # its pipe closes as it dies: reaped a moment later
        except subprocess.TimeoutExpired:
            pass
        return f" (exit code {self.process.returncode})" if self.process.returncode is not None else ""

    def kill(self) -> None:
        self.process.kill()
        super().kill()

    def close(self) -> None:
        """Release the pipe and wait for the child (it leaves when the pipe closes; killed if stuck)."""
        super().close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def decode_lines(pipe: Connection, stream) -> None:
    """The decoder's loop: step the stream while it has lines in progress, taking the lines sent
    meanwhile before every step (waiting for some when it has none, its caches released once it has
    waited IDLE_SECONDS) and sending each line back once done. Ends when told to (or the pipe closes);
    an error is sent back and ends it too."""
    owner: dict[int, int] = {}  # slot -> the line's id
    work = [0, 0, 0.0, 0.0, 0.0]  # Stats since the last message: at work is joining (the encoder) and stepping

    def timed(fn, *args):
        start, start_cpu = time.perf_counter(), time.thread_time()
        try:
            return fn(*args)
        finally:
            work[2] += time.perf_counter() - start
            work[3] += time.thread_time() - start_cpu

    def take() -> bool:
        """The next message and every one sent meanwhile read, their lines joined in one call: lines sent one by
        one during a step are encoded together, as offline's are (a line joining alone cost 3.0-3.3 ms of CPU, two
        at once 2.2 a line, four 2.1: docs/serve.md). False when told to stop."""
        ids, lines, sent = [], [], []
        while True:
            try:
                op, *args = pipe.recv()
            except EOFError:
                return False
            if op == "close":
                return False
            if op == "add":
                ids += args[0]
                lines += args[1]
                sent += [args[2]] * len(args[1])
            if not pipe.poll():
                break
        if lines:
            now = time.monotonic()
            work[4] += sum(now - t for t in sent)
            owner.update(zip(timed(stream.add, lines), ids))
        return True

    def rest() -> bool:
        """(Nothing in progress.) take(), the stream's memory released first if nothing comes meanwhile."""
        if not pipe.poll(IDLE_SECONDS) and hasattr(stream, "release"):  # (the tests' stand-ins hold none)
            stream.release()
        return take()

    try:
        while owner or rest():
            if pipe.poll() and not take():
                return
            if owner:
                work[0], work[1] = work[0] + 1, work[1] + len(owner)
                if done := timed(stream.step):
                    pipe.send(("done", [(owner.pop(slot), result) for slot, result in done], tuple(work)))
                    work = [0, 0, 0.0, 0.0, 0.0]
    except Exception as e:
        with contextlib.suppress(OSError):  # (the server's end is gone: killed, or it ended this decoder)
            pipe.send(("error", e, tuple(work)))
    finally:
        pipe.close()


def _open(model_dir: str, slots: int, options: TranslationOptions, parallel: bool):
    """The child's stream: the model loaded, its compiled kernels too."""
    from mtcli.decode import Translator

    translator = Translator(model_dir, inter_threads=1)
    stream = translator.stream(slots, options, parallel)  # (the compiled kernels from now on)
    translator.translate_batch(["Hello."], options)  # their code loaded now, not at the first request
    return stream


def main(pipe: Connection) -> None:
    """The child process (see _CHILD), its model directory, slots and options sent next. Ctrl-C and
    SIGTERM are the server's to handle: it finishes the requests in flight, then stops its decoders."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    import numba
    from threadpoolctl import threadpool_limits

    import mtcli.decode  # noqa: F401 (NumPy's BLAS loaded, so that the limit below reaches it)

    # one core each (the server runs one decoder per core): idle threads of a parallel kernel or of
    # BLAS would spin on the other decoders' cores
    numba.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        try:
            stream = _open(*pipe.recv())
            reply = "ready", None, None
        except EOFError:
            return
        except Exception as e:
            stream, reply = None, ("error", e, None)
        with contextlib.suppress(OSError):  # (the server is gone)
            pipe.send(reply)
        if stream is not None:
            decode_lines(pipe, stream)


