"""mtcli.text.formats on documents the tests write: as many lines out as in, and the structure (SRT
indices and timecodes, Markdown tokens and link targets, HTML tags and attributes, code) exactly kept."""

import re
from html.parser import HTMLParser

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mtcli.text.formats import format_for, spread, translate_document
from mtcli.text.pipeline import translate_lines
from tests.text.fakes import engine


def spanish(lines):
    """A fake model: each word reversed and upper-cased, numbers and placeholders kept."""
    out = []
    for line in lines:
        words = [w if any(c.isdigit() for c in w) else w[::-1].upper() for w in line.split(" ")]
        out.append([(" ".join(words), -1.0)])
    return out


def run(text: str, fmt: str) -> list[str]:
    lines = text.split("\n")
    out, _ = translate_document(lines, fmt, engine(spanish))
    assert len(out) == len(lines)
    return out


SRT = """1
00:00:01,000 --> 00:00:04,000
Hello there, my friend.
How are <i>you</i> today?

2
00:00:05,000 --> 00:00:06,500
{\\an8}I paid $5 at 7:15 🙂

10
00:01:05,000 --> 00:01:06,500
<i>Two lines
in italics.</i>
"""


def test_srt_keeps_indices_timecodes_and_lines_of_each_cue():
    import srt

    out = run(SRT, "srt")
    before, after = list(srt.parse(SRT)), list(srt.parse("\n".join(out)))
    assert [(c.index, c.start, c.end) for c in before] == [(c.index, c.start, c.end) for c in after]
    for b, a in zip(before, after):
        assert len(a.content.split("\n")) == len(b.content.split("\n")) and a.content != b.content
    assert "<i>" in after[0].content and "</i>" in after[0].content
    assert after[1].content.startswith("{\\an8}") and "7:15" in after[1].content and "🙂" in after[1].content
    assert after[2].content.startswith("<i>") and after[2].content.endswith("</i>")


def test_not_srt_is_a_one_line_error():
    from mtcli.errors import UserError

    with pytest.raises(UserError) as e:
        translate_document(["1", "no timecode here", "text"], "srt", engine(spanish))
    assert "\n" not in str(e.value)


MARKDOWN = """# The *big* title ##

Read [the guide](http://x.com/a_b "Title") and run `ls -la` now,
or **do not** do it. See ![a cat](cat.png) and <https://example.org>.

- item one with_underscore
- item two
  continued here
1. first \\*escaped\\*

> quote line
> second line

Setext heading
==============

| Name | Age |
|------|----:|
| Tom | 30 |

```python
print("hello world")
```

    indented code stays

<div>html block stays</div>

Trailing paragraph at 7:15."""


def md_structure(text: str):
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    shape = []
    for t in tokens:
        shape.append((t.type, t.tag, t.map, t.markup, t.info, t.content if t.type in ("fence", "code_block",
                                                                                    "html_block") else None))
        for c in t.children or []:
            shape.append((c.type, c.tag, c.markup, dict(c.attrs) if c.type in ("link_open", "image") else None,
                          c.content if c.type in ("code_inline", "html_inline") else None))
    return shape


def test_markdown_structure_is_kept_and_only_text_changes():
    out = run(MARKDOWN, "markdown")
    assert md_structure("\n".join(out)) == md_structure(MARKDOWN)
    text = "\n".join(out)
    assert "EHT" in text and "`ls -la`" in text and "(http://x.com/a_b \"Title\")" in text and "7:15" in text
    assert out[0].startswith("# ") and out[0].endswith(" ##")


HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>My page</title>
<style>p { color: red }</style></head>
<body>
  <h1 class="t" id="x">Hello <b>big</b> world!</h1>
  <p>This is a long paragraph
     that spans two lines &amp; has an <a href="x.html" title="keep me">inline link</a>.</p>
  <!-- a comment stays -->
  <pre>code stays
  as it is</pre>
  <p>Use <code>ls -la</code> here.<br>It costs 7:15 &eacute;t&#233;.</p>
  <ul><li>One</li><li>Two <em>three</em></li></ul>
  <script>var x = "<p>no</p>";</script>
  <textarea>raw text</textarea>
