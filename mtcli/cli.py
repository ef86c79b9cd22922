"""Thin typer commands: parse options, call the stage modules, print results."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mtcli import registry, session
from mtcli.console import FROM_CONFIG_FILE, err, fail, status
from mtcli.console import error_line as _error_line
from mtcli.console import out as _out
from mtcli.console import warning as _warning
from mtcli.coercion import App
from mtcli.config import (apply_config_file, DEFAULT_DATA, DEFAULT_DIRECTION, DEFAULT_DOWNLOAD_DIR, DEFAULT_PREPARED, DEFAULT_RUNS, DEFAULTS,
                          DIRECTIONS, RERANKS, VOCAB, ModelConfig, Options)
from mtcli.errors import UserError, quoted
from mtcli.ranges import limits
from mtcli.serve.config import ServeConfig

if TYPE_CHECKING:
    from rich.console import Console

app = App(  # typer.Typer, its parameters coerced without pydantic (mtcli.coercion)
    help="English-to-Spanish translation with a Transformer trained from scratch.",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,  # help prints as written: rich markup took [distributed] and [default: ...] for tags
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"mtcli {version('mtcli')}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", "-V", callback=_print_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    pass


def _output_file(value: str | None, option: str = "-o") -> Path | None:
    """An -o value as a path, refused before any work when it names a directory: a trailing slash
    would otherwise be dropped (Path("new/") is Path("new")) and a file written where a directory was meant."""
    if value is None:
        return None
    if value != "-" and (not os.path.basename(value) or os.path.isdir(value)):  # (basename "": "dir/", "")
        fail(f"{option} {value}: names a directory; give a file name")
    return Path(value)


def _output_dir(value: Path | None, option: str) -> Path | None:
    """A directory option (--out, -o of a directory): "-" is standard output, which no directory can be."""
    if value is not None and str(value) == "-":
        fail(f"{option} -: standard output cannot take a directory; give a directory")
    return value


def _not_an_input(output: Path | None, inputs, stdin: bool = False, option: str = "-o") -> None:
    """-o (or another option writing a file) naming a file the command reads (the data, a model's files,
    standard input when it reads it), under any name (a link, a hard link, /dev/stdin, /proc/self/fd/N):
    refused before any work, as writing it would destroy it. Then an -o that cannot be written is refused
    too, before the work."""
    from mtcli import guards

    if output is None:  # (standard output, "-", passes both checks below: neither an input nor a file to check)
        return
    path = guards.input_named(output, inputs, stdin)
    if path is not None:
        alias = "" if str(output) == path else f" (that is {path})"
        fail(f"{option} {output}{alias} is this command's input or one of the model's files: writing it would "
             "destroy it; give another output")
    guards.check_writable(output, option)


def _writable_dir(path: Path | None, option: str) -> None:
    """A directory option (--out, --dest, an -o of a directory) refused before any work when nothing can
    be written there (a read-only place, /proc, a file on the way)."""
    from mtcli import guards

    if path is not None:
        guards.check_writable(path, option, directory=True)


def _model_files(model_dir: Path) -> list[Path]:
    """Every file of a model directory that an -o must not replace."""
    from mtcli.checkpoint import STATE

    return [model_dir / f for f in (*registry.model_files(model_dir), STATE)]


def main() -> None:
    from typer._click.exceptions import NoArgsIsHelpError  # typer >= 0.29 carries its own click

    from mtcli.atomic import guarded_stdio

    _utf8_stdio()
    interrupt = _Interrupt.install()
    try:
        with guarded_stdio():  # a closed or full stdout is a UserError too
            FROM_CONFIG_FILE.clear()  # (main runs more than once in a test's process)
            FROM_CONFIG_FILE.update(apply_config_file())
            code = app(prog_name="mtcli", standalone_mode=False)
    except KeyboardInterrupt:  # training saves its state itself; elsewhere nothing is half-written (-o: whole or not)
        code = 130
    except MemoryError:
        _error_line("out of memory: give smaller inputs or options (--batch-size, --beam, --nbest)")
        sys.exit(2)
    except OSError as e:  # a path the system refuses (a name too long, a loop of links, ...) that no check caught
        if e.filename is None:
            raise
        name = os.fsdecode(e.filename)
        _error_line(f"cannot use {name if len(name) <= 100 else name[:97] + '...'}: {e.strerror or e}")
        sys.exit(2)
    except UserError as e:
        _error_line(str(e))
        sys.exit(e.exit_code)
    except NoArgsIsHelpError as e:
        e.show()
        sys.exit(e.exit_code)
    except typer.TyperException as e:  # a usage error is one line too, with where to read about it
        ctx = getattr(e, "ctx", None)
        _error_line(" ".join(e.format_message().split()) + f" (see `{ctx.command_path if ctx else 'mtcli'} -h`)")
        sys.exit(e.exit_code)
    except typer.Abort:  # end of input at a prompt
        err.print()
        sys.exit(130)
    finally:
        registry.release()  # the registered models this command used may be removed now
        if interrupt is not None:
            interrupt.restore()
    if code == 130 and interrupt is not None and interrupt.seen:  # (typer makes a Ctrl-C exit 130, silently)
        err.print("interrupted")
    sys.exit(code if isinstance(code, int) else 0)


class _Interrupt:
    """Ctrl-C in a command: the first raises KeyboardInterrupt in the main thread (typer exits 130; decoding threads
    stop at their next step: decode.Translator.translate_batch), a second exits at once, as training's does (a
    second had printed the interpreter's traceback while its exit joined a decoding thread)."""

    def __init__(self):
        self.seen = False
        self.previous = signal.signal(signal.SIGINT, self)

    @classmethod
    def install(cls) -> _Interrupt | None:
        import threading

        ours = threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler  # (not where Ctrl-C is ignored)
        return cls() if ours else None

    def __call__(self, signum, frame) -> None:
        if self.seen:
            os._exit(130)
        self.seen = True
        raise KeyboardInterrupt

    def restore(self) -> None:
        """The handler before, or after a Ctrl-C none: the exit is under way (the interpreter's end puts back the
        default, by which a Ctrl-C then had ended the process by its signal, not with 130)."""
        signal.signal(signal.SIGINT, signal.SIG_IGN if self.seen else self.previous)


class _Utf8Noted:
    """Standard output re-opened as UTF-8 where the locale or PYTHONIOENCODING said ASCII or another
    narrow encoding (Spanish does not fit): the first character beyond ASCII written is preceded by
    one note on stderr, so the output is whole and the user knows its encoding."""

    def __init__(self, stream, was: str):
        self._stream, self._was, self._noted = stream, was, False

    def __getattr__(self, attr):
        return getattr(self._stream, attr)

    def write(self, text: str) -> int:
        if not self._noted and not text.isascii():
            self._noted = True
            _warning(f"standard output was set to {self._was} (the locale or PYTHONIOENCODING); writing UTF-8, "
                     "as a UTF-8 locale would (e.g. LC_ALL=C.UTF-8)")
        return self._stream.write(text)


def _utf8_stdio() -> None:
    """mtcli reads and writes UTF-8 (arguments, stdin, stdout) whatever the locale: a C locale or
    PYTHONIOENCODING=ascii would otherwise fail on the first ¿ (stdout is documented as UTF-8)."""
    import codecs

    for name in ("stdin", "stdout", "stderr"):
        stream = getattr(sys, name)
        encoding = getattr(stream, "encoding", None)
        try:
            if not encoding or codecs.lookup(encoding).name == "utf-8" or not hasattr(stream, "reconfigure"):
                continue
            stream.reconfigure(encoding="utf-8", errors="surrogateescape" if name == "stdin" else "backslashreplace"
                               if name == "stderr" else "strict")
        except (LookupError, ValueError, OSError):
            continue
        if name == "stdout":
            sys.stdout = _Utf8Noted(stream, encoding)


# --- data: download, tokenize ----------------------------------------------------------


def _fill_doc(**values):
    """A command's help with {names} filled in from the module that owns each value (never written twice)."""

    def fill(command):
        command.__doc__ = command.__doc__.format(**values)
        return command

    return fill


class SplitMethod(str, Enum):
    grouped = "grouped"
    random = "random"


Direction = Enum("Direction", {d.replace("-", "_"): d for d in DIRECTIONS}, type=str)


@app.command()
def download(
    dest: Path = typer.Option(
        DEFAULT_DOWNLOAD_DIR, "--dest", help="Directory to unpack into; the corpus lands in DEST/spa-eng/spa.txt."
    ),
    url: str | None = typer.Option(
        None, "--url", envvar="MTCLI_DOWNLOAD_URL", show_default=False,
        help="Where to fetch spa-eng.zip (default: the public archive TensorFlow's tutorials use).",
    ),
    sha256: str | None = typer.Option(
        None, "--sha256", show_default=False,
        help="Expected SHA-256 of spa.txt in the archive (default: that of the 118,964-pair release).",
    ),
    force: bool = typer.Option(False, "--force", help="Download again even if a verified copy is there."),
) -> None:
    """Download the English-Spanish corpus, verify its SHA-256 and unpack it.

    Without network: copy spa-eng.zip from elsewhere and unzip it into
    DEST, or point --data / MTCLI_DATA of the other commands at your own
    spa.txt or CSV file.

    Examples:

      mtcli download

      mtcli download --dest /srv/corpora

      MTCLI_DOWNLOAD_URL=http://mirror.example/spa-eng.zip mtcli download
    """
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

    from mtcli import download as dl

    with Progress(
        "[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
        TimeRemainingColumn(), console=_out.console, transient=True,
    ) as bar:
        task = bar.add_task("spa-eng.zip", total=None)
        path, fetched = dl.download(
            dest, url or dl.URL, sha256 or dl.SPA_SHA256,
            progress=lambda done, total: bar.update(task, completed=done, total=total), force=force,
        )
    state = "downloaded and verified" if fetched else "already there and verified"
    _out.print(f"[green]✓[/] {path} {state}. Next: [bold]mtcli tokenize --data {path}[/]", highlight=False)


