"""IPv6 addresses are one span kind (kinds.py's "ipv6 address" row): kept byte for byte, never cut into
numbers; file names after a title stay file names; a line of labels alone ("Q: Q: Q:") gets no times."""

import pytest

from mtcli.text.kinds import IPV6
from mtcli.text.normalize import normalize
from mtcli.text.pipeline import translate_lines
from mtcli.text.protect import find_spans

from tests.text.fakes import answers, engine

KNOWS_ALL = lambda piece: False  # noqa: E731

ADDRESSES = ["2001:db8::1", "fe80::1%eth0", "::1", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "::ffff:192.168.1.1",
             "fe80::a1b2:3c4d", "2001:DB8:0:0:8:800:200C:417A", "ff02::2", "fe80::1%en0"]


@pytest.mark.parametrize("address", ADDRESSES)
def test_an_ipv6_address_is_one_span_and_comes_out_byte_for_byte(address):
    line = f"Connect to {address} now."
    assert [line[a:b] for a, b in find_spans(normalize(line), KNOWS_ALL)] == [address]
    assert normalize(line) == line  # (the space before "::1" stays)
    seen = []
    (r,) = translate_lines([line], engine(answers({}, seen, default=lambda s: s.replace("Connect to", "Conecta a"))))
    assert r.text.count(address) == 1 and address in r.kept and not any(address in s for s in seen)


@pytest.mark.parametrize("text", ["It is 10:30 now.", "See std::map here.", "Call at 3:15:20 today.",
                                  "Ratio 1:2:3 is fine.", "Use Foo::Bar here.",
                                  "Note:: this.", "See std::  here.", "Scope ::std here."])
def test_times_ratios_and_scopes_are_no_ipv6(text):
    assert not IPV6.search(text)


@pytest.mark.parametrize("line,kept", [("Send Dr Smith.pdf to me.", "Smith.pdf"), ("Mr Brown.docx is here.", "Brown.docx"),
                                       ("I read Mrs. Jones.txt today.", "Jones.txt"), ("Open Prof Lee.md now.", "Lee.md"),
                                       ("Ask Ms Green.xlsx for it.", "Green.xlsx"), ("Dr. Who.mp4 is long.", "Who.mp4")])
def test_a_file_name_after_a_title_is_kept_whole(line, kept):
    (r,) = translate_lines([line], engine(answers({})))
    assert kept in r.text and r.text.count(kept) == 1 and kept in r.kept


@pytest.mark.parametrize("line", ["Q: Q: Q: Q: Q:", "A: A: A:", "Re: Re: Re:", "Q:Q:Q:Q:", "RE: FW: RE:", "Fwd: Fwd:",
                                  "Q: " * 200])
def test_a_line_of_labels_alone_is_kept_and_never_given_the_model(line):
    seen = []
    (r,) = translate_lines([line], engine(answers({}, seen, default=lambda s: s + " 10:30")))
    assert r.text == line.strip() and seen == []


def test_a_label_before_words_still_reaches_the_model():  # (the almost-right line: one label, then a sentence)
    seen = []
    translate_lines(["Q: What time is it?"], engine(answers({}, seen)))
    assert seen and "What time is it?" in seen[0]


SEEN_AS_ONE = lambda s: s.replace("Connect to", "Conecta a").replace("please", "por favor")  # noqa: E731


@pytest.mark.parametrize("address", ["[2001:db8::1]:8080", "[::1]:80", "[fe80::1%eth0]:443", "[2001:DB8::A]:8443",
                                     "[::ffff:192.168.1.1]:8080", "[2001:db8:85a3::8a2e:370:7334]:22", "[::1]"])
@pytest.mark.parametrize("after", [" please.", ", then wait.", ".", ")"])
def test_an_address_in_brackets_with_its_port_is_one_span_not_an_aside(address, after):
    """Bug fixed: the aside rule took "[2001:db8::1]" for words in brackets; the port went apart ("8080" put at
    the end of "Añade a [2001:db8::1] , por favor 8080.")."""
    line = f"Connect to {address}{after}"
    seen = []
    (r,) = translate_lines([line], engine(answers({}, seen, default=SEEN_AS_ONE)))
    assert r.text.count(address) == 1 and address in r.kept and not r.warnings
    assert all(address not in s and "[" not in s for s in seen)


@pytest.mark.parametrize("address", ["::", "2001:db8::", "fe80::", "2001:DB8:0:0::", "::A", "abcd::", "::ffff", "::1"])
@pytest.mark.parametrize("line", ["The address {} is special.", "Use {} as a prefix.", "Use {}.", "Is it {}?",
                                  "Routes to {}, then stop."])
def test_an_address_ending_in_colons_or_without_digits_keeps_them(address, line):
    """Bugs fixed: "2001:db8::" came out "2001:db8" (a span's colons were taken for the sentence's), "::" and
    "::A" were no span (no digit in them), and the model made "::" a "9"."""
    line = line.format(address)
    assert [line[a:b] for a, b in find_spans(normalize(line), KNOWS_ALL)] == [address]
    (r,) = translate_lines([line], engine(answers({}, default=str.upper)))
    assert r.text.count(address) == 1 and r.kept == [address]


@pytest.mark.parametrize("ref", ["[^note]", "[^a]", "[^long-note]", "[^1]", "[^x_y]"])
def test_a_footnote_reference_is_kept_never_translated_as_an_aside(ref):
    """Bug found by the properties: "[^note] the." came out "[^Tomad apuntes] el mundo." (an aside in brackets)."""
    for line in (f"{ref} the.", f"See {ref} here.", f"It is true {ref}."):
        seen = []
        (r,) = translate_lines([line], engine(answers({}, seen, default=str.upper)))
        assert r.text.count(ref) == 1 and ref in r.kept and not any(ref[2:-1] in s for s in seen), (line, seen)
