"""Chat's dropped subject: an English message that opens with a verb of the writer's own ("Love you", "Miss you!", "Hope
you are well", "Can't wait to see you", "Will call you later", "On my way") is given the model with its "I": the
model had read the verb as another's ("Love you ❤️" -> "Te ama.", he or she loves you) or as an order. Spanish drops
the subject itself: nothing goes back.

A table of openers, each a verb and what must follow it for the verb to be the writer's (an object, a clause); never
a question ("Need help?": the reader's), nor an order ("Wish me luck!", "Don't worry.", "Have a nice day!", "Call
me later."), nor a name or a noun ("Miss Smith", "Hope is a good thing", "Will is here")."""

from __future__ import annotations

import re

from mtcli import lazy_re
from mtcli.text.case import is_shouting
from mtcli.text.sentence import Context, NBest, Sentence
from mtcli.text.kinds import PRIVATE

_OBJECT = r"(?:you|u|ya|it|this|that|them|him|her|us|y'all)"  # (not "Love your neighbour.": an order)
_NOT_SUBJECT = r"(?!(?:you|we|they|he|she|it|i|this|that|there|be)\b)[a-z]"  # ("Can't you see?", "Can't be!": not I)
# (the subject, the opener: case aside, after the sentence's opening marks)
OPENERS = (
    ("I", rf"(?:love|adore|hate|appreciate)(?= {_OBJECT}\b)|(?:miss|need)(?= (?:{_OBJECT}|your|to)\b)"),
    ("I", r"hope(?= (?:you|u|ya|to|so|it|this|that|all|everything|everyone|we|they|he|she|your|the|not|things)\b)"),
    ("I", r"wish(?= (?:you|u|ya|i|we|it|they|he|she|this|that|there|everyone)\b)"),  # (not "Wish me luck!")
    ("I", rf"(?:can'?t|cannot|couldn'?t|didn'?t)(?= {_NOT_SUBJECT})"),  # (the apostrophe typed or not)
    # (not "Don't worry.", "Don't think about it.", "Don't feel bad.": orders)
    ("I", r"don'?t(?= (?:know|think so|care|remember|understand|agree|recall|want|like|need)\b)"),
    ("I", r"will(?= (?:call|text|let|send|check|be|do|try|see|get|come|tell|bring|pick|reply|talk|meet|write|look|"
          r"keep)\b)"),
    ("I", r"(?:have|got) to(?= [a-z])"),  # (not "Have a nice day!")
    ("I", r"just(?= (?:got|saw|heard|woke|came|left|arrived|landed|finished|realized|realised|remembered|found|sent|"
          r"told|read|made|bought|ate|had|did|spoke|talked|checked|wanted|called|texted|noticed|missed)\b)"),
    ("I", r"got(?= (?:your|the|my|home|back|here|there)\b)"),
    ("I'm", r"(?:so |really )?(?:glad|excited|thrilled)(?= [a-z])|(?:so |really )?happy(?= (?:for|to) )"),
    ("I'm", r"(?:on my way|running late|going (?:to bed|home|out)|heading (?:home|out|over|there)|"
            r"leaving (?:now|soon|work|home)|looking forward)\b"),
)
# a subject later on ("Hope so, we will see." is the writer's; "On my way home, I met him." not), or, after an "I'm"
# opener, a clause of its own or a verb (the opener a phrase or a gerund that is the subject: "On my way here, the
# wind ...", "Going out in this rain is out of the question."): the corpus's English, 102,904 lines, had 16 openers
# of the table, 12 none of the writer's; 3 now, all the writer's (and orders: "Don't think about it.", "Don't feel bad.")
_SUBJECT_LATER = lazy_re.compile(r", (?:I|we|he|she|they)\b")
_CLAUSE_LATER = lazy_re.compile(r",|\b(?:is|was|are|were|isn't|wasn't|makes|made|seems)\b")
_OPENER = lazy_re.compile(r"([\W_]*)(" + "|".join(f"(?P<s{k}>{p})" for k, (_, p) in enumerate(OPENERS)) + ")",
                          re.IGNORECASE)


def with_subject(text: str) -> str:
    """The English message with the "I" its opening verb dropped, in the message's case ("i" in one typed all
    lowercase: the casing stage truecases it whole)."""
    m = _OPENER.match(text)
    if not m or text.rstrip().endswith("?") or _SUBJECT_LATER.search(text, m.end()):
        return text
    subject = OPENERS[int(next(k for k, v in m.groupdict().items() if v is not None)[1:])][0]
    if subject == "I'm" and _CLAUSE_LATER.search(text, m.end()):
        return text
    verb = m[2]
    if not any(ch.isupper() for ch in text):
        subject = subject.lower()
    elif is_shouting(text):
        subject = subject.upper()
    elif verb[1:2].islower():  # ("Love you" -> "I love you"; "LOVE YOU" stays a shout)
        verb = verb[0].lower() + verb[1:]
    return text[: m.start(2)] + subject + " " + verb + text[m.end(2) :]


class DroppedSubject:
    """An English message's dropped "I" given the model (nothing to put back)."""

    name = "dropped subject"

    def strip(self, s: Sentence, c: Context) -> bool:
        # (not a software string's message, impersonal: "Can't open '%s': %s" is no one's "I can't")
        if c.options.case and c.options.source == "en" and not PRIVATE.search(s.text):
            s.text = with_subject(s.text)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out