def _ranged(kind, name: str, help: str, *decls: str, **more):
    """An option of type `kind` (its names `decls`, else typer's from the parameter) whose range typer checks:
    ranges.RANGES[name]."""
    return Annotated[kind, typer.Option(*decls, **limits(name), help=help, **more)]


# tokenize's options
TokenizeData = Annotated[Path | None, typer.Option(
    "--data", envvar="MTCLI_DATA", show_default=False,
    help=f"Corpus: tab-separated spa.txt or a CSV with an english,spanish header (default: {DEFAULT_DATA}).")]
TokenizeOut = Annotated[Path, typer.Option("--out", envvar="MTCLI_PREPARED",
                                           help="Output: tokenizers, encoded splits, manifest.")]
DirectionOption = Annotated[Direction, typer.Option("--direction", "-d",
                                                    help="Source-target: en-es (English to Spanish) or es-en.")]
SplitSeed = _ranged(int, "seed", "Seed of the train/selection/test split (60/20/20).", "--seed")
Split = Annotated[SplitMethod, typer.Option(
    "--split", help="grouped: all translations of a source sentence in one split; random: the thesis's plain split.")]
SrcVocab = _ranged(int | None, "src_vocab", f"Source WordPiece vocabulary size [default: English {VOCAB['en']}, "
                                            f"Spanish {VOCAB['es']}].", "--src-vocab", show_default=False)
TgtVocab = _ranged(int | None, "tgt_vocab", "Target WordPiece vocabulary size [default: as for the source].",
                   "--tgt-vocab", show_default=False)
LowercaseEn = Annotated[bool, typer.Option(
    "--lowercase-en",
    help="The English tokenizer lowercases: a model trained on it sees no case, so ALL CAPS and lowercase "
         "English translate like normal text (not the thesis's; no --augment-lowercase/-uppercase/-titlecase).")]
CaseFactorsEn = Annotated[bool, typer.Option(
    "--case-factors-en",
    help="The English ids carry each word's case (lowercase, Capitalised, ALL CAPS) as a factor beside its "
         "lowercased piece: the model reads one piece for every casing yet sees capitals (not the thesis's).")]
TokenizeForce = Annotated[bool, typer.Option(
    "--force", help="Rebuild even if the result for this corpus and options exists, and write into an --out that "
                    "holds files mtcli did not write.")]


@app.command()
@_fill_doc(max_src=ModelConfig.max_src_len, max_tgt=ModelConfig.max_tgt_len - 1)
def tokenize(
    data: TokenizeData = None,
    out: TokenizeOut = DEFAULT_PREPARED,
    direction: DirectionOption = DEFAULT_DIRECTION,
    seed: SplitSeed = 0,
    split: Split = SplitMethod.grouped,
    src_vocab: SrcVocab = None,
    tgt_vocab: TgtVocab = None,
    lowercase_en: LowercaseEn = False,
    case_factors_en: CaseFactorsEn = False,
    force: TokenizeForce = False,
) -> None:
    """Split the corpus, train English and Spanish WordPiece, encode all pairs for one direction.

    The tokenizers learn from the 60% training split only. Pairs longer
    than the model's limits ({max_src} source ids, {max_tgt} target ids + start/end)
    are dropped from training and cut in selection/test; the manifest
    counts them. Re-running with the same corpus and options reuses the
    result.

    Examples:

      mtcli tokenize

      mtcli tokenize --direction es-en --out data/prepared-es-en

      mtcli tokenize --data ~/Downloads/data.csv --out data/prepared-kaggle

      mtcli tokenize --split random --seed 1 --src-vocab 8000 --tgt-vocab 8000

      mtcli tokenize --lowercase-en --out data/prepared-lc

      mtcli tokenize --case-factors-en --out data/prepared-cf
    """
    from mtcli.data import prepare

    _output_dir(out, "--out")
    with _out.status("Splitting, training tokenizers, encoding…"):
        prepared = prepare(data, out, seed=seed, split=split.value, src_vocab=src_vocab, tgt_vocab=tgt_vocab,
                           lowercase_en=lowercase_en, case_factors_en=case_factors_en, force=force,
                           direction=direction.value)
    _print_prepared(prepared)


def _print_prepared(prepared) -> None:
    """tokenize's report: the corpus, the split and the output; then both sides' vocabulary, round trip and lengths."""
    from rich.table import Table

    m = prepared.manifest
    d, sizes, over = m["data"], m["split_sizes"], m["overlong"]
    skipped = f"{d['skipped']:,}" + (f" (lines {', '.join(map(str, d['skipped_lines']))}…)" if d["skipped"] else "")
    cut = over["truncated"]["selection"] + over["truncated"]["test"]
    built = "reused: same corpus and options" if prepared.reused else f"built in {m['seconds']:.1f} s"
    summary = Table(title="mtcli tokenize", show_header=False)
    summary.add_column(style="bold")
    summary.add_column(overflow="fold")
    for key, value in (
        ("corpus", f"{d['path']} ({d['format'].upper()})"),
        ("SHA-256", m["data_sha256"]),
        ("pairs read", f"{d['pairs']:,}"),
        ("malformed lines skipped", skipped),
        ("split", f"{m['split']}, seed {m['seed']}: " + " / ".join(f"{k} {v:,}" for k, v in sizes.items())),
        ("over-long pairs", f"{over['dropped_from_train']:,} dropped from train, {cut:,} truncated in selection/test"),
        ("output", f"{prepared.out_dir} ({built})"),
    ):
        summary.add_row(key, value)
    sides = Table(show_header=True)
    for col in ("", "English", "Spanish"):
        sides.add_column(col, justify="right" if col else "left", style="bold" if not col else None)
    sides.add_row("vocabulary", *(f"{m['vocab'][s]:,}" for s in ("en", "es")))
    lowered = "lowercase(s)" if "lowercase" in m or "case_factors" in m else "s"
    sides.add_row(f"round trip decode(encode(s)) == s (English: {lowered})",
                  *(f"{m['roundtrip'][s]:.3%}" for s in ("en", "es")))
    lengths = (f"{n['mean']:.1f} / {n['p95']:.0f} / {n['max']}" for n in (m["lengths"]["en"], m["lengths"]["es"]))
    sides.add_row("length mean / p95 / max (with start, end)", *lengths)
    sides.add_row("over the length limit", *(f"{over[s]:,} > {m['max_len'][s]}" for s in ("en", "es")))
    _out.print(summary, sides)


# --- model: train, plot, translate, evaluate, info -------------------------------------

DEFAULT_MODEL = registry.SHIPPED  # the model inside the package


class StopOn(str, Enum):
    error = "error"
    bleu = "bleu"


class TrainOn(str, Enum):
    train = "train"
    train_selection = "train+selection"
    every_pair = "train+selection+test"


class LrSchedule(str, Enum):
    noam = "noam"
    thesis = "thesis"


class Preset(str, Enum):
    small = "small"
    medium = "medium"
    large = "large"


def _model_option(default: str | None = DEFAULT_MODEL):
    return typer.Option(default, "--model", "-m", envvar="MTCLI_MODEL", show_default=default is not None,
                        help="Model: a name from `mtcli models` or a model directory.")


def _read_glossary(path: Path | None):
    from mtcli.text import glossary

    return glossary.read(path) if path else None


def _glossary_option():
    return typer.Option(None, "--glossary", "-g", metavar="FILE", show_default=False,
                        help="Terms that must come out as given: a TSV of source TAB target (docs/glossary.md).")


def _model_argument():
    return typer.Argument(None, show_default=False, metavar="[MODEL]", help="The model, as with -m.")


def _given(ctx: typer.Context, param: str) -> bool:
    """Whether the command line itself set the option (not an environment variable or the default)."""
    return ctx.get_parameter_source(param).name == "COMMANDLINE"


def _model(ctx: typer.Context, positional: str | None, option: str | None) -> tuple[str, Path]:
    """The model as the user named it (MODEL argument, -m, MTCLI_MODEL or the default) and its directory.
    A MODEL argument wins over MTCLI_MODEL; given along with -m it is refused."""
    if positional is not None and _given(ctx, "model"):
        fail("give the model once: as the MODEL argument or with -m/--model")
    spec = positional if positional is not None else option
    if spec is None:
        fail(f"give a model: `{ctx.command_path} MODEL` or -m MODEL (a name from `mtcli models` or a directory)")
    return str(spec), registry.resolve(spec)


