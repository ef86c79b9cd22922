"""A phrase's closing mark (phrases.bare/closed): the regex it replaced as the reference, and linear time."""

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text.phrases import bare, closed

REFERENCE = re.compile(r"\s*[,;:]$")  # what the functions did before, in quadratic time on long runs of spaces

TEXT = st.text(alphabet=st.sampled_from("a ,;:\n\t\u00a0.!"), max_size=12)


@given(TEXT, TEXT)
@settings(max_examples=400, deadline=None)
def test_the_mark_is_taken_off_and_put_back_as_the_regex_did(phrase, translation):
    assert bare(phrase) == REFERENCE.sub("", phrase)
    mark = REFERENCE.search(phrase)
    expected = REFERENCE.sub("", translation) + mark.group().strip() if mark and translation else translation
    assert closed(translation, phrase) == expected


def test_examples():
    assert bare("Ella quedó 1.ª ,") == "Ella quedó 1.ª"
    assert closed("She stayed, 1st.", "Ella quedó 1.ª;") == "She stayed, 1st.;"
    assert closed("for three books", "por tres libros") == "for three books"


def test_a_long_run_of_spaces_takes_linear_time():
    def cpu(n):
        text = "a" + " " * n + "b"
        start = time.process_time()
        for _ in range(20):
            bare(text), closed(text, text)
        return time.process_time() - start
    cpu(1000)
    small, large = max(cpu(2_000), 0.002), cpu(32_000)
    assert large <= 20 * small, (small, large)  # the regex took ~0.2 s at 5,000 spaces, 2.3 s at 20,000
