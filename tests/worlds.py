"""A tiny trained world shared by the reliability tests: built once per test session."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from mtcli.config import ModelConfig, TrainConfig
from mtcli.data import prepare
from mtcli.train import train
from tests.conftest import tiny_pairs, write_tsv

VOCAB = {"src_vocab": 200, "tgt_vocab": 220}
TINY = ["--d-model", "16", "--d-ff", "16", "--batch-size", "8"]  # as `mtcli train` options
QUIET = Console(stderr=True, quiet=True)
_built: dict = {}


def error_line(result, code: int = 2) -> str:
    """A run_cli result that failed with `code` and ended with one `error:` line, no traceback; that line."""
    exit_code, _, err = result
    assert exit_code == code and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith("error: "), err
    return lines[-1]


def one_line(result, code: int = 2) -> str:
    """A run_cli result that failed with `code` and printed exactly one `error:` line, no traceback; that line."""
    exit_code, _, err = result
    assert exit_code == code and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture
def cli_env(world, monkeypatch):
    """The tiny world as MTCLI_DATA and MTCLI_PREPARED (import it into a module that has `world`)."""
    monkeypatch.setenv("MTCLI_DATA", str(world.corpus))
    monkeypatch.setenv("MTCLI_PREPARED", str(world.prepared))


def tiny_cfg() -> ModelConfig:
    return ModelConfig(**VOCAB, d_model=16, d_ff=16, n_heads=2, n_layers=1)


def world(tmp_path_factory) -> SimpleNamespace:
    """The tiny corpus tokenized, a model trained on it (with its state), and a second model with the
    same vocabulary sizes trained on other sentences, to mix up with the first."""
    kept = os.environ.get("MTCLI_TEST_WORLD")  # a directory to build it in once for many test processes
    if not _built and kept and (Path(kept) / "built").is_file():
        d = Path(kept)
        _built.update(dir=d, corpus=d / "spa.txt", prepared=d / "prepared", model=d / "model", other=d / "other")
    if not _built:
        d: Path = Path(kept) if kept else tmp_path_factory.mktemp("reliability")
        corpus = write_tsv(d / "spa.txt", tiny_pairs())
        p = prepare(corpus, d / "prepared", **VOCAB)
        train(p, d / "model", tiny_cfg(), TrainConfig(batch_size=8, warmup=50, max_epochs=4), console=QUIET)
        other = [(f"{en} Now.", f"{es} Ya.") for en, es in tiny_pairs()[::2]]
        p2 = prepare(write_tsv(d / "other.txt", other), d / "prepared-other", **VOCAB)
        train(p2, d / "other", tiny_cfg(), TrainConfig(batch_size=8, max_epochs=1), console=QUIET)
        _built.update(dir=d, corpus=corpus, prepared=d / "prepared", model=d / "model", other=d / "other")
        if kept:
            (d / "built").write_text("")
    return SimpleNamespace(**_built)