def _model_dir(ctx: typer.Context, positional: str | None, option: str | None) -> Path:
    return _model(ctx, positional, option)[1]


def _given_fields(ctx: typer.Context, cls) -> dict:
    """The options named as fields of dataclass cls (TrainConfig, ModelConfig) that have a value, choices
    as their strings: the overrides of cls's defaults, never listed a second time."""
    values = {f.name: ctx.params.get(f.name) for f in dataclasses.fields(cls)}
    return {k: v.value if isinstance(v, Enum) else v for k, v in values.items() if v is not None}


# train's options; those named as a field of ModelConfig or TrainConfig override the preset's or the default value
# when given (_given_fields)
PresetOption = Annotated[Preset, typer.Option("--config", "-c", help="Thesis configuration to start from.")]
TrainOut = Annotated[Path, typer.Option("--out", "-o", show_default=False, help="Model directory [default: runs/CONFIG].")]
TrainData = Annotated[Path | None, typer.Option("--data", envvar="MTCLI_DATA", show_default=False,
                                                help=f"Corpus (default: {DEFAULT_DATA}).")]
PreparedDir = Annotated[Path, typer.Option(
    "--prepared", envvar="MTCLI_PREPARED",
    help="Tokenized data (`mtcli tokenize`); built with default options when missing.")]
Resume = Annotated[bool, typer.Option("--resume", help="Continue the run saved in --out.")]
TrainForce = Annotated[bool, typer.Option("--force", help="Write into an --out that holds files mtcli did not write.")]
DModel = _ranged(int | None, "d_model", "Override: model width d.")
DFf = _ranged(int | None, "d_ff", "Override: feed-forward width d_p.")
Heads = _ranged(int | None, "n_heads", "Override: attention heads h.", "--heads")
Layers = _ranged(int | None, "n_layers", "Override: blocks tau in encoder and decoder.", "--layers")
Dropout = _ranged(float | None, "dropout", "Override: residual dropout.")
AttnDropout = _ranged(float | None, "attn_dropout", "Override: attention dropout.")
TrainBatch = _ranged(int | None, "batch_size", "Sentence pairs per batch.")
Schedule = Annotated[LrSchedule | None, typer.Option(help="noam (k*d^-0.5*min(..)) or thesis (eta0*min(..)).")]
LrScale = _ranged(float | None, "lr_scale", "k (noam) or eta0 (thesis).")
Warmup = _ranged(int | None, "warmup", "Warm-up steps t_w.")
LabelSmoothing = _ranged(float | None, "label_smoothing", "Label smoothing of the training loss.")
ClipNorm = _ranged(float | None, "clip_norm", "Global gradient-norm clip (0 = off).")
MaxEpochs = _ranged(int | None, "max_epochs", "Stop after this many epochs.")
TrainTime = _ranged(float | None, "max_time", "Stop after this many seconds of training (0 = no limit).")
Patience = _ranged(int | None, "patience", "Early stopping: epochs without selection improvement.")
AccuracyGoal = _ranged(float | None, "accuracy_goal", "Stop at this training accuracy (thesis: 0.90).")
Seed = _ranged(int | None, "seed", "Seed of initialisation, batching and dropout.")
AugmentLowercase = _ranged(float | None, "augment_lowercase", "Augmentation: share of pairs lowercased each epoch.")
AugmentUppercase = _ranged(float | None, "augment_uppercase", "Augmentation: ALL CAPS share.")
AugmentTitlecase = _ranged(float | None, "augment_titlecase", "Augmentation: Title Case share.")
AugmentStripPunct = _ranged(float | None, "augment_strip_punct",
                            "Augmentation: share of English sides without final punctuation.")
AugmentUnaccented = _ranged(float | None, "augment_unaccented", "Augmentation: share of source sides typed without "
                                                                "accents and without the opening ¿ ¡.")
AugmentShort = _ranged(float | None, "augment_short", "Augmentation: chance that a short pair (≤ 3 source words) "
                                                      "comes again with each other final mark (! . none; some "
                                                      "lowercase or ALL CAPS).")
AugmentNumbers = _ranged(float | None, "augment_numbers",
                         "Augmentation: share of pairs whose shared numbers get random digits.")
EmaDecay = _ranged(float | None, "ema_decay",
                   "Keep a moving average of the weights (e.g. 0.999) and save it; 0 = off.")
BleuSample = _ranged(int | None, "bleu_sample", "Selection sentences translated for a BLEU each epoch (0 = off).")
EarlyStopOn = Annotated[StopOn | None, typer.Option(
    help="Selection figure that picks the best epoch (bleu needs --bleu-sample).")]
TrainOnOption = Annotated[TrainOn | None, typer.Option(
    help="train+selection: a recipe's final model, its epoch count fixed on the selection split first; every epoch "
         "is saved. train+selection+test: every pair (score it on an external set).")]
InitFrom = Annotated[str | None, typer.Option(
    "--init-from", metavar="WEIGHTS", show_default=False,
    help="Start from this model's weights (a model directory or one of its .safetensors files) instead of random ones.")]
Ranks = _ranged(int, "ranks", "Data-parallel processes on this machine: reruns itself under mpiexec -n RANKS "
                              "(needs mtcli[distributed]). Under mpiexec/mpirun the launch sets the ranks.",
                "--ranks", show_default=False)
Threads = _ranged(int, "threads", "Data-parallel threads per process (default: one per core).", "--threads", "-t",
                  envvar="MTCLI_THREADS", show_default=False)
Register = Annotated[str | None, typer.Option(
    "--register", metavar="NAME", show_default=False,
    help="Then add the best model to `mtcli models` as NAME (for -m NAME).")]


@app.command()
def train(
    ctx: typer.Context,
    config: PresetOption = Preset.small,
    out: TrainOut = None,
    data: TrainData = None,
    prepared: PreparedDir = DEFAULT_PREPARED,
    resume: Resume = False,
    force: TrainForce = False,
    d_model: DModel = None,
    d_ff: DFf = None,
    n_heads: Heads = None,
    n_layers: Layers = None,
    dropout: Dropout = None,
    attn_dropout: AttnDropout = None,
    batch_size: TrainBatch = None,
    lr_schedule: Schedule = None,
    lr_scale: LrScale = None,
    warmup: Warmup = None,
    label_smoothing: LabelSmoothing = None,
    clip_norm: ClipNorm = None,
    max_epochs: MaxEpochs = None,
    max_time: TrainTime = None,
    patience: Patience = None,
    accuracy_goal: AccuracyGoal = None,
    seed: Seed = None,
    augment_lowercase: AugmentLowercase = None,
    augment_uppercase: AugmentUppercase = None,
    augment_titlecase: AugmentTitlecase = None,
    augment_strip_punct: AugmentStripPunct = None,
    augment_unaccented: AugmentUnaccented = None,
    augment_short: AugmentShort = None,
    augment_numbers: AugmentNumbers = None,
    ema_decay: EmaDecay = None,
    bleu_sample: BleuSample = None,
    early_stop_on: EarlyStopOn = None,
    train_on: TrainOnOption = None,
    init_from: InitFrom = None,
    ranks: Ranks = 0,
    threads: Threads = 0,
    register: Register = None,
) -> None:
    """Train a Transformer on the tokenized corpus; the best selection-error model is kept in --out.

    Ctrl-C saves the state; --resume continues exactly where it stopped (with any number of ranks).
    --batch-size is the global batch: each of N ranks x T threads computes batch-size/(N*T) pairs of it.

    Examples:

      mtcli train --config medium

      mtcli train -c small --max-time 900 --out runs/quick --register quick

      mtcli train --out runs/medium --resume

      mtcli train -c large --train-on train+selection --max-epochs 29 --out runs/large-final

      mtcli train -c large --prepared data/prepared-cf --init-from runs/large-final --lr-scale 0.25 --max-epochs 3

      mtcli tokenize --split random --out data/prepared-random && mtcli train --prepared data/prepared-random

      mtcli train --ranks 2                  (= mpiexec -n 2 mtcli train; hosts: mpiexec -f hostfile -n 8 mtcli train)
    """
    from mtcli import distributed, mpi_launch
    from mtcli.config import TrainConfig
    from mtcli.train import train_command

    if ranks > 1 and mpi_launch()[1] == 1:  # not started by mpiexec: rerun under it
        raise typer.Exit(distributed.relaunch(ranks, sys.argv[1:]))
    comm = distributed.world(ranks)
    # rank 0 speaks for all (the others: rich's Console, quiet)
    console = err.console if comm.rank == 0 else type(err.console)(stderr=True, quiet=True)
    out = _output_dir(out, "--out") or DEFAULT_RUNS / config.value
    _writable_dir(out, "--out")
    free = (lambda: registry.check_free(register, replacing=registry.removing(register))) if register is not None else None  # not after an hour of training
    loop = train_command(prepared, data, out, config.value, _given(ctx, "config"), _given_fields(ctx, ModelConfig),
                         _given_fields(ctx, TrainConfig), free, resume=resume, console=console, comm=comm,
                         threads=threads, force=force)
    _finished(loop, out, register if comm.rank == 0 else None, console, best=True)


