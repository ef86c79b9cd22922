"""Reversible WordPiece tokenizers (one per language) on top of HuggingFace `tokenizers`.

The stock WordPiece pipeline splits on whitespace and punctuation and its decoder
re-inserts a space between every word, so "¿Dónde está?" would come back as
"¿ Dónde está ?". Here a space is instead part of the token that follows it
(SentencePiece's "▁" marker): the pre-tokenizer turns each space into "▁" glued to
the next word or punctuation mark, so decoding is plain concatenation with "▁" read
back as a space. Accents are kept; text is NFC-normalised, and lowercased too by a tokenizer made
with `lowercase=True` (an English one whose model should see no case: ALL CAPS, lowercase and normal
English then reach it as the same ids, Marian's case-insensitive source without its case factors).
A tokenizer with `case_factors=True` lowercases too and gives each piece Marian's case factor instead:
the word's case (lowercase, Capitalised, ALL CAPS) is packed into its id, id = piece + vocab_size *
factor, and the model adds a factor embedding to the piece's. ALL CAPS, lowercase and normal English
then reach the model as the same pieces, and names keep their capital. An acronym (a short word in ALL
CAPS the lowercase vocabulary has no one piece for, "FBI", in text with lowercase letters) is split as
typed instead ("▁F ##B ##I", not the lowercase fragments "▁f ##b ##i" of ordinary words).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cached_property
from itertools import groupby
from pathlib import Path

from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers
from tokenizers import Tokenizer as HFTokenizer

from mtcli.atomic import atomic_write_text
from mtcli.errors import UserError
from mtcli import lazy_re

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ["[PAD]", "[UNK]", "[START]", "[END]"]  # index == fixed id
CASE_NAMES = ("lower", "Capitalised", "UPPER")  # a piece's word is lowercase (or caseless), Capitalised, ALL CAPS
CASE_FACTORS = len(CASE_NAMES)
UPPER = CASE_NAMES.index("UPPER")
CASE_SCHEME = 3  # how case factors are read (2: capitals respelled, acronyms as typed; 3: "U.S." too); in tokenized data's cache key
ACRONYM_LETTERS = 5  # at most; a longer word in ALL CAPS is a shouted word ("UNBELIEVABLE"), read lowercased
SPACE = "▁"
CONTINUE = "##"
# A piece is an optional space marker plus either a run of letters/digits (a word,
# which WordPiece may split further into "##" pieces) or one other character.
PIECE = r"▁?(?:[\p{L}\p{N}\p{M}]+|[^\p{L}\p{N}\p{M}▁])"
# Lone surrogates are not text (Python makes them of undecodable bytes in command-line arguments) and
# the Rust side refuses them: each becomes U+FFFD, as invalid UTF-8 in a file does.
_SURROGATE = lazy_re.compile("[\ud800-\udfff]")


def _valid(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def _pipeline(vocab: dict[str, int], lowercase: bool = False) -> HFTokenizer:
    hf = HFTokenizer(models.WordPiece(vocab, unk_token=SPECIALS[UNK], continuing_subword_prefix=CONTINUE))
    hf.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()]) if lowercase else normalizers.NFC()
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Metaspace(replacement=SPACE, prepend_scheme="always", split=True),
            pre_tokenizers.Split(Regex(PIECE), behavior="isolated"),
        ]
    )
    # "##" only ever starts a word-internal piece: punctuation is always a piece of its own.
    hf.decoder = decoders.Sequence(
        [
            decoders.Replace(CONTINUE, ""),
            decoders.Replace(SPACE, " "),
            decoders.Fuse(),
            decoders.Strip(" ", 1, 0),  # the space "always" prepended to the sentence
        ]
    )
    return hf


def _case(text: str) -> int:
    """The case factor of a word or piece as typed: 0 lowercase or caseless, 1 Capitalised, 2 ALL CAPS."""
    cased = [c for c in text if c.islower() or c.isupper()]
    if not cased or cased[0].islower():
        return 0
    if len(cased) > 1 and all(c.isupper() for c in cased):
        return 2
    return 1


def _factors(text: str, encoding) -> list[int]:
    """Each piece's case factor: its word's, for a word in one of the three cases; a word of mixed case
    ("McDonald", "iPhone") gives each piece its own. Offsets point into `text` as typed."""
    offsets, tokens = encoding.offsets, encoding.tokens
    factors = [0] * len(tokens)
    start = 0
    for end in range(1, len(tokens) + 1):
        if end < len(tokens) and tokens[end].startswith(CONTINUE):
            continue  # the word goes on
        word = text[offsets[start][0]:offsets[end - 1][1]]
        letters = [c for c in word if c.islower() or c.isupper()]
        mixed = letters and not (all(c.islower() for c in letters) or all(c.isupper() for c in letters)
                                 or (letters[0].isupper() and all(c.islower() for c in letters[1:])))
        for k in range(start, end):
            factors[k] = _case(text[offsets[k][0]:offsets[k][1]]) if mixed else _case(word)
        start = end
    return factors


_DOTTED = lazy_re.compile(r"(?<![\w.])(?:[A-Z]\.){2,}")  # "U.S.", "D.C.": an acronym too, letter by letter


def _capital_letters(vocab: dict[str, int]) -> dict[str, int]:
    """The vocabulary for acronyms split as typed: a single letter respelled in lowercase (see
    Tokenizer.with_case_factors: "▁U" -> "▁u") back to its capital, so "USA" splits as "▁U ##S ##A"."""
    def typed(piece: str) -> str:
        letter = piece.removeprefix(SPACE).removeprefix(CONTINUE)
        capital = piece.upper()  # (only a letter that is its capital's lowercase: not "ſ", "ı", "ς")
        return capital if len(letter) == 1 and capital.lower() == piece != capital and capital not in vocab else piece
    return {typed(piece): i for piece, i in vocab.items()}


def _factored(text: str, lowered, typed, V: int) -> list[int]:
    """The ids (piece + V * factor) of `text` from its lowercased encoding, each word's pieces but an
    acronym's (a word of 2 to ACRONYM_LETTERS letters in ALL CAPS, of several lowercase pieces, or a
    letter of "U.S.") from its encoding as typed, if given."""
    ids = [i + V * f for i, f in zip(lowered.ids, _factors(text, lowered))]
    words, offsets = lowered.word_ids, lowered.offsets  # (each attribute read builds a new list)
    if typed is None or typed.word_ids[-1:] != words[-1:]:  # (a lowercasing that splits words otherwise)
        return ids
    as_typed = {word: [i for i, _ in pieces] for word, pieces in groupby(zip(typed.ids, typed.word_ids), key=lambda p: p[1])}
    dotted = [m.span() for m in _DOTTED.finditer(text)]
    out = []
    for word, group in groupby(range(len(ids)), key=words.__getitem__):
        group = list(group)
        start, end = offsets[group[0]][0], offsets[group[-1]][1]
        typed_word = text[start:end]
        letters = sum(c.isalpha() for c in typed_word)
        if (len(group) > 1 and _case(typed_word) == UPPER and letters <= ACRONYM_LETTERS
                or letters == 1 and any(start < e and s < end for s, e in dotted)):
            out += [i + V * UPPER for i in as_typed[word]]
        else:
            out += [ids[k] for k in group]
    return out


class Tokenizer:
    """One language's subword vocabulary. Ids 0-3 are PAD, UNK, BOS, EOS. With case factors, ids run to
    vocab_size * CASE_FACTORS (piece + vocab_size * factor); `pieces` strips the factor."""

    def __init__(self, hf: HFTokenizer, lowercase: bool = False, case_factors: bool = False):
        self._hf = hf
        self.lowercase = lowercase or case_factors  # the text is lowercased before it is split (decoding gives it lowercased)
        self.case_factors = case_factors
        self._as_typed = _pipeline(_capital_letters(hf.get_vocab())) if case_factors else None  # for acronyms

    @property
    def vocab_size(self) -> int:
        """Pieces (embedding rows); the ids of a tokenizer with case factors run to id_limit."""
        return self._hf.get_vocab_size()

    @property
    def vocab(self) -> dict[str, int]:
        return self._hf.get_vocab()

    @property
    def id_limit(self) -> int:
        return self.vocab_size * (CASE_FACTORS if self.case_factors else 1)

    def with_case_factors(self) -> Tokenizer:
        """The same ids, for a model that reads lowercase pieces and their case factors. A piece with
        capitals whose lowercase spelling is free takes it ("▁Boston" -> "▁boston", "▁I" -> "▁i", "▁TV" ->
        "▁tv"; the most frequent, lowest id, first): the text is lowercased before it is split, so a word
        mostly seen with capitals keeps its one piece, and the row a cased model learned for it, instead of
        falling apart into lowercase fragments ("▁bo ##st ##on")."""
        taken = set(self.vocab)
        names = {}
        for piece, i in sorted(self.vocab.items(), key=lambda item: item[1]):
            lower = piece.lower()
            if i >= len(SPECIALS) and lower not in taken:
                taken.add(lower)
                piece = lower
            names[piece] = i
        return Tokenizer(_pipeline(names, True), case_factors=True)

    def pieces(self, ids: Iterable[int]) -> list[int]:
        """The piece ids, case factors stripped."""
        return [int(i) % self.vocab_size for i in ids]

    def encode(self, text: str) -> list[int]:
        return self.encode_batch([text])[0]

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        texts = [_valid(t) for t in texts]
        encodings = self._hf.encode_batch(texts, add_special_tokens=False)
        if not self.case_factors:
            return [e.ids for e in encodings]
        mixed = [k for k, t in enumerate(texts) if any(c.islower() for c in t)]  # (ALL CAPS text has no acronyms)
        typed = dict(zip(mixed, self._as_typed.encode_batch([texts[k] for k in mixed], add_special_tokens=False)))
        return [_factored(t, e, typed.get(k), self.vocab_size) for k, (t, e) in enumerate(zip(texts, encodings))]

    def decode(self, ids: Iterable[int]) -> str:
        return self.decode_batch([ids])[0]

    def decode_batch(self, batch: Iterable[Iterable[int]]) -> list[str]:
        return self._hf.decode_batch([[i for i in self.pieces(ids) if i >= len(SPECIALS)] for ids in batch])

    def id_to_token(self, i: int) -> str | None:
        return self._hf.id_to_token(i)

    @cached_property
    def pieces_by_id(self) -> tuple[str | None, ...]:
        """id_to_token of every id below vocab_size, in one reading of the vocabulary (a model's load asked for
        ~30,000 of them one by one, for its tables: ~10 ms of CPU)."""
        pieces = [None] * self.vocab_size
        for piece, i in self._hf.get_vocab().items():
            if i < len(pieces):
                pieces[i] = piece
        return tuple(pieces)

    def save(self, path: str | Path) -> None:
        text = self._hf.to_str(pretty=True)
        if self.case_factors:
            text = json.dumps(json.loads(text) | {_CASE_FACTORS_KEY: CASE_FACTORS}, ensure_ascii=False, indent=2)
        atomic_write_text(Path(path), text)

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Only the vocabulary is taken from the file, after checking it; the pipeline around it is
        always mtcli's own, so a damaged normalizer or decoder section cannot make encoding or
        decoding fail later (the Rust side panics on some)."""
        path = Path(path)
        if not path.is_file():
            raise UserError(f"tokenizer file not found: {path}")
        try:
            saved = json.loads(path.read_bytes())
            model = saved["model"]
            vocab = model["vocab"]
            if (model.get("type"), model.get("unk_token"), model.get("continuing_subword_prefix")) != (
                    "WordPiece", SPECIALS[UNK], CONTINUE):
                raise ValueError("not a WordPiece model with mtcli's settings")
            if not (isinstance(vocab, dict) and all(type(i) is int for i in vocab.values())
                    and sorted(vocab.values()) == list(range(len(vocab)))):
                raise ValueError("the vocabulary ids are not 0, 1, 2, ... each once")
            lowercase = _LOWERCASING == json.dumps(saved.get("normalizer"), sort_keys=True)
            case_factors = saved.get(_CASE_FACTORS_KEY)
            if case_factors not in (None, CASE_FACTORS) or (case_factors and not lowercase):
                raise ValueError(f"{_CASE_FACTORS_KEY} is {case_factors!r}, not {CASE_FACTORS} with a lowercasing normalizer")
            hf = _pipeline(vocab, lowercase)
        except Exception as e:  # JSON, key, type and the Rust side's plain Exception
            message = (str(e).splitlines() or [type(e).__name__])[0]
            raise UserError(f"tokenizer file {path} is damaged: {message}") from None
        if [hf.id_to_token(i) for i in range(len(SPECIALS))] != SPECIALS:
            raise UserError(f"tokenizer file {path} is not an mtcli tokenizer (special ids differ)")
        return cls(hf, lowercase, bool(case_factors))


