"""Fetch the public spa-eng archive (the one TensorFlow's tutorials use) and unpack it.

Every resource is bounded, so a hostile or broken server cannot hang or exhaust the machine: the
download's size and total time, a stall (too little data for too long, also one byte at a time),
and the unpacked size and compression ratio of each member, checked before it is decompressed.
The archive stays in memory (it is capped), so no temporary file can be left behind; the unpacked
files are written atomically.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

from mtcli.atomic import atomic_write_bytes
from mtcli.config import DEFAULT_DOWNLOAD_DIR
from mtcli.errors import UserError

URL = "http://storage.googleapis.com/download.tensorflow.org/data/spa-eng.zip"
SPA_SHA256 = "6ec60e212f812ee3430f7568ea6f33b6fb080e32193c5952e8da0ee8ba45574c"  # spa.txt, 118,964 pairs
SPA, ABOUT = "spa-eng/spa.txt", "spa-eng/_about.txt"
CHUNK = 1 << 16
# The real archive is 2.6 MB and spa.txt 8.3 MB (ratio 3.2): the limits leave room for other releases.
MAX_DOWNLOAD = 64 << 20  # bytes of archive
MAX_SECONDS = 600.0  # the whole download
STALL_SECONDS = 30.0  # at most this long without STALL_BYTES more arriving (or the end)
STALL_BYTES = 16 << 10
MAX_MEMBER = 256 << 20  # unpacked bytes of one member
MAX_RATIO = 50  # unpacked / packed size of one member (text compresses 3-5 times; bombs 1000 times)

# Called with (bytes received so far, total bytes or None when the server does not say).
Progress = Callable[[int, "int | None"], None]


def _userinfo(url: str) -> tuple[str, str]:
    """(what comes before the authority, its user:password part without the @; "" when there is none)."""
    head, sep, rest = url.partition("//")
    if not sep:
        return url, ""
    netloc = re.split(r"[/?#]", rest, maxsplit=1)[0]
    return head + sep, netloc.rpartition("@")[0]


def redact(url: str) -> str:
    """`url` as messages show it: user:password@ as user:***@, a lone user (often a token) as ***@."""
    head, userinfo = _userinfo(url)
    if not userinfo:
        return url
    user, colon, _ = userinfo.partition(":")
    return head + (f"{user}:***" if colon else "***") + url[len(head) + len(userinfo):]


def _secrets(url: str) -> list[str]:
    """What of `url` no message may show: its user:password part, its password and a lone user, raw
    and percent-decoded (urllib and http.client quote pieces of it in their own errors). Longest first;
    a piece under 3 characters is left, or any message would lose its letters."""
    userinfo = _userinfo(url)[1]
    user, colon, password = userinfo.partition(":")
    pieces = {userinfo, password, urllib.parse.unquote(password)} | (set() if colon else {user, urllib.parse.unquote(user)})
    return sorted((p for p in pieces if len(p) >= 3), key=len, reverse=True)


def _scrubbed(message: str, url: str) -> str:
    message = message.replace(url, redact(url))
    for secret in _secrets(url):
        message = message.replace(secret, "***")
    return message


def _request(url: str) -> urllib.request.Request | str:
    """The request for `url`: its user:password (if any) sent as HTTP basic authentication to that host
    only (an unredirected header: a redirect elsewhere does not get it), not as part of the host."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url
    import base64

    bare = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    request = urllib.request.Request(bare)
    token = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    request.add_unredirected_header("Authorization", "Basic " + base64.b64encode(token.encode()).decode("ascii"))
    return request


def _no_network(url: str, dest_dir: Path, reason) -> UserError:
    return UserError(
        f"could not download {url} ({reason}). Without network: copy spa-eng.zip from a machine that "
        f"has it and unzip it into {dest_dir}, or point --data / MTCLI_DATA at your spa.txt or CSV corpus"
    )