</body></html>"""


class Shape(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.raw = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(("start", tag, attrs))

    def handle_endtag(self, tag):
        self.tags.append(("end", tag))

    def handle_startendtag(self, tag, attrs):
        self.tags.append(("void", tag, attrs))

    def handle_comment(self, data):
        self.tags.append(("comment", data))

    def handle_decl(self, decl):
        self.tags.append(("decl", decl))

    def handle_data(self, data):
        if self.cdata_elem:
            self.raw.append(data)


def shape(text: str, text_attributes: bool = True):
    """The tags (with their attributes), comments and raw text of a document; without the values of
    the attributes that are translated (alt, title, ..., and lang: the target's) when text_attributes is False."""
    from mtcli.text.formats.html import TEXT_ATTRIBUTES

    p = Shape()
    p.feed(text)
    p.close()
    if not text_attributes:
        p.tags = [(*t[:2], [(k, "" if k in (*TEXT_ATTRIBUTES, "lang") else v) for k, v in t[2]]) if len(t) == 3 else t
                  for t in p.tags]
    return p.tags, p.raw


def test_html_tags_attributes_and_raw_elements_are_kept():
    out = "\n".join(run(HTML, "html"))
    assert shape(out, text_attributes=False) == shape(HTML, text_attributes=False)
    for kept in ("<pre>code stays\n  as it is</pre>", "<code>ls -la</code>", "<textarea>raw text</textarea>",
                 "<!-- a comment stays -->", 'href="x.html"', "&amp;", "7:15"):
        assert kept in out
    assert "<title>YM " in out and "<b>GIB</b>" in out and ">ENILNI .KNIL</a>" in out  # (the fake reverses "link.")
    assert 'title="PEEK .EM"' in out  # the link's tooltip is text a reader sees: translated


def test_html_text_attributes_are_translated_escaped_and_quoted():
    lines = ['<p title="A plant">Hi. <img alt="A red car" src="car.png"></p>',
             "<img src=y.png alt=Dog TITLE='Say \"hi\" &amp; go'>",
             '<input placeholder="Your name" value="not text"><b aria-label="Bold">x</b>',
             '<pre><abbr title="raw stays">x</abbr></pre><script>var a = \'<img alt="no">\';</script>',
             '<a href="#" title="over',
             'two lines">Home</a> <img alt="" src="e.png"> <span data-title="not this">y</span>']
    out, results = translate_document(lines, "html", engine(spanish))
    # (the fake model reverses each word, its final stop included)
    assert out[0] == '<p title="A .TNALP">.IH <img alt="A DER .RAC" src="car.png"></p>'
    # its own quotes kept (the quotation is given the model as a sentence, "Hi.": this model writes its stop first)
    assert out[1] == '<img src=y.png alt="GOD" TITLE=\'YAS &quot;IH&quot; &amp; .OG\'>'  # (a word alone: no stop)
    assert out[2] == '<input placeholder="RUOY .EMAN" value="not text"><b aria-label="DLOB">x</b>'
    assert out[3] == lines[3]
    assert out[4] == lines[4] and 'title="over' in out[4] and '<img alt="" src="e.png">' in out[5]
    assert 'data-title="not this"' in out[5]
    assert shape("\n".join(out), text_attributes=False) == shape("\n".join(lines), text_attributes=False)
    assert [r.line for r in results if r.warnings] == [5]  # the link's markup broken over lines 5-6


def test_spread_keeps_the_number_of_lines():
    assert spread("a b c d e f", [5, 5]) == ["a b c", "d e f"]
    assert spread("one", [3, 3, 3]) == ["one", "", ""]
    assert spread("a b c", [1, 1, 1]) == ["a", "b", "c"]
    assert spread("x", [4]) == ["x"]


@pytest.mark.parametrize("name,fmt", [("a.srt", "srt"), ("b.MD", "markdown"), ("c.markdown", "markdown"),
                                      ("d.htm", "html"), ("e.html", "html"), ("f.txt", "text"), (None, "text")])
def test_format_from_extension(name, fmt):
    assert format_for(name) == fmt


MARKUP = st.lists(st.sampled_from(list("ab <>/*_`[]()!#-|=&;\n\t\"'=:.5🙂\ue000") +
                                  ["<b>", "</b>", "<p>", "<br>", "```", "**", "](x)", "&amp;", "<!--", "-->",
                                   "<pre>", "\r", " word", " 7:15", "<!", "<![", "]]>", "</m", "$x$"]),
                  max_size=80).map("".join)


@settings(max_examples=150, deadline=None)
@given(MARKUP, st.sampled_from(["markdown", "html"]))
@example("<\n]]>$x$", "html")  # (a block of placeholders only, given back as it came with its line break)
def test_any_document_keeps_its_lines(text, fmt):
    lines = text.replace("\r", "\n").split("\n")
    out, results = translate_document(lines, fmt, engine(spanish))
    assert len(out) == len(lines) and not any("\n" in line for line in out)
    assert all(r.line >= 1 for r in results)


def test_html_markup_broken_over_lines_is_kept_and_warned():
    lines = ["<p>Hello <a", 'href="x">world</a> again.</p>']
    out, results = translate_document(lines, "html", engine(spanish))
    assert out == lines and [r.warnings for r in results if r.warnings] and results[-1].line == 1


def test_srt_dialogue_lines_keep_their_dashes():
    out = run("1\n00:00:01,000 --> 00:00:03,000\n- Hello there.\n-Where is Tom?\n\n"
              "2\n00:00:04,000 --> 00:00:05,000\n-5 degrees\ntoday.\n", "srt")
    assert out[2].startswith("- ") and out[3].startswith("-") and "EREHT" in out[2] and "MOT" in out[3]
    assert out[7] == "-5 SEERGED"  # a minus, not a speaker: the cue is one text


def test_srt_speaker_labels_and_sounds_in_brackets_are_kept():
    out = run("1\n00:00:01,000 --> 00:00:03,000\nTOM: Where were you?\n[DOOR SLAMS] (sighs) Not again.\n", "srt")
    assert out[2].startswith("TOM: ") and "EREHW" in out[2]
    assert out[3].startswith("[") and "]" in out[3] and "(" in out[3] and out[3].count(")") == 1
    assert "ROOD" in out[3].split("]")[0] and "SHGIS" in out[3].split("(")[1].split(")")[0]


def test_a_broken_srt_names_the_line_of_the_cue_it_cannot_read():
    from mtcli.errors import UserError

    lines = ["1", "00:00:01,000 --> 00:00:02,000", "Hi.", "", "2", "00:00:04,000 -> 00:00:06,000", "Bad arrow."]
    with pytest.raises(UserError, match=r"line 5: .*'2 / 00:00:04,000 -> 00:00:06,000 / Bad arrow.'"):
        translate_document(lines, "srt", engine(spanish))


def test_markdown_entities_code_elements_footnotes_and_task_boxes_are_kept():
    out = run("Text&copy; &#169; and a note[^1]. Press <kbd>Ctrl</kbd>+<kbd>C</kbd>.\n\n"
              "[^1]: The note text.\n\n- [ ] Buy milk\n- [x] Call mom", "markdown")
    assert "&copy;" in out[0] and "&#169;" in out[0] and "[^1]" in out[0] and "<kbd>Ctrl</kbd>+<kbd>C</kbd>" in out[0]
    assert out[2].startswith("[^1]: ") and "ETON" in out[2]
    assert out[4].startswith("- [ ] ") and out[5].startswith("- [x] ")


def test_html_br_ends_a_line_and_unreadable_tags_are_kept():
    out = run('<p>Line one<br>line two<br/>line three.</p>\n<p>Broken <a href="x>link</a> here.</p>', "html")
    assert out[0].startswith("<p>") and out[0].count("<br>") == 1 and "<br/>" in out[0]
    parts = [p.strip() for p in re.split(r"<br/?>|</?p>", out[0]) if p.strip()]  # each line a text of its own
    assert len(parts) == 3 and all(p.startswith("ENIL ") for p in parts)
    assert '<a href="x>' in out[1] and "</a>" in out[1]


def test_a_blank_element_over_two_lines_leaves_two_lines():
    out, _ = translate_document(["a<b>", "</b>a", "x <i>", "bold </i> y"], "html", engine(spanish))
    assert len(out) == 4 and not any("\n" in line for line in out)


def test_warnings_show_markup_as_the_document_has_it():
    def lose(lines):  # a model that drops every placeholder and markup character
        return [[(re.sub(r"\d+|[\ue000-\uf8ff]", "", line), -1.0)] for line in lines]

    _, results = translate_document(["Press <kbd>Ctrl</kbd> now, then **go** home."], "markdown", engine(lose))
    (w,) = [w for r in results for w in r.warnings]
    assert "'<kbd>Ctrl</kbd>'" in w and "\\ue" not in w


def test_markdown_front_matter_math_and_backslash_breaks_are_kept():
    text = "---\ntitle: My first post\ntags: [news]\n---\n\nMath $x + y = z$ costs $5 or $10.\n\nEnds here\\\nnext line."
    out = run(text, "markdown")
    assert out[:4] == ["---", "title: My first post", "tags: [news]", "---"]
    assert "$x + y = z$" in out[5] and "HTAM" in out[5]
    assert out[7].endswith("\\") and out[7] != "Ends here\\" and not out[8].startswith("\\")


def test_html_bogus_comments_and_sections_the_parser_rejects_are_kept():
    lines = ["<p>A <![ z]> b.</p>", "<p>Hi <!x> there.</p>", "<p>Hi <![y] there.</p><p>Ok.</p>", "<p>Go </m`", "now.</p>"]
    out, results = translate_document(lines, "html", engine(spanish))  # "<![ z]>" raised AssertionError: exit 1
    assert out[0] == "<p>A <![ z]> .B</p>" and out[1] == "<p>IH <!x> .EREHT</p>"  # (<!x> took the rest of the page)
    assert out[2].startswith("<p>IH <![y] there.</p>")  # (its stop is in the markup that ends it: none added) and len(out) == 5 and not any("\n" in line for line in out)


def test_srt_timings_are_never_text_even_without_blank_lines():
    lines = ["00:00:01,000 --> 00:00:02,000", "[x]", "00:00:03,000 --> 00:00:04,000", "Bye now.",
             "00:60:01,000 --> 00:00:02,000", "99:99:99,999 --> 00:00:00,000", "Hi."]
    out, _ = translate_document(lines, "srt", engine(spanish))
    assert [a for a, b in zip(lines, out) if "-->" in a and a != b] == []  # ("[X] 00:00:01,000" / "--> ...")


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_private_use_characters_of_the_document_come_out(fmt):
    """An icon font's glyphs (private-use characters, as the document's markup characters are) stay
    where they were; one that became an item standing for itself recursed forever."""
    lines = ["Icon \ue000 here.", "", "Hello <i>\ue000 world\uf8ff</i> my \U000f0000 friend.", "", "<b>\ue001</b> x"]
    out, _ = translate_document(lines, fmt, engine(spanish))
    for c in ("\ue000", "\ue001", "\uf8ff", "\U000f0000"):
        assert "".join(out).count(c) == "".join(lines).count(c), (c, out)


# a fake model that translates word by word and puts an adjective after its noun, as Spanish does
WORDS = {"the": "el", "plant": "planta", "is": "es", "green": "verde", "red": "rojo", "car": "coche", "i": "yo",
         "read": "leí", "book": "libro", "yesterday": "ayer", "this": "esto", "very": "muy", "important": "importante",
         "a": "un", "big": "grande", "house": "casa", "see": "mira", "and": "y"}
ADJECTIVES = {"verde", "rojo", "grande"}


def word_by_word(lines):
    out = []
    for line in lines:
        stop = line[-1] if line[-1:] in ".?!" else ""
        words = [WORDS.get(w.lower(), w) for w in line.rstrip(".?!").split()]
        for k in range(len(words) - 1):
            if words[k] in ADJECTIVES and words[k + 1] not in ADJECTIVES | {"es", "y"}:
                words[k], words[k + 1] = words[k + 1], words[k]
        text = " ".join(words)
        out.append([(text[:1].upper() + text[1:] + stop, -1.0)])
    return out


@pytest.mark.parametrize("fmt,source,expected", [
    ("markdown", "The plant is **green**.", "El planta es **verde**."),
    ("markdown", "I read [the book](b.html) yesterday.", "Yo leí [el libro](b.html) ayer."),
    ("markdown", "See the *red* car and the **big** house.", "Mira el coche *rojo* y el casa **grande**."),
    ("html", "<p>See the <b>red car</b> and <i>the house</i>.</p>", "<p>Mira el <b>coche rojo</b> y <i>el casa</i>.</p>"),
    ("html", '<p>This is <a href="x">very</a> important.</p>', '<p>Esto es <a href="x">muy</a> importante.</p>'),
    # a footnote mark goes after its word's translation; a symbol's script stays with its word
    ("markdown", "See the red car[^1] and the house<sup>2</sup>.", "Mira el coche[^1] rojo y el casa<sup>2</sup>."),
    ("html", "<p>See the <i>red car</i><sup>1</sup> and H<sub>2</sub>O.</p>",
     "<p>Mira el <i>coche rojo</i><sup>1</sup> y H<sub>2</sub>O.</p>"),
    ("markdown", "See the red car.<sup>1</sup> See the house.", "Mira el coche rojo.<sup>1</sup> Mira el casa."),
    ("markdown", "See the house <sup>red car</sup>.", "Mira el casa <sup>coche rojo</sup>."),  # (not glued: words)
    ("html", "<p>The car<sup>1</sup> is red and the house<sup>2</sup> is big.</p>",
     "<p>El coche<sup>1</sup> es rojo y el casa<sup>2</sup> es grande.</p>"),
    ("srt", "1\n00:00:01,000 --> 00:00:02,000\nI see the <i>red car</i><sup>1</sup>.",
     "1\n00:00:01,000 --> 00:00:02,000\nYo mira el <i>coche rojo</i><sup>1</sup>."),
    # the marks the marked words end with stay inside (they were put after it: "**Nota**:")
    ("markdown", "**Note:** the car is red.", "**Nota:** el coche es rojo."),
    ("markdown", "I see the **red car.**", "Yo mira el **coche rojo.**"),
])
def test_markup_around_words_goes_around_their_translation(fmt, source, expected):
    """The sentence is translated with the marked words in it (a placeholder in their place made the
    real model answer "The plant is 50." with "La planta tiene 50 años."), and the markup put back
    around the words that translate them, wherever the translation moved them."""
    out, _ = translate_document(source.split("\n"), fmt, engine(word_by_word))
    assert out == expected.split("\n")


MARKED = {"markdown": (["**red**", "[car](x)", "*a big*"], ("*", "[", "](x)")),
          "html": (["<b>red</b>", '<a href="x">car</a>', "<i>a big</i>", "<b>", "</b>"], ("<b>", "</b>", "<a", "</a>", "<i>"))}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["markdown", "html"]), st.data(), st.sampled_from(["shuffled", "empty", "one word"]))
