"""Corpus reading, the train/selection/test split, the cached tokenized data set and batching."""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import itertools
import json
import os
import shlex
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mtcli.config import DEFAULT_DATA, DEFAULT_DIRECTION, DEFAULT_PREPARED, VOCAB, ModelConfig, languages
from mtcli.errors import UserError
from mtcli import guards
from mtcli.ranges import RANGES
from mtcli.atomic import atomic_write_bytes, atomic_write_json, claim_dir
from mtcli.tokenizer import BOS, CASE_FACTORS, CASE_SCHEME, EOS, PAD, Tokenizer, train_tokenizer
from mtcli import lazy_re

SPLITS = ("train", "selection", "test")
SPLIT_METHODS = ("grouped", "random")
FRACTIONS = (0.6, 0.2, 0.2)  # thesis: 60% training, 20% selection, 20% test
REPORTED_LINES = 5  # how many malformed line numbers a report names
MAX_CORPUS_BYTES = 2 << 30  # spa.txt is 8 MB; a corpus is read whole, and text takes ~4x its bytes in memory
FORMAT_VERSION = 1  # bump when the prepared files change meaning; invalidates caches
_UNDECODABLE = lazy_re.compile("[\x00\udc80-\udcff]")  # what surrogateescape makes of invalid bytes; NUL: binary, UTF-16 without a BOM
STDIN = "-"
LANGUAGE_NAMES = {"en": "English", "es": "Spanish"}


# --- reading -------------------------------------------------------------------------


@dataclass
class Corpus:
    path: Path
    pairs: list[tuple[str, str]]  # (English, Spanish)
    sha256: str
    format: str  # "tsv" or "csv"
    skipped: int = 0
    skipped_lines: list[int] = field(default_factory=list)  # 1-based, the first few


def resolve_data_path(path: str | os.PathLike | None) -> Path:
    """The corpus to read: an explicit path, else $MTCLI_DATA, else DEFAULT_DATA."""
    return Path(path or os.environ.get("MTCLI_DATA") or DEFAULT_DATA)


def resolve_prepared_dir(path: str | os.PathLike | None) -> Path:
    """Where `mtcli tokenize` writes and later stages read: explicit, else $MTCLI_PREPARED, else DEFAULT_PREPARED."""
    return Path(path or os.environ.get("MTCLI_PREPARED") or DEFAULT_PREPARED)


def _read_bytes(path: Path) -> bytes:
    """A file's bytes ("-": standard input's), at most MAX_CORPUS_BYTES: /dev/zero or a runaway pipe must
    not fill the memory."""
    if str(path) == STDIN:
        guards.check_stdin()
        fd = guards.stdin_fd()
        try:  # a file on stdin: to the end it has now; a pipe: to its end
            raw = guards.read_once(fd, MAX_CORPUS_BYTES) if fd is not None else sys.stdin.buffer.read(MAX_CORPUS_BYTES + 1)
        except OSError as e:
            raise UserError(f"cannot read standard input: {e.strerror or e}") from None
        if len(raw) > MAX_CORPUS_BYTES:
            raise UserError(f"standard input is over {MAX_CORPUS_BYTES:,} bytes: too large for a corpus read into memory")
        return raw
    if path.is_dir():
        raise UserError(f"{path} is a directory; give the corpus file itself (e.g. {path / 'spa.txt'})")
    if not path.exists():
        raise UserError(f"corpus not found: {path} (run `mtcli download`, or pass --data or set MTCLI_DATA)")
    try:
        if path.is_char_device() or path.is_block_device():
            raise UserError(f"{path} is a device, not a corpus file")
        raw = guards.read_once(path, MAX_CORPUS_BYTES)  # a pipe with no writer is refused, not waited for
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror}") from None
    if len(raw) > MAX_CORPUS_BYTES:
        raise UserError(f"{path} is over {MAX_CORPUS_BYTES:,} bytes: too large for a corpus read into memory")
    return raw


def file_sha256(path: str | os.PathLike) -> str:
    return hashlib.sha256(_read_bytes(Path(path))).hexdigest()


_LINE_END = lazy_re.compile("\r\n|\r|\n")  # LF, CRLF or CR (an old Mac file) as text/read.py reads them


def _tsv_records(text: str) -> Iterator[tuple[int, list[str]]]:
    # these line ends only, not splitlines()'s: it also breaks at U+2028, \x1c etc.
    for lineno, line in enumerate(_LINE_END.split(text), 1):
        yield lineno, line.split("\t")


def _csv_records(text: str, path: Path) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip().lower() for h in next(reader, [])]
    if "english" not in header or "spanish" not in header:
        raise UserError(f"{path}: a CSV corpus needs a header line naming its english and spanish columns")
    cols = header.index("english"), header.index("spanish")
    while True:
        lineno = reader.line_num + 1  # a quoted field may span lines: report where the record starts
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise UserError(f"{path}: line {lineno}: {e}") from None
        yield lineno, [row[c] if c < len(row) else "" for c in cols]


