"""How likely a translation is wrong, and why: signals read from the model and a small fitted combination.

    (source sentence, its translation, the beam's scores) -> the translation read again under teacher
    forcing (decode.Translator.force: per-token log-probabilities, cross-attention) -> signals (below)
    -> logistic regression with coefficients fitted per model direction (MODEL/confidence.json, written by
    benchmarks/confidence.py) -> a confidence 0-1 (the fitted probability the translation is right),
    flagged below the model's threshold, with a reason where one is known ("may have left out: 'next week'").

Signals (docs/confidence.md has what each one is worth, measured):
  logprob     the beam's score: log-probability per target token (EOS included), what --scores prints
  total_logprob  the same times the translation's tokens (EOS included): the whole translation's log-probability
  short_line  1 for a sentence of 1-3 words (mtcli.roundtrip.is_short), read by the short part (Scorer.short)
  margin      the beam's score of the best translation minus the second's (a sentence the model hesitates on)
  uncovered   source words (not punctuation) that no target position attended to (an omission)
  roundtrip   chrF of the translation translated back (the other direction's model, greedy) against the source
  pieces      the share of target words spelled in three WordPiece pieces or more (words the corpus never had);
  src_pieces  the same of the source's words (words the model rarely saw)
  length      |log(target characters / source characters) - the usual ratio|
  short       how much shorter than usual the translation is: max(0, the usual ratio - log(target / source chars))
  named       source words a warning would name as left out (coverage under `named`, not function words alone)
  lowcov      -log of the least coverage of a source word that is not a function word (an omission, read finer)
  member0, member1, ...  an ensemble's: each member's mean log-probability per token of the translation (EOS
              included), as its steps read it (where the two disagree, the translation is less sure)
  back        the way back: the other direction's model's mean log-probability per token of the source (EOS
              included) reading the translation, teacher-forced (no decoding; a word mistranslated reads the
              source's word as improbable: "El príncipe ..." for "The printer ...")
  back_min    its lowest token's log-probability
  dual        |logprob - back|: Junczys-Dowmunt's (2018) dual conditional cross-entropy's disagreement term
(`named` and `lowcov` skip the sentence's first word.) The combination has two parts: the log-probability (an
ensemble's: its members'; and the way back, if read) against the labels of the selection rows, and an omission part
(`lowcov`, `named`; with the way back, `back_min` too) fitted on translations made without a phrase of their source;
a sentence is flagged when either part puts it under its own threshold. A sentence of 1-3 words is read by a short part of its own instead (Scorer.short; docs/confidence.md).
The way back is read only where it may matter (Scorer.first: a sentence the default check is sure of keeps its
confidence; a short one's part reads none, but a flagged sentence's warning names the word it doubts).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from mtcli.config import DEFAULTS
from mtcli.errors import UserError, quoted
from mtcli.roundtrip import is_short, read_back
from mtcli.text.case import is_shouting, truecase
from mtcli.text.firstnames import lost
from mtcli.tokenizer import SPACE
from mtcli import lazy_re

FILE = "confidence.json"  # in a model directory, beside its weights
FEATURES = ("logprob", "margin", "uncovered", "roundtrip", "pieces", "src_pieces", "length")
OMISSION_FEATURES = ("lowcov", "named")  # the omission part's coverage signals (with the way back: and back_min)
WAY_BACK = ("back", "back_min", "dual")  # read from the way back (roundtrip.read_back): a scorer with one loads it
LOWEST_COVERAGE = 1e-4  # lowcov's floor: under it, one attention is as absent as another
NO_MARGIN = 5.0  # margin of a sentence with a single hypothesis (greedy): as sure as the beam ever is
WORD = lazy_re.compile(r"[^\W_]", re.UNICODE)  # a word has a letter or digit; punctuation is never "left out"
# a number is never named as left out or mistranslated: the pipeline keeps it as it came and warns when the model lost
# it ("Item 100." -> "Es 100." had been "may have mistranslated: '100'", the way back reading a number's pieces unlikely)
LETTER = lazy_re.compile(r"[^\W\d_]", re.UNICODE)


def words(pieces: Sequence[str]) -> list[tuple[int, int, str]]:
    """WordPiece pieces ("▁next", "▁wee", "##k", "?") grouped into words: (first piece, end, the word)."""
    out: list[list] = []
    for i, p in enumerate(pieces):
        if p.startswith("##") and out:
            out[-1][1], out[-1][2] = i + 1, out[-1][2] + p[2:]
        else:
            out.append([i, i + 1, p.lstrip("▁")])
    return [tuple(w) for w in out]


def word_coverage(attention: np.ndarray, spans: Sequence[tuple[int, int, str]], layer: int,
                  heads: Sequence[int]) -> np.ndarray:
    """Each source word's coverage: the most attention (the mean of `heads` of layer `layer`) any target
    position gives its pieces together. attention (L, H, T + 1, S) with S counting BOS first and EOS last."""
    if not spans:
        return np.zeros(0, attention.dtype)
    a = attention[layer, heads[0]] if len(heads) == 1 else attention[layer, list(heads)].mean(0)  # (T + 1, S)
    # each word's pieces summed at once (words are consecutive and cover the pieces)
    return np.add.reduceat(a[:, : 1 + spans[-1][1]], [1 + s for s, _, _ in spans], axis=1).max(0)


def split_words(spans: Sequence[tuple[int, int, str]]) -> float:
    """The share of words (not punctuation) spelled in three WordPiece pieces or more: rare words, or
    words the corpus never had (a target word of pieces the model put together)."""
    split = [e - b >= 3 for b, e, w in spans if WORD.search(w)]
    return sum(split) / len(split) if split else 0.0


# Words a translation often has no word for ("the", "do", Spanish "se"), or pieces of contractions ("I'd" is
# "i", "'", "d"): a run of them alone is never named as left out, nor read by `lowcov` (on the selection split,
# most runs named before this rule were of these words alone). The Spanish side has what the English side has:
# the forms of estar, ser and haber, subject pronouns, demonstratives, and the interrogatives, which a
# preposition before them joins into one English word ("¿Por qué no?" -> "Why not?", "¿A qué hora ...?" -> "What
# time ...?", "¿De dónde eres?" -> "Where are you from?", "está" -> "Where's"): without them 17 of 40 everyday
# questions translated right were flagged, most as leaving out "qué", "quién" or "dónde" (docs/confidence.md)
FUNCTION_WORDS = frozenset("""a an the to of in on at for by with from and or but is are was were be been am
do does did it its i you he she we they me him her us them my your his our their this that these those there
not so as will would can could should shall may might must have has had s d ll re ve m t o
el la los las lo le les un una unos unas de del al en y e o u que se me te nos os mi mis tu tus su sus por
para con es son fue era no ya
estoy estás está estamos están estaba estaban soy eres somos sea he ha has hemos han hay había
yo tú él ella usted nosotros nosotras ellos ellas ustedes nuestro nuestra nuestros nuestras
este esta esto estos estas ese esa eso esos esas
qué quién quiénes cuál cuáles cuándo cuánto cuánta cuántos cuántas dónde adónde cómo""".split())


def uncovered_runs(spans: Sequence[tuple[int, int, str]], covered: np.ndarray, threshold: float) -> list[str]:
    """Consecutive source words below the coverage threshold, as text ("next week"); punctuation never, and
    a run of function words alone never."""
    runs, current = [], []
    for (_, _, word), c in [*zip(spans, covered), ((0, 0, ""), np.inf)]:
        if c < threshold and WORD.search(word):
            current.append(word)
        elif current:
            if any(w.lower() not in FUNCTION_WORDS for w in current):
                runs.append(" ".join(current))
            current = []
    return runs


def chrf(hypothesis: str, references: Sequence[str]) -> float:
    """Sentence chrF (sacrebleu's, 0-100) against the best of the references, case ignored."""
    metric = _chrf()
    return max(metric.sentence_score(hypothesis.lower(), [r.lower()]).score for r in references)


@functools.cache
def _chrf():
    from sacrebleu.metrics import CHRF

    return CHRF()


def _logit_of(features, mean, scale, coef, bias: float, signals: dict[str, float]) -> float:
    return bias + sum(c * (signals[f] - m) / s for f, m, s, c in zip(features, mean, scale, coef))


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))


