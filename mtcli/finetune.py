"""A trained model taught a user's own pairs (`mtcli finetune`): `train --init-from` the model on the user's
pairs with the model's own vocabularies, at a low learning rate, a share of the corpus it learned from mixed in
against forgetting, and early stopping on a split of the user's pairs (docs/finetune.md has the figures).

    pairs file -> checked (one-line errors naming the line; duplicates and pairs too long for the model
    counted, reported and left out) -> 90/10 split -> encoded with the model's tokenizers, corpus pairs mixed
    into the training part -> train.train (init from the model; resumable like training) -> the best epoch,
    mixed with the model's own weights, with its lexicon and the user's words. An ensemble: each of its models
    so, in a process of its own, then saved as one ensemble again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path

import numpy as np
from rich.console import Console

from mtcli.atomic import atomic_write_bytes
from mtcli.checkpoint import (LEXICON, STATE, WEIGHTS, direction, load_familiar, load_lexicon, load_state,
                              load_tokenizers, load_weights, member_files, save_ensemble, save_model)
from mtcli.config import TrainConfig, languages
from mtcli.data import (EncodedSplit, Prepared, familiar_words, oriented, read_corpus, split_pairs,
                        target_lexicon)
from mtcli.errors import UserError
from mtcli.tokenizer import BOS, EOS
from mtcli.train import LoopState, train

SELECTION = 0.1  # of the user's pairs, held out to stop on (at least MIN_SELECTION)
MIN_SELECTION = 5
MIN_PAIRS = 20  # fewer cannot be split into something to learn from and something to stop on
MAX_PAIRS = 1_000_000
# of the training pairs, those drawn from the corpus against forgetting; and the peak learning rate (the base
# models peaked at ~2e-3: noam, k 1, d 256, warm-up 1000). Measured on 5,000 pairs, es-en, 2 epochs
# (docs/finetune.md): share 0.5 at 1e-4 lost 2.2 BLEU on the corpus's selection split, 0.75 at 5e-5 0.3
CORPUS_SHARE = 0.75
PEAK_LR = 5e-5
WARMUP = 50  # steps: a few hundred pairs make ~10 steps an epoch
BATCH = 32  # pairs: small sets still get several steps an epoch
MAX_EPOCHS = 30
# updates at most, as whole epochs (at least one): the user's held-out pairs go on improving for 5,000 of them,
# while the model drifts from the corpus (docs/finetune.md: 2 epochs of 5,000 pairs and their corpus share)
MAX_STEPS = 1200
# of the base model's weights in the result, the rest the fine-tuned ones' (weight averaging with the start, as
# WiSE-FT): on 5,000 pairs the corpus share alone still lost 0.8 (es-en) and 5.0 (en-es) BLEU on the corpus's
# selection split; 0.6 kept that within 1 both ways and the domain gain over 3 (docs/finetune.md)
BASE_SHARE = 0.6
MIXED = "base_share"  # metadata: the saved weights hold this share of the base's
PATIENCE = 2  # epochs without a better selection error on the user's held-out pairs
# seconds of --max-time kept for what follows training: the start's weights mixed back, the model saved and
# registered (--max-time 120 on 300 pairs, idle 2-core machine: 122.6 s for the whole command without it)
END_RESERVE = 5.0


@dataclass
class Pairs:
    """A pairs file checked: the pairs to use, and what was left out (line numbers, first few)."""

    pairs: list[tuple[str, str]]
    duplicates: list[int] = field(default_factory=list)
    too_long: list[int] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # each pair's line

    def report(self, name: str) -> list[str]:
        """One line for each kind of pair left out."""
        out = []
        for what, rows in (("duplicate pairs (the same source and target again)", self.duplicates),
                           ("pairs too long for the model", self.too_long)):
            if rows:
                shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
                out.append(f"{name}: {len(rows):,} {what} left out (line{'s' * (len(rows) > 1)} {shown})")
        return out


def read_pairs(path: Path) -> Pairs:
    """source TAB target lines (UTF-8); a blank line is skipped; anything else malformed is refused in one
    line naming the line. Exact duplicates are left out and counted."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UserError(f"cannot read the pairs file {path}: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise UserError(f"{path}: line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); give a UTF-8 TSV of "
                        "source TAB target") from None
    seen: dict[tuple[str, str], int] = {}
    found = Pairs([])
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != 2:
            raise UserError(f"{path}: line {n}: {len(cells)} column{'s' * (len(cells) != 1)}, not 2: give source TAB target")
        src, tgt = (" ".join(c.split()) for c in cells)
        if not src or not tgt:
            raise UserError(f"{path}: line {n}: the {'source' if not src else 'target'} side is empty")
        if (src, tgt) in seen:
            found.duplicates.append(n)
            continue
        seen[src, tgt] = n
        found.pairs.append((src, tgt))
        found.lines.append(n)
        if len(found.pairs) > MAX_PAIRS:
            raise UserError(f"{path}: more than {MAX_PAIRS:,} pairs: train a model on them (`mtcli train`)")
    return found


