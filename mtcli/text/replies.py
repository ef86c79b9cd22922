"""A reply's opening "No," set aside and kept, the rest given the model as a sentence of its own: the model joined
the "No" to the clause's verb and turned a reply into a negation ("No, I am tired." -> "No estoy cansado.", "No
problem, see you tomorrow." -> "No te veo mañana."; now "No, estoy cansado."), and the other way ("No, estoy
cansado." -> "I'm not tired.", "No, te llamo luego." -> "Don't call you later."). Both languages write it the same."""

from __future__ import annotations

from mtcli import lazy_re
from mtcli.text.sentence import Context, NBest, Sentence

# "No," then a word ("No, I am tired."; not "No," at a line's end); an English "No problem," is a reply too
_OPENING_NO = {"en": lazy_re.compile(r"(?:No|NO|no)(?: problem| PROBLEM)?, (?=[^\W\d_¿¡])"),
               "es": lazy_re.compile(r"(?:No|NO|no), (?=[^\W\d_¿¡])")}


class ReplyNo:
    """An opening "No," kept in the lead; the translation goes on lowercase after it."""

    name = "reply no"

    def strip(self, s: Sentence, c: Context) -> bool:
        opening = _OPENING_NO.get(c.options.source)
        if opening and c.options.protect and not s.lead.strip() and (m := opening.match(s.text)):
            no = m.group().replace("problem", "hay problema").replace("PROBLEM", "HAY PROBLEMA")
            s.lead, s.text, s.lower_first = s.lead + no, s.text[m.end() :], True
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out  # (the lead goes back with the sentence's edges)
