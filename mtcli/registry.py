"""Where models live, so that `-m NAME` works from any directory.

Two places: the models shipped inside the package, one per direction (mtcli/models/en-es and
mtcli/models/es-en, package data), and a per-user
models directory, MTCLI_HOME/models (default: the platform's user data directory, e.g.
~/.local/share/mtcli/models on Linux), that `mtcli models add` copies model directories into. `-m`
and MTCLI_MODEL take a name from either place or a model directory's path; a name wins over a
directory of the same name in the current directory (write ./NAME for that one).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from mtcli.errors import UserError, quoted
from mtcli.guards import expand_user
from mtcli import lazy_re

SHIPPED = "en-es"  # the default of every command that takes one model (translate picks by direction)
SHIPPED_DIR = Path(__file__).parent / "models"
SHIPPED_NAMES = ("en-es", "es-en")  # a shipped model's name is its direction
WEIGHTS = "model.safetensors"  # = checkpoint.WEIGHTS, which comes with NumPy and Numba: too slow for -h and completion
NAME = lazy_re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # a directory name on every platform, never a path
LOCK_WAIT = 30.0  # seconds to wait for another add or remove (each holds the lock for a rename or two)
_REMOVED = lazy_re.compile(r"\.(.+)\.[0-9a-f]{32}\.removed")  # a model on its way out (a remove that was killed)
_readers: dict[Path, int] = {}  # model directory -> descriptor of its lock, shared while this process uses it


def model_files(path: Path | None = None) -> tuple[str, ...]:
    """What a model directory's model is (with an ensemble's further members, those in `path`); a
    run's state.safetensors stays behind."""
    from mtcli.checkpoint import LEXICON, METRICS, SCORES, SRC_TOK, TGT_TOK, WEIGHTS, member_files

    return (WEIGHTS, *(f.name for f in member_files(path)[1:] if path is not None), SRC_TOK, TGT_TOK, METRICS, SCORES,
            LEXICON)


def home() -> Path:
    """mtcli's per-user data directory: MTCLI_HOME, else the platform's user data directory."""
    if os.environ.get("MTCLI_HOME"):
        return expand_user(os.environ["MTCLI_HOME"], "MTCLI_HOME")
    from platformdirs import user_data_dir

    return Path(user_data_dir("mtcli", appauthor=False))


def user_models() -> Path:
    return home() / "models"


def models() -> dict[str, Path]:
    """Every model by name: the shipped ones first, then the user's in name order."""
    found = {name: SHIPPED_DIR / name for name in SHIPPED_NAMES if (SHIPPED_DIR / name / WEIGHTS).is_file()}
    if user_models().is_dir():
        for d in sorted(user_models().iterdir()):
            if NAME.fullmatch(d.name) and d.name not in SHIPPED_NAMES and (d / WEIGHTS).is_file():
                found[d.name] = d
    return found


def shipped(direction: str) -> Path:
    """The model shipped for a direction ("en-es", "es-en")."""
    path = SHIPPED_DIR / direction
    if not (path / WEIGHTS).is_file():
        have = ", ".join(n for n in SHIPPED_NAMES if (SHIPPED_DIR / n / WEIGHTS).is_file()) or "none"
        raise UserError(f"this mtcli ships no {direction} model (it has: {have}); give one with -m "
                        "(`mtcli models`) or --from/--to for a direction it has")
    return path


def _hint(known: dict[str, Path]) -> str:
    names = ", ".join(known) or "none"
    return (f"known models: {names} (`mtcli models`); register a model directory with "
            "`mtcli models add DIR --name NAME`, or give a model directory's path")


def resolve(spec: str | os.PathLike) -> Path:
    """A model name or a model directory's path -> the model directory."""
    text = os.fspath(spec)
    if not text.strip():
        raise UserError("the model is empty: give a name from `mtcli models` or a model directory")
    known = models()
    if text in known:
        return _use(known[text], text)  # (a shipped model is locked alike: nothing ever removes it)
    path = expand_user(text, "the model")
    if path.is_dir():
        return path
    named = not any(c in text for c in "/\\~")
    what = (f"{text}: not a directory" if path.exists() else
            f"no model named {quoted(text)} (nor a directory of that name)" if named
            else f"{text}: no such model directory")
    raise UserError(f"{what}; {_hint(known)}")


@dataclass
class Entry:
    name: str
    path: Path
    size: int  # bytes of the model's files
    config: dict | None  # ModelConfig fields, None if unreadable
    parameters: int | None
    scores: dict[str, float]  # BLEU by evaluation (`mtcli evaluate --save`)
    shipped: bool
    direction: str | None = None  # "en-es" or "es-en"; None if unreadable


