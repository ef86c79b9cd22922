"""The training loop: batches grouped by length, Adam with warm-up, selection-split early stopping,
checkpoints that resume bit-for-bit, and a rich progress display. Data-parallel over MPI ranks when
started by mpiexec (mtcli/distributed.py); rank 0 alone reads and writes files and prints."""

from __future__ import annotations

import json
import math
import shlex
import signal
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from mtcli import distributed, kernels, threads_per_process
from mtcli.atomic import LOCK, atomic_write_text, claim_dir, lock_dir, unlock_dir
from mtcli.checkpoint import (METRICS, SRC_TOK, STATE, TGT_TOK, WEIGHTS, LoopState, generator, load_state,
                              load_tokenizers, load_weights, save_model, save_state)
from mtcli.config import PRESETS, ModelConfig, TrainConfig, from_dict, languages, model_config, to_dict
from mtcli.augment import augment_split
from mtcli.data import (LANGUAGE_NAMES, Batch, EncodedSplit, check_ids, NoPreparedData, Prepared, load_prepared, make_batches, oriented, prepare, read_corpus,
                        resolve_data_path, training_pairs)
from mtcli.decode import greedy
from mtcli.errors import UserError
from mtcli.metrics import EVAL_BATCH, percent, summarize
from mtcli.model import Model, count_params
from mtcli.optim import Adam, clip_scale
from mtcli.schema import MAX_PARAMETERS
from mtcli.tokenizer import Tokenizer
from mtcli.stats import Stats

CHECKPOINT_SECONDS = 300.0  # mid-epoch state saves: a crash loses at most this much work


class NonFiniteError(UserError):
    exit_code = 3


def train_step(replicas: distributed.Replicas, adam: Adam, batch: Batch, rng: np.random.Generator, lr: float,
               tcfg: TrainConfig, comm: distributed.Comm | None = None, stop: bool = False,
               elapsed: float = 0.0) -> tuple[Stats, float, bool, float]:
    """One optimizer step on a global batch: forward and backward on this process's rows (split over
    its threads), the gradient summed over the ranks, clipped, Adam. Returns the batch's Stats, the
    gradient norm before clipping, and comm.reduce_step's stop and elapsed. A loss or norm that is
    not finite skips the update, so the parameters stay those of the last good step."""
    comm = comm or distributed.Comm()
    shard = comm.shard(batch)  # this rank's rows; the gradient is of the whole batch's mean
    if shard is None:  # a rank without rows of a small batch adds nothing
        replicas.model.grad.fill(0.0)
        s = Stats.zero()
    else:
        s = replicas.forward_backward(shard, rng, tcfg.label_smoothing, n_total=batch.n_tokens)
    s, stop, elapsed = comm.reduce_step(replicas.model.grad, s, stop, elapsed)
    grad_sq = replicas.grad_sq if comm.size == 1 else None  # the ranks' sum is yet to be measured
    norm, scale = clip_scale(replicas.model.grad, tcfg.clip_norm, grad_sq)
    if math.isfinite(s.loss) and math.isfinite(norm):
        adam.step(replicas.model.flat, replicas.model.grad, lr, scale)
    return s, norm, stop, elapsed


class _AgreedStop(KeyboardInterrupt):
    """A stop every rank takes after the same step (a signal reached at least one of them)."""


class _StopRequest:
    """SIGINT (Ctrl-C), SIGTERM (kill, job schedulers), SIGHUP (the terminal or ssh session closed)
    and SIGQUIT (Ctrl-\\) ask the loop to stop after the current step, so a checkpoint never holds a
    half-applied update; a second signal stops at once."""

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name))

    def __init__(self):
        self.requested = False
        self.previous = {s: signal.signal(s, self) for s in self.SIGNALS}

    def __call__(self, signum, frame):
        self.requested = True
        signal.signal(signum, self.previous[signum])

    def restore(self):
        for s, handler in self.previous.items():
            signal.signal(s, handler)


def _meta(prepared: Prepared, tcfg: TrainConfig) -> dict:
    m = prepared.manifest
    data = {k: m[k] for k in ("data_sha256", "direction", "seed", "split", "split_sizes", "vocab") if k in m}
    return {"train": to_dict(tcfg), "data": data}  # (no direction: en-es, as every model made before it)


