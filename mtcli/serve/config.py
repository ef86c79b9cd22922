"""Every default of `mtcli serve` in one place (the CLI's options take theirs from here)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from mtcli import threads_per_process
from mtcli.config import DEFAULTS, SENTENCES_PER_BATCH, TranslationOptions
from mtcli.errors import UserError


@dataclass(frozen=True)
class ServeConfig:
    host: str = "127.0.0.1"  # loopback: reachable from this machine only unless asked otherwise
    port: int = 5000  # LibreTranslate's port, so clients' defaults work
    api_key: str | None = None  # when set, /translate and /detect need it (field `api_key`)
    # decoding: `mtcli translate`'s defaults
    beam: int = DEFAULTS.beam_size
    alpha: float = DEFAULTS.length_penalty  # length normalisation exponent
    max_batch: int = SENTENCES_PER_BATCH  # sentences each decoder has in progress at once (see batcher)
    decoders: int = field(default_factory=threads_per_process)  # batches decoded at once, one process
    # each, one per core (one batch split over the cores would wait for its slowest part at every step),
    # shared among the directions served, at least one each (app.decoders_each; docs/serve.md: memory)
    parallel_members: bool = False  # an ensemble's decoder steps its members in two threads (decode.Members) and
    # takes two of the cores: one decoder of twice the sentences a step instead of two (app.decoders_of). Less CPU a
    # request and 165 MB less, but its threads wait for each other at every step: on a loaded machine it answered
    # fewer sentences a second at 32 clients; not yet measured idle (docs/serve.md)
    # what one request may ask
    char_limit: int = 20_000  # characters of all texts in one request
    batch_limit: int = 128  # texts in one request (a list `q`)
    body_limit: int = 1 << 20  # bytes of a request body
    file_limit: int = 8 << 20  # bytes of a file sent to /translate_file (its request body: this and its fields)
    file_seconds: float = 600.0  # how long a translated file can be downloaded from /download_file
    body_timeout: float = 10.0  # seconds to receive a request body (slow clients get 408)
    header_limit: int = 16 * 1024  # bytes of a request's line and headers (beyond: 431)
    request_timeout: float = 60.0  # seconds a request's work may take once its body is in (beyond: 503
    # and Retry-After; its text work and decoding are cancelled); a decoder answering nothing this long
    # (at least 10 s) while it holds sentences is ended and started again
    # what the server takes on at once
    queue_limit: int = 100_000  # characters admitted and not yet answered; beyond it: 429
    formatters: int = field(default_factory=lambda: max(2, threads_per_process()))  # processes that do
    # the requests' text work (each request's in a thread of one of them), off the event loop
    max_connections: int = 512  # open connections and requests (uvicorn answers 503 beyond)
    shutdown_timeout: float = 30.0  # seconds that requests in flight get to finish on Ctrl-C / SIGTERM
    glossary: str | None = None  # a glossary file for every request (a request's own terms win over its)
    glossary_terms: int = 1_000  # terms a request's `glossary` field may hold
    check: bool = True  # /translate's `quality` of each text (mtcli.confidence), where the model has a fitted check

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name not in ("host", "port", "api_key", "alpha", "glossary", "check", "parallel_members") and value <= 0:
                raise UserError(f"{f.name.replace('_', '-')} must be positive, not {value}")
        if self.char_limit > self.queue_limit:
            raise UserError(f"char-limit {self.char_limit:,} exceeds queue-limit {self.queue_limit:,}: "
                            "a request that large could never be admitted")

    @property
    def decoding(self) -> TranslationOptions:
        """How the server decodes, every request alike. nbest = beam: the beam's other finished hypotheses cost
        nothing more, so every request's alternatives come from one decoding and any requests can share a
        batch; max_batch sentences at once; nothing checked (mtcli.confidence is the CLI's)."""
        return TranslationOptions(beam_size=self.beam, num_hypotheses=self.beam, length_penalty=self.alpha,
                                  max_batch_size=self.max_batch, batch_type="examples", check="off")

    @property
    def alternatives_limit(self) -> int:
        """The beam's other hypotheses are the alternatives a request can ask for."""
        return self.beam - 1