def _moved(p: float, threshold: float, to: float) -> float:
    """A confidence p moved (on the logit) so that `threshold` falls on `to`."""
    return _sigmoid(_logit(p) - _logit(threshold) + _logit(to))


@dataclass(frozen=True)
class Scorer:
    """A model direction's fitted combination (MODEL/confidence.json): standardised signals, logistic
    regression coefficients, the coverage layer and threshold, the usual length ratio and the flag's
    threshold on the confidence (chosen for at most `false_flags` of right sentences flagged)."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    bias: float
    threshold: float  # flagged below this confidence
    layer: int = 0  # the cross-attention layer coverage reads
    heads: tuple[int, ...] = (0,)  # and its heads (averaged): the ones that align best
    covered: float = 0.1  # a source word below this coverage is uncovered (the signal)
    named: float = 0.03  # below this, a flagged sentence's warning names it as left out (rarer, surer)
    ratio: float = 0.0  # the usual log(target characters / source characters)
    false_flags: float = 0.1
    # the omission part (none: no om_features): its own standardised logistic regression and threshold
    om_features: tuple[str, ...] = ()
    om_mean: tuple[float, ...] = ()
    om_scale: tuple[float, ...] = ()
    om_coef: tuple[float, ...] = ()
    om_bias: float = 0.0
    om_threshold: float = 0.5
    # a short sentence's (1-3 words, mtcli.roundtrip.is_short: a greeting, a sign, a button; alone or in a line) own
    # combination and threshold, fitted on short lines alone (benchmarks/confidence_short.py): a short translation
    # reads less sure than a sentence's whether right or not, and under the one threshold ~40 % of the right ones
    # were flagged
    short: Scorer | None = None
    # the way back read only where it may change the flag (a cascade: `--round-trip` at the budget's CPU): a sentence
    # `first` (the default check's combination, fitted without it) is this sure of is not read back, and its confidence
    # is first's, moved so that first's threshold falls on this one's (read_below >= first's threshold: not flagged);
    # chosen on the fit rows (benchmarks/confidence.py cascade; docs/confidence.md#cost)
    first: Scorer | None = None
    read_below: float = 1.0

    @property
    def reads_way_back(self) -> bool:
        """Whether a part of it (the main part, the omission part, the short part) reads the way back: the check loads
        the other direction's model for it."""
        return bool(set(WAY_BACK) & set(self.features + self.om_features + (self.short.features if self.short else ())))

    @property
    def reads_members(self) -> bool:
        """Whether it reads an ensemble's members' log-probabilities (member0, ...): its translator needs them all."""
        return any(f.startswith("member") for f in self.features + (self.short.features if self.short else ()))

    def reads_back(self, signals: dict[str, float]) -> bool:
        """Whether this sentence's confidence reads the way back (`signals`: those read without it): a part of the
        combination that reads the sentence reads it, and `first` is not sure enough of it."""
        if self.short is not None and signals.get("short_line"):
            return self.short.reads_back(signals)
        return bool(set(WAY_BACK) & set(self.features + self.om_features)) and not self._sure(signals)

    def _sure(self, signals: dict[str, float]) -> bool:
        return self.first is not None and self.first.confidence(signals) >= self.read_below

    def confidence(self, signals: dict[str, float]) -> float:
        """The fitted probability that the translation is right; with an omission part, the lower of the two
        parts once the omission part's logit is moved so that its threshold falls on the main one's: under
        `threshold` exactly when either part is under its own. A short sentence's (signals["short_line"]) is the short
        combination's, moved the same way; so is that of a sentence `first` is sure of (reads_back), `first`'s."""
        if self.short is not None and signals.get("short_line"):
            return _moved(self.short.confidence(signals), self.short.threshold, self.threshold)
        if self._sure(signals):
            return _moved(self.first.confidence(signals), self.first.threshold, self.threshold)
        z = _logit_of(self.features, self.mean, self.scale, self.coef, self.bias, signals)
        if self.om_features:
            z = min(z, _logit_of(self.om_features, self.om_mean, self.om_scale, self.om_coef, self.om_bias, signals)
                    - _logit(self.om_threshold) + _logit(self.threshold))
        return _sigmoid(z)

    def to_json(self) -> dict:
        nested = ("short", "first")
        out = {k: list(v) if isinstance(v, tuple) else v for k, v in self.__dict__.items()
               if k not in nested and (k != "read_below" or self.first)}
        return {**out, **{k: getattr(self, k).to_json() for k in nested if getattr(self, k) is not None}}

    @classmethod
    def from_json(cls, data: dict) -> Scorer:
        nested = ("short", "first")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k not in nested},
                   **{k: cls.from_json(data[k]) for k in nested if data.get(k) is not None})