@contextmanager
def averaged_weights(model: Model, average: np.ndarray | None):
    """The model holds the weights' moving average inside the block (for evaluation and saving),
    its training weights again after it."""
    if average is None:
        yield
        return
    kept = model.flat.copy()
    model.flat[...] = average
    try:
        yield
    finally:
        model.flat[...] = kept


def _corpus_pairs(prepared: Prepared) -> list[tuple[str, str]]:
    """The corpus text behind the tokenized data, for augmentation (the prepared files hold ids)."""
    d = prepared.manifest.get("data", {})
    corpus = read_corpus(d.get("path", ""))
    if corpus.sha256 != prepared.manifest.get("data_sha256"):
        raise UserError(f"{corpus.path} changed since `mtcli tokenize` (SHA-256 differs): augmentation reads "
                        "the corpus text; rerun `mtcli tokenize` or train without --augment-*")
    return oriented(corpus.pairs, prepared.direction)


class BleuSample:
    """A fixed sample of the selection split, translated greedily for a BLEU at each epoch's end."""

    def __init__(self, split: EncodedSplit, tgt_tok, n: int, seed: int):
        rows = np.random.default_rng([seed, 0xB1E0]).permutation(len(split))[:n]
        rows = rows[np.argsort(split.src_lens[rows], kind="stable")]  # little padding per batch
        self.src = [split.src_seq(i) for i in rows]
        self.refs = tgt_tok.decode_batch([split.tgt_seq(i) for i in rows])
        self.tgt_tok = tgt_tok

    def score(self, model: Model, batch_size: int = EVAL_BATCH) -> float:
        import sacrebleu

        hyps = []
        for k in range(0, len(self.src), batch_size):
            seqs = self.src[k : k + batch_size]
            lens = np.array([len(s) for s in seqs], np.int64)
            src = np.zeros((len(seqs), int(lens.max())), np.int64)  # PAD is 0
            for i, s in enumerate(seqs):
                src[i, : len(s)] = s
            hyps += self.tgt_tok.decode_batch([h.tokens for h in greedy(model, src, lens)])
        return percent(sacrebleu.corpus_bleu(hyps, [self.refs]).score)


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]epoch {task.fields[epoch]}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("loss {task.fields[loss]:.3f} acc {task.fields[acc]:.3f} lr {task.fields[lr]:.2e} "
                   "{task.fields[tps]:,.0f} tok/s"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=console.quiet,
    )


def model_shape(preset: str, overrides: dict) -> ModelConfig:
    """The model `mtcli train` is asked for, refused before any tokenizing when it cannot be built
    or would not fit in memory (more than schema.MAX_PARAMETERS)."""
    try:
        shape = model_config(preset, **overrides)
    except ValueError as e:
        raise UserError(str(e)) from None
    if count_params(shape) > MAX_PARAMETERS:
        raise UserError(f"that model has {count_params(shape):,} parameters, over the {MAX_PARAMETERS:,} mtcli trains")
    return shape


def load_or_prepare(prepared_dir: Path, data: Path | None, console: Console) -> Prepared:
    """The tokenized data in prepared_dir, built from corpus `data` with default options when there
    is none; damaged or other data is refused, never rebuilt with other options."""
    try:
        return load_prepared(prepared_dir)
    except NoPreparedData:
        with console.status("Tokenizing the corpus (mtcli tokenize)…"):
            return prepare(resolve_data_path(data), prepared_dir, what="--prepared directory",
                           forcing=f"run `mtcli tokenize --out {shlex.quote(str(prepared_dir))} --force`")


def train_command(prepared_dir: Path, data: Path | None, out: Path, preset: str, preset_given: bool,
                  model_given: dict, tcfg_given: dict, check: Callable[[], object] | None = None, *,
                  comm: distributed.Comm, console: Console, **options) -> LoopState:
    """`mtcli train` once its options are read: the model the preset and the model options given (`model_given`)
    make, refused now when it cannot be built, not after tokenizing; then, every rank ending together on an error,
    `check` (the --register name is free), the tokenized data (built with default options when missing, on one
    rank per disk first) and train() with TrainConfig's options given (`tcfg_given`) and `options`. With --resume
    the saved model is kept: a model option given now, or the preset's when it was given, must agree with it."""
    shape = model_shape(preset, model_given)
    fixed = set(model_given) | (set(PRESETS[preset]) if preset_given else set())
    with distributed.ranks_exit_together(comm):
        if check is not None:
            check()
        prepared = comm.root_first(lambda: load_or_prepare(prepared_dir, data, console))
        mcfg = replace(shape, src_vocab=prepared.src_tok.vocab_size, tgt_vocab=prepared.tgt_tok.vocab_size,
                       case_factors=prepared.src_tok.case_factors)
        return train(prepared, out, mcfg, TrainConfig(**tcfg_given), console=console, comm=comm, overrides=tcfg_given,
                     fixed=fixed, **options)