@dataclass
class Base:
    """The model fine-tuned: where it is, its shape, its tokenizers and data record."""

    path: Path
    model: object
    meta: dict
    src_tok: object
    tgt_tok: object
    weights: Path  # its weights file (an ensemble's member file; train --init-from takes one)

    @classmethod
    def load(cls, path: Path, member: int = 0) -> Base:
        """The model in directory `path`, or an ensemble's model number `member` (0: its first)."""
        weights = member_files(path)[member]
        model, meta = load_weights(weights)
        return cls(path, model, meta, *load_tokenizers(path, meta, model.cfg), weights)

    @property
    def direction(self) -> str:
        return direction(self.meta)


def encoded(base: Base, pairs: Pairs) -> tuple[EncodedSplit, Pairs]:
    """The pairs encoded with the model's tokenizers; those longer than the model reads left out (counted)."""
    cfg = base.model.cfg
    src = base.src_tok.encode_batch([s for s, _ in pairs.pairs])
    tgt = base.tgt_tok.encode_batch([t for _, t in pairs.pairs])
    keep = [k for k in range(len(src)) if len(src[k]) + 2 <= cfg.max_src_len and len(tgt[k]) + 2 <= cfg.max_tgt_len + 1]
    left = replace(pairs, pairs=[pairs.pairs[k] for k in keep], lines=[pairs.lines[k] for k in keep],
                   too_long=[pairs.lines[k] for k in sorted(set(range(len(src))) - set(keep))])
    split = EncodedSplit.from_sequences(keep, [[BOS, *src[k], EOS] for k in keep], [[BOS, *tgt[k], EOS] for k in keep])
    return split, left


def corpus_sample(base: Base, corpus: Path, n: int, seed: int) -> list[tuple[str, str]]:
    """n pairs of the training split of the corpus the model learned from, in its direction."""
    if n == 0:
        return []
    if not Path(corpus).is_file():
        raise UserError(f"corpus not found: {corpus} (a share of it is mixed in against forgetting): pass --corpus, "
                        "run `mtcli download`, or give --corpus-share 0")
    record = base.meta.get("data", {})
    pairs = oriented(read_corpus(corpus).pairs, base.direction)
    rows = split_pairs(pairs, record.get("seed", 0), record.get("split", "grouped"))["train"]
    picked = np.random.default_rng([seed, 0xF1]).choice(len(rows), min(n, len(rows)), replace=False)
    return [pairs[rows[k]] for k in sorted(picked)]


def prepared(base: Base, pairs: Pairs, corpus: list[tuple[str, str]], seed: int, digest: str) -> tuple[Prepared, Pairs]:
    """The user's pairs split (training part with the corpus pairs, held-out part to stop on) as train.train
    takes tokenized data; the pairs kept."""
    split, kept = encoded(base, pairs)
    if len(split) < MIN_PAIRS:
        raise UserError(f"{len(split)} usable pairs: fine-tuning needs at least {MIN_PAIRS} (some to learn from, "
                        "some to stop on)")
    order = np.random.default_rng([seed, 0x5E1]).permutation(len(split))
    n_sel = max(MIN_SELECTION, round(SELECTION * len(split)))
    held = np.zeros(len(split), bool)
    held[order[:n_sel]] = True
    selection, train_rows = split.subset(held), split.subset(~held)
    mixed, _ = encoded(base, Pairs(corpus, lines=list(range(len(corpus)))))
    src, tgt = languages(base.direction)
    cfg = base.model.cfg
    # (data_sha256: the user's pairs' digest, so no corpus split is rebuilt as this model's held-out one)
    manifest = {"direction": base.direction, "data_sha256": digest, "seed": seed,
                "split": base.meta.get("data", {}).get("split", "grouped"),
                "split_sizes": {"train": len(train_rows) + len(mixed), "selection": len(selection), "test": 0},
                "vocab": {src: base.src_tok.vocab_size, tgt: base.tgt_tok.vocab_size},
                "max_len": {src: cfg.max_src_len, tgt: cfg.max_tgt_len + 1}}
    empty = EncodedSplit.from_sequences([], [], [])
    splits = {"train": EncodedSplit.concat(train_rows, mixed), "selection": selection, "test": empty}
    return Prepared(base.path, manifest, base.src_tok, base.tgt_tok, splits), kept