def test_markup_around_words_is_never_lost(fmt, data, model):
    """Whatever the model answers (its words shuffled, nothing, one unrelated word), every piece of
    markup comes out exactly once."""
    import random

    def answer(lines):
        out = []
        for line in lines:
            ws = line.split()
            random.Random(line).shuffle(ws)
            out.append([({"shuffled": " ".join(ws), "empty": "", "one word": "Hola."}[model], -1.0)])
        return out

    marked, marks = MARKED[fmt]
    words = data.draw(st.lists(st.sampled_from(["the", "plant", "is", "green", "zzz", *marked]), min_size=1, max_size=12))
    line = " ".join(words) + "."
    out, _ = translate_document([line], fmt, engine(answer))
    for mark in marks:
        assert out[0].count(mark) == line.count(mark), (line, out)


@pytest.mark.parametrize("source", ["[**Click here**](http://x.y/z) to see it.", "This is **bold *italic* text** here.",
                                    "***Both*** are here.", "I *really* like **[the book](x)** a lot.",
                                    "**The** cat and _the_ dog."])
def test_nested_markup_keeps_its_structure(source):
    """Emphasis inside a link, emphasis inside emphasis: the output's Markdown has the same nesting
    (the same sequence of opening and closing tokens); marks never cross."""
    from markdown_it import MarkdownIt

    def structure(text):
        (inline,) = [t for t in MarkdownIt("commonmark").parse(text) if t.type == "inline"]
        return [c.type for c in inline.children if c.type != "text"]

    out, _ = translate_document([source], "markdown", engine(word_by_word))
    assert structure(out[0]) == structure(source), out


