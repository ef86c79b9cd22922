"""What the HTTP layer refuses before a route sees the request: conflicting framing and oversized heads.

uvicorn parses with h11 here, chosen over httptools (measured with raw sockets, uvicorn 0.54, httptools
0.9): httptools refuses a request with both Content-Length and Transfer-Encoding by itself, but keeps
a head of any size in memory while it arrives, and neither limits a head that arrives whole (80 KB was
answered 200); h11 holds at most `h11_max_incomplete_event_size` bytes of an unfinished head, and
reads a body both framings claim as chunked, answering what follows it as a second request (request
smuggling behind a proxy). So: h11's buffer bound set to the head limit, and this middleware for the rest; a
parser error answered with the status h11 gives it (uvicorn answers all 400; guessing 431 from the bytes buffered
answered a malformed head followed by more than the limit 431).

And a connection is closed the way RFC 9112 section 9.6 asks: our side first (FIN), what the client still
sends read and dropped until it closes too or LINGER_SECONDS pass. Closed at once with bytes unread
(a refused head, a body the route did not read), the kernel resets it, and the client, still sending,
may never read the answer (measured: a 2 MB body with `Connection: close` got its 413, then a reset).
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

LINGER_SECONDS = 2.0
CHUNK = "mtcli.chunk"  # the scope's key of the largest chunk announced and still unsent (Protocol._announce)
HEAD_TOO_LARGE = "Request header fields too large: the request line and headers exceed {limit:,} bytes"


def _json(status: int, message: str) -> tuple[dict, dict]:
    body = json.dumps({"error": message}).encode()
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                         (b"connection", b"close")]}  # (uvicorn closes the connection after it)
    return start, {"type": "http.response.body", "body": body}


class Guard:
    """ASGI middleware: a request head over `limit` bytes gets 431, a request with both Content-Length
    and Transfer-Encoding 400 (RFC 9112 section 6.1), each with the connection closed: whatever follows
    on it is never answered as another request."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            names = {name for name, _ in scope["headers"]}
            size = (len(scope["method"]) + len(scope.get("raw_path") or b"") + len(scope["query_string"]) + 12
                    + sum(len(name) + len(value) + 4 for name, value in scope["headers"]))
            refusal = None
            if size > self.limit:
                refusal = 431, HEAD_TOO_LARGE.format(limit=self.limit)
            elif b"content-length" in names and b"transfer-encoding" in names:
                refusal = 400, "Invalid request: both Content-Length and Transfer-Encoding (the body's length is ambiguous)"
            if refusal:
                for message in _json(*refusal):
                    await send(message)
                return
        await self.app(scope, receive, send)


class _LingeringTransport:
    """uvicorn's transport, whose close() ends our side of the connection and lingers (see above)."""

    def __init__(self, transport, protocol: Protocol):
        self._transport, self._protocol, self._closing = transport, protocol, False

    def __getattr__(self, name: str):
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self._closing or self._transport.is_closing()

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        transport = self._transport
        if transport.is_closing() or not transport.can_write_eof():
            transport.close()
            return
        self._protocol.discarding = True
        transport.write_eof()  # (after what is still buffered: the answer)
        transport.resume_reading()  # (paused while a route did not read the body)
        self._protocol.loop.call_later(LINGER_SECONDS, transport.close)  # (at once when the client closes: eof_received)


class StatusConnection(h11.Connection):
    """h11's connection, keeping the status its last protocol error called for (uvicorn drops the error)."""

    status = 400

    def next_event(self):
        try:
            return super().next_event()
        except h11.RemoteProtocolError as e:
            self.status = e.error_status_hint
            raise


# A parser error's answer by the status h11 gives it. RFC 9112: a head that does not parse is 400 (section 2.2),
# whatever follows it; one still unfinished at the buffer bound is too large (431, RFC 6585; a whole head over the
# limit gets it from Guard); a transfer coding other than chunked is not implemented (501, section 6.1)
_ANSWERS = {431: (b"Request Header Fields Too Large", HEAD_TOO_LARGE),
            501: (b"Not Implemented", "Not implemented: a Transfer-Encoding other than chunked")}


class Protocol(H11Protocol):
    """uvicorn's h11 protocol on a lingering transport, answering each parser error with the status h11 gives
    it (_ANSWERS; uvicorn answers every one 400), as JSON."""

    discarding = False  # our side is closed: what the client sends is dropped
    ended = False  # the client ended its side after a request: closed once the answers are sent

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.conn = StatusConnection(h11.SERVER, self.config.h11_max_incomplete_event_size)

    def connection_made(self, transport) -> None:
        super().connection_made(_LingeringTransport(transport, self))

    def data_received(self, data: bytes) -> None:
        if not self.discarding:
            super().data_received(data)
            self._announce()

    def _announce(self) -> None:
        """The largest chunk a chunked body has announced and not yet sent, in the request's scope (CHUNK): the
        route reading the body is woken to compare it with its limit, so a chunk size past it gets its 413 now,
        not when the body deadline passes (h11 keeps the size unread in its reader; it has no public API)."""
        pending = getattr(getattr(self.conn, "_reader", None), "_bytes_in_chunk", 0)
        if self.cycle is not None and pending > self.cycle.scope.get(CHUNK, 0):
            self.cycle.scope[CHUNK] = pending
            self.cycle.message_event.set()

    def eof_received(self) -> bool | None:
        """A client that ends its side after a whole request (`shutdown(SHUT_WR)`, `nc -N`) still gets its answer
        (and those of requests pipelined before its end), then the connection is closed: a half-close is no
        cancellation (RFC 9112 section 9.6); asyncio had closed it at once, the answer lost. A request whose body
        can now never arrive is answered 400 (it had waited for the body deadline, or got nothing); idle: closed."""
        if self.discarding:
            return None
        if self.conn.their_state is h11.DONE and self.conn.our_state in (h11.SEND_RESPONSE, h11.SEND_BODY):
            self.ended = True
            return True
        if self.conn.their_state is h11.SEND_BODY and self.conn.our_state is h11.SEND_RESPONSE:
            self._cut_short()
        return None

    def _cut_short(self) -> None:
        """A 400 for a request whose body can never arrive; its route, still reading it, is told the client left
        (as uvicorn tells it at a lost connection): what it answers then goes nowhere."""
        if self.cycle is not None:
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self.send_400_response("the body ended early")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.ended or self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:  # (no pipelined request begun)
            self.transport.close()
        elif self.conn.their_state is not h11.DONE:  # (one begun, whose rest can never come)
            self._cut_short()

    def send_400_response(self, msg: str) -> None:
        status = self.conn.status if self.conn.status in _ANSWERS else 400
        reason, message = _ANSWERS.get(status, (b"Bad Request", "Invalid HTTP request"))
        start, body = _json(status, message.format(limit=self.config.h11_max_incomplete_event_size))
        try:
            for event in (h11.Response(status_code=status, headers=start["headers"], reason=reason),
                          h11.Data(data=body["body"]), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:  # (in the middle of another answer: nothing more can be said)
            pass
        self.transport.close()