@dataclass(frozen=True)
class Fitted:
    """What benchmarks/confidence.py measured for a model (MODEL/confidence.json): its combinations by name
    ("full": every signal, "fast": without the round trip) and how alignments read the cross-attention
    (benchmarks/align.py): a layer, its heads (averaged; none: all), a shift (see align)."""

    scorers: dict[str, Scorer]
    align_layer: int
    align_heads: tuple[int, ...] = ()
    align_shift: int = 0


def load_fitted(model_dir: Path, n_layers: int) -> Fitted:
    """The model's fitted combinations (none for a model without confidence.json: a model you trained,
    which benchmarks/confidence.py can fit); without a measured choice, alignments read the last layer."""
    path = Path(model_dir) / FILE
    if not path.is_file():
        return Fitted({}, n_layers - 1)
    try:
        data = json.loads(path.read_text("utf-8"))
        a = data["align"]
        return Fitted({name: Scorer.from_json(d) for name, d in data["scorers"].items()},
                      int(a["layer"]), tuple(int(h) for h in a["heads"]), int(a["shift"]))
    except (ValueError, KeyError, TypeError) as e:
        raise UserError(f"{path} is damaged ({e}); remove it or fit it again with benchmarks/confidence.py") from None


@dataclass(frozen=True)
class Vocab:
    """A translator's pieces by id, both sides (words() groups them)."""

    src: tuple[str, ...]
    tgt: tuple[str, ...]
    src_size: int

    @classmethod
    def of(cls, translator) -> Vocab:
        s, t = translator.src_tok, translator.tgt_tok
        return cls(s.pieces_by_id, t.pieces_by_id, s.vocab_size)