# --- from the mutation run (issue 21): each test kills surviving mutants of mtcli.text.formats ---

SRT_EXPECTED = "expected a cue (number, 'HH:MM:SS,mmm --> HH:MM:SS,mmm', text), found "


@pytest.mark.parametrize("lines,message", [
    (["", "", "Bad cue", "", "1", "00:00:01,000 --> 00:00:02,000", "Hi."], "line 3: " + SRT_EXPECTED + "'Bad cue /  / 1'"),
    (["", "1", "00:00:01,000 --> 00:00:02,000", "Hi.", "", "2", "00:00:04,000 -> 00:00:06,000", "Bad arrow.", "x"],
     "line 6: " + SRT_EXPECTED + "'2 / 00:00:04,000 -> 00:00:06,000 / Bad arrow.'"),
    (["Bad " * 40], "line 1: " + SRT_EXPECTED + repr(("Bad " * 40)[:120])),
])
def test_a_broken_srt_names_the_line_after_blank_lines_and_three_lines_of_it(lines, message):
    from mtcli.errors import UserError

    with pytest.raises(UserError) as e:
        translate_document(lines, "srt", engine(spanish))
    assert str(e.value) == "not an SRT file: " + message


def test_srt_cues_without_numbers_are_translated_from_the_first_line():
    lines = ["00:00:01,000 --> 00:00:02,000", "Hi there.", "", "00:00:03,000 --> 00:00:04,000", "Bye now.", ""]
    out, _ = translate_document(lines, "srt", engine(spanish))
    assert out == ["00:00:01,000 --> 00:00:02,000", "IH .EREHT", "", "00:00:03,000 --> 00:00:04,000", "EYB .WON", ""]


def test_srt_timings_the_srt_parser_reads_loosely_are_translated_too():
    """srt reads "0:0:1,000 --> 0:0:2,000" and "- >": their cue's text was left in English."""
    lines = ["1", "0:0:1,000 --> 0:0:2,000", "Hello there.", "", "2", "00:00:03.000 - > 00:00:04.000", "Bye now."]
    out, _ = translate_document(lines, "srt", engine(spanish))
    assert out == ["1", "0:0:1,000 --> 0:0:2,000", "OLLEH .EREHT", "", "2", "00:00:03.000 - > 00:00:04.000", "EYB .WON"]


def reverse_line(lines):
    """A fake model that reverses each line as a whole (so words move between a block's lines)."""
    return [[(line[::-1], -1.0)] for line in lines]


