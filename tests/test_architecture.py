"""docs/architecture.md's module groups: every module of mtcli belongs to one group, and imports (at the top of a
module or inside a function) point only down the groups, the one exception named."""

import ast
from pathlib import Path

import mtcli

# lowest first; a module may import its own group and any before it
GROUPS = {
    "shared": ["mtcli", "config", "ranges", "lazy_re", "schema", "errors", "atomic", "stats", "guards", "usercache"],
    "data": ["tokenizer", "data", "augment", "download"],
    "numeric core": ["kernels", "layers", "attention", "model"],
    "training": ["optim", "checkpoint", "distributed", "metrics", "train", "finetune"],
    "translation": ["decode", "roundtrip", "text", "langid", "confidence", "route", "evaluate"],
    "interfaces": ["cli", "coercion", "console", "session", "__main__", "serve", "registry", "export"],
}
UPWARD = {("train", "decode")}  # the per-epoch BLEU sample decodes with decode.greedy (docs/architecture.md)
ROOT = Path(mtcli.__file__).parent


def _top(dotted: str) -> str:
    """mtcli.text.pipeline -> text; mtcli -> mtcli."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _rank() -> dict[str, int]:
    return {name: i for i, names in enumerate(GROUPS.values()) for name in names}


def _is_module(dotted: str) -> bool:
    """mtcli.kernels.adam -> whether mtcli/kernels/adam.py or the package mtcli/kernels/adam/ exists."""
    path = ROOT.joinpath(*dotted.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(path: Path) -> set[str]:
    """The mtcli modules a file imports; `from mtcli import X` counts as mtcli.X when X is a module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "mtcli":
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if _is_module(sub) else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "mtcli"}
    return found


def test_every_module_is_in_a_group():
    rank = _rank()
    modules = {_top(".".join(("mtcli", *p.relative_to(ROOT).with_suffix("").parts))) for p in ROOT.rglob("*.py")}
    assert modules - {"__init__"} <= set(rank), sorted(modules - set(rank) - {"__init__"})


def test_no_module_imports_a_group_above_its_own():
    rank, reaching_up = _rank(), []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = parts[0] if parts != ("__init__",) else "mtcli"
        for imported in _imports(path):
            target = _top(imported)
            if rank[target] > rank[module] and (module, target) not in UPWARD:
                reaching_up.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert not reaching_up, reaching_up


TEXT = ROOT / "text"


def test_no_function_is_over_80_lines():
    """No function or method in mtcli/ is over 80 lines, from its `def` to its last line (issue 36: a command's
    options are declared as module-level aliases and its work delegated, rather than one long function)."""
    long_functions = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 80:
                long_functions.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not long_functions, long_functions


def test_no_module_defines_a_name_twice():
    """No module or class body in mtcli/ defines a function or class under a name it already defines: the later one
    silently wins (ruff's F811 is silent when it is decorated: two branches merged, each with its own
    decode._one_blas_thread, left the first one, a translation's, dead). A property's setter, an overload and a
    dispatcher's registration are no second definitions."""
    def again(body) -> list[str]:
        seen, twice = set(), []
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if any(isinstance(d, ast.Attribute) or getattr(d, "id", "") == "overload" for d in node.decorator_list):
                continue  # (@x.setter, @f.register, @overload)
            if node.name in seen:
                twice.append(f"{node.name} (line {node.lineno})")
            seen.add(node.name)
        return twice

    found = []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
            found += [f"{path.relative_to(ROOT)}: {name}" for name in again(scope.body)]
    assert not found, found


def test_text_modules_stay_short():
    """mtcli/text/ (issue 36): no module over 300 lines; the pipeline reads as its stages."""
    long_modules = [str(path.relative_to(ROOT)) for path in sorted(TEXT.rglob("*.py"))
                    if path.read_text(encoding="utf-8").count("\n") > 300]
    assert not long_modules, long_modules


def test_no_text_module_calls_the_pipeline_back():
    """The stages and the markup they translate get a `translate` callable; only the format readers, above the
    pipeline, import it."""
    calling = [str(path.relative_to(ROOT)) for path in sorted(TEXT.rglob("*.py"))
               if "mtcli.text.pipeline" in _imports(path) and path.parent.name != "formats"]
    assert not calling, calling


def test_the_text_pipeline_never_reaches_decoding():
    """mtcli/text reaches a model through its Engine only: the kernel choice and the search belong to
    decode.Translator (the beam size travels down from the CLI or the request, never sideways)."""
    reaching = [f"{p.relative_to(ROOT)} imports {m}" for p in sorted((ROOT / "text").rglob("*.py"))
                for m in _imports(p) if _top(m) in ("kernels", "decode")]
    assert not reaching, reaching


def test_the_kernel_choice_is_the_translators():
    """decode.Translator chooses between the NumPy references and the compiled kernels from the work it is given
    (issue 36): no command module (cli.py, session.py) nor any module of text/ imports kernels."""
    paths = [ROOT / "cli.py", ROOT / "session.py", *sorted(TEXT.rglob("*.py"))]
    reaching = [f"{p.relative_to(ROOT)} imports {m}" for p in paths for m in _imports(p) if _top(m) == "kernels"]
    assert not reaching, reaching