def describe(name: str, path: Path) -> Entry:
    """What `mtcli models` lists; reads the weights' header only, not the weights."""
    import json

    from safetensors import safe_open

    from mtcli.checkpoint import META, SCORES, direction, member_files
    from mtcli.config import ModelConfig, from_dict
    from mtcli.model import count_params

    size = sum((path / f).stat().st_size for f in model_files(path) if (path / f).is_file())
    try:
        metas = []
        for weights in member_files(path):  # (an ensemble: every model's parameters)
            with safe_open(str(weights), framework="np") as f:
                metas.append(json.loads(f.metadata()[META]))
        config, parameters = metas[0]["model"], sum(count_params(from_dict(ModelConfig, m["model"])) for m in metas)
        way = direction(metas[0])
    except Exception:  # a damaged file is listed as such; loading it reports what is wrong
        config = parameters = way = None
    try:
        reports = json.loads((path / SCORES).read_text(encoding="utf-8"))
        scores = {key: float(r["bleu"]) for key, r in reports.items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        scores = {}
    return Entry(name, path, size, config, parameters, scores, name in SHIPPED_NAMES, way)


def _check_name(name: str) -> None:
    if not NAME.fullmatch(name):
        raise UserError(f"{name!r} is not a model name: use letters, digits, '.', '_' and '-' "
                        "(up to 64, starting with a letter or digit)")
    if name in SHIPPED_NAMES:
        raise UserError(f"{name} is the shipped model's name; choose another --name")


def check_free(name: str, force: bool = False, replacing: str = "add --force to replace it") -> Path:
    """Where a model called `name` goes; refused when the name is invalid or, without force, taken (`replacing`:
    how the command at hand replaces it: train and finetune have no --force for that)."""
    _check_name(name)
    dest = user_models() / name
    if dest.exists() and not force:
        raise UserError(f"a model named {name} exists ({dest}); {replacing}, or choose another name")
    return dest


def removing(name: str) -> str:
    """How train and finetune replace a registered model: remove it first."""
    return f"remove it first (`mtcli models remove {name}`)"


def new_directory(parent: Path, name: str) -> Path:
    """A temporary directory in `parent` to fill and rename into place as `name`, with the permissions
    of any directory the user makes (mkdtemp's are private: an ensemble or a model added there would be
    unreadable to the group, unlike the run directories beside it)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=parent))
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)
    return tmp


# --- locks (flock on the directories themselves): a model is added, replaced and removed whole, never
# under a command that uses it


def _flock(fd: int, exclusive: bool, seconds: float) -> bool:
    """Lock `fd` (flock), trying for up to `seconds`; False if another process still holds it."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): the renames alone
        return True
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def _open_dir(directory: Path) -> int:
    """A directory opened to be locked itself (flock): no lock file is left in it, and the lock moves
    with it when it is renamed away."""
    return os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))