def train_config(base: Base, max_time: float, seed: int, n_train: int, max_steps: int = MAX_STEPS) -> TrainConfig:
    """The base model's training settings but for a low peak learning rate, no augmentation, small batches, at
    most max_steps updates on n_train pairs and early stopping on the user's held-out pairs."""
    d = base.model.cfg.d_model
    scale = PEAK_LR / (d**-0.5 * WARMUP**-0.5)  # noam's peak, at the end of the warm-up
    epochs = min(MAX_EPOCHS, max(1, round(max_steps / math.ceil(n_train / BATCH))))
    return TrainConfig(batch_size=BATCH, lr_schedule="noam", lr_scale=scale, warmup=WARMUP, max_epochs=epochs,
                       max_time=max_time, patience=PATIENCE, seed=seed, init_from=str(base.weights), train_on="train")


def finetune(model: Path, pairs_file: Path, out: Path, corpus: Path, share: float = CORPUS_SHARE,
             max_time: float = 0.0, resume: bool = False, seed: int = 0, console: Console | None = None,
             base_share: float = BASE_SHARE, max_steps: int = MAX_STEPS) -> tuple[LoopState, Pairs]:
    """Fine-tune the model in `model` on pairs_file into `out` (resumable); the loop's end and the pairs used.
    An ensemble's models are fine-tuned alongside each other (see _ensemble) and stay an ensemble."""
    console = console or Console(stderr=True)
    if not 0 <= share < 1:
        raise UserError(f"--corpus-share {share:g}: give a share from 0 up to (not including) 1")
    if not 0 <= base_share < 1:
        raise UserError(f"--base-share {base_share:g}: give a share from 0 up to (not including) 1")
    job = Job(Path(model), Path(pairs_file), Path(out), Path(corpus), share, max_time, resume, seed, base_share,
              time.monotonic(), max_steps=max_steps)
    if len(member_files(job.model)) > 1:
        return _ensemble(job, console)
    return tune(job, console)


@dataclass(frozen=True)
class Job:
    """One fine-tuning's inputs; `member` picks a model of an ensemble (its run goes in out/memberK)."""

    model: Path
    pairs_file: Path
    out: Path
    corpus: Path
    share: float
    max_time: float
    resume: bool
    seed: int
    base_share: float = BASE_SHARE
    started: float = 0.0  # time.monotonic() when fine-tuning began: --max-time counts the preparation too
    member: int = 0
    threads: int = 0  # train.train's data-parallel threads (0: this process's share of the cores)
    max_steps: int = MAX_STEPS  # updates at most, as whole epochs (a run bounded by work: the tiny benchmark)


def tune(job: Job, console: Console) -> tuple[LoopState, Pairs]:
    """One model fine-tuned into job.out; a run that stopped early (not interrupted, not out of time) asked to
    resume is returned as it is (so an ensemble whose other model was interrupted does not train it further)."""
    base = Base.load(job.model, job.member)
    pairs = read_pairs(job.pairs_file)
    n_corpus = math.ceil(len(pairs.pairs) * job.share / (1 - job.share))
    digest = hashlib.sha256(job.pairs_file.read_bytes() + f"{job.share}|{job.seed}".encode()).hexdigest()
    data, kept = prepared(base, pairs, corpus_sample(base, job.corpus, n_corpus, job.seed), job.seed, digest)
    for line in kept.report(str(job.pairs_file)):
        console.print(f"[yellow]warning[/]: {line}", highlight=False)
    loop = load_state(job.out)[2] if job.resume and (job.out / STATE).is_file() else None
    if not (loop and loop.done and not loop.done.startswith("--max-time")):  # (a time limit is lifted by resuming)
        spent = time.monotonic() - job.started + min(END_RESERVE, 0.1 * job.max_time)
        left = max(round(job.max_time - spent, 1), 1e-3) if job.max_time else 0.0  # (0: none)
        tcfg = train_config(base, left, job.seed, len(data.splits["train"]), job.max_steps)
        loop = train(data, job.out, base.model.cfg, tcfg, resume=job.resume, console=console, threads=job.threads,
                     overrides=("max_time",) if job.resume else ("init_from",))
    if loop.history and loop.done != "interrupted":
        with_base(job.out, base.model, job.base_share)
        with_words(job.out, base, kept.pairs)
    return loop, kept