def _is_csv(path: Path, text: str) -> bool:
    """.csv is CSV and .tsv is TSV whatever their first line says; other names are CSV when the first
    line is an english,spanish header and the lines after it are not tab-separated."""
    if path.suffix.lower() in (".csv", ".tsv"):
        return path.suffix.lower() == ".csv"
    first, *rest = text.split("\n", 21)
    if sum("\t" in line for line in rest[:20]) > len(rest[:20]) // 2:
        return False
    try:
        header = next(csv.reader([first]), [])
    except csv.Error:  # a first line no CSV reader accepts (binary data, a lone \r) is no header
        return False
    return {"english", "spanish"} <= {h.strip().lower() for h in header}


def read_corpus(path: str | os.PathLike) -> Corpus:
    """Read English-Spanish pairs from a tab-separated spa.txt or an english,spanish CSV.

    UTF-8, or UTF-16 with a BOM; "-" reads standard input. Lines with a missing column, an empty side,
    invalid UTF-8 or a NUL byte are skipped and counted.
    """
    path = Path(path)
    raw = _read_bytes(path)
    text = None
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # (a Windows "Unicode" file)
        try:
            text = raw.decode("utf-16")
        except UnicodeDecodeError:
            pass  # no UTF-16 after all (binary data): read as UTF-8, its undecodable lines skipped
    if text is None:
        text = raw.decode("utf-8-sig", errors="surrogateescape")
    fmt = "csv" if _is_csv(path, text) else "tsv"
    records = _csv_records(text, path) if fmt == "csv" else _tsv_records(text)
    pairs, bad = [], []
    for lineno, fields in records:
        if not any(f.strip() for f in fields):
            continue  # blank lines, including the one after the final newline
        if lineno == 1 and [f.strip().lower() for f in fields] == ["english", "spanish"]:
            continue  # a TSV file's header line
        en, es = (f.strip() for f in (fields + [""])[:2])
        if en and es and not _UNDECODABLE.search(en + es):
            pairs.append((en, es))
        else:
            bad.append(lineno)
    if not pairs:
        raise UserError(
            f"{path}: no valid English-Spanish pair (expected lines 'English<TAB>Spanish' "
            "or a CSV with an english,spanish header)"
        )
    return Corpus(path, pairs, hashlib.sha256(raw).hexdigest(), fmt, len(bad), bad[:REPORTED_LINES])


# --- split ---------------------------------------------------------------------------


def split_pairs(
    pairs: Sequence[tuple[str, str]],
    seed: int = 0,
    method: str = "grouped",
    fractions: Sequence[float] = FRACTIONS,
) -> dict[str, list[int]]:
    """Seeded split of pair indices into train/selection/test.

    "grouped" shuffles whole groups of pairs sharing an English sentence (compared
    ignoring case and spacing), so no English sentence is in two splits and sizes miss
    the fractions by at most one group; "random" shuffles single pairs, as the thesis did.
    """
    if method not in SPLIT_METHODS:
        raise UserError(f"unknown split method {method!r}; choose {' or '.join(SPLIT_METHODS)}")
    if len(fractions) != 3 or min(fractions) < 0 or abs(sum(fractions) - 1) > 1e-6:
        raise UserError(f"split fractions must be three non-negative numbers adding up to 1, not {fractions}")
    n = len(pairs)
    if method == "grouped":
        ids: dict[str, int] = {}
        group = np.fromiter((ids.setdefault(" ".join(en.split()).casefold(), len(ids)) for en, _ in pairs), np.int64, n)
    else:
        group = np.arange(n)
    sizes = np.bincount(group, minlength=group.max(initial=-1) + 1)
    order = np.random.default_rng(seed).permutation(len(sizes))
    starts = np.cumsum(sizes[order]) - sizes[order]  # pairs placed before each group
    bounds = np.round(np.cumsum(fractions)[:2] * n)
    side = np.empty(len(sizes), np.int64)
    side[order] = np.searchsorted(bounds, starts, side="right")
    pair_side = side[group]
    return {name: np.flatnonzero(pair_side == k).tolist() for k, name in enumerate(SPLITS)}


def oriented(pairs: Sequence[tuple[str, str]], direction: str) -> list[tuple[str, str]]:
    """(source, target) pairs for a direction, from the corpus's (English, Spanish) ones."""
    src, _ = languages(direction)
    return list(pairs) if src == "en" else [(es, en) for en, es in pairs]


# --- target-side lexicon: the words a model's output may hold (checkpoint.write_lexicon, decode.WordCheck) ---

WORD = lazy_re.compile(r"[^\W\d_]+")  # a word as the lexicon counts it: a run of letters (no digit, no "_")


def target_lexicon(pairs: Sequence[tuple[str, str]], direction: str) -> list[str]:
    """Every word type of the target side of the corpus's pairs, lowercased and sorted: an output word
    outside it (and not in its source) is made up ("¡Dola!" for "Hello!")."""
    return sorted({w.lower() for _, tgt in oriented(pairs, direction) for w in WORD.findall(tgt)})