def read(f, source: str, target: str, scores: Sequence[float], trip: str | None, scorer: Scorer,
         vocab: Vocab, way_back: np.ndarray | None = None) -> tuple[dict, list[str]]:
    """One pair's signals from the beam's scores (best first), its teacher-forced reading f (decode.Forced, the
    cross-attention of the lowest layers is enough), round trip and way back (the source's tokens'
    log-probabilities given the translation: roundtrip.read_back; None: not made), and the runs of source
    words it probably left out."""
    spans = words([vocab.src[i % vocab.src_size] for i in f.src[1:-1]])  # (case factors stripped)
    cover = word_coverage(f.attention, spans, scorer.layer, scorer.heads)
    content = np.array([bool(WORD.search(w)) for _, _, w in spans], bool)
    # the first word is never read as left out: the coverage head gives it little attention where it was translated
    # ("¿Por qué ...?" -> "Why ...?": es-en 4.0 % of right fit rows under `named`, en-es 0.4 %)
    rest = slice(int(content.argmax()) + 1 if content.any() else len(spans), None)
    runs = uncovered_runs(spans[rest], cover[rest], scorer.named)
    meaning = content[rest] & np.array([w.lower() not in FUNCTION_WORDS for _, _, w in spans[rest]], bool)
    ratio = math.log((len(target) + 1) / (len(source) + 1))
    s = {"logprob": float(scores[0]), "total_logprob": float(scores[0]) * (len(f.tgt) + 1),
         "margin": min(scores[0] - scores[1], NO_MARGIN) if len(scores) > 1 else NO_MARGIN,
         "uncovered": float((cover[content] < scorer.covered).sum()),
         "pieces": split_words(words([vocab.tgt[i] for i in f.tgt])), "src_pieces": split_words(spans),
         "length": abs(ratio - scorer.ratio), "short": max(0.0, scorer.ratio - ratio),
         "named": float(sum(len(r.split()) for r in runs)),
         "lowcov": -math.log(max(float(cover[rest][meaning].min()) if meaning.any() else 1.0, LOWEST_COVERAGE)),
         "short_line": float(is_short(source))}
    if trip is not None:
        s["roundtrip"] = chrf(trip, [source])
    s.update(way_back_signals(s, way_back))
    for m, logprobs in enumerate(() if f.members is None else f.members):
        s[f"member{m}"] = float(logprobs.mean())
    return s, runs


def way_back_signals(signals: dict[str, float], way_back: np.ndarray | None) -> dict[str, float]:
    """The signals of a sentence's way back (the source's tokens' log-probabilities given the translation: none where
    it was not read) beside its others (read's)."""
    if way_back is None:
        return {}
    back = float(way_back.mean())
    return {"back": back, "back_min": float(way_back.min()), "dual": abs(signals["logprob"] - back)}


def round_trip(back, targets: list[str]) -> list[str]:
    """The targets translated back by `back` (a decode.Translator), greedy and by its first model only:
    the budget of a check (an ensemble's second model would double its cost)."""
    single = copy.copy(back)
    single.models = back.models[:1]
    return [r.hypotheses[0].text for r in single.translate_batch(targets, replace(DEFAULTS, beam_size=1))]


def spaced_words(pieces: Sequence[str]) -> list[tuple[int, int]]:
    """Pieces grouped into the words of the text between spaces (a piece with the space marker starts one;
    "##" pieces and glued punctuation go on with it): the words alignments number."""
    out: list[list[int]] = []
    for i, p in enumerate(pieces):
        if p.startswith(SPACE) or not out:
            out.append([i, i + 1])
        else:
            out[-1][1] = i + 1
    return [tuple(w) for w in out]


def text_words(tok, text: str, pieces: Sequence[str]) -> list[tuple[int, int]] | None:
    """The pieces of each word of `text` between spaces (spaced_words), or, where a piece the vocabulary lacks
    hides a word's start ("{" after a space is one [UNK], no space marker: "Hello {name}."), each word's own
    pieces counted (the tokenizer splits at spaces first); None when neither gives the text's words (a text cut
    to the model's length)."""
    spaced, split = spaced_words(pieces), text.split()
    if len(spaced) == len(split):
        return spaced
    ends = np.cumsum([len(ids) for ids in tok.encode_batch(split)])
    return [(int(b), int(e)) for b, e in zip([0, *ends[:-1]], ends)] if split and ends[-1] == len(pieces) else None