@app.command()
def finetune(
    ctx: typer.Context,
    model: str = _model_option(),
    pairs: Path = typer.Option(..., "--pairs", "-p", show_default=False, metavar="FILE",
                               help="Your pairs: a UTF-8 TSV of source TAB target, in the model's direction."),
    name: str = typer.Option(..., "--name", "-n", show_default=False, help="Add the result to `mtcli models` as NAME."),
    max_time: float = typer.Option(0.0, "--max-time", **limits("max_time"),
                                   help="Stop after this many seconds of training (0 = when the held-out pairs stop improving)."),
    corpus: Path | None = typer.Option(None, "--corpus", envvar="MTCLI_DATA", show_default=False,
                                       help=f"The corpus a share of which is mixed in [default: {DEFAULT_DATA}]."),
    corpus_share: float = typer.Option(0.75, "--corpus-share", min=0.0, max=0.9,
                                       help="Share of the training pairs drawn from the corpus, against forgetting."),
    base_share: float = typer.Option(0.6, "--base-share", min=0.0, max=0.9,
                                     help="Share of the model's own weights mixed into the result, against forgetting."),
    out: Path | None = typer.Option(None, "--out", "-o", show_default=False,
                                    help="Run directory [default: runs/finetune-NAME]."),
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted fine-tuning in --out."),
) -> None:
    """Fine-tune a model on your own pairs (docs/finetune.md): its vocabularies, a low learning rate, a
    share of its corpus mixed in, early stopping on a tenth of your pairs; the best epoch added to
    `mtcli models` as NAME. Ctrl-C saves the state; --resume continues.

    Examples:

      mtcli finetune -m en-es --pairs ui.tsv --name en-es-ui --max-time 600

      mtcli translate -m en-es-ui "Save your changes before closing."
    """
    from mtcli.data import resolve_data_path
    from mtcli.finetune import finetune as run

    registry.check_free(name, replacing=registry.removing(name))
    out = _output_dir(out, "--out") or DEFAULT_RUNS / f"finetune-{name}"
    _writable_dir(out, "--out")
    loop, _ = run(registry.resolve(model), pairs, out, resolve_data_path(corpus), corpus_share, max_time, resume,
                  console=err.console, base_share=base_share)
    _finished(loop, out, name, err)


def _finished(loop, out: Path, name: str | None, console: Console, best: bool = False) -> None:
    """A training run's end: exit status 130 after Ctrl-C (its state saved); else what stopped it (`best`: and its
    best epoch) and where the model is, then the model added to `mtcli models` as `name` if given."""
    if loop.done == "interrupted":
        raise typer.Exit(130)
    epoch = f"best selection error {loop.best_error:.3f} (epoch {loop.best_epoch})" if loop.history else "no epoch finished"
    console.print(f"stopped: {loop.done}; {epoch + '; ' if best else ''}model in {out}", highlight=False)
    if name is None:
        return
    if not loop.history:
        fail(f"nothing to register as {name}: no epoch finished")
    with console.status(f"Adding {out} to the models as {name}…"):
        registry.add(out, name)
    console.print(f"registered: mtcli translate -m {name} \"…\"", highlight=False)


@app.command()
def plot(
    ctx: typer.Context,
    run: str | None = typer.Argument(None, show_default=False, metavar="[RUN]",
                                     help="Model directory (or name) with metrics.jsonl, as with -m."),
    model: str | None = _model_option(None),
    output: str | None = typer.Option(None, "--output", "-o", show_default=False,
                                      help="PNG file [default: RUN/curves.png] (a model given by name: "
                                           "NAME-curves.png here, not in mtcli's package)."),
) -> None:
    """Draw training and selection error and accuracy per epoch to a PNG.

    Examples:

      mtcli plot runs/medium

      mtcli plot -m en-es -o en-es.png
    """
    from mtcli.checkpoint import METRICS
    from mtcli.metrics import plot_history
    from mtcli.schema import metrics_rows

    name, run_dir = _model(ctx, run, model)
    path = run_dir / METRICS
    if not path.is_file():
        fail(f"{path}: no metrics yet (a run writes them after its first epoch)")
    # a model given by name, or the shipped one by its path: its directory is not for the user's files
    by_name = registry.models().get(name) == run_dir or registry.in_package(run_dir)
    output = _output_file(output) or (Path(f"{run_dir.name}-curves.png") if by_name else run_dir / "curves.png")
    _not_an_input(output, [path, *_model_files(run_dir)])
    plot_history(metrics_rows(path), output)
    if str(output) != "-":  # with -o - the PNG itself is on stdout
        _out.print(f"wrote {output}")


def _load_translator(model: Path, lazy: bool = False):
    """`lazy` for translate's shipped models (the way back's es-en only reads translations back: no lexicon); any
    other command reads the lexicon here, so a damaged one stops it before any work (evaluate had scored its whole
    teacher-forced pass first, and info showed such a model as sound)."""
    from mtcli.decode import Translator

    with status(f"Loading {model}…"):
        return Translator(model, lazy=lazy)


class FromLanguage(str, Enum):
    auto = "auto"
    en = "en"
    es = "es"


class ToLanguage(str, Enum):
    en = "en"
    es = "es"


RerankLines = Enum("RerankLines", {value: value for value in RERANKS}, type=str)  # (config.RERANKS, as typer's choices)


class DocFormat(str, Enum):
    text = "text"
    srt = "srt"
    vtt = "vtt"
    markdown = "markdown"
    html = "html"
    docx = "docx"
    odt = "odt"
    po = "po"
    xliff = "xliff"
    json = "json"


def _translate_options(ctx: typer.Context, text: bool, input: Path | None, fmt: DocFormat | None, greedy: bool,
                       beam: int, nbest: int, scores: bool, as_json: bool) -> tuple[str, int]:
    """translate's document format (text for plain lines) and beam size; options that would be ignored or
    overruled are an error, not a silent choice (their ranges: typer's, from ranges.RANGES)."""
    from mtcli.atomic import STDOUT

    beam = _environment_beam(ctx, beam, greedy)
    _refuse_contradictions(ctx, text, input is not None, greedy, beam, nbest, scores, as_json)
    if fmt is None and input is not None and str(input) != STDOUT:
        from mtcli.text.formats import format_for  # (the document formats' modules: not for text arguments)

        fmt = format_for(input)
    fmt = fmt.value if isinstance(fmt, DocFormat) else fmt or "text"
    if fmt != "text" and (nbest > 1 or scores or as_json or text):
        fail(f"--format {fmt} translates a document (-i FILE or stdin) and writes it back whole; "
             "--nbest, --scores, --json and text arguments are for plain lines")
    return fmt, 1 if greedy else max(beam, nbest)


def _environment_beam(ctx: typer.Context, beam: int, greedy: bool) -> int:
    """--beam's default from MTCLI_BEAM, read only when the command line gives neither --beam nor
    --greedy: the command line wins, so a bad MTCLI_BEAM is no error under them."""
    from mtcli.ranges import RANGES

    value = os.environ.get("MTCLI_BEAM", "").strip()
    if not value or greedy or _given(ctx, "beam"):
        return beam
    low, high = RANGES["beam"]
    try:
        size = int(value)
    except ValueError:
        size = None
    if size is None or not low <= size <= high:
        fail(f"MTCLI_BEAM={value[:40]!r}: give a beam size from {low} to {high} (or unset it, or give --beam)")
    return size


def _refuse_contradictions(ctx: typer.Context, text: bool, input: bool, greedy: bool, beam: int, nbest: int,
                           scores: bool, as_json: bool) -> None:
    """translate's options that would be ignored or overruled are an error, not a silent choice."""
    if text and input:
        fail("give the English as text arguments or with -i/--input, not both")
    if greedy and nbest > 1:
        fail(f"--greedy keeps one candidate; --nbest {nbest} needs beam search (drop --greedy)")
    if greedy and _given(ctx, "beam") and beam != 1:
        fail(f"--greedy is --beam 1: give --greedy or --beam {beam}, not both")
    if _given(ctx, "beam") and beam < nbest:
        fail(f"--nbest {nbest} needs --beam {nbest} or more, not --beam {beam}")
    if (greedy or max(beam, nbest) == 1) and _given(ctx, "alpha"):
        fail("--alpha ranks the hypotheses of beam search; greedy decoding (--greedy, --beam 1) has none to rank")
    if scores and (as_json or nbest > 1):
        fail(f"--scores: the output of {'--json' if as_json else '--nbest'} carries the scores already")


def _refuse_rerank(ctx: typer.Context, beam: int, greedy: bool, source: str, target: str | None) -> None:
    """--rerank short/all given where nothing would be ranked is an error; each option or variable that set that is named
    (a beam of 1 or Spanish lines from MTCLI_BEAM, MTCLI_FROM or the config file had been blamed on flags not given)."""
    if beam == 1:
        how = "--greedy" if greedy else "--beam 1" if _given(ctx, "beam") else "MTCLI_BEAM=1"
        fail(f"--rerank ranks the translations beam search finds; greedy decoding ({how}) finds one")
    if ctx.get_parameter_source("model").name != "DEFAULT":
        fail("--rerank ranks the shipped models' translations; a model given with -m (or MTCLI_MODEL) decodes "
             "as its options say")
    spanish = [how for how, given in (("--from es" if _given(ctx, "source") else "MTCLI_FROM=es", source == "es"),
                                      ("--to en" if _given(ctx, "target") else "MTCLI_TO=en", target == "en")) if given]
    if spanish:
        fail(f"--rerank ranks English to Spanish translations only; {spanish[0]} reads every line as Spanish")


