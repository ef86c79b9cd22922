"""Mutation testing of mtcli's core behaviours with mutmut (outside CI: it runs the tests once per
mutant, which takes tens of minutes).

mutmut changes one thing at a time in a module (an operator, a constant, a comparison, a dropped
call) and runs the tests that reach the changed function; a mutant the tests do not notice
"survives". The score is killed / (killed + survived + timeouts). Surviving mutants that change what
a user sees deserve a test; the rest (messages, equivalent rewrites) are listed for a reader to judge.

The run happens in a copy of the repository (HEAD's files, or the working tree's with
--working-tree), never in the checkout itself, with BLAS and Numba on one thread per test process
and a wall-clock bound; results that were reached by then are reported.

Each mutant's tests run in a process forked from mutmut's fork server, which has imported the tests
but run none: forked from mutmut's main process instead (its default), which ran the whole suite
for its statistics, a test process that reaches a parallel Numba kernel (the shipped model, large
batches) is ended at once by SIGTERM ("fork() called from a process already using GNU OpenMP"),
which mutmut reports as "suspicious" whether or not the tests would have caught the mutant.
mutmut runs the mutants with the fastest tests first: --functions narrows a run to some functions
(the beam search, say) so that they are all reached within --minutes.

Examples:

  nice -n 15 python benchmarks/mutation.py --modules decode tokenizer --minutes 25
  python benchmarks/mutation.py --modules checkpoint atomic train --report /tmp/mutation.md
  python benchmarks/mutation.py --modules decode --work /tmp/mut --keep     (then: cd /tmp/mut && mutmut browse)
  python benchmarks/mutation.py --modules decode --functions search _max_len --minutes 60

Needs mutmut (pip install -e '.[mutation]').
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # this environment's scripts (mutmut), also when it is not activated

_GUARD_TESTS = ["tests/test_near_misses.py", "tests/test_reliability_paths.py"]
_SERVE_TESTS = ["tests/test_serve_guards.py", "tests/test_serve_glossary.py"]
_DOCUMENT_TESTS = ["tests/test_documents.py", "tests/test_cli_documents.py", "tests/test_documents_open.py"]
# module: (the tests that check it, the functions to mutate: None for all of them)
TARGETS = {
    "decode": (["tests/test_search.py", "tests/test_decode.py", "tests/test_model.py"], None),
    "tokenizer": (["tests/test_tokenizer.py", "tests/test_data.py"], None),
    "checkpoint": (["tests/test_train.py", "tests/test_reliability.py", "tests/test_resume.py"], None),
    "atomic": (["tests/test_reliability.py", "tests/test_reliability_output.py", "tests/test_reliability_dirs.py",
                "tests/test_reliability_atomic.py"], None),
    # only the resume path of train.py (saving and loading the state live in checkpoint.py): starting
    # from the state, the dropout stream, the checkpoint and the interrupted run's save
    "train": (["tests/test_resume.py", "tests/test_train.py"], ["_start", "_dropout_rng", "Run.checkpoint", "_train"]),
    # the model's forward/backward glue (the kernels have their NumPy references and tests of their own)
    "model": (["tests/test_model.py", "tests/test_architecture.py"], None),
    "layers": (["tests/test_model.py", "tests/test_layers.py"], None),
    "attention": (["tests/test_model.py", "tests/test_layers.py"], None),
    # the text pipeline (mtcli/text/): each stage with its own tests and the pipeline's
    **{f"text.{stage}": ([f"tests/test_text_{stage}.py", "tests/test_text_pipeline.py", "tests/text", "tests/test_text_cli.py"], None)
       for stage in ("normalize", "segment", "case", "protect", "read", "formats", "pipeline")},
    # the guards on what a user names (issue 38): paths, streams, hosts; the registry's names, locks and
    # atomic directories; the CLI's option handling and refusals (not the commands' bodies)
    "guards": (_GUARD_TESTS, ["expand_user", "_identity", "input_named", "check_stdin", "read_pieces", "_pieces",
                              "kind", "check_writable", "check_host"]),
    "registry": (_GUARD_TESTS + ["tests/test_ensemble.py"],
                 ["resolve", "_check_name", "check_free", "_same", "_use", "_take_away", "_claim_empty",
                  "_remove_empty", "remove", "in_package"]),
    "cli": (_GUARD_TESTS + ["tests/test_cli_conventions.py", "tests/test_cli_translate_input.py",
                            "tests/test_cli_documents.py"],
            ["_output_file", "_output_dir", "_not_an_input", "_writable_dir", "_given", "_model", "_translate_options",
             "_environment_beam", "_refuse_contradictions", "_scores_writable", "_decoding", "_document_options"]),
    # translate's reading of its input and the REPL's history (moved out of cli.py)
    "session": (_GUARD_TESTS + ["tests/test_cli_translate_input.py"], ["read_input", "utf8_arguments", "_append_history"]),
    # the server's checks of what a client sends (fields, sizes, the key, the HTTP head), called directly:
    # the server's own tests start the shipped model's decoders (~100 s a test process on a loaded machine)
    "serve.app": (_SERVE_TESTS, ["_body", "_fields", "_check_text", "_digest", "_check_key", "_texts", "_required",
                                 "_shown", "_direction", "_format", "_glossary", "_alternatives", "_file_kind"]),
    "serve.http": (_SERVE_TESTS, ["_json", "Guard.__call__", "Protocol.send_400_response"]),
    "serve.config": (_SERVE_TESTS, ["ServeConfig.__post_init__"]),
    "serve.languages": (_SERVE_TESTS, ["Directions.refusal", "Directions.unavailable"]),
    # the document readers' refusals of damaged and hostile files (zip and XML bombs, DTDs, not the format)
    "text.formats.package": (_DOCUMENT_TESTS, ["open_zip", "read_member", "parse_xml", "_kind"]),
    **{f"text.formats.{reader}": (_DOCUMENT_TESTS, ["read"]) for reader in ("docx", "odt", "po", "xliff", "i18n_json")},
    "text.formats.prose": (["tests/test_text_formats.py"], ["Prose.item"]),
}
# Tests that need the real corpus (a 3-minute tokenizer run per mutant) or that break the code on
# purpose (tests/test_broken_versions.py patches the same functions) are left out; only those (a test
# named for broken input, say, runs).
DESELECT = "not real_corpus and not real_ and not test_broken_versions"
# and, for the guards, the tests that only run mtcli in processes of their own: mutmut neither sees
# which functions they reach nor waits for them cheaply (the locale, stdin, descriptor and decoding-option
# grids: most of the files' time); a review runs them on each survivor
_PROCESSES = " and ".join(f"not {k}" for k in (
    "every_input_mode", "reach_the_decoder", "locale_without_utf8", "ordinary_user", "by_any_route",
    "through_a_descriptor", "pipe_on_stdin", "write_only_standard_input", "slow_writer", "still_growing",
    "being_appended", "flagged_or_o_naming",
    # (and what fails in mutmut's copy, neither a guard: typer's completion script; the import-laziness
    # tests, since a mutated module's trampolines import mutmut, which brings numpy, pydantic, tokenizers)
    "shell_completion", "loads_no_library", "answers_before_the_cli_loads", "translated_without_numba"))
SLOW = {**dict.fromkeys(("guards", "registry", "cli", "session"), _PROCESSES),
        # (LibreOffice converting the documents: seconds a test, and nothing it checks is a refusal)
        **{m: "not libreoffice_converts" for m, (tests, _) in TARGETS.items() if _DOCUMENT_TESTS[-1] in tests}}


def copy_repository(dest: Path, working_tree: bool) -> None:
    if working_tree:
        files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                               check=True, capture_output=True).stdout.decode().split("\0")
        for name in filter(None, files):
            src = REPO / name
            if src.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / name)
    else:
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def source(module: str) -> str:
    """The file of a module such as text.formats (a package: its __init__.py)."""
    path = f"mtcli/{module.replace('.', '/')}"
    return f"{path}/__init__.py" if (REPO / path).is_dir() else f"{path}.py"


def write_config(dest: Path, modules: list[str], tests: list[str] | None = None) -> None:
    tests = sorted({t for m in modules for t in tests or TARGETS[m][0] if (dest / t).exists()})
    # (benchmarks/: tests that build their inputs with a benchmark's builder import it from the copy)
    lines = ["[mutmut]", "source_paths = mtcli/", "also_copy =", "    benchmarks/", "only_mutate ="]
    lines += [f"    {source(m)}" for m in modules]
    lines += ["pytest_add_cli_args_test_selection ="] + [f"    {t}" for t in tests]
    deselect = " and ".join([DESELECT, *sorted({SLOW[m] for m in modules if m in SLOW})])
    lines += ["pytest_add_cli_args =", "    -p", "    no:cacheprovider", "    -k", f"    {deselect}"]
    # timeout_constant: seconds added to a mutant's tests' measured time before the limits (wall: x5, CPU:
    # x10): each test process loads the compiled kernels again, which on a loaded machine takes longer
    # than mutmut's default of 1 s allows, and every mutant of a fast function then "timed out"
    lines += ["timeout_multiplier = 5.0", "timeout_constant = 30", "use_git_change_detection = false",
              "process_isolation = forkserver", ""]
    (dest / "setup.cfg").write_text("\n".join(lines))


def mutant_filters(modules: list[str], functions: list[str] | None = None) -> list[str]:
    """mutmut's mutant names are module.x_function__mutmut_N (methods, given as Class.method:
    module.xǁClassǁmethod__mutmut_N). functions: these instead of each module's own list."""
    filters = []
    for m in modules:
        names = functions or TARGETS[m][1]
        filters += [f"mtcli.{m}.*"] if names is None else [
            f"mtcli.{m}.x" + ("ǁ" + f.replace(".", "ǁ") if "." in f else "_" + f) + "__mutmut_*" for f in names]
    return filters


