"""`mtcli explain` (issue 41): drawn on a real terminal (a pty), without colour (NO_COLOR), on a narrow one; the
drawing itself on a made-up reading."""

import io
import os
import re
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from mtcli.confidence.explain import SHADES, Explained, render

REPO = Path(__file__).resolve().parents[1]
CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _pty(args: list[str], columns: int, **env) -> str:
    """Run mtcli ARGS on a pty COLUMNS wide; return what it drew."""
    main, sub = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mtcli", *args], stdin=sub, stdout=sub, stderr=sub, cwd=REPO,
                            env={**os.environ, "TERM": "xterm", "COLUMNS": str(columns), **env}, close_fds=True)
    os.close(sub)
    screen, deadline = b"", time.time() + 300  # (a loaded machine: the suite runs beside training)
    try:
        while time.time() < deadline:
            if select.select([main], [], [], 0.5)[0]:
                try:
                    chunk = os.read(main, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                screen += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    assert proc.returncode == 0, screen
    return screen.decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX only")
def test_explain_on_a_terminal_without_colour_and_narrow():
    drawn = _pty(["explain", "--layer", "0", "--head", "7", "Where is the station?"], 120)
    assert "\x1b[1m" in drawn  # bold headings on a terminal
    wide = CODES.sub("", drawn)
    assert "translation: ¿Dónde está la estación?" in wide
    assert "0:▁where" in wide and "cross-attention, layer 0, head 7" in wide
    rows = [line for line in wide.splitlines() if line.startswith(("▁¿", "▁est", "[END]"))]
    assert len(rows) >= 3 and any(c in "".join(rows) for c in SHADES[1:]), wide
    plain = _pty(["explain", "Where is the station?"], 120, NO_COLOR="1")
    assert "\x1b[3" not in plain and "\x1b[9" not in plain  # no colour of any kind
    assert "translation: ¿Dónde está la estación?" in CODES.sub("", plain)
    long = "I think that the museum in the old town is closed on Mondays and Tuesdays until the spring."
    narrow = CODES.sub("", _pty(["explain", long], 30))
    assert all(len(line) <= 30 for line in narrow.splitlines() if line.startswith("▁") and " " in line), narrow


def _drawn(no_color: bool, width: int = 80) -> str:
    e = Explained(["▁where", "▁is", "?"], ["▁dónde", "▁está", "[END]"], np.array([0.9, 0.1, 0.8]),
                  np.array([[1.0, 0, 0], [0, 0.5, 0], [0, 0, 0.2]]), "¿Dónde está?", 1, None)
    out = io.StringIO()
    render(e, Console(file=out, force_terminal=True, no_color=no_color, width=width))
    return out.getvalue()


def test_unlikely_pieces_are_marked_with_and_without_colour():
    reverse = re.compile(r"\x1b\[[0-9;]*\b7m")
    assert "▁está 0.10!" in _drawn(True) and not reverse.search(_drawn(True))  # NO_COLOR: the "!" alone
    assert reverse.search(_drawn(False)) and "0.90!" not in _drawn(False)  # reverse video on a terminal as well
    rows = [line for line in _drawn(True).splitlines() if line.startswith(("▁dónde", "▁está"))]
    assert rows[0].endswith(SHADES[-1] + "  ") and SHADES[2] in rows[1]  # darkest: the map's maximum


LONG = ("Although the weather forecast for the long weekend said that it would probably be sunny and warm in the mountains "
        "near the lake where my grandparents used to live before they moved to the city, my brother and his three "
        "children decided at the last minute that they would not come with us.")


@pytest.mark.slow
def test_a_sentence_longer_than_the_model_reads_is_said_cut(shipped_model, run_cli):
    """Attack 2026-12-03's I: the pieces past the model's 54 were dropped silently (here a negation)."""
    code, out, err = run_cli("explain", LONG)
    assert code == 0 and "translation: " in out
    assert err.count("\n") == 1 and "never saw the rest: 'not come with us.'" in err, err
    code, _, err = run_cli("explain", "Where is the station?")
    assert code == 0 and err == ""


@pytest.mark.slow
def test_a_reader_that_stops_after_one_line_is_no_error(shipped_model):
    """Attack 2026-12-03's U: `mtcli explain ... | head -1` had exited 2 ("Broken pipe"): the drawing is written at
    once, as translate writes its lines."""
    proc = subprocess.Popen([sys.executable, "-m", "mtcli", "explain", "The cat sleeps on the red sofa every day."],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env={**os.environ, "MTCLI_CONFIG": ""})
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 0 and err == b"", err
    assert first.startswith(b"translation: ")