@pytest.mark.parametrize("source,expected", [
    ('+++\ntitle = "My post"\n+++\nHello world.', ['+++', 'title = "My post"', '+++', '.dlrow olleH']),  # TOML
    ("---\ntitle: My post\n...\nHello world.", ["---", "title: My post", "...", ".dlrow olleH"]),  # YAML's "..."
    ("--- \ntitle: x\n---  \nHello world.", ["--- ", "title: x", "---  ", ".dlrow olleH"]),  # spaces after a fence
    ("---\ntitle: x\n---\nHello world.", ["---", "title: x", "---", ".dlrow olleH"]),  # text right after it
    ("---\n---\nHello world\n---", ["---", "---", ".dlrow olleH", "---"]),  # an empty one: the heading is text
    ("---\nHello world.", ["---", ".dlrow olleH"]),  # never closed: no front matter
    ("+++\nHello world.", [".dlrow", "olleH +++"]),  # never closed: "+++" is the paragraph's text
])
def test_markdown_front_matter_is_kept_and_what_follows_translated(source, expected):
    out, _ = translate_document(source.split("\n"), "markdown", engine(reverse_line))
    assert out == expected


@pytest.mark.parametrize("fmt", ["srt", "markdown", "html"])
def test_an_empty_document_is_an_empty_document(fmt):
    assert translate_document([], fmt, engine(spanish)) == ([], [])


@pytest.mark.parametrize("source,expected", [
    ("| Name | Age |\n|------|----:|\n| Tom **big** | 30 |\n| red | red |\n| a \\| b | c |\n\nHello world.",
     ["| Eman | Ega |", "|------|----:|", "| .**gib** moT | 30 |", "| der | der |", "| .b \\| A | c |", "",
      ".dlrow olleH"]),  # each cell a text (a word alone a fragment), markup in a cell, escaped pipes, the paragraph after
    ("---\ntitle: x\n---\n    code stays", ["---", "title: x", "---", "    code stays"]),  # code after front matter
    ("Buy milk\n[x] and eggs.", [".sgge dna", "[x] klim yuB"]),  # a task box only opens a paragraph
    ("Hello there,\nmy friend.", [".dneirf ym ,ereht", "olleH"]),  # a wrapped paragraph is one text
    ("Ends here\\", [". sdnE here\\"]),  # a backslash ending a paragraph is no line break
    ("Ends here\\\nnext line.", [".enil txen\\", "ereh sdnE"]),  # a backslash line break stays at the end
    ("Ends C:\\\\\nnext line.", [".enil txen", "\\\\ :C sdnE"]),  # an escaped backslash is text, no line break
    ("- [ ] Buy milk\n- [x] Call mom", ["- [ ] .klim yuB", "- [x] .mom llaC"]),
    ("See the note\n[^1]: here.", [".ereh :[^1] eton", "eht eeS"]),  # a footnote mark inside a paragraph is text
    ("| a |\n|---|\n| - |\n| Hello there |", ["| a |", "|---|", "| - |", "| .ereht olleH |"]),  # a row of dashes
])
def test_markdown_blocks_are_translated_in_their_exact_place(source, expected):
    out, _ = translate_document(source.split("\n"), "markdown", engine(reverse_line))
    assert out == expected


@pytest.mark.parametrize("fmt,source,model,expected", [
    ("markdown", "# The plant is green\n\nThe car is red", word_by_word,
     ["# El planta es verde", "", "El coche es rojo"]),  # no final stop added where the source has none
    ("srt", '1\n00:00:01,000 --> 00:00:02,000\n<font color="red">Two lines\nin italics.</font>', spanish,
     ["1", "00:00:01,000 --> 00:00:02,000", '<font color="red">OWT SENIL', "NI .SCILATI</font>"]),  # never cut in a tag
    ("srt", "1\n00:00:01,000 --> 00:00:02,000\n<i>Hello there</i> my\nfriend <b>and you</b>.", reverse_line,
     ["1", "00:00:01,000 --> 00:00:02,000", ".<b>uoy dna</b> dneirf", "ym <i>ereht olleH</i>"]),
    ("html", "<div><p>one two three four\nfive six</p></div>", reverse_line,
     ["<div><p>.xis evif ruof eerht", "owt enO</p></div>"]),  # lines weighted by their text, not by where it starts
    ("srt", '1\n00:00:01,000 --> 00:00:02,000\n<font color="red" face="Arial">Hi\n'
     "there my dear old friend, how are you doing on this fine day?</font>", lambda lines: [[("Hola amigo.", -1.0)]] * len(lines),
     ["1", "00:00:01,000 --> 00:00:02,000", '<font color="red" face="Arial">Hola', "amigo.</font>"]),  # a short answer (the tag was around the whole sentence: its stop stays in it)
])
def test_blocks_over_lines_come_out_spread_exactly(fmt, source, model, expected):
    out, _ = translate_document(source.split("\n"), fmt, engine(model))
    assert out == expected


def test_results_are_numbered_by_the_line_their_block_starts_on():
    _, results = translate_document(["Title", "", "   Hello", "   world."], "markdown", engine(spanish))
    assert [r.line for r in results] == [1, 3]


def test_spread_follows_the_weights():
    from mtcli.text.formats import _MARKUP_WORD

    assert spread("a a a bb", [4, 6, 6]) == ["a", "a a", "bb"]
    assert spread("a a a", [9, 8]) == ["a a", "a"]
    assert spread("a a", [7, 3]) == ["a", "a"]
    assert spread("a bb bb", [2, 5]) == ["a", "bb bb"]
    assert spread("Hola,  amigo mío", [6, 10]) == ["Hola,", " amigo mío"]  # cut at one space: the other stays
    assert spread('<b class="x">one two</b> three', [3, 30], _MARKUP_WORD) == ['<b class="x">one', "two</b> three"]


def all_private_use_but(*missing: str) -> str:
    from mtcli.text.kinds import PRIVATE_RANGES

    return "".join(c for r in PRIVATE_RANGES for c in map(chr, r) if c not in missing)


@pytest.mark.parametrize("free", ["\ue000", "\ue001", "\U000f0000", "\U0010fffd"])
def test_markup_takes_a_private_use_character_the_document_leaves_free(free):
    """A document holding every private-use character but one (in a code block): its markup uses that one."""
    lines = ["```", all_private_use_but(free), "```", "", "Hello **big** world."]
    out, _ = translate_document(lines, "markdown", engine(spanish))
    assert out == lines[:4] + ["OLLEH **GIB** .DLROW"]