# a capitalised word seen in fewer pairs than this on the corpus's source side is a name the model did not learn:
# on 100 selection sentences with "Tom" made another name (benchmarks/names.py --split selection), the shipped
# en-es kept a name seen 0 times in 0 %, 1-4 times 6 %, 20-99 times 92 % (es-en 20-99 times: 76 %) ...
KNOWN_NAME = 100
# ... unless the corpus teaches it a translation: seen this often, mostly not as it is on the target side
# ("Thursday" 8 times, "jueves"; "Sevilla" 0: kept)
TAUGHT_NAME = 3


def familiar_words(pairs: Sequence[tuple[str, str]], direction: str) -> list[str]:
    """The source side's words a model learned, lowercased and sorted: every word seen in lowercase, or only
    opening a sentence and not written as it is on the target side (a verb: "Llevábamos", "Tradujimos"), and a
    capitalised word (a name) seen KNOWN_NAME times, or TAUGHT_NAME times translated. A capitalised word outside it is a name to
    keep as it is (text.sentence.unknown_pieces): "Anna" came out "molesta", "Peter" "La mascota"."""
    lower, seen, copied, inside = set(), Counter(), Counter(), set()
    for src, tgt in oriented(pairs, direction):
        written = set(WORD.findall(tgt))
        for k, m in enumerate(WORD.finditer(src)):
            w = m.group()
            if w.islower():
                lower.add(w)
                continue
            seen[w.lower()] += 1
            copied[w.lower()] += w in written
            if k:
                inside.add(w.lower())
    translated = {w for w, n in seen.items() if copied[w] < n / 2}  # (a name is mostly written as it is)
    taught = {w for w, n in seen.items() if n >= KNOWN_NAME or n >= TAUGHT_NAME and w in translated}
    return sorted(lower | taught | (translated - inside))


# --- a Spanish source's accents, for Spanish typed without them (text.spanish.accented) ---

# a neighbour that chooses another form than a word's most frequent one is kept if seen this often, this share of
# them with that form: on the selection split typed without accents (the table from the train split), words
# restored wrong 12,153 of 144,156 with the vocabulary's table, 5,892 with each word's most frequent form alone,
# 2,459 with these 893 neighbours (2 times, 0.7: 2,325 with 1,532; 5 times: 2,613 with 490)
ACCENT_SEEN, ACCENT_SHARE = 3, 0.7
_PIECE = lazy_re.compile(r"[^\W\d_]+|\S")