def train(prepared: Prepared, out: Path, mcfg: ModelConfig, tcfg: TrainConfig, resume: bool = False,
          console: Console | None = None, comm: distributed.Comm | None = None,
          overrides: Iterable[str] = (), threads: int = 0, force: bool = False, fixed: Iterable[str] = ()) -> LoopState:
    """_train (below) in `out` claimed and locked by rank 0: a directory holding files mtcli did not
    write is refused unless `force`, and a second `mtcli train` into it is refused while this one runs.
    fixed: ModelConfig fields the user gave; --resume keeps the saved model and refuses other values."""
    if tcfg.early_stop_on not in ("error", "bleu"):
        raise UserError(f"early_stop_on must be error or bleu, not {tcfg.early_stop_on!r}")
    if tcfg.early_stop_on == "bleu" and not tcfg.bleu_sample:
        raise UserError("--early-stop-on bleu needs --bleu-sample N (selection sentences to translate each epoch)")
    if tcfg.train_on != "train" and (tcfg.bleu_sample or tcfg.early_stop_on != "error"):
        raise UserError(f"--train-on {tcfg.train_on} trains on the selection split, so it cannot pick epochs: "
                        "drop --bleu-sample and --early-stop-on (every epoch is saved; give --max-epochs)")
    cased = [f"--augment-{name}" for name in ("lowercase", "uppercase", "titlecase") if getattr(tcfg, f"augment_{name}")]
    if prepared.src_tok.lowercase and not prepared.src_tok.case_factors and cased:
        raise UserError(f"the English tokenizer in {prepared.out_dir} lowercases (--lowercase-en), so {cased[0]} would "
                        "change only the Spanish and teach the model to guess its case: drop it")
    limits = prepared.manifest.get("max_len", {})  # (mcfg None: resume with the saved model, on the same data)
    src, tgt = languages(prepared.direction)
    if mcfg is not None and (limits.get(src, 0) > mcfg.max_src_len or limits.get(tgt, 0) > mcfg.max_tgt_len + 1):
        raise UserError(f"the tokenized data in {prepared.out_dir} keeps sequences of up to {limits[src]} "
                        f"{LANGUAGE_NAMES[src]} and {limits[tgt]} {LANGUAGE_NAMES[tgt]} ids, longer than the model's {mcfg.max_src_len} and "
                        f"{mcfg.max_tgt_len + 1}: tokenize with the model's limits")
    overrides = tuple(overrides)
    if "init_from" in overrides and resume:
        raise UserError(f"--init-from starts a new run from another model's weights and --resume continues {out}'s "
                        "own: drop one")
    if "init_from" in overrides and not tcfg.init_from.strip():
        raise UserError("--init-from is empty: give a model directory or a weights file")
    source = _init_source(tcfg.init_from, prepared, mcfg) if tcfg.init_from and not resume else None  # before --out
    if mcfg is not None:  # ids past the model's tables: refused before any step reads an embedding
        check_ids(prepared.splits, mcfg, str(prepared.out_dir))
    comm = comm or distributed.world()
    out = Path(out)
    comm.on_root(lambda: _claim(out, force, resume))
    try:
        return _train(prepared, out, mcfg, tcfg, resume, console, comm, overrides, threads, frozenset(fixed), source)
    finally:
        if comm.rank == 0:
            unlock_dir(out)


def _claim(out: Path, force: bool, resume: bool = False) -> None:
    if resume and not (out / STATE).is_file():  # refused before anything is created or locked there
        raise UserError(f"--resume: {out / STATE}: no such file, so {out} holds no saved run; train without "
                        "--resume to start one, or give the --out of the run to continue")
    claim_dir(out, lambda d: any((d / name).exists() for name in (LOCK, STATE, WEIGHTS)), force, "--out directory")
    lock_dir(out, "train")


