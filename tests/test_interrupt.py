"""Ctrl-C on `mtcli translate -i FILE -o OUT` (attack 2026-12-03's F): the decoding threads stop at their next step,
one line says so, exit 130, the -o file as it was; a second Ctrl-C never prints the interpreter's traceback."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SUBJECTS = "the dog|my sister|our teacher|a tall man|the old woman|his friend|the children|your neighbour".split("|")
VERBS = "saw|found|painted|bought|carried|washed|forgot|opened".split("|")
OBJECTS = "a red car|the big house|an old book|the blue door|a small box|the new table|a green bottle".split("|")
WHEN = "yesterday|last week|this morning|on Sunday|after dinner|before the storm".split("|")


LINES = [f"{s} {v} {o} {w}." for s in SUBJECTS for v in VERBS for o in OBJECTS for w in WHEN][:3000]
RUN = [sys.executable, "-m", "mtcli", "translate"]


@pytest.fixture(scope="module")
def compiled(shipped_model, tmp_path_factory):
    """An environment whose cache holds the kernels compiled (a thread compiling one is not stopped: a first run's
    Ctrl-C waits for it); made once for both tests, the cache being all that run leaves behind."""
    env = {**os.environ, "MTCLI_CONFIG": "", "XDG_CACHE_HOME": str(tmp_path_factory.mktemp("cache"))}
    subprocess.run([*RUN, "-m", str(shipped_model), *LINES[:40]], cwd=REPO, env=env, capture_output=True, check=True,
                   timeout=600)
    return env


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists() or len(os.sched_getaffinity(0)) < 2,
                    reason="needs /proc and two cores: one decoding thread is the main thread, which Ctrl-C reaches")
@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_a_file_within_seconds(shipped_model, compiled, tmp_path, presses):
    (tmp_path / "in.txt").write_text("\n".join(LINES) + "\n")
    out = tmp_path / "out.txt"
    out.write_text("before\n")
    # (SIGINT as a terminal's foreground process gets it: a shell's background job, as CI may be, ignores it, and
    # Python then installs no handler)
    proc = subprocess.Popen([*RUN, "-m", str(shipped_model), "-i", str(tmp_path / "in.txt"), "-o", str(out)],
                            cwd=REPO, env=compiled, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 300
        while _cpu_seconds(proc.pid) < 4:  # loaded and decoding (3,000 lines take far longer)
            assert proc.poll() is None and time.time() < deadline, proc.communicate()
            time.sleep(0.1)
        pressed = time.time()
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.3)
        _, err = proc.communicate(timeout=120)
        took = time.time() - pressed
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and err == "interrupted\n", (proc.returncode, err)
    assert took < 6, took  # (one step of each thread; it had been the threads' whole streams: 11-19 s)
    assert out.read_text() == "before\n"
