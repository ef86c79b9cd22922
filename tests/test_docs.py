"""The documentation stays true: docs/cli.md is every command's --help as it is now, every relative link
in README.md, CHANGELOG.md and docs/*.md reaches a file (and a heading, for a link with #anchor), the
README stays a short page whose test command is the one CI runs, and docs/architecture.md names the
module groups tests/test_architecture.py enforces."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_architecture import GROUPS

README_LIMIT = 250  # lines
PAGES = sorted([REPO / "README.md", REPO / "CHANGELOG.md", *(REPO / "docs").glob("*.md")])


def _cli_docs():
    spec = importlib.util.spec_from_file_location("cli_docs", REPO / "scripts" / "cli_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_every_commands_help_as_it_is_now():
    cli_docs = _cli_docs()
    page = cli_docs.render()  # in memory; the file is not written
    assert page.count("```text") >= 12 and "## mtcli models add" in page, page[:500]
    current = cli_docs.PAGE.read_text(encoding="utf-8") if cli_docs.PAGE.exists() else ""
    assert current == page, (f"docs/cli.md differs from the commands' --help: run `{cli_docs.COMMAND}` to refresh "
                             f"it, then commit docs/cli.md\n{cli_docs.diff(current, page)[:4000]}")


# --- links --------------------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.S | re.M)
_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _prose(text: str) -> str:
    """The text without fenced blocks, indented code lines and code spans, where brackets are not links."""
    text = _FENCE.sub("", text)
    text = "\n".join(line for line in text.splitlines() if not line.startswith("    "))
    return _CODE.sub("", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text lowercased, everything but letters, digits, spaces,
    hyphens and underscores dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").replace("*", "").strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for line in _FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = _slug(heading.group(1))
            anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _links(path: Path) -> list[str]:
    return [m.group(1) for m in _LINK.finditer(_prose(path.read_text(encoding="utf-8")))]


def test_the_link_checker_reads_links_and_headings_as_github_does(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# English case factors (`mtcli tokenize --case-factors-en`): the shipped pair\n## Usage\n"
                    "## Usage\n## 2 x Large, beam 4 — día\n"
                    "See [the pair](#english-case-factors-mtcli-tokenize---case-factors-en-the-shipped-pair), "
                    "![curves](docs/a.png \"title\") and `[not](a link)`.\n```\n[nor](this)\n```\n", encoding="utf-8")
    assert _anchors(page) == {"english-case-factors-mtcli-tokenize---case-factors-en-the-shipped-pair", "usage",
                              "usage-1", "2-x-large-beam-4--día"}
    assert _links(page) == ["#english-case-factors-mtcli-tokenize---case-factors-en-the-shipped-pair", "docs/a.png"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_reaches_a_file_and_heading(page):
    broken = []
    for link in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # https:, mailto:: not checked here
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists() or not path.is_relative_to(REPO):
            broken.append(f"{link}: no file {path}")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{link}: no heading #{anchor} in {path.relative_to(REPO)}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_docs_pages_are_all_reachable_from_the_readme():
    reached, todo = set(), [REPO / "README.md"]
    while todo:
        page = todo.pop()
        for link in _links(page):
            target = link.partition("#")[0]
            path = (page.parent / target).resolve() if target else page
            if path.suffix == ".md" and path.exists() and path not in reached:
                reached.add(path)
                todo.append(path)
    assert {p for p in PAGES if p.parent.name == "docs"} <= reached, "pages no link leads to"


# --- README -------------------------------------------------------------------------------------

def test_readme_is_short():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_LIMIT, f"README.md has {lines} lines (limit {README_LIMIT}): move detail into docs/"


def test_readme_opens_with_install_and_translate_then_the_ci_test_command():
    """Its first code block: the line that installs and translates, then the line .ci/run runs (CI runs
    exactly the README's test command)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = readme.index("```bash")
    assert start < 5, "the commands come first"
    first, second = readme[start + 1], readme[start + 2]
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e . &&")
    assert 'mtcli translate "' in first
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci == second, f".ci/run runs {ci!r}, the README says {second!r}"


def test_every_task_of_the_readmes_usage_is_within_its_first_100_lines():
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    head = "\n".join(readme[:100])
    for command in ("translate", "serve", "train", "evaluate", "export", "tokenize", "download", "models", "ensemble"):
        assert re.search(rf"^mtcli {command}\b", head, re.M), f"`mtcli {command}` is not in the README's first 100 lines"


# --- architecture -------------------------------------------------------------------------------

def test_documented_benchmark_modules_run_from_the_repository():
    """`python -m benchmarks.X` as the pages show it: the repository's benchmarks, never the package of the same
    name that pysbd installs."""
    shown = {name for page in PAGES for name in re.findall(r"python -m benchmarks\.([a-z_]+)\b", page.read_text(encoding="utf-8"))}
    assert "compare" in shown and all((REPO / "benchmarks" / f"{name}.py").is_file() for name in shown), shown
    done = subprocess.run([sys.executable, "-m", "benchmarks.compare", "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "PyTorch" in done.stdout, done.stderr[-1000:]


def test_architecture_page_names_the_groups_the_architecture_test_enforces():
    """docs/architecture.md's group table lists the modules of tests/test_architecture.py's GROUPS."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {m.group(1): set(re.findall(r"`([a-z_]+)/?`", m.group(2)))
            for m in re.finditer(r"^\| ([a-z ]+) \| ([^|]*) \|", text, re.M)}
    for group, modules in GROUPS.items():
        expected = set(modules) - {"__main__", "mtcli"}
        assert rows.get(group) == expected, (f"docs/architecture.md's row '{group}' lists {sorted(rows.get(group, []))}, "
                                             f"tests/test_architecture.py's GROUPS {sorted(expected)}: make them agree")
