"""Shared fixtures: the real corpus (skipped when absent), a tiny self-written corpus, a CLI runner."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_CORPUS = REPO.parent / "shared" / "data" / "spa-eng" / "spa.txt"

NAMES = ["Tom", "Mary", "Ana", "Luis", "Sofía", "Pedro"]
NOUNS = [("cat", "gato"), ("dog", "perro"), ("book", "libro"), ("car", "coche"), ("bread", "pan")]


def tiny_pairs() -> list[tuple[str, str]]:
    """About 200 hand-made pairs with accents, ¿¡, commas and repeated English sentences."""
    pairs = [
        ("Where is the blue station?", "¿Dónde está la estación azul?"),
        ("Don't go, it's late!", "¡No te vayas, es tarde!"),
        ('He said "no".', 'Él dijo "no".'),
        ("It costs 3.50 euros.", "Cuesta 3,50 euros."),
    ]
    for name in NAMES:
        for en, es in NOUNS:
            pairs.append((f"{name} likes the {en}.", f"A {name} le gusta el {es}."))
            pairs.append((f"{name} likes the {en}.", f"A {name} le encanta el {es}."))  # second translation
            pairs.append((f"Where is {name}'s {en}?", f"¿Dónde está el {es} de {name}?"))
            pairs.append((f"Come here, {name}!", f"¡Ven aquí, {name}!"))
    for n in range(2, 12):
        for en, es in NOUNS[:3]:
            pairs.append((f"I have {n} {en}s.", f"Tengo {n} {es}s."))
    return pairs


def write_tsv(path: Path, pairs: list[tuple[str, str]]) -> Path:
    path.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")
    return path


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    return write_tsv(tmp_path / "spa.txt", tiny_pairs())


@pytest.fixture(scope="session")
def corpus_path() -> Path:
    path = Path(os.environ.get("MTCLI_DATA") or SHARED_CORPUS)
    if not path.is_file():
        pytest.skip(f"real corpus not found at {path}: set MTCLI_DATA or place it at ../shared/data/spa-eng/spa.txt")
    return path


@pytest.fixture(scope="session")
def prepared(corpus_path: Path, tmp_path_factory):
    """The real corpus, tokenized once per test session with the default options."""
    from mtcli.data import prepare

    return prepare(corpus_path, tmp_path_factory.mktemp("prepared"))


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """Run `mtcli ARGS` in-process the way the console script does; return (exit code, stdout, stderr)."""
    from mtcli.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setenv("COLUMNS", "400")  # rich wraps at 80 columns when not on a terminal
        monkeypatch.setattr(sys, "argv", ["mtcli", *map(str, args)])
        with pytest.raises(SystemExit) as exit_info:
            main()
        out, err = capsys.readouterr()
        return exit_info.value.code or 0, out, err

    return run


# What tests/test_reliability.py tried (fault trials, bad inputs), printed at the end of every run.
TALLY: Counter = Counter()


@pytest.fixture(scope="session")
def tally() -> Counter:
    """Count an attempt: tally["killed training runs"] += 1. Use this fixture rather than importing
    TALLY: the conftest pytest loads and `tests.conftest` can be two module objects."""
    return TALLY


def pytest_terminal_summary(terminalreporter):
    if TALLY:
        terminalreporter.write_sep("-", "reliability: fault trials and bad inputs tried")
        width = max(map(len, TALLY))
        for key, n in TALLY.items():
            terminalreporter.write_line(f"{key:<{width}}  {n:6,}")
        faults = sum(n for k, n in TALLY.items() if k.startswith("fault"))
        inputs = sum(n for k, n in TALLY.items() if k.startswith("input"))
        terminalreporter.write_line(f"{'total':<{width}}  {faults:6,} fault trials, {inputs:,} bad inputs")
