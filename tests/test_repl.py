"""The interactive translator under a real terminal (a pty): arrow keys edit and recall, history persists."""

import os
import pty
import select
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX only")


def _session(home, keys: list[bytes], timeout: float = 60.0) -> str:
    """Run `mtcli translate` on a pty, send each key string after the previous answer, return the screen."""
    main, sub = pty.openpty()
    env = {**os.environ, "MTCLI_HOME": str(home), "TERM": "xterm", "COLUMNS": "120"}
    proc = subprocess.Popen([sys.executable, "-m", "mtcli", "translate", "--greedy"], stdin=sub, stdout=sub,
                            stderr=sub, env=env, cwd=REPO, close_fds=True)
    os.close(sub)
    screen = b""

    def read_until(marker: bytes, count: int) -> None:
        nonlocal screen
        deadline = time.time() + timeout
        while screen.count(marker) < count and time.time() < deadline:
            if select.select([main], [], [], 0.5)[0]:
                try:
                    screen += os.read(main, 4096)
                except OSError:
                    return

    try:
        read_until(b"en> ", 1)
        for i, key in enumerate(keys, 1):
            os.write(main, key)
            read_until(b"en> ", i + 1)
        os.write(main, b"\x04")  # Ctrl-D
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    return screen.decode("utf-8", "replace")


def test_arrow_keys_recall_and_history_persists(tmp_path):
    first = _session(tmp_path, [b"The plant is green.\r", b"\x1b[A\r"])
    assert "^[[A" not in first and "\x1b[A" not in first.replace("\x1b[A\r", "")
    assert first.count("es> La planta es verde.") == 2, first  # the up arrow brought the sentence back
    assert "The plant is green." in (tmp_path / "history").read_text()
    second = _session(tmp_path, [b"\x1b[A\x1b[DX\r"])  # a new session: recall, move left, insert
    assert "es> " in second, second
    assert (tmp_path / "history").read_text().splitlines()[-1] == "The plant is greenX."  # the edited line ran