def _decoding(ctx: typer.Context, fmt: str, beam: int, alpha: float, nbest: int, batch_size: int | None, check: bool,
              round_trip: bool, min_confidence: float | None, flagged: str | None, align: bool, scores: bool,
              rerank: str):
    """translate's decoding and checking, the one config.TranslationOptions the engines and the checker get;
    combinations that would be ignored are an error. With a check, beam search keeps the second best too: its
    margin is what the check reads (beam search finds it anyway)."""
    from mtcli.config import TranslationOptions

    asked = [name for name, given in (("--round-trip", round_trip), ("--min-confidence", min_confidence is not None),
                                      ("--flagged", flagged is not None)) if given]
    if not check and asked:
        fail(f"{asked[0]} reads the check that --no-check turns off")
    if fmt != "text" and (asked or align):
        fail(f"--format {fmt}: {(asked or ['--align'])[0]} is for plain lines (a document is not checked)")
    if align and (nbest > 1 or scores):
        fail(f"--align: its alignments follow the one translation of each line, not {'--nbest' if nbest > 1 else '--scores'}")
    batches = {} if batch_size is None else dict(max_batch_size=batch_size, batch_type="examples")
    return TranslationOptions(beam_size=beam, num_hypotheses=max(nbest, 2) if check and beam > 1 else nbest,
                              length_penalty=alpha, check="off" if not check else "full" if round_trip else "fast",
                              return_alignments=align, rerank=rerank, **batches)


# translate's options
Texts = Annotated[list[str], typer.Argument(show_default=False, help="Sentences (default: stdin or a prompt).")]
Source = Annotated[FromLanguage, typer.Option(
    "--from", envvar="MTCLI_FROM",
    help="Source language: en, es, or auto (told from each line; a document from its whole text).")]
Target = Annotated[ToLanguage | None, typer.Option(
    "--to", envvar="MTCLI_TO", show_default=False,
    help="Target language: en or es [default: the other one]; lines already in it are kept as they came, with a "
         "warning.")]
Input = Annotated[Path | None, typer.Option("--input", "-i", show_default=False,
                                            help="Read the text from a file ('-': stdin).")]
TranslationOutput = Annotated[str | None, typer.Option("--output", "-o", show_default=False,
                                                       help="Write the translation to a file ('-': stdout).")]
Format = Annotated[DocFormat | None, typer.Option(
    "--format", "-f", show_default=False,
    help="text, srt, vtt, markdown, html, docx, odt, po, xliff or json [default: from the -i file's extension, else text].")]
Keys = Annotated[list[str], typer.Option(
    "--keys", show_default=False,
    help="json: translate only the values whose dotted key matches this glob ('menu.*'; repeatable).")]
Overwrite = Annotated[bool, typer.Option("--overwrite", help="po, xliff: translate again what has a translation.")]
Beam = _ranged(int, "beam", "Beam size (MTCLI_BEAM, when set, changes the default; --beam or --greedy given wins).",
               "--beam", "-b")
Greedy = Annotated[bool, typer.Option("--greedy", help="Greedy decoding (same as --beam 1), fastest.")]
Alpha = _ranged(float, "alpha", "Length normalisation: score = logprob / length^alpha.", "--alpha")
NBest = _ranged(int, "nbest", "Print the N best translations as 'line ||| text ||| score', best first (the score is "
                                "the model's own: the ranking by the way back and coverage may put a lower one first). "
                                "A line may get fewer (a candidate repeating a better one or losing a placeholder is "
                                "left out; stderr says so once).",
                "--nbest", "-n")
Scores = Annotated[bool, typer.Option("--scores", help="Prefix each translation with its score and a tab.")]
Json = Annotated[bool, typer.Option("--json", help="One JSON object per input line.")]
DecodeBatch = _ranged(int | None, "decode_batch", f"Sentences decoded together [default: {DEFAULTS.max_batch_size:,} "
                                                  f"source {DEFAULTS.batch_type}' worth, divided by the beam].",
                      "--batch-size", show_default=False)
Check = Annotated[bool, typer.Option(
    "--check/--no-check",
    help="Flag translations that are probably wrong, with a reason where one is known (docs/confidence.md): marked "
         "on a terminal, a warning on stderr, 'quality' in --json.")]
RoundTrip = Annotated[bool, typer.Option("--round-trip", help="Check also by the way back: the other direction's "
                                                              "model (loaded for it) reads each source given its "
                                                              "translation; catches more wrong lines, for more CPU.")]
MinConfidence = Annotated[float | None, typer.Option(
    "--min-confidence", min=0.0, max=1.0, show_default=False,
    help="Exit with status 4 when a line's confidence (0-1) is below X.")]
Flagged = Annotated[str | None, typer.Option(
    "--flagged", show_default=False, help="Write the numbers of the flagged lines (1-based) to FILE, one a line.")]
Rerank = Annotated[RerankLines, typer.Option(
    "--rerank",
    help="Which English lines' translations to rank again by how well the Spanish-English model reads the source "
         "back from each (the shipped models): short (1-3 words), all (+0.7 BLEU on unseen text, ~1.6x the CPU of "
         "a file; docs/results.md) or off.")]
Align = Annotated[bool, typer.Option("--align", help="Source-target word alignments (i-j, words between spaces) "
                                                     "after ' ||| ' on each line; in --json per sentence.")]


@app.command()
def translate(
    ctx: typer.Context,
    text: Texts = None,
    source: Source = FromLanguage.auto,
    target: Target = None,
    model: str = _model_option(),
    input: Input = None,
    output: TranslationOutput = None,
    fmt: Format = None,
    keys: Keys = None,
    overwrite: Overwrite = False,
    beam: Beam = DEFAULTS.beam_size,
    greedy: Greedy = False,
    alpha: Alpha = DEFAULTS.length_penalty,
    nbest: NBest = DEFAULTS.num_hypotheses,
    scores: Scores = False,
    as_json: Json = False,
    batch_size: DecodeBatch = None,
    check: Check = True,
    round_trip: RoundTrip = False,
    min_confidence: MinConfidence = None,
    flagged: Flagged = None,
    align: Align = False,
    rerank: Rerank = RerankLines(DEFAULTS.rerank),
    glossary: Path | None = _glossary_option(),
) -> None:
    """Translate English to Spanish and Spanish to English: arguments, a file, piped lines, or interactively.

    One output line per input line, in order; blank lines and indentation stay. Each line is split
    into sentences; numbers, URLs, e-mail addresses and emoji come out as they went in; ALL CAPS,
    lowercase and loosely typed text is translated like its usual form. Input: UTF-8, or UTF-16 with
    a BOM; -o FILE is written in the input file's encoding, BOM and line ends (stdout: UTF-8, one
    newline per line). Piped input is answered line by line as it arrives. --format srt|vtt|markdown|html keeps a
    document's structure and translates its text only (default: from the -i file's extension); so do
    docx, odt, po (msgstr filled, flagged fuzzy), xliff (targets to review) and json (string values). The
    language of each line is told from its text unless --from gives it (or -m a model of one direction).

    Examples:

      mtcli translate "The plant is green."

      mtcli translate "¿Puedes prestarme tu bicicleta mañana?"

      mtcli translate --from es -i spanish.txt -o english.txt

      echo "Where is the station?" | mtcli translate --greedy

      mtcli translate -i english.txt -o spanish.txt --beam 5

      mtcli translate -i film.srt -o film.es.srt

      cat README.md | mtcli translate --format markdown -o -

      mtcli translate -i report.docx -o informe.docx

      mtcli translate --nbest 3 "I like it."

      mtcli translate -i english.txt -o spanish.txt --flagged check.txt --min-confidence 0.3
      mtcli translate --glossary terms.tsv -i manual.txt -o manual.es.txt
    """
    output = _output_file(output)
    from mtcli.atomic import STDOUT

    if text == [STDOUT] and input is None:  # `mtcli translate -`: standard input, as sacrebleu's and llm's "-"
        text, input = None, Path(STDOUT)
    fmt, beam = _translate_options(ctx, bool(text), input, fmt, greedy, beam, nbest, scores, as_json)
    decoding = _decoding(ctx, fmt, beam, alpha, nbest, batch_size, check, round_trip, min_confidence, flagged, align,
                         scores, rerank.value)
    if rerank != RerankLines.off and _given(ctx, "rerank"):
        _refuse_rerank(ctx, beam, greedy, source.value, target.value if target else None)
    from_stdin = input is not None and str(input) == STDOUT
    reads_stdin = not text and (input is None or from_stdin) and not sys.stdin.isatty()
    outputs = _translate_outputs(output, _output_file(flagged, "--flagged"), input, glossary, reads_stdin)
    router = _router(ctx, model, source.value, target.value if target else None, outputs, reads_stdin,
                     Options(decoding, glossary=_read_glossary(glossary)))
    if input is None and not text and sys.stdin.isatty():
        return session.repl(router)
    _document_options(fmt, keys, overwrite)
    shown = session.LineOptions(nbest, scores, as_json, align, min_confidence, outputs.get("--flagged"))
    session.translate(router, text, input, output, fmt, shown, keys, overwrite)