def word_attention(attention: np.ndarray, src_words, tgt_words, layer: int, heads: Sequence[int],
                   shift: int = 0) -> np.ndarray:
    """(J, I): how much each target word j attends to each source word i (the mean of `heads` of `layer` over
    the word's pieces; a source word's attention is its pieces' sum). shift 0 reads the positions that predict
    the word's pieces, 1 those that read them as input (Shift-Att, Chen et al. 2020). attention (L, H, T + 1, S)
    with the source's BOS first and EOS last, which no word owns."""
    a = attention[layer, list(heads)].mean(0)  # (T + 1, S)
    by_src = np.stack([a[:, 1 + s : 1 + e].sum(1) for s, e in src_words], 1)  # (T + 1, I)
    return np.stack([by_src[s + shift : e + shift].mean(0) for s, e in tgt_words])


def align(attention: np.ndarray, src_words, tgt_words, layer: int, heads: Sequence[int],
          shift: int = 0) -> list[tuple[int, int]]:
    """Source-target word pairs (i, j), by target word j: the source word it attends to most (word_attention)."""
    found = word_attention(attention, src_words, tgt_words, layer, heads, shift).argmax(1)
    return sorted((int(i), j) for j, i in enumerate(found))


@dataclass
class SentenceCheck:
    """One sentence of a line: how sure its translation is, why not, and its word alignment (--align)."""

    source: str
    translation: str
    confidence: float | None = None  # None: not checked (no fitted combination, or --no-check)
    flagged: bool = False
    warnings: list[str] = field(default_factory=list)
    alignment: list[tuple[int, int]] | None = None  # (source word, target word), words between spaces

    def to_json(self) -> dict:
        out = {"source": self.source, "translation": self.translation,
               "confidence": None if self.confidence is None else round(self.confidence, 4),
               "flagged": self.flagged, "warnings": self.warnings}
        if self.alignment is not None:
            out["alignment"] = " ".join(f"{i}-{j}" for i, j in self.alignment)
        return out


@dataclass
class LineCheck:
    sentences: list[SentenceCheck]

    @property
    def confidence(self) -> float | None:
        found = [s.confidence for s in self.sentences if s.confidence is not None]
        return min(found) if found else None

    @property
    def flagged(self) -> bool:
        return any(s.flagged for s in self.sentences)

    @property
    def warnings(self) -> list[str]:
        return [w for s in self.sentences for w in s.warnings]

    @property
    def alignment(self) -> list[tuple[int, int]]:
        """The sentences' alignments as one for the line: word numbers counted from the line's start."""
        out, i0, j0 = [], 0, 0
        for s in self.sentences:
            out += [(i + i0, j + j0) for i, j in s.alignment or []]
            i0, j0 = i0 + len(s.source.split()), j0 + len(s.translation.split())
        return out

    def to_json(self) -> dict:
        c = self.confidence
        return {"confidence": None if c is None else round(c, 4), "flagged": self.flagged,
                "sentences": [s.to_json() for s in self.sentences]}


def sentence_pairs(source: str, translation: str) -> list[tuple[str, str]]:
    """A line's (source, translation) sentences, paired when both sides have as many; else the line whole. A table
    row's cells (tabs: each was translated on its own, text.lines.in_cells) are paired first, when both sides have
    as many with text: read whole, its tab a piece the vocabulary lacks, no word of it was aligned."""
    from mtcli.text.segment import sentences

    cells = list(zip(source.split("\t"), translation.split("\t")))
    if len(cells) > 1 and source.count("\t") == translation.count("\t") and all(
            bool(s.strip()) == bool(t.strip()) for s, t in cells):
        return [pair for s, t in cells if s.strip() for pair in sentence_pairs(s, t)]

    src, tgt = sentences(" ".join(source.split())), sentences(" ".join(translation.split()))
    return list(zip(src, tgt)) if len(src) == len(tgt) > 1 else [(source.strip(), translation.strip())]


BACK_DIFFERS = 40.0  # round-trip chrF below which the way back is shown as the reason


def as_written(run: str, source: str) -> str | None:
    """A run of words (as the tokenizer gave them: lowercased, a contraction in pieces, [UNK] for a character
    it does not know) as the source has it; None when the source has no such run (never the tokenizer's own
    pieces in a warning: "may have left out: '[UNK]'")."""
    words = run.split()
    if all(w == UNKNOWN for w in words):  # (nothing to find it by)
        return None
    found = re.search(r"\W*".join(r"\S+" if w == UNKNOWN else re.escape(w) for w in words), source, re.IGNORECASE)
    return found.group() if found else None if UNKNOWN in words else run


UNKNOWN = "[UNK]"  # the tokenizers' piece for what they do not know (mtcli.tokenizer.SPECIALS)
KEPT_STOPS = ".,;:!?¡¿"  # a sentence's stops glued to a kept span ("{name}," and "{name}." are one span)


# a word the way back reads this unlikely (its least likely piece's log-probability, p < 1.8 %) and this far under the
# sentence's mean is named as mistranslated: on the hand-labelled fit rows (en-es) 36 of the 45 wrong have one, 33 of
# the 321 right (docs/confidence.md)
DOUBTED_LOGPROB = -4.0
DOUBTED_GAP = 3.0