def with_words(out: Path, base: Base, pairs: list[tuple[str, str]]) -> None:
    """The base's lexicon (decoding's made-up-word check, the names kept as written) with the words of the user's
    pairs added: without it the result decoded as a model without a lexicon (no made-up-word penalty), and with
    the base's alone the user's own words would count as made up."""
    words, familiar = load_lexicon(base.path, base.meta), load_familiar(base.path, base.meta)
    if words is None:
        return
    way = base.direction
    both = oriented(pairs, way)  # (back in the corpus's order: English first)
    record = {"direction": way, "words": sorted(set(words) | set(target_lexicon(both, way))),
              "familiar": sorted((familiar or set()) | set(familiar_words(both, way)))}
    atomic_write_bytes(out / LEXICON, json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode())


def with_base(out: Path, base, share: float) -> None:
    """The best epoch's weights in `out` mixed with the base's: share x base + (1 - share) x tuned. Once: the
    metadata records it (a resumed run saves its next best epoch unmixed, and that one is mixed then)."""
    model, meta = load_weights(out / WEIGHTS)
    if share and MIXED not in meta:
        model.flat[...] = share * base.flat + (1 - share) * model.flat
        save_model(out, model, {**meta, MIXED: share})


def _ensemble(job: Job, console: Console) -> tuple[LoopState, Pairs]:
    """Each model of the ensemble fine-tuned in a process of its own on a core of its own (the same work as one
    after the other, without two threads waiting on each other every step), into out/member0, out/member1, ...;
    the first one shows its progress. Once every one has finished, their best epochs are saved in `out` as one
    ensemble: fine-tuning its first model alone lost what the ensemble adds (1.4 BLEU on unseen en-es)."""
    n = len(member_files(job.model))
    runs = [job.out / f"member{k}" for k in range(n)]
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [None]
    context, procs, pipes = get_context("spawn"), [], []
    try:
        with _single_threaded():  # (the processes read these as they start)
            for k in range(n):
                pipe, theirs = context.Pipe(duplex=False)
                procs.append(context.Process(target=_member, args=(replace(job, out=runs[k], member=k, threads=1),
                                                                   cores[k % len(cores)], theirs)))
                procs[-1].start()
                theirs.close()
                pipes.append(pipe)
        with _passing_on(procs):
            results = [_result(pipe, proc, k) for k, (pipe, proc) in enumerate(zip(pipes, procs))]
    finally:
        for proc in procs:  # (one failed: the others save their states and stop)
            if proc.is_alive():
                proc.terminate()
            proc.join()
    loops = [loop for loop, _ in results]
    if any(loop.done == "interrupted" for loop in loops):
        return replace(loops[0], done="interrupted"), results[0][1]
    for k, loop in enumerate(loops):
        console.print(f"model {k + 1} of {n}: best epoch {loop.best_epoch} of {len(loop.history)} ({loop.done})",
                      highlight=False)
    if all(loop.history for loop in loops):
        save_ensemble(job.out, runs)
    return loops[0], results[0][1]


def _member(job: Job, core: int | None, pipe) -> None:
    """One model of an ensemble fine-tuned in a process of its own, on `core`: only the first one speaks. Its
    result, or its one-line error, goes back through `pipe`."""
    if core is not None:
        os.sched_setaffinity(0, {core})
    try:
        pipe.send(tune(job, Console(stderr=True, quiet=job.member > 0)))
    except UserError as e:
        pipe.send(e)


def _result(pipe, proc, k: int) -> tuple[LoopState, Pairs]:
    try:
        got = pipe.recv()
    except EOFError:  # (it printed its traceback)
        proc.join()
        raise UserError(f"fine-tuning model {k + 1} of the ensemble failed (exit code {proc.exitcode})") from None
    if isinstance(got, UserError):
        raise got
    return got


@contextmanager
def _single_threaded():
    """Processes started inside take one thread for Numba and BLAS (set before either loads there)."""
    names = ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(dict.fromkeys(names, "1"))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _passing_on(procs):
    """While the models' processes work: Ctrl-C reaches them by itself (a terminal signals its whole process group)
    and this process waits for them; SIGTERM and SIGHUP sent to this one are passed on. Either way they save their
    states and return (a second signal would stop them mid-step)."""
    def forward(signum, frame):
        for proc in procs:
            if proc.is_alive():
                os.kill(proc.pid, signum)

    passed = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {sig: signal.signal(sig, forward) for sig in passed} | {signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