def unaccented(word: str) -> str:
    """Without combining marks: "Está" -> "Esta", "año" -> "ano"."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def accent_contexts(text: str) -> Iterator[tuple[str, str, str]]:
    """(word, the word before, the word after) of each word of a Spanish sentence, its neighbours lowercased and
    without accents; where a mark or an end is the neighbour, "^?", "^!" or "^" before (by the sentence's final mark:
    "Tom, que haces?" asks, "que" is "qué") and "$" after."""
    end = text.rstrip()[-1:]
    start = "^" + end if end in "?!" and end else "^"
    pieces = _PIECE.findall(text.replace("¿", "").replace("¡", ""))
    for k, piece in enumerate(pieces):
        if piece[0].isalpha():
            before = pieces[k - 1] if k else "."
            after = pieces[k + 1] if k + 1 < len(pieces) else "."
            yield (piece, unaccented(before.lower()) if before[0].isalpha() else start,
                   unaccented(after.lower()) if after[0].isalpha() else "$")


def accent_choices(pairs: Sequence[tuple[str, str]], direction: str) -> dict[str, dict]:
    """For a Spanish source, from its side of the corpus: {"words": a word typed without accents -> the form
    written most often, where that one has them ("estacion" -> "estación", "ano" -> "año"), "before": "word
    before + word" -> [the form it chooses, times seen] where that differs from the most frequent ("^? que" ->
    "qué", "con el" -> "él"), "after": "word + word after" -> likewise ("esta bien" -> "está")}; empty for an
    English source."""
    if languages(direction)[0] != "es":
        return {}
    forms, before, after = (defaultdict(Counter) for _ in range(3))
    for src, _ in oriented(pairs, direction):
        for word, prev, nxt in accent_contexts(src):
            word = word.lower()
            plain = unaccented(word)
            forms[plain][word] += 1
            before[f"{prev} {plain}"][word] += 1
            after[f"{plain} {nxt}"][word] += 1
    top = {plain: counts.most_common(1)[0][0] for plain, counts in forms.items()}

    def choosing(context: dict[str, Counter], word_at: int) -> dict[str, list]:
        chosen = {}
        for key, counts in context.items():
            (form, n), seen = counts.most_common(1)[0], counts.total()
            if form != top[key.split(" ")[word_at]] and seen >= ACCENT_SEEN and n >= ACCENT_SHARE * seen:
                chosen[key] = [form, n]
        return chosen

    return {"words": {plain: form for plain, form in top.items() if form != plain},
            "before": choosing(before, 1), "after": choosing(after, 0)}


def held_out_pairs(corpus: Path, record: dict, split: str, model: str) -> list[tuple[str, str]]:
    """The (source, target) pairs of a model's own held-out split ("test" or "selection"), rebuilt from
    the corpus it was trained on and what it records of its data (direction, seed, split method, the
    corpus's SHA-256)."""
    c = read_corpus(corpus)
    if record.get("data_sha256") not in (None, c.sha256):
        raise UserError(f"{c.path} is not the corpus {model} was trained on (SHA-256 differs); "
                        "pass --data to score other pairs")
    pairs = oriented(c.pairs, record.get("direction", DEFAULT_DIRECTION))
    rows = split_pairs(pairs, record.get("seed", 0), record.get("split", "grouped"))[split]
    return [pairs[i] for i in rows]


# --- encoded splits ------------------------------------------------------------------


@dataclass
class EncodedSplit:
    """Ragged token-id sequences, each with BOS first and EOS last, stored flat."""

    src: np.ndarray  # uint16, all source sequences concatenated
    src_offsets: np.ndarray  # int64, n + 1: sequence i is src[src_offsets[i]:src_offsets[i+1]]
    tgt: np.ndarray  # uint16, target
    tgt_offsets: np.ndarray  # int64, n + 1
    index: np.ndarray  # int64, row of each pair in Corpus.pairs

    ARRAYS = ("src", "src_offsets", "tgt", "tgt_offsets", "index")

    @classmethod
    def from_sequences(cls, index: list[int], src: list[list[int]], tgt: list[list[int]]) -> EncodedSplit:
        def flat(seqs):
            offsets = np.zeros(len(seqs) + 1, np.int64)
            np.cumsum([len(s) for s in seqs], out=offsets[1:])
            return np.fromiter(itertools.chain.from_iterable(seqs), np.uint16, offsets[-1]), offsets

        return cls(*flat(src), *flat(tgt), np.asarray(index, np.int64))

    def __len__(self) -> int:
        return len(self.index)

    def src_seq(self, i: int) -> np.ndarray:
        return self.src[self.src_offsets[i] : self.src_offsets[i + 1]]

    def tgt_seq(self, i: int) -> np.ndarray:
        return self.tgt[self.tgt_offsets[i] : self.tgt_offsets[i + 1]]

    @property
    def src_lens(self) -> np.ndarray:
        return np.diff(self.src_offsets)

    @property
    def tgt_lens(self) -> np.ndarray:
        return np.diff(self.tgt_offsets)

    @classmethod
    def concat(cls, *splits: EncodedSplit) -> EncodedSplit:
        def join(ids, offsets):
            starts = np.cumsum([0] + [len(s) for s in ids[:-1]])
            return np.concatenate(ids), np.concatenate([offsets[0][:1]] + [o[1:] + a for o, a in zip(offsets, starts)])

        src = join([s.src for s in splits], [s.src_offsets for s in splits])
        tgt = join([s.tgt for s in splits], [s.tgt_offsets for s in splits])
        return cls(*src, *tgt, np.concatenate([s.index for s in splits]))

    def subset(self, keep: np.ndarray) -> EncodedSplit:
        rows = np.flatnonzero(keep)
        return EncodedSplit.from_sequences(self.index[rows].tolist(), [self.src_seq(i) for i in rows],
                                           [self.tgt_seq(i) for i in rows])

    def save(self, path: Path) -> None:
        buf = io.BytesIO()
        np.savez(buf, **{k: getattr(self, k) for k in self.ARRAYS})
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: Path) -> EncodedSplit:
        try:
            with np.load(path, allow_pickle=False) as z:
                split = cls(*(z[k] for k in cls.ARRAYS))
        except Exception as e:  # zipfile, zlib and NumPy raise many types for damaged archives
            reason = (str(e).splitlines() or [""])[0]
            raise UserError(f"prepared split {path} is damaged ({type(e).__name__}: {reason})") from None
        kinds = [(getattr(split, k).dtype.kind, getattr(split, k).ndim) for k in cls.ARRAYS]
        if kinds != [("u", 1), ("i", 1), ("u", 1), ("i", 1), ("i", 1)]:  # unsigned ids, integer offsets and rows
            raise UserError(f"prepared split {path} holds arrays of the wrong kind")
        n = len(split.index)
        for ids, offsets in ((split.src, split.src_offsets), (split.tgt, split.tgt_offsets)):
            if len(offsets) != n + 1 or offsets[0] != 0 or offsets[-1] != len(ids) or np.any(np.diff(offsets) < 2):
                raise UserError(f"prepared split {path} is inconsistent")
        return split


# --- prepare: split, train tokenizers, encode, cache ----------------------------------


@dataclass
class Prepared:
    out_dir: Path
    manifest: dict
    src_tok: Tokenizer
    tgt_tok: Tokenizer
    splits: dict[str, EncodedSplit]
    reused: bool = False  # True when an earlier run's files were loaded instead of rebuilt

    @property
    def direction(self) -> str:
        return self.manifest.get("direction", DEFAULT_DIRECTION)  # data made before directions: en-es


def _tokenizer_path(out_dir: Path, side: str) -> Path:
    return out_dir / f"tokenizer-{side}.json"


# the files the manifest records the SHA-256 of, and the manifest's own checksum of its other entries
PREPARED_FILES = ("tokenizer-en.json", "tokenizer-es.json", *(f"{name}.npz" for name in SPLITS))