def _fetch(url: str, progress: Progress, dest_dir: Path) -> bytes:
    started = time.monotonic()
    buf = bytearray()
    try:
        with urllib.request.urlopen(_request(url), timeout=STALL_SECONDS) as response:  # timeout: silence per read
            total = int(response.headers.get("Content-Length") or 0) or None
            if total is not None and total > MAX_DOWNLOAD:
                raise UserError(f"{url} is {total:,} bytes, over the {MAX_DOWNLOAD:,}-byte limit: not the spa-eng archive")
            mark, marked_at = 0, started
            while chunk := response.read1(CHUNK):  # read1: whatever arrived, so a trickle is seen as one
                buf += chunk
                now = time.monotonic()
                if len(buf) > MAX_DOWNLOAD:
                    raise UserError(f"{url} sent over {MAX_DOWNLOAD:,} bytes: not the spa-eng archive")
                if now - started > MAX_SECONDS:
                    raise UserError(f"downloading {url} took over {MAX_SECONDS:g} s; try again or copy the file by hand")
                if len(buf) - mark >= STALL_BYTES:
                    mark, marked_at = len(buf), now
                elif now - marked_at > STALL_SECONDS:
                    raise UserError(f"{url} stalled: under {STALL_BYTES:,} bytes in {STALL_SECONDS:g} s")
                progress(len(buf), total)
    except urllib.error.HTTPError as e:
        raise UserError(f"could not download {url}: the server answered HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as e:
        raise _no_network(url, dest_dir, getattr(e, "reason", None) or e or type(e).__name__) from None
    return bytes(buf)


def _member(z: zipfile.ZipFile, name: str, url: str) -> bytes:
    """One member, its declared sizes checked before anything is decompressed (zipfile never
    produces more than the declared size, so the check bounds the memory used)."""
    info = z.getinfo(name)
    if info.file_size > MAX_MEMBER or info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise UserError(f"{url}: {name} would unpack to {info.file_size:,} bytes from {info.compress_size:,} "
                        f"(limits: {MAX_MEMBER:,} bytes, ratio {MAX_RATIO}): not the spa-eng archive")
    with z.open(info) as f:
        data = f.read(MAX_MEMBER + 1)
    if len(data) > MAX_MEMBER:
        raise UserError(f"{url}: {name} unpacks to over {MAX_MEMBER:,} bytes")
    return data


def _unpack(archive: bytes, url: str) -> tuple[bytes, bytes | None]:
    """spa.txt and _about.txt (if there) from the archive. Only these known names are read:
    archive paths are never used as given."""
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as z:
            names = set(z.namelist())
            if SPA not in names:
                raise UserError(f"{url} is not the spa-eng archive: it has no {SPA}")
            return _member(z, SPA, url), _member(z, ABOUT, url) if ABOUT in names else None
    except UserError:
        raise
    except Exception as e:  # zipfile, zlib, bz2 and lzma raise many types for damaged or odd archives
        reason = (str(e).splitlines() or [""])[0]
        raise UserError(f"{url} did not give a readable zip archive ({type(e).__name__}: {reason})") from None


def download(
    dest_dir: str | os.PathLike = DEFAULT_DOWNLOAD_DIR,
    url: str = URL,
    sha256: str = SPA_SHA256,
    progress: Progress = lambda done, total: None,
    force: bool = False,
) -> tuple[Path, bool]:
    """Download and unpack the corpus to dest_dir/spa-eng/spa.txt.

    Returns the path and whether anything was downloaded (False: a verified copy was there).
    Each member is written to a temporary name and renamed, so an interrupted run never leaves a
    partial spa.txt behind.
    """
    try:
        return _download(Path(dest_dir), url, sha256, progress, force)
    except UserError as e:  # every message names the URL without its password
        raise UserError(_scrubbed(str(e), url)) from None


def _download(dest_dir: Path, url: str, sha256: str, progress: Progress, force: bool) -> tuple[Path, bool]:
    from mtcli.guards import check_writable

    target = dest_dir / SPA
    sha256 = sha256.lower()
    if not re.fullmatch("[0-9a-f]{64}", sha256):
        raise UserError(f"--sha256 {sha256[:80]!r} is not a SHA-256 (64 hexadecimal digits)")
    if dest_dir.exists() and not dest_dir.is_dir():
        raise UserError(f"{dest_dir} is a file; give a directory to unpack into")
    try:
        if not force and target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == sha256:
            return target, False
    except OSError as e:
        raise UserError(f"cannot read {target}: {e.strerror or e}") from None
    check_writable(dest_dir / "spa-eng", "--dest", directory=True)  # before the download, not after it
    spa, about = _unpack(_fetch(url, progress, dest_dir), url)
    got = hashlib.sha256(spa).hexdigest()
    if got != sha256:
        raise UserError(
            f"{SPA} from {url} has SHA-256 {got}, not {sha256}: "
            "a damaged download or another version (--sha256 accepts another)"
        )
    if about is not None:
        atomic_write_bytes(dest_dir / ABOUT, about)
    atomic_write_bytes(target, spa)  # last: a verified spa.txt means the download is complete
    return target, True