def spared(source: str, spans: Sequence[str] = ()) -> list[tuple[int, int]]:
    """Where in `source` no word is named as left out or mistranslated: each place of `spans` (what the pipeline kept
    as it came, a glossary's terms: the user's, or never the model's to get wrong; the way back reads a kept name or
    URL piece by piece, unlikely: "may have mistranslated: 'Zyxqor'", "'com'") and an ICU message's structure (its
    argument, type and selectors, kept byte for byte: "may have left out: 'one', 'other'")."""
    from mtcli.langid import ICU_STRUCTURE

    out = [m.span() for m in ICU_STRUCTURE.finditer(source)] if "{" in source else []
    return out + [m.span() for span in set(spans) if span.strip() for m in re.finditer(re.escape(span), source)]


def _inside(start: int, end: int, places: Sequence[tuple[int, int]]) -> bool:
    return any(a <= start and end <= b for a, b in places)


def _placed(found: Sequence[str], source: str) -> list[tuple[int, int]]:
    """Where each word (as the tokenizer gave it: lowercased) is in the source, found left to right ((-1, -1): not
    found); a character the tokenizer did not know is the one after the word before it ("bob", "[UNK]" for "@")."""
    low, at, out = source.lower(), 0, []
    for w in found:
        k = at if w == UNKNOWN else low.find(w.lower(), at)
        out.append((-1, -1) if k < 0 else (k, k + (1 if w == UNKNOWN else len(w))))
        at = at if k < 0 else out[-1][1]
    return out


def doubted(pieces: Sequence[str], way_back: np.ndarray, source: str,
            places: Sequence[tuple[int, int]] = ()) -> str | None:
    """The source word (its pieces joined, as the source writes it) whose token the way back reads least likely, when
    that is clearly low; never a function word, nor one in `places` (spared). `pieces`: the source as the back model's
    target pieces, `way_back` their log-probabilities, EOS last (a source cut to the decoder's length: only the pieces
    read). The first word is named too: the coverage head's reason to skip it does not hold for the way back (en-es
    fit rows: 6 wrong sentences named by their first word, no right one)."""
    read = words(pieces[: len(way_back) - 1])
    at = _placed([w for _, _, w in read], source) if places else [(-1, -1)] * len(read)
    mine = np.ones(len(way_back), bool)  # (the sentence's mean without the spared: a URL's pieces read low would hide
    for (a, b, _), (k, e) in zip(read, at):  # the word the model got wrong, "liter" in "See https://example.com/...")
        mine[a:b] = not (k >= 0 and _inside(k, e, places))
    lowest = [(float(way_back[a:b].min()), w) for a, b, w in read
              if mine[a] and w != UNKNOWN and LETTER.search(w) and w.lower() not in FUNCTION_WORDS]
    if not lowest:
        return None
    low, word = min(lowest, key=lambda x: x[0])
    clear = low < DOUBTED_LOGPROB and low < float(way_back[mine].mean()) - DOUBTED_GAP
    return as_written(word, source) if clear else None


def outside(run: str, source: str, places: Sequence[tuple[int, int]]) -> str | None:
    """A run as written (as_written) without its words in `places` (spared); None when none of its words is left."""
    found = re.search(r"\W*".join(map(re.escape, run.split())), source, re.IGNORECASE) if places else None
    if found is None:
        return run
    kept = [m for m in re.finditer(r"[^\W_]+", found.group()) if LETTER.search(m.group())
            and not _inside(found.start() + m.start(), found.start() + m.end(), places)]
    return found.group()[kept[0].start() : kept[-1].end()] if kept else None


# a translation's words of negation (either direction's target): a negative contraction ("didn't", which the model
# reads as "didn" "'" "t") is named as left out only where the translation has none ("I didn't like the movie." ->
# "No me gustó la película." had been flagged for 'didn')
NEGATIONS = frozenset("no nunca jamás nada nadie ni tampoco ningún ninguno ninguna not never nothing nobody none "
                      "neither nor".split())
_WORD_AT = lazy_re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NEGATIVE = lazy_re.compile(r"n['’]t$", re.IGNORECASE)


def named_runs(runs: list[str], source: str, target: str, places: Sequence[tuple[int, int]] = ()) -> list[str]:
    """What a warning names of `runs` (read's, which the fitted `named` counts as they are): each as the source writes
    it (as_written), without its words in `places` (outside), in whole words of the source (the model's reading may
    end inside one: the last piece before its length, "banan" of "bananas"; a contraction's first half, "didn" of
    "didn't"), a negative contraction only where the translation has no negation, and each once (a run inside
    another one named is not named again: "'over', 'over', 'over until'" was one place's words three times)."""
    negated = bool(NEGATIONS & set(re.findall(r"[^\W\d_]+", target.lower())))
    out: list[str] = []
    for run in runs:
        if not (found := as_written(run, source)) or not (found := outside(found, source, places)):
            continue
        at = re.search(re.escape(found), source, re.IGNORECASE)
        if at is None:
            continue
        whole = [m.group() for m in _WORD_AT.finditer(source) if m.start() < at.end() and at.start() < m.end()]
        whole = [w for w in whole if not (negated and _NEGATIVE.search(w))]
        if not any(w.lower() not in FUNCTION_WORDS and LETTER.search(w) for w in whole):
            continue
        name = " ".join(whole)
        if any(f" {name.lower()} " in f" {o.lower()} " for o in out):
            continue
        out = [o for o in out if f" {o.lower()} " not in f" {name.lower()} "] + [name]
    return out