@dataclass
class Run:
    """What a training run's loop works with besides the model's replicas and the progress display."""

    model: Model
    adam: Adam
    tcfg: TrainConfig
    comm: distributed.Comm
    out: Path
    meta: dict  # recorded with the model and the state: train config, data
    loop: LoopState  # the position, saved and resumed
    rng: np.random.Generator  # dropout masks
    average: np.ndarray | None  # the weights' moving average, evaluated and saved instead (None: off)
    train_split: Callable[[int], EncodedSplit]  # epoch -> its training pairs
    selection: list[Batch]  # this rank's share of the selection batches
    bleu: BleuSample | None
    console: Console
    stop: _StopRequest
    started: float  # time.perf_counter() when loop.elapsed was 0
    last_save: float  # loop.elapsed at the last checkpoint

    def checkpoint(self) -> None:
        rngs = self.comm.gather(self.loop.rng)
        self.comm.on_root(lambda: save_state(self.out, self.model, self.adam, replace(self.loop, rank_rngs=rngs[1:]),
                                             self.meta, self.average))
        self.last_save = self.loop.elapsed


def _train(prepared: Prepared, out: Path, mcfg: ModelConfig, tcfg: TrainConfig, resume: bool,
           console: Console | None, comm: distributed.Comm, overrides: Iterable[str], threads: int,
           fixed: frozenset, source: Model | None = None) -> LoopState:
    """Train into model directory `out`; returns the final loop state (its .done says why it stopped).
    resume: continue the run saved in `out` with its own settings, except the TrainConfig fields
    named in `overrides` (given explicitly now, e.g. a longer max_time), which come from tcfg.
    comm: the ranks sharing the work (default: MPI's world under mpiexec, else this process).
    threads: data-parallel threads in this process (0: its share of the cores). Each rank's and
    each thread's dropout masks are its own, so results depend on ranks x threads, not on timing.
    source: a new run's starting weights (--init-from, checked by _init_source)."""
    console = console or Console(stderr=True)
    if comm.rank:
        console = Console(stderr=True, quiet=True)  # rank 0 speaks for all
    model, adam, loop, tcfg, meta, average = comm.on_root(
        lambda: _start(prepared, out, mcfg, tcfg, resume, console, set(overrides), fixed, source))
    if comm.size > 1:
        comm.agree(lambda: _same_data(prepared, meta))
    if resume:  # (a new run's were checked against its config before --out was made)
        check_ids(prepared.splits, model.cfg, str(prepared.out_dir))
    rng = _dropout_rng(tcfg.seed, comm.rank, loop, adam.t, resume)
    selection = comm.split(make_batches(prepared.splits["selection"], EVAL_BATCH, tcfg.seed, 0, shuffle=False))
    train_split = _train_split(prepared, tcfg, model.cfg)
    bleu = BleuSample(prepared.splits["selection"], prepared.tgt_tok, tcfg.bleu_sample, tcfg.seed) \
        if tcfg.bleu_sample else None
    loop.rng = rng.bit_generator.state  # kept at the last finished step: an interrupted one replays
    run = Run(model, adam, tcfg, comm, out, meta, loop, rng, average, train_split, selection, bleu, console,
              stop=_StopRequest(), started=time.perf_counter() - loop.elapsed, last_save=loop.elapsed)
    try:
        with _progress(console) as progress, distributed.Replicas(model, threads or threads_per_process()) as replicas:
            _epochs(run, replicas, progress)
    except KeyboardInterrupt as e:
        if comm.size > 1 and not isinstance(e, _AgreedStop):
            raise  # one rank alone (a second Ctrl-C): the others are not here to checkpoint with it
        run.checkpoint()
        console.print(f"[yellow]interrupted[/]: state saved in {out / STATE}; continue with --resume")
        loop.done = "interrupted"
    finally:
        run.stop.restore()
    return loop


def _epochs(run: Run, replicas: distributed.Replicas, progress: Progress) -> None:
    """Epochs until run.loop.done says why no more, each ended by the selection scores and a checkpoint."""
    loop, tcfg = run.loop, run.tcfg
    while not loop.done:
        batches = make_batches(run.train_split(loop.epoch), tcfg.batch_size, tcfg.seed, loop.epoch)
        task = progress.add_task("", total=len(batches), completed=loop.batch, epoch=loop.epoch + 1,
                                 loss=0.0, acc=0.0, lr=0.0, tps=0.0)
        sums = _steps(run, replicas, batches, lambda **fields: progress.update(task, **fields))
        progress.remove_task(task)
        if loop.batch < len(batches):
            break  # out of time mid-epoch: the state keeps the position
        _end_epoch(run, replicas, progress, sums)
        run.checkpoint()
    run.checkpoint()