def _translate_outputs(output: Path | None, flagged: Path | None, input: Path | None, glossary: Path | None,
                       stdin: bool) -> dict[str, Path]:
    """translate's files to write, by option (-o, --flagged), each refused before any work when it names one
    of the inputs (-i, the glossary, standard input) or the other: one would destroy what the other holds.
    (-o naming -i: session.read_input, which says so.)"""
    if output is not None and flagged is not None and "-" not in (str(output), str(flagged)):
        from mtcli import guards

        if os.path.abspath(output) == os.path.abspath(flagged) or guards.input_named(flagged, [output]):
            fail(f"--flagged {flagged} is the -o file: the flagged lines' numbers would replace the translation; "
                 "give --flagged another file")
    _not_an_input(output, [glossary], stdin, "-o")
    _not_an_input(flagged, [input, glossary], stdin, "--flagged")
    return {option: path for option, path in (("-o", output), ("--flagged", flagged)) if path is not None}


def _no_model_file(outputs: dict[str, Path], model_dir: Path, stdin: bool) -> None:
    for option, output in outputs.items():
        _not_an_input(output, _model_files(model_dir), stdin, option)


class _Shipped:
    """The shipped models by direction, each loaded on first use; `forget` lets one go (the Router: a direction
    no line took for a while) unless a check reads translations back with it, `done_back` one the way back's
    ranking read with (mtcli.roundtrip) unless a direction's lines or a check use it."""

    def __init__(self):
        self.loaded, self.round_trips, self.engines = {}, set(), set()

    def __call__(self, direction: str):
        self.engines.add(direction)
        return self._load(direction)

    def _load(self, direction: str):
        if direction not in self.loaded:
            self.loaded[direction] = _load_translator(registry.shipped(direction), lazy=True)
        return self.loaded[direction]

    def back(self, direction: str):
        self.round_trips.add(direction)
        return self._load(direction)

    def forget(self, direction: str) -> None:
        self.engines.discard(direction)
        if direction not in self.round_trips:
            self.loaded.pop(direction, None)

    def done_back(self, direction: str) -> None:
        self.round_trips.discard(direction)
        if direction not in self.engines:
            self.loaded.pop(direction, None)


def _router(ctx: typer.Context, model: str, source: str, target: str | None, outputs: dict[str, Path], stdin: bool,
            options: Options):
    """translate's way to the models: the one given with -m or MTCLI_MODEL (its direction fixed, --from
    and --to must agree with it), else the shipped model of each line's direction, loaded on first use.
    `options` (config.Options) go as they are to each direction's engine (their decoding), its checker (how the
    translations are checked, mtcli.confidence; the round trip's model is the shipped one of the other
    direction, loaded on first use, which also ranks the shipped en-es model's translations again:
    mtcli.roundtrip) and the text pipeline (their glossary)."""
    from mtcli.confidence import Checker
    from mtcli.roundtrip import for_direction
    from mtcli.route import Languages, Router
    from mtcli.text.pipeline import Engine

    languages = Languages.parse(source, target)
    shipped = _Shipped()
    if ctx.get_parameter_source("model").name != "DEFAULT":
        path = registry.resolve(model)
        _no_model_file(outputs, path, stdin)
        translator = _load_translator(path)
        languages.agree(translator.direction, model)
        translator_of, fixed = (lambda direction: translator), translator.direction
    else:
        for path in registry.models().values():
            if path.parent == registry.SHIPPED_DIR:
                _no_model_file(outputs, path, stdin)
        translator_of, fixed = shipped, None

    def reverse(direction: str) -> str:
        return "-".join(reversed(direction.split("-")))

    def back_of(direction: str):  # (the other direction's shipped model, loaded on first use)
        return lambda: shipped.back(reverse(direction))

    def engine_of(direction: str):  # (the shipped models' translations ranked again by the way back: mtcli.roundtrip,
        # whose beam and weight were chosen for them; a model given with -m decodes as its options say)
        ranked = None if fixed else for_direction(direction, back_of(direction), options.decoding.rerank,
                                                  lambda: shipped.done_back(reverse(direction)))
        return Engine.from_translator(translator_of(direction), options.decoding, ranked)

    def checker_for(direction: str):
        return Checker(translator_of(direction), back_of(direction), options.decoding)

    checking = options.decoding.check != "off" or options.decoding.return_alignments
    return Router(engine_of, languages, fixed=fixed, checker_for=checker_for if checking else None, options=options,
                  forget=None if fixed else shipped.forget)


def _document_options(fmt: str, keys: list[str] | None, overwrite: bool) -> None:
    if keys and fmt != "json":
        fail(f"--keys picks the values of a JSON file to translate; --format {fmt} has none")
    if overwrite and fmt not in ("po", "xliff"):
        fail(f"--overwrite translates again the messages of a PO or XLIFF file; --format {fmt} has none")


@app.command()
def explain(
    ctx: typer.Context,
    sentence: str = typer.Argument(..., show_default=False, help="One sentence, English or Spanish."),
    model: str = _model_option(),
    layer: int | None = typer.Option(None, "--layer", show_default=False,
                                     help="Cross-attention layer of the heat map [default: the last]."),
    head: int | None = typer.Option(None, "--head", show_default=False,
                                    help="Its head [default: all heads averaged]."),
) -> None:
    """Show how the model translated a sentence: the pieces on both sides, each target piece's probability
    (unlikely ones marked) and a cross-attention heat map (rows: target pieces, columns: source pieces).

    The sentence goes to the model as it is (not through translate's text pipeline); without -m, to the
    shipped model of its language.

    Examples:

      mtcli explain "Where is the station?"

      mtcli explain --layer 0 --head 7 "I will call you next week."
    """
    from mtcli.confidence.explain import explain as explained
    from mtcli.confidence.explain import render
    from mtcli.langid import detect
    from mtcli.route import other

    sentence = session.utf8_argument(sentence)
    if ctx.get_parameter_source("model").name != "DEFAULT":
        path = registry.resolve(model)
    else:
        language = detect(sentence).language or "en"
        path = registry.shipped(f"{language}-{other(language)}")
    shown = explained(_load_translator(path), sentence, layer, head)
    if shown.cut:
        _warning(f"the model reads {len(shown.source)} pieces of a sentence at most; it never saw the rest: "
                 f"{quoted(shown.cut)} (`mtcli translate` splits such a sentence; explain its parts one by one)")
    with _out.console.capture() as drawn:  # written at once, as translate writes its lines (`| head -1` had
        # closed the pipe between two of them: "Broken pipe", exit 2)
        render(shown, _out.console)
    sys.stdout.write(drawn.get())


# evaluate's options
EvaluateSplit = Annotated[str, typer.Option("--split", help="test or selection: the model's own held-out split.")]
EvaluateData = Annotated[Path | None, typer.Option(
    "--data", show_default=False,
    help="Evaluate on this TSV (source TAB reference) or CSV (english,spanish header) instead: all its pairs ('-': "
         "stdin), e.g. an external test set.")]
SplitCorpus = Annotated[Path | None, typer.Option(
    "--corpus", envvar="MTCLI_DATA", show_default=False,
    help=f"The training corpus, to rebuild --split (default: {DEFAULT_DATA}).")]
EvaluateBeam = _ranged(int, "beam", "Beam size for BLEU/chrF (1 = greedy).", "--beam", "-b")
EvaluateAlpha = _ranged(float, "alpha", "Length normalisation exponent.", "--alpha")
Limit = _ranged(int, "limit", "Only the first N pairs (0 = all).", "--limit")
EvaluateOutput = Annotated[str | None, typer.Option("--output", "-o", show_default=False,
                                                    help="Write the translations here.")]
ReportJson = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
Save = Annotated[bool, typer.Option(
    "--save", help="Also record the report in MODEL/scores.json (shown by `mtcli info`); not for the shipped model, "
                   "whose scores come with the package.")]