def _reason(runs: list[str | None], trip: str | None, found: dict, doubt: str | None = None,
            names: Sequence[str] = ()) -> str:
    """A flagged sentence's one-line reason: the first names it lost (text.firstnames.lost), else what it left out,
    else the word the way back doubts, else what it says translated back, else doubt."""
    if names:
        return f"the translation lost the name{'s' * (len(names) > 1)} {', '.join(map(quoted, names))}"
    if runs := [r for r in runs if r and LETTER.search(r)]:
        return f"may have left out: {', '.join(map(quoted, runs))}"
    if doubt:
        return f"may have mistranslated: {quoted(doubt)}"
    if trip is not None and found["roundtrip"] < BACK_DIFFERS:
        return f"translated back it reads: {quoted(trip)}"
    return "the model was unsure of it"


class Checker:
    """The confidence of one direction's translations (`translator`, a decode.Translator, with what was
    fitted for its model), `back()` the other direction's translator for the round trip, loaded on first
    use; `options` (config.TranslationOptions) say which check and whether to align."""

    def __init__(self, translator, back, options):
        self.translator, self.back, self.options = translator, back, options
        self.fitted = load_fitted(translator.model_dir, translator.model.cfg.n_layers)
        self.scorer = self.fitted.scorers.get(options.check)
        self.members = bool(self.scorer and self.scorer.reads_members)
        n = len(translator.models)
        given = {f"member{m}" for m in range(n)} if n > 1 else set()  # (read: an ensemble's members' signals)
        if self.scorer and any(f.startswith("member") and f not in given for f in self.scorer.features):
            raise UserError(f"{Path(translator.model_dir) / FILE} reads the members of a larger ensemble than this "
                            f"model ({n} model{'s' * (n > 1)}); remove it or fit it again with benchmarks/confidence.py")
        self.vocab = Vocab.of(translator)
        # what the check reads: the cross-attention of the lowest `layers` blocks; heads (None: all) where
        # it reads only the lowest block's, and then only these heads' queries and keys are computed
        read = ([(self.scorer.layer, self.scorer.heads)] if self.scorer else []) + \
            ([(self.fitted.align_layer, self.fitted.align_heads)] if options.return_alignments else [])
        self.layers = max((layer for layer, _ in read), default=0) + 1
        self.heads = sorted({h for _, hs in read for h in hs}) if read and self.layers == 1 and all(hs for _, hs in read) \
            else None
        if self.active:
            translator.keep_encoded()

    @property
    def active(self) -> bool:
        return self.scorer is not None or self.options.return_alignments

    def check(self, sources: list[str], nbests: list, kept=None, spans: list | None = None) -> list[LineCheck | None]:
        """Each line's check, from its source and n-best list (text, score) pairs, best first; None for a
        line kept as it came (nothing was translated). `kept`: a decode.Encoded of what decoding in other
        processes read (the server's decoders), in place of the translator's own. `spans`: each line's spans a
        warning never names (`spared`: what the pipeline kept, a glossary's terms)."""
        todo = [k for k, (src, nb) in enumerate(zip(sources, nbests)) if nb and nb[0][0].strip()
                and nb[0][0].strip() != src.strip()]
        pairs = {k: sentence_pairs(sources[k], nbests[k][0][0]) for k in todo}
        flat = [(k, s, t) for k in todo for s, t in pairs[k]]
        out: list[LineCheck | None] = [None] * len(sources)
        forced = self._read_again([s for _, s, _ in flat], [t for _, _, t in flat], kept)
        if not flat:
            return out
        scorer = self.scorer
        trips = (round_trip(self.back(), [t for _, _, t in flat]) if scorer and "roundtrip" in scorer.features
                 else [None] * len(flat))
        reads = [read(f, s, t, [score for _, score in nbests[k]], trip, scorer, self.vocab) if scorer else None
                 for (k, s, t), f, trip in zip(flat, forced, trips)]
        backs = self._way_back(flat, reads)
        checks: dict[int, list[SentenceCheck]] = {k: [] for k in todo}
        for (k, s, t), f, trip, back, got in zip(flat, forced, trips, backs, reads):
            sc = SentenceCheck(s, t)
            if scorer:
                found, runs = got
                sc.confidence = scorer.confidence({**found, **way_back_signals(found, back)})
                names = lost(s, t)  # (a first name the model made a word: wrong, however sure it was)
                sc.flagged = sc.confidence < scorer.threshold or bool(names)
                if sc.flagged:
                    places = spared(s, spans[k] if spans else ())
                    doubt = None if back is None else self._doubted(s, t, back, places)
                    sc.warnings.append(_reason(named_runs(runs, s, t, places), trip, found, doubt, names))
            if self.options.return_alignments:
                sc.alignment = self._alignment(f, s, t)
            checks[k].append(sc)
        for k in todo:
            out[k] = LineCheck(checks[k])
        return out

    def _way_back(self, flat: list[tuple[int, str, str]], reads: list) -> list[np.ndarray | None]:
        """The way back of the (line, source, translation) pairs that read it (None for the others): those whose
        confidence reads it (Scorer.reads_back) and those flagged without it (a short sentence's), for their warning's
        word (`doubted`)."""
        scorer, out = self.scorer, [None] * len(flat)
        if not (scorer and scorer.reads_way_back):
            return out
        wanted = [j for j, (found, _) in enumerate(reads)
                  if scorer.reads_back(found) or scorer.confidence(found) < scorer.threshold]
        for j, back in zip(wanted, read_back(self.back(), [flat[j][1] for j in wanted], [flat[j][2] for j in wanted])
                           if wanted else []):
            out[j] = back
        return out

    def _doubted(self, source: str, target: str, back: np.ndarray, places) -> str | None:
        """The word the way back doubts (`doubted`); a shouted sentence's read again as the pipeline translated it,
        lowercased: the back model's vocabulary spells "LITER" letter by letter, each letter likely after the one
        before, so no word of it is clearly low ("I BOUGHT A LITER OF MILK." named none). Only the word named: the
        signals are the way back as typed, as the combination was fitted."""
        if is_shouting(source):
            source_low = truecase(source.lower(), {})  # (and the translation, upper-cased from the model's)
            back = read_back(self.back(), [source_low], [truecase(target.lower(), {}, english=False)])[0]
            return doubted(self._back_pieces(source_low), back, source, places)
        return doubted(self._back_pieces(source), back, source, places)

    def _back_pieces(self, source: str) -> list[str]:
        """The source as the way back read it: the back model's target pieces."""
        tok = self.back().tgt_tok
        return [tok.pieces_by_id[i] for i in tok.encode(source)]

    def _read_again(self, sources: list[str], targets: list[str], kept=None) -> list:
        """The pairs read under teacher forcing, and what decoding kept for it forgotten (with the sentences
        the pipeline retried, the lines not checked)."""
        try:
            if not self.active:  # (nothing to read: no fitted combination, no alignments asked for)
                return [None] * len(sources)
            return self.translator.force(sources, targets, self.layers, self.heads, kept=kept,
                                         members=self.members) if sources else []
        finally:
            if self.translator.encoded is not None:
                self.translator.encoded.clear()

    def _alignment(self, f, source: str, target: str) -> list[tuple[int, int]] | None:
        src = text_words(self.translator.src_tok, source, [self.vocab.src[i % self.vocab.src_size] for i in f.src[1:-1]])
        tgt = text_words(self.translator.tgt_tok, target, [self.vocab.tgt[i] for i in f.tgt])
        if not src or not tgt:
            return None  # (a text cut to the model's length)
        fitted = self.fitted
        att = word_attention(f.attention, src, tgt, fitted.align_layer, fitted.align_heads or range(f.attention.shape[1]),
                             fitted.align_shift)
        return sorted(kept_spans(att, source.split(), target.split(), [UNKNOWN in self.vocab.tgt[i] for i in f.tgt], tgt))


def kept_spans(att: np.ndarray, source: list[str], target: list[str], unknown: list[bool], tgt) -> list[tuple[int, int]]:
    """Alignment pairs (i, j), by target word j: each kept span ("{name}", "%d": a target word of a piece the
    vocabulary lacks, as a source word has it, stops around it aside) linked to its source word, which is the same
    text, not to what the model's attention on a piece it cannot spell says; every other target word to the source
    word it attends to most (`att` (J, I): word_attention) of those not so linked ("Hello {name}." had "Hello"
    unlinked and "Holanda" linked to "{name}.", which attention reads much)."""
    bare = [w.strip(KEPT_STOPS) for w in source]
    kept = {}
    for j, word in enumerate(target):
        same = [k for k, w in enumerate(bare) if w == word.strip(KEPT_STOPS)]
        if len(same) == 1 and any(unknown[tgt[j][0]:tgt[j][1]]):
            kept[j] = same[0]
    free = att.copy()
    if len(set(kept.values())) < free.shape[1]:  # (every source word a kept span's: the attention's)
        free[:, list(kept.values())] = -np.inf
    return [(kept[j], j) if j in kept else (int(free[j].argmax()), j) for j in range(len(target))]
