"""mtcli.lazy_re: a module-level regular expression compiled at its first use, then as re's own; and one sentence's
translation compiles few of them."""

import copy
import pickle
import re
import subprocess
import sys

from mtcli import lazy_re


def test_a_pattern_compiles_at_first_use_and_matches_as_re():
    p = lazy_re.compile(r"(?P<n>\d+) (?:km|mi)", re.IGNORECASE)
    assert p.pattern == r"(?P<n>\d+) (?:km|mi)" and "search" not in vars(p)  # (its text alone: not compiled)
    q = re.compile(p.pattern, re.IGNORECASE)
    assert p.search("it is 10 KM away")["n"] == "10" and "search" in vars(p)
    for name in ("flags", "groups", "groupindex"):
        assert getattr(p, name) == getattr(q, name)
    text = "5 km, 7 MI and 9 m"
    assert p.findall(text) == q.findall(text) and p.sub("#", text) == q.sub("#", text)
    assert p.split(text) == q.split(text) and [m.span() for m in p.finditer(text)] == [m.span() for m in q.finditer(text)]
    assert p.fullmatch("3 km") and not p.match("x 3 km") and p.subn("", text)[1] == 2


def test_a_pattern_copies_and_pickles_as_its_text():
    p = lazy_re.compile("a+b", re.IGNORECASE)
    p.search("aab")
    for other in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert other.pattern == "a+b" and other.match("AAB").group() == "AAB"


def test_one_sentence_compiles_few_of_them():
    """A sentence without numbers, markup or names pays for the expressions it needs, not the ~200 there are."""
    code = ("import gc, sys; from mtcli import lazy_re; from mtcli.cli import main; sys.argv = ['mtcli', 'translate', "
            "'The plant is green.']\ntry: main()\nexcept SystemExit: pass\n"
            "ps = [o for o in gc.get_objects() if isinstance(o, lazy_re.Pattern)]\n"
            "print(len(ps), sum('search' in vars(p) for p in ps))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    translation, counts = done.stdout.strip().splitlines()
    made, compiled = map(int, counts.split())
    assert translation == "La planta es verde." and made > 100 and compiled < made // 3, (made, compiled)
