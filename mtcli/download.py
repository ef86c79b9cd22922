"""Fetch the public spa-eng archive (the one TensorFlow's tutorials use) and unpack it."""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from mtcli.errors import UserError
from mtcli.atomic import atomic_write_bytes

URL = "http://storage.googleapis.com/download.tensorflow.org/data/spa-eng.zip"
SPA_SHA256 = "6ec60e212f812ee3430f7568ea6f33b6fb080e32193c5952e8da0ee8ba45574c"  # spa.txt, 118,964 pairs
SPA, ABOUT = "spa-eng/spa.txt", "spa-eng/_about.txt"
CHUNK = 1 << 16
TIMEOUT = 30  # seconds without data before giving up

# Called with (bytes received so far, total bytes or None when the server does not say).
Progress = Callable[[int, "int | None"], None]


def _fetch(url: str, f: BinaryIO, progress: Progress, dest_dir: Path) -> None:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            total = int(response.headers.get("Content-Length") or 0) or None
            done = 0
            while chunk := response.read(CHUNK):
                f.write(chunk)
                done += len(chunk)
                progress(done, total)
    except urllib.error.HTTPError as e:
        raise UserError(f"could not download {url}: the server answered HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise UserError(
            f"could not download {url} ({reason}). Without network: copy spa-eng.zip from a machine that "
            f"has it and unzip it into {dest_dir}, or point --data / MTCLI_DATA at your spa.txt or CSV corpus"
        ) from None


def _unpack(f: BinaryIO, url: str) -> tuple[bytes, bytes | None]:
    """spa.txt and _about.txt (if there) from the archive. Only these known names are read:
    archive paths are never used as given."""
    try:
        with zipfile.ZipFile(f) as z:
            names = set(z.namelist())
            if SPA not in names:
                raise UserError(f"{url} is not the spa-eng archive: it has no {SPA}")
            return z.read(SPA), z.read(ABOUT) if ABOUT in names else None
    except (zipfile.BadZipFile, OSError) as e:
        raise UserError(f"{url} did not give a readable zip archive ({e})") from None


def download(
    dest_dir: str | os.PathLike = "data",
    url: str = URL,
    sha256: str = SPA_SHA256,
    progress: Progress = lambda done, total: None,
    force: bool = False,
) -> tuple[Path, bool]:
    """Download and unpack the corpus to dest_dir/spa-eng/spa.txt.

    Returns the path and whether anything was downloaded (False: a verified copy was there).
    The archive goes to a temporary file and each member is written to a temporary name
    and renamed, so an interrupted run never leaves a partial spa.txt behind.
    """
    dest_dir = Path(dest_dir)
    target = dest_dir / SPA
    sha256 = sha256.lower()
    if not force and target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == sha256:
        return target, False
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=dest_dir, prefix=".spa-eng.", suffix=".zip.tmp")
    except OSError as e:
        raise UserError(f"cannot write to {dest_dir}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "w+b") as f:
            _fetch(url, f, progress, dest_dir)
            spa, about = _unpack(f, url)
    finally:
        os.unlink(tmp)
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