def _same(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _use(path: Path, name: str) -> Path:
    """The registered model `name` in `path`, locked (shared) until this command ends (release): a
    `models remove` or `models add --force` of it meanwhile is refused. One that is being removed or
    replaced right now is one line."""
    if path in _readers or path.is_symlink():  # a link is removed alone: what it points to stays, unlocked
        return path
    try:
        fd = _open_dir(path)
    except OSError:  # gone (removed just now): the commands' own checks say so
        return path
    if not _flock(fd, False, LOCK_WAIT) or not _same(fd, path):
        os.close(fd)
        raise UserError(f"the model {name} was removed or replaced just now (`mtcli models`); run the command "
                        "again to use what is there now")
    _readers[path] = fd
    return path


def release() -> None:
    """End this process's use of the registered models it resolved (at the end of a command)."""
    while _readers:
        os.close(_readers.popitem()[1])


class _RegistryLock:
    """The models directory's own lock, held by add and remove for their renames: one at a time."""

    def __enter__(self):
        user_models().mkdir(parents=True, exist_ok=True)
        self.fd = _open_dir(user_models())
        if not _flock(self.fd, True, LOCK_WAIT):
            os.close(self.fd)
            raise UserError(f"another `mtcli models add` or `remove` has held {user_models()} for {LOCK_WAIT:g} s; "
                            "try again when it has ended")
        _sweep()
        return self

    def __exit__(self, *exc):
        os.close(self.fd)


def _sweep() -> None:
    """Delete what a killed remove left under its temporary name (no reader can reach it any more)."""
    for d in user_models().iterdir():
        if _REMOVED.fullmatch(d.name) and d.is_dir() and not d.is_symlink():
            shutil.rmtree(d, ignore_errors=True)


def _take_away(path: Path, name: str) -> Path | None:
    """Move the registered model in `path` out of its name (renamed beside it, so that no reader finds it
    half deleted) once no command uses it; refused while one does. Returns where it went (None: a symlink
    or a file, unlinked at once)."""
    if path.is_symlink() or not path.is_dir():
        path.unlink()
        return None
    fd = _open_dir(path)
    try:
        if path in _readers:  # this process itself (a test, a caller of the API) is done with it
            os.close(_readers.pop(path))
        if not _flock(fd, True, 0):
            raise UserError(f"the model {name} is in use by a running mtcli (translate, evaluate, serve, ...); it "
                            "is kept: try again once that has ended")
        gone = path.with_name(f".{name}.{uuid.uuid4().hex}.removed")
        path.rename(gone)
        return gone
    finally:
        os.close(fd)


def add(src: Path, name: str | None = None, force: bool = False) -> Path:
    """Copy the model directory `src` into the user's models directory as `name` (default: its
    directory name), after loading it: weights, tokenizers and their checksums must be sound. The copy
    is made beside its place and renamed into it under the models directory's lock: an interrupted add
    leaves no half model, two adds of one name never both win, a model in use is not replaced."""
    from mtcli.decode import Translator

    src = expand_user(src, "the model directory")
    if not src.is_dir():
        raise UserError(f"{src}: no such model directory")
    # the name the user sees (a link's own, not its target's); abspath makes "." a name too
    name = Path(os.path.abspath(src)).name if name is None else name
    dest = check_free(name, force)
    if dest.exists() and dest.resolve() == src.resolve():
        raise UserError(f"{src} is the registered model {name} itself")
    Translator(src)
    try:
        user_models().mkdir(parents=True, exist_ok=True)
        tmp = new_directory(user_models(), name)
        try:
            for f in model_files(src):
                if (src / f).is_file():
                    shutil.copyfile(src / f, tmp / f)
            with _RegistryLock():
                check_free(name, force)  # again: another add may have taken the name meanwhile
                old = _take_away(dest, name) if dest.exists() or dest.is_symlink() else None
                try:
                    tmp.rename(dest)
                except OSError:
                    if old is not None:  # the model it was to replace goes back
                        old.rename(dest)
                    raise
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError as e:
        raise UserError(f"cannot add {src} as {name}: {e.strerror or e}") from None
    return dest


def _claim_empty(out: Path) -> tuple[int, bool]:
    """`out` made (or found) an empty directory and locked for this process: (its descriptor, whether
    this process made it). Another process writing there, or anything in it, is refused."""
    made = False
    try:
        out.mkdir()
        made = True
    except FileExistsError:
        pass
    taken = UserError(f"{out} exists and is not an empty directory; give a new one for the ensemble")
    try:
        fd = _open_dir(out)
    except NotADirectoryError:
        raise taken from None
    if not _flock(fd, True, 0):
        os.close(fd)
        raise UserError(f"{out} is being written by another `mtcli ensemble`; give another -o")
    if not _same(fd, out) or any(out.iterdir()):  # another one finished there first
        os.close(fd)
        raise taken
    return fd, made


def _remove_empty(directories: list[Path]) -> None:
    """Remove these directories (deepest first) where they are still empty: never what another
    process put there."""
    for d in directories:
        try:
            d.rmdir()
        except OSError:
            return


def ensemble(specs: list[str], out: Path, dtype: str = "float16") -> list[Path]:
    """Models (names or directories, trained with the same tokenizers) joined as one ensemble in the
    new or empty directory `out` (refused if it holds anything: it is never overwritten), weights
    stored as dtype. Written beside it and renamed over the empty directory, which this process holds
    locked meanwhile: an interruption leaves no half ensemble, and two ensembles into one -o never mix
    (the second is refused). Returns the weight files."""
    import numpy as np

    from mtcli.checkpoint import save_ensemble

    if len(specs) < 2:
        raise UserError("an ensemble needs at least two models")
    if dtype not in ("float16", "float32"):
        raise UserError(f"--dtype must be float16 or float32, not {dtype!r}")
    dirs = [resolve(spec) for spec in specs]
    out = expand_user(out, "-o")
    if str(out) == "-":
        raise UserError("-o - is standard output; an ensemble is a directory: give a new one")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(f"{out} exists and is not an empty directory; give a new one for the ensemble")
    made = [d for d in out.absolute().parents if not d.exists()]  # parents this process makes, deepest first
    fd, done = None, False
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, made_out = _claim_empty(out)
        made = [out.absolute()] * made_out + made
        tmp = new_directory(out.parent, out.name)
        try:
            written = save_ensemble(tmp, dirs, np.dtype(dtype))
            tmp.rename(out)  # over the empty directory, in one step
            done = True
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError as e:
        raise UserError(f"cannot write {out}: {e.strerror or e}") from None
    finally:
        if fd is not None:
            os.close(fd)
        if not done:
            _remove_empty(made)
    return [out / f.name for f in written]


def _delete(path: Path) -> None:
    """What stands under a model's name: a directory with its files; a symlink (or a file) only
    itself, never what it points to."""
    if path.is_symlink() or not path.is_dir():
        path.unlink()
    else:
        shutil.rmtree(path)


def remove(name: str) -> Path:
    """Delete the registered model `name` (exactly that name), refused while a command uses it."""
    if name in SHIPPED_NAMES:
        raise UserError(f"{name} is a model shipped with mtcli; it cannot be removed")
    with _RegistryLock():
        known = models()
        if name not in known:
            raise UserError(f"no model named {name!r}; {_hint(known)}")
        try:
            gone = _take_away(known[name], name)
            if gone is not None:
                _delete(gone)
        except OSError as e:
            raise UserError(f"cannot remove {known[name]}: {e.strerror or e}") from None
    return known[name]


def in_package(path: str | os.PathLike) -> bool:
    """Whether `path` is (inside) mtcli's installed package, whose files a command never rewrites."""
    package = os.path.realpath(Path(__file__).parent)
    real = os.path.realpath(path)
    return real == package or real.startswith(package + os.sep)