def test_a_document_with_no_private_use_character_left_for_markup_is_a_one_line_error():
    from mtcli.errors import UserError
    from mtcli.text.formats.prose import MAX_ITEMS

    with pytest.raises(UserError) as e:
        translate_document(["```", all_private_use_but(), "```", "", "Hello **big** world."], "markdown", engine(spanish))
    assert str(e.value) == f"too much markup in one document (over {MAX_ITEMS:,} tags, links and marks)"


# --- from the mutation run (issue 21), the HTML part (_html, _html_run, _html_blocks, _translate_attributes,
# _Parser): each test kills surviving mutants of mtcli.text.formats ---

def html_out(source: str, model=None) -> str:
    out, _ = translate_document(source.split("\n"), "html", engine(model or spanish))
    return "\n".join(out)


@pytest.mark.parametrize("source,expected", [
    ("<p>Hi <!-- a > b --> there.</p>", "<p>IH <!-- a > b --> .EREHT</p>"),  # a ">" inside a comment
    ("<p>Hi <!-- c --> there.</p><p>Next one.</p>", "<p>IH <!-- c --> .EREHT</p><p>TXEN .ENO</p>"),
    # the parser ends a comment at "-- >" too: the page after it was written twice
    ("<p>Hi <!-- x -- > there.</p>", "<p>IH <!-- x -- > .EREHT</p>"),
    ("<p>A <!-- x -- > b.</p><p>C <!-- y --> d.</p>", "<p>A <!-- x -- > .B</p><p>C <!-- y --> .D</p>"),
    ("<?xml version='1.0'?><p>Hello world.</p>", "<?xml version='1.0'?><p>OLLEH .DLROW</p>"),  # a processing instruction
    ("<p>Hello <?php echo 1 ?> world.</p>", "<p>OLLEH <?php echo 1 ?> .DLROW</p>"),
    ("<![CDATA[x]]><p>Hello world.</p>", "<![CDATA[x]]><p>OLLEH .DLROW</p>"),
    ("<p>Hello <![CDATA[x > y]]> world.</p>", "<p>OLLEH <![CDATA[x > y]]> .DLROW</p>"),
    ("<p>A <![if !IE]> b <![endif]> c.</p>", "<p>A <![if !IE]> b <![endif]> .C</p>"),
])
def test_html_comments_declarations_and_sections_stay_exactly_where_they_are(source, expected):
    assert html_out(source) == expected


@pytest.mark.parametrize("source,expected", [
    ("<p>Hi &amp; there &eacute;t&eacute; &#233; &#xE9; &#233 x &copy y.</p>", "<p>IH &amp; EREHT ÉTÉ É É É X © .Y</p>"),
    ("<p>Tom &amp Jerry &lt;3 &gt; ok.</p>", "<p>MOT &amp YRREJ &lt;3 &gt; .KO</p>"),  # &amp; &lt; &gt; stay
    ("<p>Hello caf&#233;</p><p>Hi caf&#xE9;</p>", "<p>OLLEH .ÉFAC</p><p>IH .ÉFAC</p>"),  # no ";" left behind
    ("Caf&#233;", "ÉFAC"),  # (a word alone: a fragment, no stop)
    ("<p>&eacute;</p>", "<p>é</p>"),  # a text that is one entity is a text
    ("&#233;", "é"),
])
def test_html_entities_are_decoded_into_their_sentence(source, expected):
    assert html_out(source) == expected


ESCAPED = ["&amp;lt;", "&amp;amp;", "&amp;nbsp;", "&amp;#169;", "&amp;#x27;", "&amp;eacute;"]


@pytest.mark.parametrize("fmt", ["html", "markdown", "text"])
@pytest.mark.parametrize("shown", ESCAPED)
def test_an_entity_shown_as_text_comes_out_whole(fmt, shown):
    """Attack 2026-12-02b: a page about HTML writes "&amp;lt;" to show "&lt;"; its "lt;" became a word of the
    sentence ("Write &amp;lt; for ..." -> "Escribe &amp;y ..."): lost, and a word invented."""
    source = f"Write {shown} for it."
    page = f"<p>{source}</p>" if fmt == "html" else source
    out = "\n".join(run(page, fmt)) if fmt != "text" else translate_lines([source], engine(spanish))[0].text
    assert out.count(shown) == 1 and "TI" in out, out
    assert out.replace(shown, "").count(";") == 0


def test_html_a_stray_character_reference_start_leaves_the_rest_of_the_page_html():
    """"&#" that starts no reference, with no ";" after it: the parser took the rest of the page for text,
    so the <pre> was translated, markup moved between lines and the image's alt text stayed English."""
    source = '<p>Use &# here.</p>\n<pre>keep this code</pre>\n<p>Hello <b>big</b> world.</p><img alt="A cat">'
    assert html_out(source) == '<p>ESU #& .EREH</p>\n<pre>keep this code</pre>\n<p>OLLEH <b>GIB</b> .DLROW</p><img alt="A .TAC">'
    assert html_out("<p>A &#xyz b.</p><p>Hi there.</p>") == "<p>A ZYX#& .B</p><p>IH .EREHT</p>"


@pytest.mark.parametrize("source,expected", [
    ("<p>Use <code>ls <b>x</b></code> here.</p>", "<p>ESU <code>ls <b>x</b></code> .EREH</p>"),  # inline code: one item
    ("<p>Use <code>a<code>b</code>c</code> here.</p>", "<p>ESU <code>a<code>b</code>c</code> .EREH</p>"),
    ("<p>Use <code>ls</code></p><p>Next.</p>", "<p>ESU <code>ls</code></p><p>.TXEN</p>"),
    ("<pre><code>x</code> stays</pre> Hi all.", "<pre><code>x</code> stays</pre> IH .LLA"),  # nested raw elements
])
def test_html_raw_elements_and_inline_code_are_kept_whole(source, expected):
    assert html_out(source) == expected


