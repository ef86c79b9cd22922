"""A decoder in a process of its own: the batcher's stream (decode.TranslationStream) behind a pipe.

A decoding thread of the server's own process would share the GIL with the threads that read, parse
and format requests, and with the other decoders; each waits for it between its kernel calls, dozens
of times a step. In its own process a decoder waits for nothing but its pipe (measured: two decoders
of 16 sentences each, beam 4, the shipped ensemble: 148 sentences/s as threads of one process, 160 as
processes). Messages are lines in and n-best lists out, a few hundred bytes a step.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

import mtcli
from mtcli.config import TranslationOptions


class DecoderProcess:
    """The batcher's Stream protocol, served by a child process that loads the model itself."""

    def __init__(self, model_dir: Path, slots: int, options: TranslationOptions):
        # a new interpreter (`python -m mtcli.serve.worker`), not multiprocessing's spawn: that would
        # import the embedding program's main module again in the child
        ours, theirs = socket.socketpair()
        root = str(Path(mtcli.__file__).parent.parent)  # this mtcli, wherever the child's path would look
        env = os.environ | {"PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
        with theirs:
            self._process = subprocess.Popen([sys.executable, "-m", "mtcli.serve.worker", str(theirs.fileno())],
                                             pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=env)
        self._pipe = Connection(ours.detach())
        self.cpu = 0.0  # CPU seconds the child has spent on add and step
        self.free = slots
        self._call("open", str(model_dir), slots, options)

    def _call(self, op: str, *args):
        try:
            self._pipe.send((op, *args))
            ok, value, self.free, cpu = self._pipe.recv()
        except (EOFError, OSError):  # the child died (killed, out of memory): this stream is over
            self.close()
            raise RuntimeError(f"the decoder process stopped (exit code {self._process.returncode})") from None
        self.cpu += cpu
        if not ok:
            raise value
        return value

    def add(self, lines: list[str]) -> list[int]:
        return self._call("add", lines)

    def step(self) -> list:
        return self._call("step")

    def close(self) -> None:
        """End the child: it leaves when its pipe closes; a stuck one is killed after a few seconds."""
        self._pipe.close()
        try:
            self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _open(model_dir: str, slots: int, options: TranslationOptions):
    """The child's stream: the model loaded, its compiled kernels too."""
    from mtcli.decode import Translator

    translator = Translator(model_dir, inter_threads=1)
    translator.translate(["Hello."], beam=options.beam_size)  # loads the compiled kernels
    return translator.stream(slots, options)


def _serve(pipe: Connection) -> None:
    """The child: answer the parent's calls until the pipe closes. Ctrl-C and SIGTERM are the parent's
    to handle (it finishes the requests in flight, then closes the pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    import numba
    from threadpoolctl import threadpool_limits

    import mtcli.decode  # noqa: F401 (NumPy's BLAS loaded, so that the limit below reaches it)

    # one core each (the server runs one decoder per core): idle threads of a parallel kernel or of
    # BLAS would spin on the other decoders' cores
    numba.set_num_threads(1)
    stream = None
    with threadpool_limits(limits=1, user_api="blas"):
        while True:
            try:
                op, *args = pipe.recv()
            except EOFError:
                return
            cpu = time.thread_time()
            try:
                if op == "open":
                    stream = _open(*args)
                    reply = True, None
                else:
                    reply = True, getattr(stream, op)(*args)
            except Exception as e:
                reply = False, e
            pipe.send((*reply, stream.free if stream else 0, time.thread_time() - cpu))


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
