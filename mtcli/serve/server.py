"""Load the models once (one per direction), bind the socket, run uvicorn until Ctrl-C or SIGTERM."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from mtcli.errors import UserError
from mtcli.serve.config import ServeConfig


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 takes a free one (its number is in getsockname())."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as e:  # gaierror for a bad host name, EADDRINUSE, EACCES for ports below 1024
        raise UserError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def load(model_dirs) -> list:
    """The Translators of a model directory or a list of them, one per direction (each model says its
    own); two of one direction are refused."""
    from mtcli.decode import Translator

    translators = []
    for model_dir in [model_dirs] if isinstance(model_dirs, (str, Path)) else model_dirs:
        translator = Translator(model_dir, inter_threads=1)
        if any(t.direction == translator.direction for t in translators):
            raise UserError(f"two models of one direction ({translator.direction}): give one")
        translators.append(translator)
    return translators


def drop_unread_members(translators, cfg: ServeConfig) -> None:
    """The server's process decodes nothing (its decoders load the model themselves): an ensemble's members after the
    first are dropped (26 MB resident for the shipped one), unless its check reads them (en-es's: each member's
    log-probability of a translation the decoders kept no reading of; without them that check failed)."""
    from mtcli.confidence import load_fitted
    from mtcli.serve.app import CHECK

    for translator in translators:
        scorer = load_fitted(translator.model_dir, translator.model.cfg.n_layers).scorers.get(CHECK)
        if not (cfg.check and scorer and scorer.reads_members):
            translator.models = translator.models[:1]


def server(model_dirs, cfg: ServeConfig, sock: socket.socket):
    """A uvicorn Server for the models (a model directory or a list of them, one per direction), ready
    to `run(sockets=[sock])` (in this thread or another)."""
    import uvicorn

    from mtcli.serve.app import create_app
    from mtcli.serve.http import Protocol

    # this process reads, checks and answers requests; their text work runs in formatter processes
    # (formatter.py), their decoding in decoder processes (worker.py)
    translators = load(model_dirs)
    drop_unread_members(translators, cfg)
    # its only matrix products are the check's (a request's few sentences read again, app.checkers), and the
    # decoders hold the cores: BLAS threads of its own would spin against them (one sentence checked took
    # 70 ms of CPU with two threads on a loaded machine, 3.3 ms with one)
    from mtcli.decode import _blas

    _blas().limit(limits=1, user_api="blas")
    config = uvicorn.Config(
        create_app(translators, cfg, {t.direction: Path(t.model_dir).name for t in translators}), log_level="info", access_log=False,
        limit_concurrency=cfg.max_connections, timeout_graceful_shutdown=cfg.shutdown_timeout,
        http=Protocol, h11_max_incomplete_event_size=cfg.header_limit)  # (http.py: why h11, and its limits)
    return uvicorn.Server(config)


def serve(model_dirs, cfg: ServeConfig, announce: Callable[[str], None]) -> None:
    """Serve until stopped: requests in flight finish first (up to cfg.shutdown_timeout)."""
    sock = bind(cfg.host, cfg.port)
    srv = server(model_dirs, cfg, sock)
    announce(url(sock))
    srv.run(sockets=[sock])