_CASE_FACTORS_KEY = "mtcli_case_factors"  # beside the HuggingFace sections: how many factors the ids carry
# A file's normalizer section is read for one fact only: whether it is the lowercasing one mtcli writes.
_LOWERCASING = json.dumps(json.loads(_pipeline(dict(zip(SPECIALS, range(len(SPECIALS)))), True).to_str())["normalizer"],
                          sort_keys=True)


def train_tokenizer(texts: Iterable[str], vocab_size: int, lowercase: bool = False) -> Tokenizer:
    """Train WordPiece on `texts` (lowercased first if `lowercase`); the result has exactly `vocab_size` entries."""
    texts = list(texts)
    probe = _pipeline({s: i for i, s in enumerate(SPECIALS)}, lowercase)
    # The trainer numbers "##c" pieces in hash-map order and breaks ties between equally
    # frequent merges by those numbers, so two runs give different vocabularies
    # (huggingface/tokenizers#1794). Listing every "##c" up front, sorted, fixes the numbers.
    split = probe.pre_tokenizer.pre_tokenize_str
    inner = {c for text in set(texts) for piece, _ in split(probe.normalizer.normalize_str(text)) for c in piece[1:]}
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS + sorted(CONTINUE + c for c in inner),
        continuing_subword_prefix=CONTINUE,
        show_progress=False,
    )
    probe.train_from_iterator(texts, trainer)
    vocab = probe.get_vocab(with_added_tokens=False)
    if len(vocab) > vocab_size:
        raise UserError(
            f"vocabulary size {vocab_size} is too small: the training text alone has "
            f"{len(vocab)} distinct characters and continuation pieces"
        )
    # A small corpus runs out of merges before reaching the requested size; reserved
    # filler entries keep the size (and so the model's embedding shapes) as asked.
    vocab.update({f"[unused{k}]": len(vocab) + k for k in range(vocab_size - len(vocab))})
    # Rebuilt without "added tokens" so that a literal "[END]" in user text is just text.
    return Tokenizer(_pipeline(vocab, lowercase), lowercase)
