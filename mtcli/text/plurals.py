"""A noun with an optional plural ("file(s)", "item(s)", "box(es)"; Spanish's "archivo(s)") given the model as its
plural, which stands for one or more: its brackets are characters the vocabulary lacks, kept as spans one by one, and
the "s" between them reached the model alone and was dropped ("Select the file(s) to upload." -> "archivo()"). The
translation is the plural's ("archivos"): nothing to put back."""

from __future__ import annotations

from mtcli import lazy_re
from mtcli.text.sentence import Context, NBest, Sentence

# a word of letters glued to "(s)" or "(es)" (not "(S)": an acronym's; not "f(x)": no plural)
_OPTIONAL_PLURAL = lazy_re.compile(r"(?<![\w(])([^\W\d_]{2,})\((e?s)\)(?![\w(])")


class OptionalPlural:
    name = "optional plural"

    def strip(self, s: Sentence, c: Context) -> bool:
        s.text = _OPTIONAL_PLURAL.sub(r"\1\2", s.text) if "(" in s.text else s.text
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out  # (the plural's translation says "one or more" as the brackets did)