@app.command()
def evaluate(
    ctx: typer.Context,
    model_arg: str | None = _model_argument(),
    model: str = _model_option(),
    split: EvaluateSplit = "test",
    data: EvaluateData = None,
    corpus: SplitCorpus = None,
    beam: EvaluateBeam = DEFAULTS.beam_size,
    alpha: EvaluateAlpha = DEFAULTS.length_penalty,
    limit: Limit = 0,
    output: EvaluateOutput = None,
    as_json: ReportJson = False,
    save: Save = False,
    glossary: Path | None = _glossary_option(),
) -> None:
    """Score a model: masked cross-entropy error, accuracy and perplexity (teacher forcing, as the
    thesis defines them) and sacrebleu BLEU and chrF of its translations.

    Examples:

      mtcli evaluate

      mtcli evaluate -m runs/medium --split selection --beam 1

      mtcli evaluate --data ../shared/data/tatoeba-test/unseen.tsv --json

      mtcli evaluate -m es-en --data ../shared/data/tatoeba-test/unseen-es.tsv

      mtcli evaluate --data manual.tsv --glossary terms.tsv     (through the text pipeline, with term accuracy)
    """
    import json

    from rich.progress import Progress

    from mtcli.atomic import write_output
    from mtcli.data import resolve_data_path
    from mtcli.evaluate import check_scores, evaluate_pairs, evaluation_set, save_scores

    output = _output_file(output)
    if data is not None and (_given(ctx, "split") or _given(ctx, "corpus")):
        fail("--data scores all pairs of its file: --split and --corpus (which pick the model's own split) "
             "do not go with it")
    if split not in ("test", "selection"):
        fail(f"--split must be test or selection, not {split!r}")
    name, model_dir = _model(ctx, model_arg, model)
    corpus = None if data is not None else resolve_data_path(corpus)
    if corpus is not None and str(corpus) != "-" and not corpus.exists():
        fail(f"corpus not found: {corpus} (to rebuild the {split} split: pass --corpus or set MTCLI_DATA, "
             "or run `mtcli download`)")
    _not_an_input(output, [data or corpus, *_model_files(model_dir)], stdin="-" in (str(data), str(corpus)))
    if save:
        _scores_writable(name, model_dir)
        check_scores(model_dir)
    terms = _read_glossary(glossary)
    tr = _load_translator(model_dir)
    pairs, source, key, skipped, skipped_lines = evaluation_set(tr.meta, name, data, corpus, split, limit)
    key += f", glossary {glossary.name}" if glossary else ""
    for line in skipped_lines:
        _warning(f"{source} line {line}: not a source<TAB>reference pair (or a side is empty); not scored")
    if skipped > len(skipped_lines):
        _warning(f"{source}: {skipped - len(skipped_lines):,} more malformed lines not scored")
    with Progress(console=err.console, transient=True) as bar:
        task = bar.add_task("translating", total=len(set(en for en, _ in pairs)))
        report, hyps = evaluate_pairs(tr, pairs, beam=beam, alpha=alpha, on_progress=lambda n: bar.advance(task, n),
                                      glossary=terms)
    report = {"model": name, "direction": tr.direction, "data": source, **report, "skipped": skipped}
    if output is not None:  # (first: a --save that fails keeps the translations)
        write_output(output, "".join(session.one_line(h) + "\n" for h in hyps))
    if save:
        save_scores(model_dir, key, report)
    to_stderr = str(output) == "-"  # with -o - the translations alone are on stdout, the report on stderr
    if as_json:
        print(json.dumps(report, indent=2), file=sys.stderr if to_stderr else sys.stdout)
    else:
        _print_report(report, source, err if to_stderr else _out)


def _scores_writable(name: str, model_dir: Path) -> None:
    """evaluate --save: the scores go into the model directory; never into mtcli's installed package
    (the shipped model's scores.json is part of the release), nor where nothing can be written."""
    from mtcli import guards
    from mtcli.checkpoint import SCORES

    if registry.in_package(model_dir):
        fail(f"--save: {name} is the model shipped inside mtcli's package; its scores.json comes with the release "
             "and is not rewritten (drop --save, or `mtcli models add` a copy and score that)")
    guards.check_writable(model_dir / SCORES, "--save: the model's scores file")


def _print_report(report: dict, source: str, console: Console) -> None:
    from rich.table import Table

    table = Table(title=f"mtcli evaluate: {source}", show_header=False)
    for key in ("pairs", "tokens", "error", "accuracy", "perplexity", "bleu", "chrf", "decoding"):
        value = report[key]
        table.add_row(key, f"{value:.4f}" if isinstance(value, float) else str(value))
    if "glossary" in report:
        g = report["glossary"]
        table.add_row("glossary terms", f"{g['terms']:,}, {g['term_accuracy']}% as the glossary says"
                      if g["terms"] else "none found in the sources")
    console.print(table)
    console.print(f"BLEU: {report['bleu_signature']}\nchrF: {report['chrf_signature']}", highlight=False)


@app.command()
def info(ctx: typer.Context, model_arg: str | None = _model_argument(), model: str = _model_option()) -> None:
    """Show a model's configuration, size, training data and scores.

    Examples:

      mtcli info

      mtcli info -m runs/medium
    """
    import json

    from mtcli.checkpoint import SCORES
    from mtcli.model import count_params
    from mtcli.schema import read_scores

    name, model_dir = _model(ctx, model_arg, model)
    tr = _load_translator(model_dir)
    meta = tr.meta
    try:
        scores = read_scores(model_dir / SCORES)
    except UserError as e:  # only read here: the model itself is sound, so say so and show the rest
        _warning(f"{e}; its scores are not shown")
        scores = {}
    _out.print_json(json.dumps({
        "model": name, "path": str(model_dir), "parameters": sum(count_params(m.cfg) for m in tr.models),
        **({"ensemble": [count_params(m.cfg) for m in tr.models]} if len(tr.models) > 1 else {}),
        "direction": tr.direction, "config": meta.get("model"),
        "vocab": dict(zip(tr.direction.split("-"), (tr.src_tok.vocab_size, tr.tgt_tok.vocab_size))),
        "data": meta.get("data"), "train": meta.get("train"), "epoch": meta.get("epoch"),
        "selection": meta.get("selection"),
        "scores": scores or None,
    }))


@app.command()
def export(
    ctx: typer.Context,
    model_arg: str | None = _model_argument(),
    model: str = _model_option(),
    output: str = typer.Option(..., "--output", "-o", show_default=False, metavar="<path>",
                               help="A new directory (ctranslate2) or an .argosmodel file (argos)."),
    fmt: str = typer.Option("ctranslate2", "--format", "-f", help="ctranslate2 or argos."),
    quantization: str = typer.Option("float32", "--quantization", "-q",
                                     help="Weights in the export: float32, int8 or int8_float32."),
) -> None:
    """Write a model for CTranslate2, or as an Argos Translate package (which LibreTranslate loads).

    Examples:

      mtcli export -o en-es-ct2

      mtcli export -m runs/medium --format argos -o translate-en_es-1_0.argosmodel
    """
    from mtcli.export import export as write

    model_dir = _model_dir(ctx, model_arg, model)
    if fmt == "argos":  # a file (or -): a trailing slash or a directory is refused, as is one of the model's files
        output = _output_file(output)
        _not_an_input(output, _model_files(model_dir))
    else:
        output = _output_dir(Path(output), "-o")
        _writable_dir(output, "-o")
    models = write(model_dir, output, fmt, quantization)
    (err if str(output) == "-" else _out).print(  # with -o - the package itself is on stdout
        f"wrote {output}" + (f" (the first of the ensemble's {models} models: CTranslate2 decodes one)"
                             if models > 1 else ""), highlight=False, soft_wrap=True)


@app.command()
def ensemble(
    models: list[str] = typer.Argument(..., show_default=False,
                                       help="Two or more models (names or directories) trained with the same tokenizers."),
    output: Path = typer.Option(..., "--output", "-o", show_default=False, help="A new directory for the ensemble."),
    dtype: str = typer.Option("float16", "--dtype", help="Weights on disk: float16 (half the size) or float32."),
) -> None:
    """Join models into one that decodes them together: at every step the mean of their
    log-probabilities (decoding costs the sum of theirs). Any command takes the result with -m.

    Examples:

      mtcli ensemble runs/large-a runs/large-b -o runs/large-ab

      mtcli ensemble runs/large-a runs/large-b runs/large-c -o runs/abc && mtcli evaluate -m runs/abc
    """
    _writable_dir(output, "-o")
    with status("Checking and joining the models…"):
        written = registry.ensemble(models, output, dtype)
    _out.print(f"wrote {output}: {len(written)} models, "
               f"{_megabytes(sum(f.stat().st_size for f in written))} of weights", highlight=False, soft_wrap=True)


glossary_app = App(no_args_is_help=True, help="Glossaries: terms that come out as you give them "
                                                        "(docs/glossary.md).")
app.add_typer(glossary_app, name="glossary")


@glossary_app.command("check")
def glossary_check(
    ctx: typer.Context,
    file: Path = typer.Argument(..., show_default=False, help="A glossary: TSV of source TAB target."),
    model: str | None = _model_option(None),
    source: FromLanguage = typer.Option(FromLanguage.en, "--from", help="The glossary's source language (the "
                                                                        "shipped model of that direction), unless -m."),
) -> None:
    """Check a glossary: its format (one line naming each error), then each term the model cannot read or
    write (pieces its vocabularies lack) or does not write by itself for the term alone, a line each.

    Examples:

      mtcli glossary check terms.tsv

      mtcli glossary check --from es terms-es.tsv
    """
    from mtcli.config import TranslationOptions
    from mtcli.route import other
    from mtcli.text import glossary as terms
    from mtcli.text.pipeline import Engine, translate_lines
    from mtcli.tokenizer import UNK

    if source == FromLanguage.auto and model is None:
        fail("--from auto: give the glossary's source language, en or es (or -m a model)")
    path = registry.resolve(model) if model else registry.shipped(f"{source.value}-{other(source.value)}")
    g = terms.read(file)
    tr = _load_translator(path)

    def unknown(tok):
        return lambda text: [w for w in text.split() if UNK in tok.encode(w)]

    engine, src = Engine.from_translator(tr, TranslationOptions(beam_size=1)), tr.direction.split("-")[0]
    report = terms.check(g.towards(src, other(src)), unknown(tr.src_tok), unknown(tr.tgt_tok),  # (alone, as translate does)
                         lambda texts: [r.text for r in translate_lines(texts, engine, Options().text_for(src))])
    for line in report:
        print(f"{file}: {line}", flush=True)
    changed = sum("writes" in line for line in report)
    err.print(f"{len(g.terms):,} terms; {changed:,} the model writes otherwise (the glossary changes them)",
              highlight=False)


