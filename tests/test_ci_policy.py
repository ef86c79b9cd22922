"""In CI (CI=true, as .ci/run is started) a test that would skip for a missing optional dependency
or data file fails instead: tests/conftest.py turns every skip into a failure there, xfail aside and
a system program that .ci/run does not install (skip_system) aside."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from tests.conftest import REPO

PROBE = '''
from pathlib import Path

import pytest

from conftest import require, skip_system


def test_missing_module():
    require("a_module_that_is_not_installed", "pip install it")


def test_missing_file():
    require(Path("/nonexistent/corpus.txt"))


@pytest.mark.skipif(True, reason="marker skip")
def test_marker():
    pass


@pytest.mark.xfail(strict=True, reason="a known bug")
def test_known_bug():
    assert False


def test_system_program():
    skip_system("Chromium", "apt-get install chromium")


def test_present():
    require("json")
    require(Path(__file__))
'''


def run_probe(tmp_path, ci: str | None) -> subprocess.CompletedProcess:
    shutil.copy(REPO / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_probe.py").write_text(PROBE)
    (tmp_path / "test_probe_module.py").write_text('''import pytest\n\npytest.importorskip("not_installed_either")\n\n\ndef test_a():\n    pass\n''')
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": ci} if ci is not None else {})
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA",
                           "--continue-on-collection-errors", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_skips_fail_in_ci(tmp_path):
    r = run_probe(tmp_path, "true")
    summary = r.stdout.strip().splitlines()[-1]
    assert r.returncode == 1 and "1 passed, 1 skipped, 1 xfailed" in summary, r.stdout
    assert "SKIPPED" in r.stdout and "Chromium" in r.stdout
    for why in ("a_module_that_is_not_installed: pip install it", "/nonexistent/corpus.txt", "marker skip",
                "not_installed_either"):
        assert why in r.stdout, r.stdout
    assert r.stdout.count("skipped in CI") >= 4, r.stdout


def test_skips_stay_skips_outside_ci(tmp_path):
    r = run_probe(tmp_path, "false")
    assert r.returncode == 0 and "1 passed, 5 skipped, 1 xfailed" in r.stdout, r.stdout