def run(cmd: list[str], cwd: Path, env: dict, seconds: float) -> bool:
    """Run cmd for at most `seconds`; False if it had to be stopped (its results so far are kept)."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, start_new_session=True)
    try:
        proc.wait(timeout=max(seconds, 1))
        return True
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)  # mutmut keeps what it has measured
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return False


def results(work: Path, env: dict) -> dict[str, str]:
    out = subprocess.run(["mutmut", "results", "--all", "true"], cwd=work, env=env, capture_output=True,
                         text=True).stdout
    return dict(re.findall(r"^\s*(\S+): (.+)$", out, flags=re.M))


def report(work: Path, env: dict, status: dict[str, str], finished: bool, seconds: float) -> str:
    counts = Counter(status.values())
    # "timeout": mutmut's CPU or wall-clock limit (a mutant that made the tests hang or crawl), and
    # "segfault": the test process crashed (a kernel read out of bounds), are caught; "suspicious": a
    # test process ended by another signal: not known, so neither caught nor tested
    caught = counts["killed"] + counts["timeout"] + counts["segfault"]
    tested = caught + counts["survived"]
    modules = sorted({re.sub(r"^mtcli[.](.+?)[.]x[_ǁ].*", r"\1", k) for k in status})  # mtcli.text.case.x_f__mutmut_1
    lines = [f"# mutmut: {', '.join(modules)}", "",
             f"{len(status)} mutants, {tested} tested" + (f" in {seconds / 60:.1f} min" if seconds else "")
             + ("" if finished else " (stopped at the time limit)") + ": "
             + ", ".join(f"{n} {s}" for s, n in counts.most_common()), ""]
    if tested:
        lines += [f"score (killed + timeout + segfault) / tested: {caught / tested:.1%}; "
                  f"killed alone: {counts['killed'] / tested:.1%}", ""]
    unknown = sorted(k for k, s in status.items() if s == "suspicious")
    if unknown:
        lines += [f"suspicious (ended by a signal, not judged): {', '.join(unknown)}", ""]
    survivors = sorted(k for k, s in status.items() if s == "survived")
    if survivors:
        lines += ["## Surviving mutants", ""]
    for name in survivors:
        diff = subprocess.run(["mutmut", "show", name], cwd=work, env=env, capture_output=True, text=True).stdout
        body = [line for line in diff.splitlines() if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
        lines += [f"### {name}", "```diff", *body, "```", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[3:]))
    ap.add_argument("--modules", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    ap.add_argument("--functions", nargs="+", help="mutate only these functions (Class.method for methods)")
    ap.add_argument("--tests", nargs="+", help="these test files instead of the modules' own")
    ap.add_argument("--minutes", type=float, default=25.0, help="wall-clock bound for the whole run")
    ap.add_argument("--max-children", type=int, default=os.cpu_count() or 2, help="test processes at once")
    ap.add_argument("--work", type=Path, help="directory for the copy (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the copy (mutmut browse / show there)")
    ap.add_argument("--working-tree", action="store_true", help="copy the working tree, not HEAD")
    ap.add_argument("--report", type=Path, help="also write the report (Markdown) here")
    ap.add_argument("--nice", type=int, default=15, help="CPU niceness of the run (default 15)")
    ap.add_argument("--report-only", action="store_true", help="only report on the run kept in --work")
    ap.add_argument("--continue", dest="resume", action="store_true",
                    help="go on with the run kept in --work (its copy; mutants already judged are kept)")
    args = ap.parse_args()
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    if shutil.which("mutmut", path=path) is None:
        sys.exit("mutmut not found: pip install -e '.[mutation]'")

    env = {**os.environ, "PATH": path}
    work = args.work or Path(tempfile.mkdtemp(prefix="mtcli-mutation-"))
    finished, seconds = True, 0.0
    if not args.report_only:
        os.nice(args.nice)
        work.mkdir(parents=True, exist_ok=True)
        if not args.resume:
            copy_repository(work, args.working_tree)
        write_config(work, args.modules, args.tests)
        # one thread per test process: --max-children processes share the cores
        env |= {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                "NUMBA_NUM_THREADS": "1", "MTCLI_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
                # tests/worlds.py's tiny trained world, built by the first test process and read by the
                # others (each mutant's tests run in a new process: training it for each costs ~15 s)
                "MTCLI_TEST_WORLD": str(work / ".world")}
        (work / ".world").mkdir(exist_ok=True)
        env.pop("CI", None)
        started = time.perf_counter()
        finished = run(["mutmut", "run", "--max-children", str(args.max_children), *mutant_filters(args.modules, args.functions)],
                       work, env, args.minutes * 60)
        seconds = time.perf_counter() - started
    text = report(work, env, results(work, env), finished, seconds)
    print(text)
    if args.report:
        args.report.write_text(text + "\n")
    if args.keep or args.work:
        print(f"\nthe run is in {work} (mutmut show NAME, mutmut browse)", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
