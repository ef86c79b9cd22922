"""Shared fixtures: the real corpus and the shipped model (skipped when absent, failed in CI), a tiny
self-written corpus, a CLI runner."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_CORPUS = REPO.parent / "shared" / "data" / "spa-eng" / "spa.txt"
SHIPPED_MODEL = REPO / "mtcli" / "models" / "en-es"  # package data: the default of -m
# CI (CI=true, as .ci/run is started) has every optional dependency and the corpus: there a skipped
# test is a failure (pytest_runtest_makereport below), so a missing install step cannot pass as green.
# Only what .ci/run cannot install (a system program such as Chromium) may skip there: skip_system().
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
SYSTEM = "not installed on this machine (a system program .ci/run does not install): "
os.environ["MTCLI_CONFIG"] = ""  # a developer's own config file (mtcli.config.apply_config_file) never reaches the suite


def require(what: str | Path, hint: str = "") -> None:
    """Skip the calling test unless `what` is there: an importable module (a str) or a file or
    directory (a Path). In CI the skip is turned into a failure."""
    found = what.exists() if isinstance(what, Path) else importlib.util.find_spec(what) is not None
    if not found:
        kind = "file" if isinstance(what, Path) else "module"
        pytest.skip(f"needs the {kind} {what}" + (f": {hint}" if hint else ""))


def skip_system(program: str, hint: str) -> None:
    """Skip the calling test for a missing system program, in CI too."""
    pytest.skip(f"{program} {SYSTEM}{hint}")


def _fail_skips_in_ci(report) -> None:
    reason = report.longrepr[2] if report.skipped and isinstance(report.longrepr, tuple) else str(report.longrepr)
    if IN_CI and report.skipped and not hasattr(report, "wasxfail") and SYSTEM not in reason:
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where every optional dependency and data file must be present: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    _fail_skips_in_ci((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A whole module skipped while collected (pytest.importorskip at its top)."""
    _fail_skips_in_ci((yield).get_result())


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
    require(path, "the real corpus: set MTCLI_DATA or place it at ../shared/data/spa-eng/spa.txt")
    return path


@pytest.fixture(scope="session")
def shipped_model() -> Path:
    require(SHIPPED_MODEL, "the shipped model")
    return SHIPPED_MODEL


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


def train_tiny_model(work: Path, n_layers: int = 1, max_epochs: int = 15, src_vocab: int = 200,
                     case_factors: bool = False, direction: str = "en-es", **train_options) -> Path:
    """A small model trained on tiny_pairs() in `work`; returns its model directory."""
    from mtcli.config import ModelConfig, TrainConfig
    from mtcli.data import prepare
    from mtcli.train import train

    p = prepare(write_tsv(work / "spa.txt", tiny_pairs()), work / "prepared", src_vocab=src_vocab, tgt_vocab=220,
                case_factors_en=case_factors, direction=direction)
    cfg = ModelConfig(src_vocab=src_vocab, tgt_vocab=220, d_model=32, d_ff=64, n_heads=2, n_layers=n_layers,
                      case_factors=case_factors)
    train(p, work / "model", cfg, TrainConfig(batch_size=8, warmup=100, max_epochs=max_epochs, **train_options))
    return work / "model"


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """An untrained model with the tiny corpus's tokenizers (what the lexicon needs of a model; a quick decoder
    whose outputs mean nothing)."""
    from mtcli.checkpoint import SRC_TOK, TGT_TOK, save_model
    from mtcli.config import ModelConfig
    from mtcli.data import prepare
    from mtcli.model import Model

    work = tmp_path_factory.mktemp("tiny_model")
    p = prepare(write_tsv(work / "spa.txt", tiny_pairs()), work / "prepared", src_vocab=200, tgt_vocab=220)
    (work / "model").mkdir()
    p.src_tok.save(work / "model" / SRC_TOK)
    p.tgt_tok.save(work / "model" / TGT_TOK)
    cfg = ModelConfig(src_vocab=200, tgt_vocab=220, d_model=16, d_ff=32, n_heads=2, n_layers=1)
    save_model(work / "model", Model(cfg, seed=0), {"data": {"direction": "en-es"}})
    return work / "model"