def _steps(run: Run, replicas: distributed.Replicas, batches: list[Batch], show: Callable[..., None]) -> Stats:
    """The epoch's steps from run.loop.batch on; returns the epoch's Stats. Ends short of the last
    batch at --max-time; raises _AgreedStop after the step at which a signal asked to stop."""
    loop, tcfg, adam = run.loop, run.tcfg, run.adam
    sums = Stats.from_array(loop.epoch_sums)
    tick, tick_tokens = time.perf_counter(), 0
    while loop.batch < len(batches):
        lr = tcfg.lr(adam.t + 1, run.model.cfg.d_model)
        s, norm, stopping, elapsed = train_step(replicas, adam, batches[loop.batch], run.rng, lr, tcfg, run.comm,
                                                run.stop.requested, time.perf_counter() - run.started)
        if not (math.isfinite(s.loss) and math.isfinite(norm)):
            run.checkpoint()  # parameters, moments and loop are still those of the last good step
            raise NonFiniteError(f"loss or gradient became {s.loss if not math.isfinite(s.loss) else norm}"
                                 f" at step {adam.t + 1}; the last good state is kept in {run.out / STATE}"
                                 " (try a lower --lr-scale)")
        if run.average is not None:
            kernels.ema(run.average, run.model.flat, tcfg.ema_decay)
        sums, loop.batch, loop.rng = sums + s, loop.batch + 1, run.rng.bit_generator.state
        loop.epoch_sums, loop.elapsed = sums.to_list(), elapsed
        tick_tokens += s.n_tokens
        now = time.perf_counter()
        if loop.batch % 10 == 0 or loop.batch == len(batches):
            show(completed=loop.batch, loss=sums.loss / sums.n_tokens, acc=sums.correct / sums.n_tokens, lr=lr,
                 tps=tick_tokens / (now - tick))
            tick, tick_tokens = now, 0
        if stopping:
            raise _AgreedStop
        if loop.elapsed - run.last_save > CHECKPOINT_SECONDS:
            run.checkpoint()
        if tcfg.max_time and loop.elapsed > tcfg.max_time:
            loop.done = f"--max-time {tcfg.max_time:g}s reached"
            break
    return sums