@pytest.mark.parametrize("source,expected", [
    ('Hi <img src="a"/> there.', 'IH <img src="a"/> .EREHT'),
    ('<p>See <img src="a.png"> the red <img src="b.png"/> car.</p>', '<p>EES <img src="a.png"> EHT DER <img src="b.png"/> .RAC</p>'),
    # an element left open inside another closes with it, in the order they were opened
    ("<p>Big <b>red <i> car</b> here.</p>", "<p>GIB <b>DER <i> RAC</b> .EREH</p>"),
    ("<p>Big <b>one <i> two <u> three</b> five.</p>", "<p>GIB <b>ENO <i> OWT <u> EERHT</b> .EVIF</p>"),
    ("<p>Big <b>one <i> two <b>three</b> four</b> five.</p>", "<p>GIB <b>ENO <i> OWT <b>EERHT</b> RUOF</b> .EVIF</p>"),
])
def test_html_inline_elements_travel_inside_their_sentence(source, expected):
    assert html_out(source) == expected


@pytest.mark.parametrize("source,expected", [
    ("line one\nline two\nline three", "ENIL ENO\nENIL OWT\nENIL .EERHT"),  # each line its share of the words
    ("<p>Hi </ x> there.</p>", "<p>IH </ x> .EREHT</p>"),
    # the spaces around a text stay as they were (they were written twice before it)
    ("<div>  Hello world.  </div>", "<div>  OLLEH .DLROW  </div>"),
    ("<td> A cell </td>", "<td> A .LLEC </td>"),
    ("<p>Hello<br> world.</p>", "<p>OLLEH<br> .DLROW</p>"),
    ("<p> <b></b> </p>", "<p> <b></b> </p>"),  # markup alone is no text
    ("<p><img src=x></p><p>Hi.</p>", "<p><img src=x></p><p>.IH</p>"),
])
def test_html_text_keeps_its_lines_and_the_spaces_around_it(source, expected):
    assert html_out(source) == expected


@pytest.mark.parametrize("source,expected", [
    ('<pre><img alt="no"></pre><img alt="Yes sir">', '<pre><img alt="no"></pre><img alt="SEY .RIS">'),
    ('<pre><b>x</b><img alt="no"></pre><img alt="Yes sir">', '<pre><b>x</b><img alt="no"></pre><img alt="SEY .RIS">'),
    ('<pre><br/><img alt="no"></pre><img alt="Yes sir">', '<pre><br/><img alt="no"></pre><img alt="SEY .RIS">'),
    ('<pre><svg/><img alt="no"></pre><img alt="Yes sir">', '<pre><svg/><img alt="no"></pre><img alt="SEY .RIS">'),
    ('<code><pre>x</pre><img alt="no"></code><img alt="Yes sir">',
     '<code><pre>x</pre><img alt="no"></code><img alt="SEY .RIS">'),
    ('</pre><img alt="Yes sir">', '</pre><img alt="SEY .RIS">'),  # a stray end tag opens nothing
    ('<script title="Main script"/><script title="Main script"></script><img alt="Yes sir">',
     '<script title="Main script"/><script title="Main script"></script><img alt="SEY .RIS">'),
])
def test_html_text_attributes_inside_raw_elements_stay_and_after_them_are_translated(source, expected):
    assert html_out(source) == expected


def test_html_text_attribute_values_keep_their_letters_quotes_and_lines():
    assert html_out('<img alt="Xmas tree X"> <img alt=Xmas>') == '<img alt="SAMX EERT .X"> <img alt="SAMX">'
    # a tag over several lines (as formatters write them): each value on its own line, translated there
    assert html_out('<img\n alt="A cat">') == '<img\n alt="A .TAC">'
    assert html_out('<img src=x\n  alt="A cat" title="A dog"\n  title="x y"/>') == \
        '<img src=x\n  alt="A .TAC" title="A .GOD"\n  title="X .Y"/>'


def test_html_text_attributes_get_no_final_stop_their_source_has_not():
    assert html_out('<img alt="The red car"> <img alt="The red car.">', word_by_word) == \
        '<img alt="El coche rojo"> <img alt="El coche rojo.">'


def test_html_text_attribute_warnings_name_the_line_of_their_value():
    lines = ["<p>x</p>", '<img src="a.png"', '  alt="Hola amigo, gracias por todo">', '<p title="Es muy grande">y</p>']
    _, results = translate_document(lines, "html", engine(spanish))
    assert [r.line for r in results if r.warnings] == [3, 4]


def test_html_markup_over_lines_with_no_text_around_it_is_no_warning():
    """Only a sentence with markup broken over lines is kept and warned about: markup alone is no text."""
    lines = ["<p>", '<img src="a.png"', '  alt="A cat">', "</p>", "<p><a", 'href="x"></a></p>']
    out, results = translate_document(lines, "html", engine(spanish))
    assert out == ["<p>", '<img src="a.png"', '  alt="A .TAC">', "</p>", "<p><a", 'href="x"></a></p>']
    assert [(r.line, r.warnings) for r in results] == [(3, [])]


def test_html_a_long_page_is_translated_in_linear_time():
    """A text's slots are looked for on its own lines: looked for from the page's first line, a page of
    many lines and texts took minutes (200,000 lines and 1,000 texts: 2 * 10^8 lines looked at)."""
    import signal

    def too_slow(*_):
        raise TimeoutError("a 201,000-line page took over 20 s")

    lines = [""] * 200_000 + ["<p>Hi.</p>"] * 1000
    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        out, _ = translate_document(lines, "html", engine(spanish))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert out[:3] == ["", "", ""] and out[-1] == "<p>.IH</p>" and len(out) == len(lines)


def test_a_cr_alone_inside_a_markdown_line_is_a_space():
    """Found by an attack: markdown-it ends a line at a CR alone, which the reader does not: IndexError."""
    assert run("Some text\rhere.\n\nMore.", "markdown") == ["EMOS TXET .EREH", "", ".EROM"]