# --- models: the shipped one and the user's --------------------------------------------

models_app = App(no_args_is_help=False)
app.add_typer(models_app, name="models")


def _megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


@models_app.callback(invoke_without_command=True)
def models(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    """List the models -m NAME finds: the one shipped with mtcli and those added with
    `mtcli models add` (kept in MTCLI_HOME/models, default: the user data directory).

    Examples:

      mtcli models

      mtcli models add runs/medium --name medium && mtcli translate -m medium "Hello."

      mtcli models remove medium
    """
    import json

    from rich.table import Table

    if ctx.invoked_subcommand is not None:
        if as_json:
            fail(f"--json lists the models; `mtcli models {ctx.invoked_subcommand}` has no JSON output")
        return
    entries = [registry.describe(name, path) for name, path in registry.models().items()]
    if as_json:
        print(json.dumps([{**e.__dict__, "path": str(e.path)} for e in entries], indent=2))
        return
    table = Table(title=f"mtcli models (yours in {registry.user_models()})")
    for col in ("name", "direction", "size", "parameters", "config", "BLEU", "path"):
        table.add_column(col, overflow="fold")
    for e in entries:
        c = e.config
        config = f"d {c['d_model']}, ff {c['d_ff']}, {c['n_heads']} heads, {c['n_layers']} layers" if c else "unreadable"
        table.add_row(e.name + (" (shipped)" if e.shipped else ""), e.direction or "?", _megabytes(e.size),
                      f"{e.parameters:,}" if e.parameters else "?", config,
                      "\n".join(f"{bleu:.1f} {key}" for key, bleu in e.scores.items()) or "-", str(e.path))
    _out.print(table)


@models_app.command("add")
def models_add(
    src: Path = typer.Argument(..., show_default=False, help="Model directory, e.g. runs/medium."),
    name: str | None = typer.Option(None, "--name", "-n", show_default=False,
                                    help="Name for -m [default: the directory's name]."),
    force: bool = typer.Option(False, "--force", help="Replace a model of the same name."),
) -> None:
    """Check a model directory (weights, tokenizers, checksums) and copy it in under a name.

    Examples:

      mtcli models add runs/medium

      mtcli models add runs/large --name large-v2 --force
    """
    _writable_dir(registry.user_models(), "the models directory (MTCLI_HOME)")
    with status(f"Checking and copying {src}…"):
        dest = registry.add(src, name, force)
    _out.print(f"added {dest.name} ({_megabytes(registry.describe(dest.name, dest).size)}) in {dest}; "
               f"translate with: mtcli translate -m {dest.name} \"…\"", highlight=False, soft_wrap=True)


@models_app.command("remove")
def models_remove(name: str = typer.Argument(..., show_default=False, help="A name from `mtcli models`.")) -> None:
    """Delete an added model (the shipped one stays); refused while a running command uses it.

    Examples:

      mtcli models remove medium
    """
    _out.print(f"removed {name} ({registry.remove(name)})", highlight=False, soft_wrap=True)


# --- serve: the LibreTranslate-compatible HTTP API -------------------------------------

_SERVE = ServeConfig()


@app.command()
def serve(
    ctx: typer.Context,
    model: str = _model_option(),
    host: str = typer.Option(_SERVE.host, "--host", envvar="MTCLI_HOST",
                             help="Address to listen on (0.0.0.0: every interface; think of --api-key then)."),
    port: int = typer.Option(_SERVE.port, "--port", "-p", envvar="MTCLI_PORT", min=0, max=65535,
                             help="Port (0: any free one, printed at start)."),
    api_key: str | None = typer.Option(None, "--api-key", envvar="MTCLI_API_KEY", show_default=False,
                                       help="Require this key in each request's api_key field."),
    beam: int = typer.Option(_SERVE.beam, "--beam", "-b", **limits("beam"), help="Beam size; alternatives go up to beam - 1."),
    char_limit: int = typer.Option(_SERVE.char_limit, "--char-limit", **limits("serve_chars"), help="Characters per request."),
    batch_limit: int = typer.Option(_SERVE.batch_limit, "--batch-limit", **limits("serve_texts"), help="Texts per request (a list q)."),
    body_limit: int = typer.Option(_SERVE.body_limit, "--body-limit", **limits("serve_body"), help="Bytes per request body."),
    queue_limit: int = typer.Option(_SERVE.queue_limit, "--queue-limit", **limits("serve_queue"),
                                    help="Characters waiting to be translated; more get 429 and Retry-After."),
    request_timeout: float = typer.Option(_SERVE.request_timeout, "--request-timeout", envvar="MTCLI_REQUEST_TIMEOUT",
                                          min=0.1, max=86_400,
                                          help="Seconds a request's work may take; then 503 and Retry-After."),
    glossary: Path | None = typer.Option(None, "--glossary", "-g", metavar="FILE", show_default=False,
                                         help="Terms for every request (TSV source TAB target); a request's own "
                                              "`glossary` field wins over it."),
    check: bool = typer.Option(_SERVE.check, "--check/--no-check",
                               help="Answer each text's `quality` (how sure, what it may have left out)."),
) -> None:
    """Serve translations over HTTP with LibreTranslate's API, and a page to try them at /.

    POST /translate (q, source en|es|auto, target en|es, format text|html (or markdown, srt, vtt),
    alternatives, api_key, glossary: {"source term": "target term"} or TSV text), POST /detect, GET /languages, GET /health (/health/details: the decoders), GET /spec. Both directions with the
    shipped models; -m (or MTCLI_MODEL) serves that model's direction only. Sentences of concurrent
    requests are decoded together in batches, each translation the beam's best (not ranked again by the way back
    as `mtcli translate` ranks them). Ctrl-C or SIGTERM lets the requests in flight finish.

    Examples:

      mtcli serve

      mtcli serve -m medium --port 5001 --api-key s3cret

      curl -s localhost:5000/translate -H 'Content-Type: application/json' -d '{"q": "Hello!", "source": "en", "target": "es"}'
    """
    from dataclasses import replace

    from mtcli.guards import check_api_key, check_host
    from mtcli.serve.server import serve as run

    # (click takes an empty variable for an unset one)
    api_key = check_api_key(api_key if api_key is not None else os.environ.get("MTCLI_API_KEY"))
    check_host(host, "--host (MTCLI_HOST)")
    cfg = replace(_SERVE, host=host, port=port, api_key=api_key, beam=beam, char_limit=char_limit,
                  batch_limit=batch_limit, body_limit=body_limit, queue_limit=queue_limit,
                  request_timeout=request_timeout, glossary=str(glossary) if glossary else None, check=check)
    _read_glossary(glossary)  # (refused now, in one line, not when the server starts)
    if ctx.get_parameter_source("model").name != "DEFAULT":
        model_dirs = [registry.resolve(model)]
    else:  # every shipped model: each direction mtcli has
        model_dirs = [path for name, path in registry.models().items() if name in registry.SHIPPED_NAMES]
        model_dirs = model_dirs or [registry.shipped(registry.SHIPPED)]  # (none: the error says so)
        model = ", ".join(path.name for path in model_dirs)
    err.print(f"Loading {', '.join(map(str, model_dirs))}…", highlight=False, soft_wrap=True)
    try:
        run(model_dirs, cfg, lambda url: err.print(f"mtcli serve: {url} (model {model}); Ctrl-C stops",
                                                   highlight=False, soft_wrap=True))
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled, once everything has finished
        raise typer.Exit(130) from None


def _examples_verbatim(doc: str | None) -> str | None:
    """Each example after "Examples:" marked for click as a paragraph not to rewrap ("\\b"): a command
    wrapped at the terminal's width cannot be copied and pasted."""
    if not doc or "Examples:" not in doc:
        return doc
    head, examples = doc.split("Examples:", 1)

    def verbatim(paragraph: str) -> str:
        lines = paragraph.strip("\n").rstrip().split("\n")
        indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]  # cleandoc dedents "\b" with the rest
        return "\n".join([indent + "\b", *lines])

    paragraphs = [verbatim(p) for p in examples.split("\n\n") if p.strip()]
    return head + "Examples:\n\n" + "\n\n".join(paragraphs) + "\n"


for _command in (*app.registered_commands, *models_app.registered_commands):
    _command.callback.__doc__ = _examples_verbatim(_command.callback.__doc__)
