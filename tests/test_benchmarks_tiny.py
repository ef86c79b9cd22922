"""Every benchmark in benchmarks/ runs in a tiny mode (a few sentences, one round, a few training steps) so that
none of them rots unseen (issue 44): each in a process of its own from the repository's root, as its docstring runs
it (`python -m benchmarks.X` where it says so, else `python benchmarks/X.py`), must exit with 0 and print the
figure it exists for. A benchmark added to benchmarks/ fails test_every_benchmark_runs_here until it has a row in
TINY (or, with the reason, in NOT_HERE)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, require

BENCHMARKS = REPO / "benchmarks"
UNSEEN = REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv"  # where the benchmarks look for it
CORPUS_LINES = 1000  # the tiny corpus: the first lines of the real one (in a temporary directory, never committed)

# name[:mode]: (arguments, what the output must hold: regular expressions). {prepared}: the tiny corpus tokenized,
# {corpus}: the tiny corpus, {run}: a run trained on it for one epoch with a moving average, {tmp}: a directory.
TINY: dict[str, tuple[list[str], list[str]]] = {
    "align": ([], [r'"mtcli: layer \d+, heads \[[\d, ]+\], shift \d": 0\.\d+']),
    "average_ablation": (["{run}"], [r"wrote \S+-raw \(epoch 1, raw weights\)", r"wrote \S+-ema \(epoch 1, ema weights\)"]),
    "compare": (["--configs", "small", "--batches", "2", "--rounds", "1", "--prepared", "{prepared}"],
                [r"\nsmall +\d+\.\d +(nan|\d+\.\d) +[\d,]+ ", r"batch of 64 +mtcli +\d+\.\d ms"]),
    "confidence": (["cost", "--lines", "4", "--repeats", "1"], [r'"checked extra": -?\d+\.\d+']),
    "confidence_short": (["cost", "--lines", "4", "--repeats", "1"], [r'"after extra": -?\d+\.\d+', r'"short flagged": \{"before": \d+, "after": \d+\}']),
    "decode": (["--sentences", "8", "--rounds", "1", "--calls", "2"],
               [r"beam 4:\n +mtcli +\d+ sentences/s", r"CTranslate2 float32 +\d+ sentences/s .* same text as mtcli +\d"]),
    "decode:same": (["--sentences", "8", "--rounds", "1", "--calls", "2", "--ct2-batch", "same"],
                    [r"batches of 2048 tokens \(CTranslate2's: 2048 greedy, 512 at beam 4\)", r"CTranslate2 int8 +\d+ sentences/s .* same text as mtcli +\d"]),
    "distributed": (["--steps", "2", "--warmup", "1", "--prepared", "{prepared}"],
                    [r"\n +1 +2 +\d+\.\d .* 1\.00 +100%", r"\n +2 +1 +\d+\.\d .* \d\.\d\d +\d+%"]),
    "document_parts": (["-n", "20", "--show", "0"], [r"software-en\.txt \(en, \d+ parts\): kept \d+ \(before \d+\)"]),
    "documents": (["--sentences", "8", "--rounds", "1"],
                  [r"median CPU time: lines [\d.]+ s, docx [\d.]+ s \(\d+% of the lines' sentences per second\)"]),
    "documents:scaling": (["--scaling", "--entries", "5"], [r"odt 16x \(\d+ entries or paragraphs, 80 sentences\): +\d"]),
    # (bounded by work, one epoch of a few steps: --max-time ended no epoch on a loaded machine)
    "finetune": (["--pairs", "20", "--max-steps", "1", "--sets", "domain", "--limit", "8"],
                 [r'"epochs": [1-9]', r'"after": \{\s+"domain": \d+\.\d']),
    "finetune_set": ([], [r"6,860 pairs: 5,000 to fine-tune on, 500 held out", r"sentences also in \S+: 0 \[\]"]),
    "first_inputs": (["--limit", "12", "--unseen", "8"],
                     [r"short-en-es: 12 inputs; acceptable \d+\.\d% through the pipeline",
                      r"all content kept in \d+\.\d% through the pipeline", r"unseen, first 8: BLEU \d+\.\d\d"]),
    "glossary": (["--unseen", "8"], [r'"term accuracy": \d+\.\d', r'"termless lines unchanged": "\d+ of \d+"']),
    "glossary_injected": (["--tiny", "--show", "1"], [r'"term accuracy without -> with": \[\s+[\d.]+,\s+[\d.]+\s+\]']),
    "kernels": (["--repeat", "1"], [r"adam n=7M +\d+\.\d+ +\d+\.\d+ +\d+\.\dx"]),
    "langid": (["--tiny"], [r"\| mtcli\.langid \| \d+\.\d\d \|"]),
    "made_up_numbers": (["--lines", "8"], [r"first 8 unseen lines: \d+ with a number the line lacks \(\d+\.\d %\)"]),
    "acronyms": (["--limit", "2"], [r"en-es \(.*\): \d/2 lines with every expectation met; \d with a made-up word"]),
    "everyday_meaning": (["--limit", "2"], [r"en-es \(.*\): \w+ \d/2.*; all \d/2"]),
    "mixed": (["--limit", "1"], [r"quoted-en-es \(.*\): \d/1 acceptable", r"numbers-left-es-en \(.*\): \d/1 acceptable"]),
    "openings": (["--limit", "2", "--unseen", "2"], [r"en-es \S+: content kept \d/2", r"es-en unseen 2 \S+: BLEU \d+\.\d\d"]),
    "shorthand": (["--limit", "2"], [r"kept-en \(.*\): span \d/2", r"chat-es \(.*\): chat \d/2"]),
    "months": (["--limit", "1"], [r"en-es: 1 held-out pairs x 12 months = 12 sentences; the right month in \d+\.\d%; BLEU \d"]),
    "names": (["--sentences", "4"], [r"seen +0 times: name kept +\d+\.\d %, BLEU \d+\.\d+"]),
    "no_break_spaces": (["--lines", "4"],
                        [r"4 lines, \d+ no-break spaces; back: \d+ in \d+ lines; translations equal but for them: \d of 4"]),
    "nonword_penalty": (["--limit", "8", "--penalties", "0", "5"],
                        [r"penalty 5: BLEU \d+\.\d+, outputs with a word outside the lexicon \d+\.\d per 1,000"]),
    "omissions": (["--limit", "8"], [r"coverage \(a source word left unattended\): \d+ flagged per 1,000"]),
    "prices": (["--limit", "2"], [r"en-es written: 2 sentences; the amount kept in \d/2; .*BLEU \d+\.\d",
                                  r"en-es held-out: \d sentences"]),
    "standins": (["--limit", "3"], [r"es-en A: 3 lines; numbers kept \d/3; a number made the subject \d; BLEU \d+\.\d"]),
    "standins:selection": (["--set", "selection", "--limit", "3"], [r"es-en selection: \d lines; numbers kept"]),
    "robustness": (["--limit", "4"], [r"\| clean \| \d+\.\d \| \d+\.\d \|", r"output holds them too: [\d.]+% off, [\d.]+% on"]),
    "roundtrip": (["--beams", "4", "--weights", "0", "1", "--selection", "2"],
                  [r"beam  4 weight  1\.0: dev \d+\.\d%, selection \d+\.\d%"]),
    "roundtrip:test": (["--test", "4"], [r"4 lines, \d changed; ranked better in \d+ of 300 bootstrap samples"]),
    "scaling": (["--tiny", "--prepared", "{prepared}", "--png", "{tmp}/scaling.png"],
                [r"extrapolated full epoch \([\d,]+ pairs\): \d+ s", r"wrote \S+scaling\.png"]),
    "serve_load": (["--duration", "1", "--clients", "2", "--sentences", "8", "--capped"],
                   [r"offline +capped at 2 +\d+\.\d sentences/s",  # (then the column after p99: no failed request)
                    r"\n +2 +\d+\.\d +\d+% +\d+% +\d+ +\d+ +0 .* \d+% +\d+% "]),
    "serve_load:steady": (["--steady", "1,2", "--sentences", "8"], [r"\n +2 +\d+\.\d +\d+% +\d+\.\d\d +\d+\.\d"]),
    "short_selection": (["--model", "{run}", "--prepared", "{prepared}", "--corpus", "{corpus}"],
                        [r"all +\d+ lines +acceptable +\d+\.\d %"]),
    "software_strings": (["--limit", "20", "--greedy"],
                         [r"en-es: 20 strings, \d+ placeholders; placeholders kept byte for byte in \d+/20 lines \(\d+\.\d %\); "
                          r"ICU structure kept in \d+/[1-9]", r"es-en: 20 strings"]),
    "text_regression": (["--input", str(UNSEEN), "--limit", "4", "--out", "{tmp}/golden"], [r"unseen\.clean: 4 lines"]),
    "translate_cli": (["--sentences", "8", "--rounds", "1", "--ct2", "--one", "1"],
                      [r"beam 4  CPU +\d+ +\d+ +\d+ +\d+% +\d+\.\d\dx", r"one sentence, greedy: \d+\.\d\d s wall"]),
    "trees": ([".", ".", "--config", "small", "--rounds", "1", "--batches", "2", "--prepared", "{prepared}"],
              [r"CPU per step, second against first: [-+]?\d+\.\d%"]),
    "wrong_source": (["-n", "20"], [r"given as en: \d+ of 20 warned \(false\); given as es: \d+ of 20 warned"]),
}
# not run here, each for its reason
NOT_HERE = {
    "confidence_named": "reads benchmarks/confidence.py's cache of the held-out rows (its `build`: the corpus's selection "
                        "rows translated and read again, tens of minutes), which CI has not",
    "mutation": "mutmut runs the test suite once per mutant (tens of minutes); mutmut is not among CI's extras",
    "twin": "not a script: the PyTorch model compare.py's torch side imports (compare runs here; PyTorch is not in CI)",
}
NEEDS = {"decode": "ctranslate2", "translate_cli": "ctranslate2", "distributed": "mpi4py"}


def test_every_benchmark_runs_here():
    found = {p.stem for p in BENCHMARKS.glob("*.py")} - {"__init__"}
    run = {name.split(":")[0] for name in TINY}
    assert not run & set(NOT_HERE)
    assert found == run | set(NOT_HERE), (f"benchmarks without a tiny mode here: {sorted(found - run - set(NOT_HERE))}; "
                                          f"rows for no benchmark: {sorted((run | set(NOT_HERE)) - found)}")


@pytest.fixture(scope="module")
def tiny(corpus_path: Path, tmp_path_factory) -> dict[str, Path]:
    """The tiny corpus and its tokenized splits."""
    work = tmp_path_factory.mktemp("benchmarks")
    with open(corpus_path, encoding="utf-8") as f:
        (work / "spa.txt").write_text("".join(line for _, line in zip(range(CORPUS_LINES), f)), encoding="utf-8")
    mtcli(["tokenize", "--data", str(work / "spa.txt"), "--out", str(work / "prepared")])
    return {"corpus": work / "spa.txt", "prepared": work / "prepared", "work": work}


@pytest.fixture(scope="module")
def tiny_run(tiny) -> Path:
    """A run of one epoch on the tiny corpus, a small model keeping a moving average (--ema-decay)."""
    run = tiny["work"] / "run"
    mtcli(["train", "--prepared", str(tiny["prepared"]), "--out", str(run), "--d-model", "16", "--d-ff", "32",
           "--heads", "2", "--layers", "1", "--max-epochs", "1", "--ema-decay", "0.9", "--bleu-sample", "0"])
    return run


def mtcli(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "mtcli", *args], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def command(name: str) -> list[str]:
    """As the benchmark's docstring runs it."""
    text = (BENCHMARKS / f"{name}.py").read_text(encoding="utf-8")
    return ["-m", f"benchmarks.{name}"] if f"python -m benchmarks.{name}" in text else [f"benchmarks/{name}.py"]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TINY))
def test_benchmark_runs_tiny(name, request, corpus_path, tmp_path):
    require(UNSEEN, "the unseen test set beside the corpus (../shared/data/tatoeba-test)")
    script = name.split(":")[0]
    if script in NEEDS:
        require(NEEDS[script], "pip install -e '.[test,distributed]'")
    args, figures = TINY[name]
    places = {"tmp": tmp_path}
    if any("{run}" in a for a in args):
        places["run"] = request.getfixturevalue("tiny_run")
    if any(re.search(r"\{(prepared|corpus)\}", a) for a in args):
        places |= request.getfixturevalue("tiny")
    args = [a.format(**places) for a in args]
    env = {**os.environ, "MTCLI_DATA": str(corpus_path), "COLUMNS": "200"}
    done = subprocess.run([sys.executable, *command(script), *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"exit {done.returncode}:\n{out[-4000:]}"
    for figure in figures:
        assert re.search(figure, out), f"{figure!r} not in the output:\n{out[-4000:]}"
    if name == "compare" and importlib.util.find_spec("torch") is None:
        assert "PyTorch is not installed" in out