def _start(prepared, out, mcfg, tcfg, resume, console, overrides, fixed=frozenset(), source=None):
    """Rank 0's part of starting: load the state to resume, or initialise and save the tokenizers.
    Returns (model, adam, loop, tcfg, meta, the weights' moving average or None)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create model directory {out}: {e.strerror or e}") from None
    meta = _meta(prepared, tcfg)
    if resume:
        model, adam, loop, saved, average = load_state(out)
        clash = [f"{k} {getattr(model.cfg, k)} (not {getattr(mcfg, k)})" for k in sorted(fixed)
                 if getattr(mcfg, k) != getattr(model.cfg, k)]
        if clash:
            raise UserError(f"--resume continues {out} with its saved model: {', '.join(clash)}; drop the model "
                            "options (or -c), or train the new shape into another --out")
        kept = from_dict(TrainConfig, saved["train"])
        tcfg = replace(kept, **{k: getattr(tcfg, k) for k in overrides})
        changed = [f"{k} {getattr(kept, k)} -> {getattr(tcfg, k)}" for k in sorted(overrides)
                   if getattr(kept, k) != getattr(tcfg, k)]
        meta = _meta(prepared, tcfg)
        if saved["data"] != meta["data"] or not _same_tokenizers(out, prepared):
            raise UserError(f"{out} was trained on other tokenized data (corpus, split, seed, vocabulary or "
                            "case options differ); resume with the same data and `mtcli tokenize` options")
        loop.done = ""
        if loop.epoch >= tcfg.max_epochs:  # a finished run resumed as it was: no epoch beyond the limit
            loop.done = f"--max-epochs {tcfg.max_epochs} reached"
        if not tcfg.ema_decay:
            average = None
        elif average is None:  # the average starts now
            average = model.flat.copy()
        console.print(f"resuming {out} at epoch {loop.epoch + 1}, batch {loop.batch}, step {adam.t}"
                      + (f" with {', '.join(changed)}; the other settings are the saved run's" if changed else ""),
                      highlight=False)
    else:
        if (out / STATE).exists() or (out / WEIGHTS).exists():
            raise UserError(f"{out} already holds a model: continue it with --resume, or train into another --out")
        model = Model(mcfg, seed=tcfg.seed)
        if source is not None:
            _init_from(model, source)
        adam = Adam(model.flat.size, tcfg.beta1, tcfg.beta2, tcfg.eps)
        loop = LoopState()
        average = model.flat.copy() if tcfg.ema_decay else None
        for name, tok in ((SRC_TOK, prepared.src_tok), (TGT_TOK, prepared.tgt_tok)):
            tok.save(out / name)
    return model, adam, loop, tcfg, meta, average


def _init_source(spec: str, prepared: Prepared, cfg: ModelConfig) -> Model:
    """The model at `spec` (a model directory or one weights file of an ensemble) for --init-from,
    refused unless it reads the tokenized data's vocabularies and has the new model's shape. The new
    model then computes what it does, also with a case factor table the source lacks (zero at first)."""
    path = Path(spec)
    source, meta = load_weights(path / WEIGHTS if path.is_dir() else path)
    if source.cfg.case_factors and not cfg.case_factors:
        raise UserError(f"--init-from {path}: its English ids carry case factors and those in {prepared.out_dir} "
                        "do not; tokenize with --case-factors-en")
    tokenizers = load_tokenizers(path if path.is_dir() else path.resolve().parent, meta, source.cfg)
    for name, tok, theirs in zip((SRC_TOK, TGT_TOK), (prepared.src_tok, prepared.tgt_tok), tokenizers):
        if tok.case_factors and not theirs.case_factors:
            theirs = theirs.with_case_factors()  # the same ids, pieces with capitals respelled
        if theirs.vocab != tok.vocab:
            raise UserError(f"--init-from {path}: its {name} vocabulary is not that of the tokenized data in "
                            f"{prepared.out_dir}; tokenize with the options that model was trained on")
    shape = [f"{f.name} {getattr(source.cfg, f.name)} (not {getattr(cfg, f.name)})" for f in fields(ModelConfig)
             if f.name not in ("dropout", "attn_dropout", "case_factors") and getattr(source.cfg, f.name) != getattr(cfg, f.name)]
    if shape:
        raise UserError(f"--init-from {path}: it is a model of {', '.join(shape)}; give the model options (-c ...) "
                        "it was trained with")
    return source


def _same_tokenizers(out: Path, prepared: Prepared) -> bool:
    """The run in `out` was started on tokenizers that give the ids `prepared` holds (the data record
    cannot tell: --lowercase-en and --case-factors-en keep the vocabulary's size)."""
    def reading(tok: Tokenizer):
        return tok.vocab, tok.lowercase, tok.case_factors

    return all(reading(Tokenizer.load(out / name)) == reading(tok)
               for name, tok in ((SRC_TOK, prepared.src_tok), (TGT_TOK, prepared.tgt_tok)))


def _init_from(model: Model, source: Model) -> None:
    """Copy the weights of `source` (see _init_source) into `model`."""
    for group, tensors in source.params.items():
        for name, t in tensors.items():
            model.params[group][name][...] = t


def _train_split(prepared: Prepared, tcfg: TrainConfig, mcfg: ModelConfig):
    """epoch -> that epoch's training pairs (tcfg.train_on), augmented when tcfg asks for it."""
    split = training_pairs(prepared, tcfg.train_on, mcfg.max_src_len, mcfg.max_tgt_len)
    probs = tcfg.augment_probs()
    if not any(probs.values()):
        return lambda epoch: split
    pairs = _corpus_pairs(prepared)
    spanish = tuple(lang == "es" for lang in languages(prepared.direction))
    return lambda epoch: augment_split(split, pairs, prepared.src_tok, prepared.tgt_tok, probs,
                                       tcfg.seed, epoch, mcfg.max_src_len, mcfg.max_tgt_len, spanish)


def _same_data(prepared: Prepared, meta: dict) -> None:
    """Every rank reads its own tokenized data (hosts need not share a disk): it must be rank 0's."""
    if _meta(prepared, TrainConfig())["data"] != meta["data"]:
        raise UserError(f"the tokenized data in {prepared.out_dir} differs from rank 0's; give every rank "
                        "the same (copy rank 0's --prepared directory)")


def _dropout_rng(seed: int, rank: int, loop: LoopState, step: int, resume: bool) -> np.random.Generator:
    """Rank 0 draws the single-process stream, rank r its own. A resumed rank continues its saved
    stream; a rank the saved run did not have (resuming with more ranks) starts one from (seed,
    rank, step): training continues correctly, only the dropout masks differ from a run that kept N."""
    if not resume:
        return np.random.default_rng(seed if rank == 0 else [seed, rank])
    state = loop.rng if rank == 0 else loop.rank_rngs[rank - 1] if rank <= len(loop.rank_rngs) else None
    if state is None:
        return np.random.default_rng([seed, rank, step])
    return generator(state, "the training state")


def _end_epoch(run: Run, replicas: distributed.Replicas, progress: Progress, sums: Stats) -> None:
    """The selection scores (and BLEU), the metrics row, the best model saved, and whether to stop."""
    loop, tcfg, comm, model = run.loop, run.tcfg, run.comm, run.model
    task = progress.add_task("", total=len(run.selection), epoch=f"{loop.epoch + 1} selection", loss=0.0, acc=0.0,
                             lr=0.0, tps=0.0)
    sel_sums = Stats.zero()
    with averaged_weights(model, run.average):
        for b in run.selection:
            sel_sums += replicas.evaluate(b)
            progress.advance(task)
        sel = summarize(comm.sum_stats(sel_sums))
        bleu = run.bleu.score(model) if run.bleu else None  # every rank alike: same weights, same sample
    progress.remove_task(task)
    tr = summarize(sums)
    row = {"epoch": loop.epoch + 1, "step": run.adam.t, "seconds": round(loop.elapsed, 1),
           "train_loss": tr["loss"], "train_error": tr["error"], "train_accuracy": tr["accuracy"],
           "selection_error": sel["error"], "selection_accuracy": sel["accuracy"],
           "lr": tcfg.lr(run.adam.t, model.cfg.d_model)}
    if bleu is not None:
        row["selection_bleu"] = round(bleu, 2)
    loop.history.append(row)
    if tcfg.train_on != "train":  # the selection split is training data: the latest epoch is the model
        improved = True
    else:
        improved = bleu > loop.best_bleu if tcfg.early_stop_on == "bleu" else sel["error"] < loop.best_error
    if improved:
        loop.best_error, loop.best_epoch, loop.bad_epochs = sel["error"], loop.epoch + 1, 0
        loop.best_bleu = bleu if bleu is not None else loop.best_bleu
    else:
        loop.bad_epochs += 1

    def write():
        if improved:
            with averaged_weights(model, run.average):
                save_model(run.out, model, {**run.meta, "epoch": loop.epoch + 1, "selection": sel}
                           | ({"selection_bleu": bleu} if bleu is not None else {}))
        atomic_write_text(run.out / METRICS, "".join(json.dumps(r) + "\n" for r in loop.history))

    comm.on_root(write)
    run.console.print(
        f"epoch {row['epoch']:3d}  train error {tr['error']:.3f} acc {tr['accuracy']:.3f}  "
        f"selection error {sel['error']:.3f} acc {sel['accuracy']:.3f}"
        + (f" BLEU {bleu:.2f}" if bleu is not None else "") + f"  {row['seconds']:7.0f}s"
        + ("  [green]best[/]" if improved else ""), highlight=False, soft_wrap=True)
    loop.epoch, loop.batch, loop.epoch_sums = loop.epoch + 1, 0, Stats.zero().to_list()
    if loop.bad_epochs >= tcfg.patience:
        loop.done = f"no selection improvement for {tcfg.patience} epochs"
    elif loop.epoch >= tcfg.max_epochs:
        loop.done = f"--max-epochs {tcfg.max_epochs} reached"
    elif tcfg.accuracy_goal and tr["accuracy"] >= tcfg.accuracy_goal:
        loop.done = f"training accuracy goal {tcfg.accuracy_goal} reached"
    elif tcfg.max_time and loop.elapsed > tcfg.max_time:
        loop.done = f"--max-time {tcfg.max_time:g}s reached"
