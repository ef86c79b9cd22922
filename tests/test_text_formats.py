"""mtcli.text.formats on documents the tests write: as many lines out as in, and the structure (SRT
indices and timecodes, Markdown tokens and link targets, HTML tags and attributes, code) exactly kept."""

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text.formats import format_for, spread, translate_document
from tests.test_text_pipeline import engine


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


def shape(text: str):
    p = Shape()
    p.feed(text)
    p.close()
    return p.tags, p.raw


def test_html_tags_attributes_and_raw_elements_are_kept():
    out = "\n".join(run(HTML, "html"))
    assert shape(out) == shape(HTML)
    for kept in ("<pre>code stays\n  as it is</pre>", "<code>ls -la</code>", "<textarea>raw text</textarea>",
                 "<!-- a comment stays -->", 'title="keep me"', "&amp;", "7:15"):
        assert kept in out
    assert "<title>YM " in out and "<b>GIB</b>" in out and ">ENILNI KNIL</a>" in out


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
                                   "<pre>", "\r", " word", " 7:15"]), max_size=80).map("".join)


@settings(max_examples=150, deadline=None)
@given(MARKUP, st.sampled_from(["markdown", "html"]))
def test_any_document_keeps_its_lines(text, fmt):
    lines = text.replace("\r", "\n").split("\n")
    out, results = translate_document(lines, fmt, engine(spanish))
    assert len(out) == len(lines) and not any("\n" in line for line in out)
    assert all(r.line >= 1 for r in results)


def test_html_markup_broken_over_lines_is_kept_and_warned():
    lines = ["<p>Hello <a", 'href="x">world</a> again.</p>']
    out, results = translate_document(lines, "html", engine(spanish))
    assert out == lines and [r.warnings for r in results if r.warnings] and results[-1].line == 1