@pytest.mark.parametrize("source,expected,line", [
    ("<p>Hello there.</p>\n<!-- draft secret", "<p>OLLEH .EREHT</p>\n<!-- draft secret", 2),
    ("<p>Hello <!-- draft there.</p>\n<p>More text.</p>", "<p>OLLEH <!-- draft there.</p>\n<p>More text.</p>", 1),
    ("<p>Hi <!-- x --> there.</p><p>Go <!-- on", "<p>IH <!-- x --> .EREHT</p><p>OG <!-- on", 1),
    ("<p>Hi.</p><?php echo 'draft'", "<p>.IH</p><?php echo 'draft'", 1),
    ("<p>Hi.</p>\n\n<!--\n<p>Old text.</p>", "<p>.IH</p>\n\n<!--\n<p>Old text.</p>", 3),
    ("<!-- <p>All of it.</p>", "<!-- <p>All of it.</p>", 1),
])
def test_a_comment_or_an_instruction_never_closed_keeps_the_rest_of_the_page_and_says_so(source, expected, line):
    """Issue 38: an unclosed "<!--" gave the model its words ("<!-- Draft secret."); a browser hides the page's rest,
    so it is kept as it came, never translated nor lost, with a warning naming the line."""
    out, results = translate_document(source.split("\n"), "html", engine(spanish))
    assert "\n".join(out) == expected
    assert [(r.line, r.warnings) for r in results if r.warnings] == [
        (line, [f"{'a processing instruction' if '<?' in source else 'an HTML comment'} opened here is never "
                "closed: the rest of the page is kept as it came"])]


@pytest.mark.parametrize("tag", ["span", "b", "a", "code", "q", "p", "div", "li", "td", "h1"])
@pytest.mark.parametrize("mark", ['translate="no"', "translate=NO", "class='brand notranslate'"])
def test_html_marked_translate_no_comes_out_as_it_went_in_with_its_attributes(tag, mark):
    """HTML's translate="no" (and the class tools honour) on any element: its words, its nested elements of
    the same name and its attributes' text come out byte-identical; the text around it is translated
    ('The <span translate="no">Acme Cloud</span> works.' had lost "Cloud")."""
    kept = f'<{tag} {mark} title="Keep this tip">Acme <{tag}>Cloud</{tag}> Pro <img alt="A logo"></{tag}>'
    lines = [f"<div>The {kept} works well.</div>", "<p>Translate me.</p>", kept]
    out = run("\n".join(lines), "html")
    assert kept in out[0] and out[0].count("Cloud") == 1 and "SKROW" in out[0]
    assert out[1] == "<p>ETALSNART .EM</p>"
    assert out[2] == kept
    # a void element so marked keeps its own attributes only
    assert run('<p>Hi <img translate="no" alt="A cat"> <img alt="A dog"></p>', "html") == [
        '<p>IH <img translate="no" alt="A cat"> <img alt="A .GOD"></p>']


VTT_BLOCKS = ["NOTE a comment stays", "NOTE\nover two\nlines", "STYLE\n::cue { color: red }",
              "REGION\nid:fred width:40%", "intro-1\n00:01.000 --> 00:02.000 align:start line:0", ""]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(VTT_BLOCKS), max_size=8), st.sampled_from(["WEBVTT", "WEBVTT - A title", "\ufeffWEBVTT"]))
def test_vtt_keeps_its_header_notes_styles_regions_ids_and_timings(blocks, header):
    """WebVTT (.vtt, once read as plain text: "NOTE a comment" and the cue setting "align:start" were
    translated): only the text of each cue changes; cue text holding a timing's look stays text."""
    cues = [b if not b else b if "-->" not in b else f"{b}\nHello <v Bob>my friend</v>." for b in blocks]
    source = "\n\n".join([header, *cues, "00:03.000 --> 00:04.000\n- Run!\n- Where to?"]) + "\n"
    out = run(source, "vtt")
    text_rows = {i for i, line in enumerate(source.split("\n")) if line.startswith(("Hello", "- "))}
    for i, (a, b) in enumerate(zip(source.split("\n"), out)):
        assert (a != b) if i in text_rows else (a == b), (a, b)
    assert "<v Bob>" in "\n".join(out) or not any("-->" in b for b in blocks)
    assert [line[:2] for line in out[-3:]] == ["- ", "- ", ""]  # (a dialogue's dashes stay)


def test_a_file_that_is_not_vtt_is_a_one_line_error():
    from mtcli.errors import UserError

    with pytest.raises(UserError, match="not a WebVTT file: line 1: expected 'WEBVTT'"):
        run("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", "vtt")
    assert format_for("film.VTT") == "vtt"


MATH = ["$$\nx = 5 + y\n$$", "$$ E = mc^2 $$", "$$x = 1\ny = 2$$", "\\[\na^2 + b^2 = c^2\n\\]", "\\[ a^2 + b^2 \\]",
        "Here is it:\n$$\nx = 1\n$$"]


@pytest.mark.parametrize("math", MATH)
def test_markdown_display_math_is_kept_as_it_is(math):
    """Attack 2026-12-02b: a paragraph of display math reached the model ("$$\\nx = 5 + y\\n$$" -> "dólares\\n=\\n5");
    LaTeX's \\[ \\] and \\( \\) too. Each formula comes out byte for byte, the prose around it translated."""
    formula = math[math.index("$$") if "$$" in math else math.index("\\["):]
    out = "\n".join(run(f"Some text here.\n\n{math}\n\nMore text, \\(x+y\\) and $z$ inline.", "markdown"))
    assert formula in out and "\\(x+y\\)" in out and "$z$" in out, out
    assert out.startswith("EMOS TXET .EREH"), out  # (the prose still translated)


@pytest.mark.parametrize("text", ["{x}", "%s", "$HOME", "${amount}", "{{ name }}"])
def test_an_html_line_of_a_placeholder_alone_keeps_its_line_break_outside(text):
    # (the untranslated text came back with the line break after it, inside the first line)
    out, _ = translate_document([text, ""], "html", engine(spanish))
    assert out == [text, ""]