def _manifest_digest(manifest: dict) -> str:
    rest = {k: v for k, v in manifest.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()


def _check_files(out_dir: Path, manifest: dict) -> None:
    path = out_dir / "manifest.json"
    if manifest.get("incomplete"):
        raise UserError(f"{out_dir} is incomplete (an interrupted `mtcli tokenize`)")
    if manifest.get("checksum") != _manifest_digest(manifest):
        raise UserError(f"{path} is damaged (checksum mismatch)")
    from mtcli import schema  # (pydantic: not for the text pipeline's use of this module)

    schema.check_manifest(manifest, str(path))
    for name in PREPARED_FILES:  # the checksum above vouches that manifest["files"] is intact
        f = out_dir / name
        try:
            changed = file_sha256(f) != manifest["files"][name]
        except OSError as e:
            raise UserError(f"cannot read {f}: {e.strerror or e}") from None
        if changed:
            raise UserError(f"{f} is damaged or was changed after `mtcli tokenize` (SHA-256 differs)")


class NoPreparedData(UserError):
    """A directory without a manifest: nothing was tokenized into it."""


def rerun_command(out_dir: Path, manifest) -> str:
    """The `mtcli tokenize` that rebuilds out_dir with the options the manifest records."""
    from mtcli import schema

    try:
        m = schema.tokenize_options(manifest)
    except UserError:
        return f"`mtcli tokenize --out {shlex.quote(str(out_dir))} --force` with the options it was first made with"
    src, tgt = languages(m["direction"])
    return "`" + shlex.join(["mtcli", "tokenize", "--data", m["path"], "--out", str(out_dir), "--seed", str(m["seed"]),
                             *(["--direction", m["direction"]] if m["direction"] != DEFAULT_DIRECTION else []),
                             "--split", m["split"], "--src-vocab", str(m[src]), "--tgt-vocab", str(m[tgt]),
                             *(["--lowercase-en"] if m["lowercase_en"] else []),
                             *(["--case-factors-en"] if m["case_factors_en"] else []), "--force"]) + "`"


def load_prepared(out_dir: str | os.PathLike | None = None) -> Prepared:
    """The tokenized data in out_dir, every file checked. Damaged data is refused with the command
    that rebuilds it with its own options, never rebuilt here with others."""
    out_dir = resolve_prepared_dir(out_dir)
    path = out_dir / "manifest.json"
    if not path.is_file():
        raise NoPreparedData(f"no prepared data in {out_dir}: run `mtcli tokenize` first")
    manifest = None
    try:
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise UserError(f"{path} is damaged ({e})") from None
        if not isinstance(manifest, dict) or manifest.get("format_version") != FORMAT_VERSION:
            raise UserError(f"{path} was written by another mtcli version")
        _check_files(out_dir, manifest)
        src, tgt = languages(manifest.get("direction", DEFAULT_DIRECTION))
        p = Prepared(
            out_dir,
            manifest,
            Tokenizer.load(_tokenizer_path(out_dir, src)),
            Tokenizer.load(_tokenizer_path(out_dir, tgt)),
            {name: EncodedSplit.load(out_dir / f"{name}.npz") for name in SPLITS},
        )
        _check_usable(p)
        return p
    except NoPreparedData:
        raise
    except UserError as e:
        raise UserError(f"{e}; rebuild it: {rerun_command(out_dir, manifest)}") from None


def _check_usable(p: Prepared) -> None:
    """Ids the tokenizers know (an embedding row past the table would be read out of bounds), and
    splits that can train and select."""
    for name, s in p.splits.items():
        if not len(s):
            raise UserError(f"{p.out_dir}: the {name} split is empty")
        if int(s.src.max()) >= p.src_tok.id_limit or int(s.tgt.max()) >= p.tgt_tok.id_limit:
            raise UserError(f"{p.out_dir}/{name}.npz holds token ids its tokenizers do not have")


def check_ids(splits: dict[str, EncodedSplit], cfg: ModelConfig, where: str) -> None:
    """Refuse, in one line, token ids past the embedding tables of a model of `cfg` (the embedding kernel reads
    rows unchecked, so such an id is read from memory past the table): data tokenized with other options than
    the model's (--case-factors-en ids fed to a model without case factors, another vocabulary). Once per array
    loaded: a maximum each, never a check per step."""
    src_limit = cfg.src_vocab * (CASE_FACTORS if cfg.case_factors else 1)
    for name, split in splits.items():
        for ids, limit, side in ((split.src, src_limit, "source"), (split.tgt, cfg.tgt_vocab, "target")):
            if len(ids) and (top := int(ids.max())) >= limit:
                raise UserError(f"{where}: its {name} pairs hold {side} token ids up to {top:,}, past the {limit:,} the "
                                "model reads: tokenized with other options (vocabulary, --case-factors-en) than the "
                                "model was trained with")


def _length_stats(lens: np.ndarray) -> dict:
    p50, p95, p99 = (float(p) for p in np.percentile(lens, [50, 95, 99]))
    return {"mean": round(float(lens.mean()), 2), "p50": p50, "p95": p95, "p99": p99, "max": int(lens.max())}


def _roundtrip(tok: Tokenizer, texts: list[str], ids: list[list[int]]) -> float:
    """The share of texts decoded back as they were (but for case, by a lowercasing tokenizer)."""
    case = str.lower if tok.lowercase else str
    return sum(case(a) == case(b) for a, b in zip(texts, tok.decode_batch(ids))) / len(texts)


def _encoded(rows: list[int], src_ids, tgt_ids, max_src_len: int, max_tgt_len: int) -> EncodedSplit:
    """Add BOS and EOS; cut sequences over the limits (see prepare), keeping EOS."""

    def fit(seq: list[int], limit: int) -> list[int]:
        seq = [BOS, *seq, EOS]
        return seq if len(seq) <= limit else seq[: limit - 1] + [EOS]

    return EncodedSplit.from_sequences(
        rows, [fit(src_ids[i], max_src_len) for i in rows], [fit(tgt_ids[i], max_tgt_len + 1) for i in rows]
    )


TRAIN_ON = ("train", "train+selection", "train+selection+test")


def training_pairs(prepared: Prepared, splits: str, max_src_len: int, max_tgt_len: int) -> EncodedSplit:
    """The pairs to train on: the train split, and ("train+selection") the selection split's pairs,
    and ("train+selection+test": every pair, for a shipped model scored on an external set) the test
    split's, except those at a length limit (they may have been cut there: see prepare)."""
    if splits not in TRAIN_ON:
        raise UserError(f"train_on must be {', '.join(TRAIN_ON[:-1])} or {TRAIN_ON[-1]}, not {splits!r}")
    held = [prepared.splits[name] for name in splits.split("+")[1:]]
    uncut = [s.subset((s.src_lens < max_src_len) & (s.tgt_lens < max_tgt_len + 1)) for s in held]
    return EncodedSplit.concat(prepared.splits["train"], *uncut)


def _is_prepared_dir(out_dir: Path) -> bool:
    """A manifest (even a damaged or incomplete one) marks a directory `mtcli tokenize` wrote."""
    try:
        manifest = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and "format_version" in manifest


def _reusable(out_dir: Path, cache_key: str) -> Prepared | None:
    """What an earlier `mtcli tokenize` left in out_dir, if it is intact and of the same corpus and options."""
    try:
        cached = load_prepared(out_dir)
    except UserError:
        return None
    if cached.manifest.get("cache_key") != cache_key:
        return None
    cached.reused = True
    return cached


def prepare(
    data_path: str | os.PathLike | None = None,
    out_dir: str | os.PathLike | None = None,
    seed: int = 0,
    split: str = "grouped",
    src_vocab: int | None = None,
    tgt_vocab: int | None = None,
    fractions: Sequence[float] = FRACTIONS,
    max_src_len: int = ModelConfig.max_src_len,
    max_tgt_len: int = ModelConfig.max_tgt_len,
    lowercase_en: bool = False,
    case_factors_en: bool = False,
    force: bool = False,
    what: str = "--out directory",
    forcing: str = "add --force",
    direction: str = DEFAULT_DIRECTION,
) -> Prepared:
    """Split the corpus, train both tokenizers on the training split, encode every pair.

    `direction` ("en-es" or "es-en") says which side is the source; the grouped split groups the
    pairs by their source sentence. Vocabulary sizes default to each language's (config.VOCAB).
    Limits: a source sequence may have `max_src_len` ids including BOS and EOS; a
    target one `max_tgt_len` + 1, so that the decoder's input (BOS + words) and target
    (words + EOS) each fit `max_tgt_len`. Longer pairs are dropped from the training
    split (a truncated target would teach the model to stop mid-sentence) and cut to the
    limit, keeping EOS, in selection and test, so those splits stay complete; the
    manifest counts both. `lowercase_en`: the English tokenizer lowercases (a model that sees no
    case); `case_factors_en`: its ids carry each word's case as a factor (its vocabulary is the cased
    one, so a model trained on the default data can be tuned on these). Results are reused while the corpus bytes and options match.
    `what` and `forcing` name out_dir's option and how to force it in messages (training
    tokenizes into its --prepared directory, where --force means another thing).
    """
    data_path, out_dir = resolve_data_path(data_path), resolve_prepared_dir(out_dir)
    if str(data_path) == STDIN or guards.kind(data_path) is not None:
        what = "-" if str(data_path) == STDIN else f"{data_path} (a {guards.kind(data_path)})"
        raise UserError(f"--data {what}: the corpus is read twice here and the tokenized data records its file, "
                        "which training reads again (augmentation); give the corpus as a file")
    src_lang, tgt_lang = languages(direction)
    if src_lang != "en" and (lowercase_en or case_factors_en):
        raise UserError("--lowercase-en and --case-factors-en change the English source; in es-en English is the "
                        "target: drop them")
    sizes = {src_lang: src_vocab or VOCAB[src_lang], tgt_lang: tgt_vocab or VOCAB[tgt_lang]}
    options = _options(data_path, out_dir, seed, split, fractions, sizes, (src_lang, tgt_lang), max_src_len,
                       max_tgt_len, lowercase_en, case_factors_en)
    keyed = options | ({"case_scheme": CASE_SCHEME} if case_factors_en else {})  # data of an older scheme is made anew
    cache_key = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()
    cached = None if force else _reusable(out_dir, cache_key)
    if cached:
        return cached

    started = time.perf_counter()
    corpus = read_corpus(data_path)
    pairs = oriented(corpus.pairs, direction)
    parts = _split(corpus, pairs, seed, split, fractions)
    claim_dir(out_dir, _is_prepared_dir, force, what, reading=corpus.path, forcing=forcing)
    # no stale manifest over half-written files: an incomplete one, which still says how to rebuild
    atomic_write_json(out_dir / "manifest.json", {"format_version": FORMAT_VERSION, "incomplete": True, **options,
                                                  "data": {"path": str(corpus.path.absolute())}})
    src_tok, tgt_tok, splits, report = _tokenize(corpus.path, pairs, (src_lang, tgt_lang), parts, sizes, max_src_len,
                                                 max_tgt_len, lowercase_en, case_factors_en)
    manifest = {
        **options,
        "cache_key": cache_key,
        "data": {
            "path": str(corpus.path.absolute()),  # training's augmentation reads it again, from any directory
            "format": corpus.format,
            "pairs": len(corpus.pairs),
            "skipped": corpus.skipped,
            "skipped_lines": corpus.skipped_lines,
        },
        **report,
    }
    return _write_prepared(Prepared(out_dir, manifest, src_tok, tgt_tok, splits), started)


def _options(data_path: Path, out_dir: Path, seed: int, split: str, fractions: Sequence[float], sizes: dict[str, int],
             langs: tuple[str, str], max_src_len: int, max_tgt_len: int, lowercase_en: bool,
             case_factors_en: bool) -> dict:
    """What a prepared set is made from (the manifest's first fields; their hash is the cache key),
    after checking the output directory and the vocabulary sizes."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"output directory {out_dir} is a file")
    if lowercase_en and case_factors_en:
        raise UserError("--lowercase-en and --case-factors-en exclude each other: choose one")
    for lang, key in zip(langs, ("src_vocab", "tgt_vocab")):
        lo, hi = RANGES[key]
        if not lo <= sizes[lang] <= hi:
            raise UserError(f"{LANGUAGE_NAMES[lang]} vocabulary size must be between {lo} and {hi}, not {sizes[lang]}")
    direction = "-".join(langs)
    return {
        "format_version": FORMAT_VERSION,
        "data_sha256": file_sha256(data_path),
        # only when not en-es, so that data tokenized before directions keeps its cache key
        **({"direction": direction} if direction != DEFAULT_DIRECTION else {}),
        "seed": seed,
        "split": split,
        "fractions": list(fractions),
        "vocab": {"en": sizes["en"], "es": sizes["es"]},
        "max_len": {langs[0]: max_src_len, langs[1]: max_tgt_len + 1},
        # only when set, so that data tokenized before the option keeps its cache key
        **({"lowercase": {"en": True}} if lowercase_en else {}),
        **({"case_factors": {"en": True}} if case_factors_en else {}),
    }


def _split(corpus: Corpus, pairs: list[tuple[str, str]], seed: int, split: str,
           fractions: Sequence[float]) -> dict[str, list[int]]:
    """The corpus's rows in each split (grouped by the source side of `pairs`), none of them empty."""
    parts = split_pairs(pairs, seed, split, fractions)
    for name, rows in parts.items():
        if not rows:
            raise UserError(f"{corpus.path}: {len(corpus.pairs)} pairs leave the {name} split empty "
                            f"({'/'.join(f'{f:.0%}' for f in fractions)} of the source sentences); "
                            "a corpus needs more distinct source sentences")
    return parts


def _write_prepared(p: Prepared, started: float) -> Prepared:
    """The tokenizers and splits written, then the manifest with their checksums (last: it marks the set complete)."""
    src, tgt = languages(p.direction)
    p.src_tok.save(_tokenizer_path(p.out_dir, src))
    p.tgt_tok.save(_tokenizer_path(p.out_dir, tgt))
    for name, s in p.splits.items():
        s.save(p.out_dir / f"{name}.npz")
    manifest = p.manifest
    manifest["files"] = {name: file_sha256(p.out_dir / name) for name in PREPARED_FILES}
    manifest["seconds"] = round(time.perf_counter() - started, 2)
    manifest["checksum"] = _manifest_digest(manifest)
    atomic_write_json(p.out_dir / "manifest.json", manifest)
    return p


def _tokenize(path: Path, pairs: list[tuple[str, str]], langs: tuple[str, str], parts: dict[str, list[int]],
              sizes: dict[str, int], max_src_len: int, max_tgt_len: int, lowercase_en: bool,
              case_factors_en: bool) -> tuple[Tokenizer, Tokenizer, dict[str, EncodedSplit], dict]:
    """prepare's tokenizers (trained on the train split), encoded splits, and the manifest's report on
    them by language: split sizes, round trips, lengths, the pairs over the limits (see prepare).
    lowercase_en and case_factors_en apply to the source, which prepare has checked is English."""
    (src_lang, tgt_lang), src, tgt = langs, [p[0] for p in pairs], [p[1] for p in pairs]
    src_tok = train_tokenizer((src[i] for i in parts["train"]), sizes[src_lang], lowercase_en)
    if case_factors_en:
        src_tok = src_tok.with_case_factors()
    tgt_tok = train_tokenizer((tgt[i] for i in parts["train"]), sizes[tgt_lang])
    src_ids = src_tok.encode_batch(src)
    tgt_ids = tgt_tok.encode_batch(tgt)
    src_lens = np.array([len(s) + 2 for s in src_ids])
    tgt_lens = np.array([len(s) + 2 for s in tgt_ids])
    src_over, tgt_over = src_lens > max_src_len, tgt_lens > max_tgt_len + 1
    over = src_over | tgt_over

    splits, changed = {}, {}
    for name, rows in parts.items():
        if name == "train":
            rows = [i for i in rows if not over[i]]
            if not rows:
                raise UserError(f"{path}: every training pair is longer than the limits ({max_src_len} "
                                f"{LANGUAGE_NAMES[src_lang]}, {max_tgt_len + 1} {LANGUAGE_NAMES[tgt_lang]} ids)")
        changed[name] = int(over[parts[name]].sum())
        splits[name] = _encoded(rows, src_ids, tgt_ids, max_src_len, max_tgt_len)
    report = {
        "split_sizes": {name: len(s) for name, s in splits.items()},
        "roundtrip": {src_lang: _roundtrip(src_tok, src, src_ids), tgt_lang: _roundtrip(tgt_tok, tgt, tgt_ids)},
        "lengths": {src_lang: _length_stats(src_lens), tgt_lang: _length_stats(tgt_lens)},
        "overlong": {
            src_lang: int(src_over.sum()),
            tgt_lang: int(tgt_over.sum()),
            "dropped_from_train": changed["train"],
            "truncated": {"selection": changed["selection"], "test": changed["test"]},
        },
    }
    return src_tok, tgt_tok, splits, report


# --- batching ------------------------------------------------------------------------


@dataclass
class Batch:
    src: np.ndarray  # (B, S) int32, PAD-padded English with BOS and EOS
    src_len: np.ndarray  # (B,) int32
    tgt_in: np.ndarray  # (B, T) int32, BOS + Spanish, PAD-padded
    tgt_out: np.ndarray  # (B, T) int32, Spanish + EOS, PAD-padded
    tgt_len: np.ndarray  # (B,) int32, unpadded length of tgt_in and tgt_out

    @property
    def n_tokens(self) -> int:
        return int(self.tgt_len.sum())


CHUNK_BATCHES = 100  # length-sort within chunks this many batches long: little padding, still random


def _gather(flat: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    cols = np.arange(lens.max())
    mask = cols < lens[:, None]
    return np.where(mask, flat[np.where(mask, starts[:, None] + cols, 0)], PAD).astype(np.int32)


def _batch(split: EncodedSplit, rows: np.ndarray) -> Batch:
    src_len = split.src_lens[rows]
    tgt_len = split.tgt_lens[rows] - 1
    tgt_start = split.tgt_offsets[rows]
    return Batch(
        _gather(split.src, split.src_offsets[rows], src_len),
        src_len.astype(np.int32),
        _gather(split.tgt, tgt_start, tgt_len),
        _gather(split.tgt, tgt_start + 1, tgt_len),
        tgt_len.astype(np.int32),
    )


def make_batches(split: EncodedSplit, batch_size: int, seed: int, epoch: int, shuffle: bool = True) -> list[Batch]:
    """Batches of `batch_size` pairs of similar length.

    shuffle=True: shuffle, sort by (Spanish, English) length within chunks of
    CHUNK_BATCHES batches, cut, shuffle the batch order; the same (seed, epoch) gives the
    same batches. shuffle=False: one global length sort in a fixed order, for evaluation.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, not {batch_size}")
    src_lens, tgt_lens = split.src_lens, split.tgt_lens
    if not shuffle:
        order = np.lexsort((src_lens, tgt_lens))
        return [_batch(split, order[i : i + batch_size]) for i in range(0, len(order), batch_size)]
    rng = np.random.default_rng([seed, epoch])
    perm = rng.permutation(len(split))
    groups = []
    chunk = batch_size * CHUNK_BATCHES
    for c in range(0, len(perm), chunk):
        rows = perm[c : c + chunk]
        rows = rows[np.lexsort((src_lens[rows], tgt_lens[rows]))]  # stable: ties keep the shuffle
        groups += [rows[i : i + batch_size] for i in range(0, len(rows), batch_size)]
    return [_batch(split, groups[i]) for i in rng.permutation(len(groups))]


def encode_pairs(
    src_tok: Tokenizer,
    tgt_tok: Tokenizer,
    pairs: Sequence[tuple[str, str]],
    max_src_len: int = ModelConfig.max_src_len,
    max_tgt_len: int = ModelConfig.max_tgt_len,
) -> EncodedSplit:
    """Encode pairs with given tokenizers (a trained model's), cutting over-long ones as prepare()
    does for selection and test."""
    en = src_tok.encode_batch([p[0] for p in pairs])
    es = tgt_tok.encode_batch([p[1] for p in pairs])
    return _encoded(list(range(len(pairs))), en, es, max_src_len, max_tgt_len)
