"""The documentation builds with `mkdocs build --strict`, and every shell example runs.

Convention for docs/*.md: a fenced block marked ```sh is run with `bash -e`
(exit status 0 required). In a ```console block every line starting with
``$ `` is a command, run the same way, and the lines after it (up to the next
``$ `` line) are its expected stdout, compared exactly (trailing blanks of
each line ignored). ```text and unmarked blocks are not run. The
blocks of one page run in order, in one scratch directory that mirrors the
repository root (a symlink to each top-level entry), so examples use paths
such as qrels/dl19-sample.qrels and may write new files next to them, and a
later block sees the files an earlier one wrote. Commands come from the
checkout's bin/ (first on PATH). Blocks that call zelo_plot need matplotlib
and are not run without it (the page is then reported as skipped).
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, need_shared  # noqa: E402
DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")


def shell_blocks(text: str, kinds: tuple[str, ...] = ("sh",)) -> list:
    """``(line of the opening fence, code)`` of every ```sh block (info string ``sh``);
    with ``kinds=("sh", "console")``: ``(line, kind, code)`` of both kinds, in page order."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info").strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence[0] * len(fence))
                                      and lines[i].strip().strip(fence[0]) == ""):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1
        kind = (info.split()[:1] or [""])[0]
        if kind in kinds:
            code = "\n".join(body) + "\n"
            out.append((start, code) if kinds == ("sh",) else (start, kind, code))
    return out


def console_commands(code: str) -> list[tuple[str, str]]:
    """``(command, expected stdout)`` of a ```console block."""
    out: list[tuple[str, list[str]]] = []
    for line in code.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"console block starts with output, not a '$ ' line: {line!r}")
    return [(cmd, "".join(x.rstrip() + "\n" for x in exp)) for cmd, exp in out]


PAGES = sorted(DOCS.glob("*.md"))


def test_shell_block_parser():
    text = ("x\n```sh\necho a\n```\n\n- item\n\n    ```sh\n    echo b\n    ```\n"
            "```console\n$ no\n```\n```text\nno\n```\n")
    assert shell_blocks(text) == [(2, "echo a\n"), (8, "echo b\n")]  # line of the opening fence
    assert shell_blocks(text, ("sh", "console"))[2] == (11, "console", "$ no\n")
    assert console_commands("$ a\nx  \n\ny\n$ b > f\n") == [("a", "x\n\ny\n"), ("b > f", "")]


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs not installed (pip install mkdocs)")
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                          "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    warnings = [ln for ln in res.stderr.splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert res.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(warnings or [res.stderr[-3000:]])
    assert (tmp_path / "site" / "index.html").exists()


def scratch_root(tmp: Path) -> Path:
    work = tmp / "repo"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name in (".git", "site"):
            continue
        (work / entry.name).symlink_to(entry)
    return work


# Long examples (seconds of CPU each: a whole judging loop, one process per command) that the suite leaves to
# ``test_shell_examples_run_long`` (marked slow; CI runs it): page -> the first line of each such block. Those
# blocks must not write a file that a later block of the page reads (the suite runs the page without them).
# zelo_pairs.md's three loops: 17 + 6 + 6 s CPU of the page's 31 s; its other blocks (cycles, state formats,
# ...) stay in the suite; the three loops' commands are also tested in the suite by test_zelo_pairs.py,
# test_zelo_pairs_adaptive.py and test_zelo_pairs_ranking.py.
LONG_BLOCKS = {
    "zelo_pairs.md": (
        "zelo_pairs init --state s.json --qrels qrels/dl19-sample.qrels --k 5 --seed 0 --final-phase --force",
        "zelo_pairs init --state a.json --qrels qrels/dl19-sample.qrels --strategy adaptive --seed 0 --force",
        "zelo_pairs init --state r.json --strategy adaptive --goal ranking --run runs/bm25.run --depth 6",
    ),
    "zelo_eval.md": ("mkdir -p scratch/eval\n",),  # for track organizers: 15 commands
}


def _is_long(page: Path, code: str) -> bool:
    return any(code.startswith(first) for first in LONG_BLOCKS.get(page.name, ()))


def test_long_blocks_name_existing_blocks():
    """Every ``LONG_BLOCKS`` entry starts exactly one block of its page (an edited page cannot silently move a
    block out of both tests, or leave a stale entry)."""
    for name, firsts in LONG_BLOCKS.items():
        codes = [code for _, code in shell_blocks((DOCS / name).read_text(encoding="utf-8"))]
        for first in firsts:
            assert sum(code.startswith(first) for code in codes) == 1, (name, first)


# Pages whose examples the suite leaves to the slow part (CI runs it): each costs seconds of CPU (a Python
# process per command; session 21, s30: the longest pages of `pytest -n 2 --durations=0`). Their commands are
# tested in the suite by each command's own tests. getting-started.md (16 commands, 5.5 s CPU) and zelo_eval.md
# (2.6 s) joined them in session 22 (s31): their commands on the shipped sample (zelo_trec, zelo_eval,
# pref_aggregate, zelo_fit, zelo_compare, zelo_plot) run in the suite in test_first_contact.py (issue #10, the
# first hour) and each command's tests. ``test_slow_pages_exist`` keeps the names honest.
SLOW_PAGES = {"api.md", "dask.md", "getting-started.md", "zelo_agree.md", "zelo_compare.md", "zelo_eval.md",
              "zelo_fit.md", "zelo_judge.md", "zelo_plot.md", "zelo_simulate.md"}


def test_slow_pages_exist():
    assert {p.name for p in PAGES} >= SLOW_PAGES


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW_PAGES else p
                                  for p in PAGES], ids=[p.name for p in PAGES])
def test_shell_examples_run(page, tmp_path):
    """Every block of every page, but the ``LONG_BLOCKS`` (``test_shell_examples_run_long`` runs each page that
    has some whole, every block in order)."""
    _run_page(page, tmp_path, with_long=False)


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(LONG_BLOCKS))
def test_shell_examples_run_long(page, tmp_path):
    _run_page(DOCS / page, tmp_path, with_long=True)


# a block's time limit (a guard against a hang: the blocks are CPU-bound). Under tools/coverage_run.py every
# command of a block is a traced interpreter: zelo_pairs.md's adaptive `while zelo_pairs next ...` loop took
# over 300 s at load 20 there (NOTES c37), so a coverage run (COVERAGE_PROCESS_START set) gets three times more
SHELL_TIMEOUT = 900 if os.environ.get("COVERAGE_PROCESS_START") else 300


def _run_page(page: Path, tmp_path: Path, with_long: bool) -> None:
    blocks = shell_blocks(page.read_text(encoding="utf-8"), ("sh", "console"))
    if not with_long:
        blocks = [b for b in blocks if not _is_long(page, b[2])]
    if not blocks:
        pytest.skip("no ```sh or ```console blocks")
    have_mpl = importlib.util.find_spec("matplotlib") is not None
    work = scratch_root(tmp_path)
    # bin/'s scripts start `#!/usr/bin/env python3`: the directory of the interpreter running the tests comes
    # next on PATH, so that they run under it (its packages, and coverage's start-up hook when a coverage run
    # uses its own interpreter -- with the first python3 on PATH they failed there for want of pandas)
    path = os.pathsep.join([str(ROOT / "bin"), str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(ROOT), "PYTHON": sys.executable}
    skipped = 0
    for line, kind, code in blocks:
        if not have_mpl and "zelo_plot" in code:
            skipped += 1
            continue
        steps = [(code, None)] if kind == "sh" else console_commands(code)
        for cmd, expected in steps:
            res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], capture_output=True, text=True,
                                 cwd=work, env=env, timeout=SHELL_TIMEOUT)
            assert res.returncode == 0, (f"{page.name}:{line}: block exited {res.returncode}\n--- block\n{cmd}"
                                         f"--- stdout (tail)\n{res.stdout[-2000:]}--- stderr\n{res.stderr[-3000:]}")
            if expected is not None:
                got = "".join(x.rstrip() + "\n" for x in res.stdout.rstrip("\n").split("\n")) if res.stdout else ""
                assert got == expected, f"{page.name}:{line}: output of `{cmd}` differs from the page\n{got}"
    if skipped:
        pytest.skip(f"{skipped} block(s) need matplotlib (pip install 'pref_eval[plot]')")


COMMAND_PAGES = {"trec": "zelo_trec", "eval": "zelo_eval", "aggregate": "pref_aggregate", "fit": "zelo_fit",
                 "pairs": "zelo_pairs", "simulate": "zelo_simulate", "compare": "zelo_compare", "plot": "zelo_plot",
                 "agree": "zelo_agree", "judge": "zelo_judge"}


def _leaf_commands(cmd, prefix=""):
    import click

    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            yield from _leaf_commands(sub, f"{prefix}{name} ")
    else:
        yield prefix.strip(), cmd


@pytest.mark.parametrize("module", sorted(COMMAND_PAGES))
def test_command_page_lists_every_option(module):
    """'One page per command with every option': every option of the click command (and of each
    subcommand) appears on the command's page by each of its names, short and long (a script may use
    either: `pref_aggregate --prefs` must be found as `-P` is) -- hidden ones too (zelo_trec's trec_eval
    options that change nothing: a user of trec_eval looks them up)."""
    import click

    mod = __import__(f"pref_eval.cli.{module}", fromlist=["command"])
    text = (DOCS / f"{COMMAND_PAGES[module]}.md").read_text(encoding="utf-8")
    missing = []
    for sub, cmd in _leaf_commands(mod.command):
        for p in cmd.params:
            if not isinstance(p, click.Option):
                continue
            missing += [f"{sub} {o}".strip() for o in p.opts
                        if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text)]
    assert not missing, f"docs/{COMMAND_PAGES[module]}.md does not mention: {', '.join(missing)}"


@pytest.mark.parametrize("module", sorted(COMMAND_PAGES))
def test_every_option_has_help(module):
    """--help is part of the docs: every visible option of every (sub)command says what it does."""
    import click

    mod = __import__(f"pref_eval.cli.{module}", fromlist=["command"])
    bare = [f"{sub} {'/'.join(p.opts)}".strip() for sub, cmd in _leaf_commands(mod.command) for p in cmd.params
            if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()]
    assert not bare, f"options without help text: {', '.join(bare)}"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_PATH = re.compile(r"`((?:\.\./)?([\w.-]+)/[\w./-]*\w)`")
EXAMPLE_PATHS = {"runs/input.bm25.gz"}  # run-ids.md: how a file name becomes a run id, not a shipped file


def test_relative_links_and_paths_exist():
    """README.md and docs/*.md: every relative Markdown link points at a file (mkdocs checks docs/ anchors,
    not the README), and every `dir/file` path in backticks under a top-level directory of the repository
    exists (placeholders in capitals, such as bin/NAME, excepted)."""
    tops = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
    bad, checked = [], 0
    for page in [ROOT / "README.md", *PAGES]:
        for i, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
            for target in LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue
                checked += 1
                if not (page.parent / target.split("#")[0]).exists():
                    bad.append(f"{page.name}:{i}: link {target}")
            for path, top in CODE_PATH.findall(line):
                if top not in tops or path in EXAMPLE_PATHS or "*" in path or re.search(r"/[A-Z]+(\.|/|$)", path):
                    continue
                checked += 1
                if not (ROOT / path).exists():
                    bad.append(f"{page.name}:{i}: path {path}")
    assert checked > 100 and not bad, "\n".join(bad)


def _layout_rows() -> list[tuple[list[str], str]]:
    """docs/architecture.md's Layout table: ``(the places of the first cell, the row)``."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## Layout", 1)[1].strip().split("\n\n", 1)[0]
    rows = []
    for line in table.split("\n")[2:]:
        first = line.split("|")[1]
        rows.append((re.findall(r"`([^`]+)`", first), line))
    return rows


def test_architecture_lists_every_module():
    """docs/architecture.md's Layout names every top-level module and subpackage of pref_eval/ in its first
    column, every module of every subpackage in that package's row, and every ``x.py`` / ``x.c`` it names in
    a row exists (in that row's package, or as the path it gives)."""
    pkg = ROOT / "pref_eval"
    rows = _layout_rows()
    places = {p.rstrip("/") for cells, _ in rows for p in cells}
    tops = [p for p in pkg.iterdir() if (p.suffix in (".py", ".c") and p.name != "__init__.py")
            or (p.is_dir() and (p / "__init__.py").exists())]
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    missing = [f"pref_eval/{p.name}" for p in tops if f"pref_eval/{p.name}" not in places
               and f"`pref_eval/{p.name}" not in page]
    subs = sorted(p.name for p in tops if p.is_dir())
    assert len(subs) >= 12, subs
    for sub in subs:
        line = next(line for cells, line in rows if f"pref_eval/{sub}/" in cells)
        missing += [f"pref_eval/{sub}/{m.name}" for m in sorted((pkg / sub).glob("*.py"))
                    if m.name != "__init__.py" and f"`{m.name}`" not in line and f"`{m.stem}." not in line]
    assert not missing, f"docs/architecture.md's Layout does not list: {', '.join(missing)}"
    stale, checked = [], 0
    for cells, line in rows:
        dirs = [ROOT / c for c in cells if c.endswith("/")] + [pkg, ROOT]
        for name in re.findall(r"`([\w/]+\.(?:py|c))", line):
            checked += 1
            if not any((d / name).exists() for d in dirs) and not (pkg / name).exists():
                stale.append(name)
    assert checked > 60 and not stale, f"docs/architecture.md names modules that do not exist: {stale}"
    tools = next(line for cells, line in rows if cells == ["tools/"])
    unnamed = [p.name for p in sorted((ROOT / "tools").iterdir()) if p.suffix in (".py", ".sh")
               and f"`{p.name}`" not in tools and f"`{p.name} " not in tools]
    assert not unnamed, f"docs/architecture.md's tools/ row does not name: {unnamed}"


# The imports that do not point down the picture of docs/architecture.md ("Dependencies point mostly down"):
# (importing module, imported module). A new one is either a layering fault or a line of that paragraph.
UPWARD_IMPORTS = {
    ("pref_eval/io/judgments.py", "pref_eval.zelo.judgments"),
    ("pref_eval/io/judgment_columns.py", "pref_eval.zelo.judgments"),
    ("pref_eval/io/zelo_scores.py", "pref_eval.zelo.fit"),
    ("pref_eval/stats/compare.py", "pref_eval.api._inputs"),
    ("pref_eval/agree/systemlevel.py", "pref_eval.api._inputs"),
    ("pref_eval/agree/systemlevel.py", "pref_eval.api.measures"),
    ("pref_eval/plot/data.py", "pref_eval.api.measures"),
    ("pref_eval/plot/data.py", "pref_eval.api._score_rows"),
}
IO_MAY_IMPORT = ("pref_eval.io", "pref_eval.errors", "pref_eval.records", "pref_eval.native", "pref_eval.parallel",
                 "pref_eval._jsonl")


def _package_imports():
    """``(file, absolute module)`` of every ``from``-import of pref_eval's modules inside pref_eval/."""
    import ast

    pkg = ROOT / "pref_eval"
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        here = ["pref_eval", *path.relative_to(pkg).parts[:-1]]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    if (node.module or "").split(".")[0] == "pref_eval":
                        yield rel, node.module
                    continue
                base = ".".join(here[:len(here) - node.level + 1])
                if node.module:
                    yield rel, f"{base}.{node.module}"
                else:  # ``from .. import _jsonl``
                    yield from ((rel, f"{base}.{a.name}") for a in node.names)


def test_imports_point_down():
    """docs/architecture.md: ``io/`` imports only the foundation modules and the result types it fills, and no
    computation module imports ``api/`` but the three the page names. Fails on a new upward import, and on a
    listed one that is gone (the page's list would be stale)."""
    upward = set()
    for rel, mod in _package_imports():
        if rel.startswith("pref_eval/io/") and not mod.startswith(IO_MAY_IMPORT):
            upward.add((rel, mod))
        top = rel.split("/")[1]
        if mod.startswith("pref_eval.api") and top not in ("api", "cli", "__init__.py", "dask.py"):
            upward.add((rel, mod))
    assert upward == UPWARD_IMPORTS, (f"new: {sorted(upward - UPWARD_IMPORTS)}; "
                                      f"gone: {sorted(UPWARD_IMPORTS - upward)}")
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    named = {rel.split("/", 1)[1] for rel, _ in UPWARD_IMPORTS if "/io/" not in rel}
    assert all(f"`{n}`" in page for n in named), named


def _package_env_vars() -> set[str]:
    """Environment variables the package reads (``os.environ.get("X")`` / ``os.getenv("X")`` / ``environ["X"]``;
    ``setdefault`` only sets one for a library)."""
    found = set()
    for path in (ROOT / "pref_eval").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found.update(re.findall(r"""(?:environ\.get|getenv|environ\[)\(?\s*["']([A-Z][A-Z0-9_]+)["']""", text))
    return found


def test_every_environment_variable_is_documented():
    """Every environment variable the package reads is named in README.md or docs/*.md (a user cannot find
    ``PREF_EVAL_THREADS`` in a ``--help``)."""
    found = _package_env_vars()
    assert {"PREF_EVAL_THREADS", "PREF_EVAL_PURE_PYTHON", "IR_DATASETS_HOME"} <= found, found
    text = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *PAGES])
    assert not [v for v in found if v not in text], sorted(v for v in found if v not in text)


def _click_options(module: str) -> dict[str, list]:
    """Option name -> the click options (of every subcommand) that carry it."""
    import click

    mod = __import__(f"pref_eval.cli.{module}", fromlist=["command"])
    out: dict[str, list] = {}
    for _, cmd in _leaf_commands(mod.command):
        for p in cmd.params:
            if isinstance(p, click.Option):
                for o in p.opts + p.secondary_opts:
                    out.setdefault(o, []).append(p)
    return out


DEFAULT = re.compile(r"\b[Dd]efault:? (?:`([-+]?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?|[a-zA-Z][\w,-]*)`"
                     r"|([-+]?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?))(?=[)\s;,.|]|$)")
OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def _same_default(doc: str, option) -> bool:
    d = option.default
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        try:
            return float(doc.replace(",", "")) == float(d)
        except ValueError:
            return False
    return isinstance(d, str) and doc.replace(" ", "") == d


@pytest.mark.parametrize("module", sorted(COMMAND_PAGES))
def test_defaults_on_the_command_page_are_the_options(module):
    """A "default X" on a command's page, where X is a number or a word and the nearest option named before
    it on the line is one of the command's, is that option's default (of one of the subcommands that have
    it); a default that is computed (click's None) is not compared."""
    opts = _click_options(module)
    text = (DOCS / f"{COMMAND_PAGES[module]}.md").read_text(encoding="utf-8")
    wrong, checked = [], 0
    for i, line in enumerate(text.split("\n"), 1):
        for m in DEFAULT.finditer(line):
            value = m.group(1) or m.group(2)
            named = [o for o in OPTION.findall(line[:m.start()]) if o in opts]
            if not named:
                continue
            params = [p for p in opts[named[-1]] if p.default is not None and not p.is_flag
                      and isinstance(p.default, (int, float, str))]
            if not params:
                continue
            checked += 1
            if not any(_same_default(value, p) for p in params):
                wrong.append(f"{COMMAND_PAGES[module]}.md:{i}: {named[-1]} default {value!r}, "
                             f"the option's is {[p.default for p in params]}")
    assert not wrong, "\n".join(wrong)
    assert checked or module in ("aggregate", "pairs", "simulate", "eval", "trec"), "no default found: parser?"


SCRIPT_CALL = re.compile(r"python3? ((?:bench|tools|tests)/[\w.]+\.py)([^`|;&)\"]*)")


def test_script_options_in_the_docs_exist():
    """Every ``python bench|tools|tests/X.py --flag`` in README.md and docs/*.md names a script that exists
    and a flag that the script declares (its source holds the quoted flag)."""
    bad, checked = [], 0
    for page in [ROOT / "README.md", *PAGES]:
        for i, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
            for m in SCRIPT_CALL.finditer(line):
                script = ROOT / m.group(1)
                if not script.exists():
                    bad.append(f"{page.name}:{i}: no {m.group(1)}")
                    continue
                src = script.read_text(encoding="utf-8")
                for flag in re.findall(r"(?<![\w-])--[a-zA-Z][\w-]*", m.group(2)):
                    checked += 1
                    if f'"{flag}"' not in src and f"'{flag}'" not in src:
                        bad.append(f"{page.name}:{i}: {m.group(1)} has no {flag}")
    assert checked > 40 and not bad, "\n".join(bad)


def test_long_options_in_the_docs_exist():
    """Every ``--option`` in README.md and docs/*.md is an option of one of the commands, of a script the docs
    run, or one of the other tools' options listed here (a renamed or removed option leaves no stale mention);
    zelo_trec's prefixes of trec_eval's long options (``--query_ev``, and the ambiguous ``--Re``) count."""
    from pref_eval.cli.trec import long_option_name
    from pref_eval.errors import UsageError
    from pref_eval.peer_names import IR_MEASURES_OPTIONS, RANX_KEYWORDS

    def by_prefix(o: str) -> bool:
        try:
            return long_option_name(o) != o
        except UsageError:
            return True  # an ambiguous prefix, shown refused

    known = {o for module in COMMAND_PAGES for o in _click_options(module)} | {"--help", "--version"}
    others = {"--api-key", "--parallel",  # vLLM, llama.cpp server (judging.md)
              "--host", "--port", "--nworkers", "--nthreads",  # dask scheduler / worker (dask.md)
              "--inplace", "--bogus", "--tr",  # setup.py build_ext; exit-codes' example; a completion prefix
              # ranx's keywords typed as options: refused naming ours (api.md)
              *("--" + k.replace("_", "-") for k in RANX_KEYWORDS),
              # ir-measures' command-line options: refused naming ours (zelo_eval.md)
              *(o for spellings in IR_MEASURES_OPTIONS for o in spellings)}
    scripts = "\n".join(p.read_text(encoding="utf-8") for p in [*(ROOT / "bench").glob("*.py"),
                                                                 *(ROOT / "tools").glob("*.py"),
                                                                 ROOT / "tests" / "fake_openai.py"])
    bad = []
    for page in [ROOT / "README.md", *PAGES]:
        for i, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
            for o in re.findall(r"(?<![\w/-])--[a-zA-Z][\w-]*", line):
                if o not in known and o not in others and f'"{o}"' not in scripts and not by_prefix(o):
                    bad.append(f"{page.name}:{i}: {o}")
    assert not bad, "\n".join(bad)


# docs/input-formats.md quotes these messages; each case: (file name, its bytes, which input, the quoted text).
INPUT_MESSAGES = [
    ("qrels", b"".join(b"1 0 d%d 1\n" % i for i in range(6)) + b"1 0 d9 1 x\n", "qrels",
     "qrels:7: expected 4 fields 'qid iter docno rel', found 5 fields"),
    ("dup.qrels", b"q1 0 d1 1\nq1 0 d1 1\n", "qrels", "duplicate judgment for query q1 document d1 (first at line 1)"),
    ("run", b"", "run", "zelo_trec: run: empty run file ("),
    ("no-such.run", None, "run", "no such file (expected a run file)"),
    ("a-dir", "dir", "run", "is a directory, expected a run file"),
    ("cut.gz", b"\x1f\x8b\x08\x00abc", "run", "truncated or corrupt gzip data ("),
    ("nul.run", b"1 Q0 d1 1 1 r\n1 Q0 d\x002 2 1 r\n", "run", ": a NUL byte (expected text: "),
]


def test_input_formats_messages(tmp_path):
    """The error messages docs/input-formats.md quotes are the ones zelo_trec gives (exit 2, one line each)."""
    page = (DOCS / "input-formats.md").read_text(encoding="utf-8")
    (tmp_path / "ok.qrels").write_bytes(b"1 0 d1 1\n")
    (tmp_path / "ok.run").write_bytes(b"1 Q0 d1 1 1 r\n")
    script = []
    for name, data, which, quoted in INPUT_MESSAGES:
        assert quoted in page, f"docs/input-formats.md no longer quotes {quoted!r}"
        if data == "dir":
            (tmp_path / name).mkdir()
        elif data is not None:
            (tmp_path / name).write_bytes(data)
        args = f"{name} ok.run" if which == "qrels" else f"ok.qrels {name}"
        script.append(f"{sys.executable} {ROOT / 'bin' / 'zelo_trec'} {args}; echo \"rc=$?\"")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run(["bash", "-c", "; ".join(script)], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=120)
    errors = res.stderr.splitlines()
    assert res.stdout.split() == ["rc=2"] * len(script) and len(errors) == len(script), (res.stdout, res.stderr)
    for (name, _, _, quoted), line in zip(INPUT_MESSAGES, errors, strict=True):
        assert line.startswith(f"zelo_trec: {name}") and quoted in line, (quoted, line)


def test_scc_share_figures_of_zelo_md(tmp_path):
    """docs/zelo.md's counts of queries that are not strongly connected are what the script it names prints:
    a hand-made file first (q1: a beats b, b beats c, c beats a -- one component; q2: a beats b only -- two),
    then the DL 2021 crowd judgments (../shared) of the page's first figure."""
    sys.path.insert(0, str(ROOT / "tools"))
    from scc_share import scc_share

    small = tmp_path / "j.txt"
    small.write_text("q1 a b\nq1 b c\nq1 c a\nq2 a b\n", encoding="utf-8")
    assert scc_share(str(small)) == (1, 2)
    page = (DOCS / "zelo.md").read_text(encoding="utf-8")
    k, n = scc_share(str(need_shared("data", "duelingBandits", "judgments.txt")))
    assert f"crowd judgments {k} of {n} topics are not\nstrongly connected (`python tools/scc_share.py" in page


def _doc_signatures(text: str) -> list[tuple[str, list[str]]]:
    """``(dotted name, [parameter texts])`` of every ``pref_eval.NAME(...)`` call shown in a ```python block."""
    import ast

    out = []
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        src = re.sub(r"\)\s*->[^\n#]*", ")", block)  # return annotations are not Python call syntax
        for m in re.finditer(r"^(?:\w+ = )?(pref_eval(?:\.\w+)+)\((.*?)\)\s*(?:#[^\n]*)?$", src, re.S | re.M):
            args = re.sub(r",\s*\.\.\.\s*$", ", **ELLIPSIS", m.group(2).replace("\n", " "))
            try:
                call = ast.parse(f"f({args.replace('*, ', '').replace(', *,', ',')})", mode="eval").body
            except SyntaxError:
                continue
            if not isinstance(call, ast.Call):
                continue
            params = [ast.unparse(a) for a in call.args] + [f"{k.arg}={ast.unparse(k.value)}" if k.arg else "**"
                                                           for k in call.keywords]
            out.append((m.group(1), params))
    return out


def _bench(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _flat(page: str) -> str:
    return " ".join((ROOT / page if page == "README.md" else ROOT / "docs" / page).read_text(encoding="utf-8").split())


def test_simulation_prose_quotes_the_stored_tables():
    """The figures the prose of zelo_simulate.md and zelo_simulate-ranking-bounds.md reads off the scripted tables
    (shares of the gap closed, ranges, cells reached, a table's cells quoted beside another's) are what
    ``bench/recovery_adaptive.py --prose`` and ``bench/figure3.py --prose`` compute from those tables as the docs
    store them; the prose said "0.83–0.86" and "52–73 %" where the table gives 0.854 and 0.724 (d27's and
    session 19's leftover)."""
    recovery, figure3 = _bench("recovery_adaptive"), _bench("figure3")
    phrases = recovery.prose_figures() + [("zelo_simulate.md", p) for p in figure3.prose_figures()]
    assert len(phrases) >= 40
    pages = {page: _flat(page) for page, _ in phrases}
    assert [(page, p) for page, p in phrases if p not in pages[page]] == []


@pytest.mark.slow
def test_doc_figures_that_simulate_are_the_scripts():
    """The figures of ``tools/doc_figures.py`` that run a simulation (~1.5 s CPU each) are on their pages:
    ranking-bounds said the default design's chosen pairs are "at most 3 places apart" and zelo_simulate.md that
    wider windows "change nothing: the chosen pairs are at most 3 places apart" (so they were with the old
    window of 3; the default is 6, and the pairs reach it); zelo_fit.md's SE condition on ordinary data."""
    sys.path.insert(0, str(ROOT / "tools"))
    import doc_figures

    assert doc_figures.SLOW and set(doc_figures.SLOW) <= set(doc_figures.FIGURES)
    phrases = doc_figures.figures(list(doc_figures.SLOW))
    assert [(page, p) for page, p in phrases if p not in _flat(page)] == []
    counts = doc_figures.chosen_distances(20, 1.5, 2, 0, window=2)
    assert max(counts) == 2 and sum(counts.values()) == 2 * (4 * 20 - 20 // 2)  # the window honoured, all counted


def test_doc_figures_are_the_scripts():
    """The prose figures ``tools/doc_figures.py`` prints are on their pages (zelo_pairs.md said "≈ 5–6 %" repeated
    pairs, zelo.md "1–7 nats" and "SE 0.4–1.0", judging.md "≈ 300–350 input tokens": no script printed them), and
    the repeated-pair share it derives is what ``random_cycles(dedup=True)`` skips: 300 queries of n = 50, 4
    cycles (60,000 pairs) within 4 binomial standard errors of it (0.4 points; 5 % would be 10 SE off)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import doc_figures
    from pref_eval.zelo.pairs import random_cycles

    phrases = doc_figures.figures([name for name in doc_figures.FIGURES if name not in doc_figures.SLOW])
    assert len(phrases) >= 5
    assert [(page, p) for page, p in phrases if p not in _flat(page)] == []
    n, c, queries = doc_figures.N_DOCS, doc_figures.CYCLES, 300
    given = [(f"q{i}", [f"d{j}" for j in range(n)]) for i in range(queries)]
    kept = len(random_cycles(given, c, 0, dedup=True))
    share, total = doc_figures.repeat_share(n, c), queries * n * c
    assert len(random_cycles(given[:10], c, 0)) == 10 * n * c
    assert abs((total - kept) / total - share) < 4 * (share * (1 - share) / total) ** 0.5, (total - kept, share)
    assert doc_figures.repeat_share(3, 2) == 0.5  # n = 3: one cycle holds all 3 pairs, so cycle 2 repeats them


def test_doc_figures_help(monkeypatch, capsys):
    """``tools/doc_figures.py --help`` prints its usage and the figures' names (it answered "unknown figure
    '--help'", exit 1: n30); an unknown name still exits with a one-line message."""
    sys.path.insert(0, str(ROOT / "tools"))
    import doc_figures

    monkeypatch.setattr(sys, "argv", ["doc_figures.py", "--help"])
    doc_figures.main()
    out = capsys.readouterr().out
    assert out.startswith("python tools/doc_figures.py [") and "figures: repeated-pairs" in out
    monkeypatch.setattr(sys, "argv", ["doc_figures.py", "bogus"])
    with pytest.raises(SystemExit, match="unknown figure 'bogus'"):
        doc_figures.main()


def test_tournament_top_set_size_from_the_figure3_columns():
    """``bench/figure3.py --prose`` derives the tournament table's mean top-set size from figure3's columns: (best
    items in the top set: one found + 2 × both found, + other items returned) / repetitions. On a matrix with two
    Copeland winners (0 and 1 tie, both beat the rest with p = 0.7), that is the mean of the tournament's own
    ``best_size`` (what ``zelo_simulate tournament`` prints as ``mean_best_set``), with and without a final phase."""
    import numpy as np

    from pref_eval.zelo.figure3 import summarise
    from pref_eval.zelo.simulate import copeland_winners, simulate_tournament

    K = 12
    M = np.full((K, K), 0.5)
    M[:2, 2:], M[2:, :2] = 0.7, 0.3
    assert copeland_winners(M).tolist() == [0, 1]
    for final in (False, True):
        r = simulate_tournament(M, 40, seed=3, final_phase=final)
        row = summarise("tournament", "B", r)
        assert row["both_found"] > 0 and row["one_found"] > 0
        size = (row["one_found"] + 2 * row["both_found"] + row["nonbest_returned"]) / row["reps"]
        assert size == float(np.mean(r["best_size"])), (final, size)


def test_simulation_pages_quote_no_run_time():
    """Run times typed into the simulation pages drifted from any run ("45 s" for 13 s of CPU): the scripts print
    their CPU time; the pages name the command and say so."""
    pattern = re.compile(r"\b\d[\d.,]*\s*(?:s|seconds?|minutes?|hours?|min(?!\())\b|CPU[- ]minutes")
    for page in ("zelo_simulate.md", "zelo_simulate-ranking-bounds.md"):
        prose = re.sub(r"`[^`]*`", "", _flat(page))
        assert pattern.findall(prose) == [], page


def test_api_page_signatures_are_the_functions():
    """docs/api.md's signatures: every parameter shown exists with the default shown, and a signature without
    ``...`` or ``**options`` shows every parameter (a parameter added, renamed or re-defaulted shows here)."""
    import ast
    import inspect

    import pref_eval

    wrong, checked = [], 0
    for name, params in _doc_signatures((DOCS / "api.md").read_text(encoding="utf-8")):
        obj = pref_eval
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
        sig = inspect.signature(obj)
        shown = []
        for p in params:
            if p in ("...", "Ellipsis", "**", "**options") or p.startswith("*"):
                continue
            key, _, default = p.partition("=")
            shown.append(key)
            if key not in sig.parameters:
                wrong.append(f"{name}: no parameter {key}")
            elif default:
                try:
                    value = ast.literal_eval(default)
                except ValueError:
                    continue
                if sig.parameters[key].default != value:
                    wrong.append(f"{name}: {key} defaults to {sig.parameters[key].default!r}, the page says {default}")
        checked += 1
        if not any(p in ("...", "Ellipsis", "**") or p.startswith("**") for p in params):
            wrong += [f"{name}: {k} not shown" for k in sig.parameters if k not in shown]
    import pref_eval.api as api

    for line in (DOCS / "api.md").read_text(encoding="utf-8").split("\n"):
        for name, args in re.findall(r"`(\w+)\(([^`]*?)\)`", line) if line.startswith("|") else ():
            if getattr(api, name, None) is None:
                continue
            sig = inspect.signature(getattr(api, name))
            for arg in (a.split("=")[0].strip() for a in args.split(",")):
                checked += 1
                if arg not in ("*", "...", "") and arg not in sig.parameters:
                    wrong.append(f"{name}: no parameter {arg} (the table of commands as functions)")
    assert checked >= 100 and not wrong, "\n".join(wrong)


def test_getting_started_describes_the_shipped_sample():
    """The counts docs/getting-started.md gives for the shipped files are the files' (8 topics, the grade
    histogram, 100 documents per topic and run, 278 judgments on 3 topics)."""
    from collections import Counter

    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    qrels = [ln.split() for ln in (ROOT / "qrels" / "dl19-sample.qrels").read_text().splitlines() if ln.strip()]
    grades = Counter(int(f[3]) for f in qrels)
    topics = {f[0] for f in qrels}
    hist = ", ".join(f"{grades[g]} × {g}" for g in sorted(grades))
    assert f"judgments for {len(topics)} TREC DL 2019 topics, graded 0–3 ({hist})" in page
    for run in ("bm25", "dense", "rerank"):
        per_topic = Counter(ln.split()[0] for ln in (ROOT / "runs" / f"{run}.run").read_text().splitlines())
        assert set(per_topic.values()) == {100} and set(per_topic) == topics, run
    assert "(100 documents per topic;" in page
    judged = [ln.split() for ln in (ROOT / "judgments" / "dl19-sample.judge").read_text().splitlines()
              if ln.strip() and not ln.startswith("#")]
    assert f"{len(judged)} GPT-4o pairwise judgments (`topic winner loser`) for {len({j[0] for j in judged})} of" \
           " the topics" in page


def test_dl21_sample_counts_on_the_pages():
    """The counts judging.md and zelo_agree.md give for the shipped DL 2021 sample are the file's (judging.md
    said "718 pairs": 718 judgments of 508 pairs, some judged up to six times)."""
    from collections import Counter

    lines = [ln.split() for ln in (ROOT / "judgments" / "dl21-crowd-sample.txt").read_text().splitlines()
             if ln.strip()]
    pairs = Counter((f[0], *sorted(f[1:3])) for f in lines)
    words = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    topics = words[len({f[0] for f in lines})]
    judging = " ".join((DOCS / "judging.md").read_text(encoding="utf-8").split())
    assert f"the same {len(lines)} judgments ({len(pairs)} pairs) of {topics} TREC DL 2021 topics" in judging
    assert f"names some pairs up to {words[max(pairs.values())]} times ({len(lines)} lines, {len(pairs)} pairs)" \
        in judging
    agree = " ".join((DOCS / "zelo_agree.md").read_text(encoding="utf-8").split())
    assert f"judges some pairs up to {words[max(pairs.values())]} times" in agree
    assert f"hold the same {len(lines)} judgments of {topics} TREC DL 2021 topics" in agree


@pytest.mark.parametrize("kind", ["matrix", "scores", "systems", "pairs", "calibration"])
def test_plot_size_defaults(kind):
    """docs/zelo_plot.md's "Size defaults: W × H inches" of each kind are its --width / --height defaults."""
    opts = {p.name: p.default for p in _plot_kind(kind).params}
    section = (DOCS / "zelo_plot.md").read_text(encoding="utf-8").split(f"## `{kind}`", 1)[1].split("\n## ", 1)[0]
    w, h = re.search(r"Size defaults: ([\d.]+) × ([\d.]+) inches", section).groups()
    assert (float(w), float(h)) == (opts["width"], opts["height"])


def _plot_kind(kind: str):
    from pref_eval.cli.plot import command

    return command.commands[kind]


def test_no_shared_paths_in_the_docs():
    """The docs cite public sources, never the development folder ``../shared`` (the guide's rule)."""
    bad = [f"{p.name}:{i}" for p in [ROOT / "README.md", *PAGES]
           for i, line in enumerate(p.read_text(encoding="utf-8").split("\n"), 1)
           if re.search(r"(\.\./)+shared/|/work/shared", line)]
    assert not bad, bad


def test_every_console_script_is_on_the_front_pages():
    """Every console script of setup.cfg is named in the README's command table, in docs/index.md and in
    docs/shell-completion.md (a new command is found where a user looks first)."""
    cfg = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    scripts = re.findall(r"^\s+(\w+) = pref_eval\.cli\.", cfg.split("console_scripts", 1)[1], re.M)
    assert len(scripts) >= 12, scripts
    for name in ("README.md", "docs/index.md", "docs/shell-completion.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert not [s for s in scripts if f"`{s}`" not in text], (name, [s for s in scripts if f"`{s}`" not in text])


# the operating system's and SQLite's reasons, which messages quote after "cannot write: " and the like
FOREIGN_TEXTS = ("Is a directory", "No space left on device", "database or disk is full", "Not a directory",
                 "Permission denied", "No such file or directory")
COMMAND_NAMES = "|".join(sorted({*COMMAND_PAGES.values(), "zelo"}, key=len, reverse=True))


def _message_fragments(span: str) -> list[str]:
    """The fixed pieces (>= 14 characters, with a space) of a message quoted in the docs: the text between
    its placeholders (FILE, N, '…', quoted values, numbers, bracketed details, a leading file name) and
    foreign reasons."""
    for foreign in FOREIGN_TEXTS:
        span = span.replace(foreign, "…")
    span = re.sub(r"^[\w-]+\.\w+ ", "", span)  # a file named first: "S.sqlite is in use ..."
    pieces = re.split(r"…|\.\.\.|\b[A-Z]+\b|\b0x[0-9a-f]+\b|\b\d+\b|'[^']*'|\"[^\"]*\"|\([^)]*\)|\{[^}]*\}", span)
    return [p.strip(" :;,") for p in pieces if len(p.strip(" :;,")) >= 14 and " " in p.strip()]


def test_quoted_messages_exist_in_the_code():
    """A message the docs quote in backticks (``PROG: FILE:LINE: text`` or ``FILE:LINE: text``) has each of
    its fixed pieces in the package's source: a reworded message leaves no stale quote behind."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "pref_eval").rglob("*.py"))
    stale, checked = [], 0
    for page in [ROOT / "README.md", *PAGES]:
        for i, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
            for span in re.findall(rf"`((?:(?:{COMMAND_NAMES})(?: \w+)?: )?[^`]{{15,}})`", line):
                body = re.sub(rf"^(?:{COMMAND_NAMES})(?: \w+)?: ", "", span)
                body2 = re.sub(r"^[\w./<>*-]+(?::\d+|:LINE)?: ", "", body)
                if body == span and body2 == body:
                    continue  # neither a program's nor a file's message: a command line, a name, a formula
                for piece in _message_fragments(body2):
                    checked += 1
                    if piece not in source:
                        stale.append(f"{page.name}:{i}: {piece!r}")
    assert checked >= 10 and not stale, "\n".join(stale)


def test_fit_memory_figures_are_the_scripts():
    """docs/zelo_fit.md's peak-memory sentence sits between the markers that bench/bench_fit_memory.py
    --write replaces, in the form the script writes, naming the script's command (not typed by hand)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_fit_memory import BEGIN, END

    page = (DOCS / "zelo_fit.md").read_text(encoding="utf-8")
    assert page.count(BEGIN) == 1 and page.count(END) == 1
    text = page.split(BEGIN, 1)[1].split(END, 1)[0]
    form = (r"on [\d.]+ M judgments the peak is \d+ MB with `-o FILE` and \d+ MB with `-o -`, the same bytes "
            r"\(measured \d{4}-\d\d-\d\d \(UTC\) on .*: `python bench/bench_fit_memory\.py`\)")
    assert re.fullmatch(form, text), text


def test_exit_codes_page_states_the_message_limit():
    """docs/exit-codes.md's figures of a shortened message are pref_eval.errors' (limit, head, tail)."""
    from pref_eval.errors import MESSAGE_LIMIT, shortened

    page = (DOCS / "exit-codes.md").read_text(encoding="utf-8")
    text = "x" * 1000
    head, tail = shortened(text).split(" … [")[0], shortened(text).split("] … ")[1]
    assert (f"longer than {MESSAGE_LIMIT} characters" in page
            and f"its first {len(head)} and last {len(tail)} characters" in page), (MESSAGE_LIMIT, len(head), len(tail))


def test_design_constants_in_the_docs():
    """Sizes the docs state in prose are the code's constants (a constant changed leaves no stale figure)."""
    from pref_eval.io import fastparse, judgments, pref_jsonl, runs, tokenize
    from pref_eval.judge.scheduler import OUT_TOKENS_ESTIMATE
    from pref_eval.parallel import PROBE_SECONDS
    from pref_eval.zelo.state_lock import state_lock
    from pref_eval.zelo import fit

    mb = 1 << 20
    lock_wait = inspect.signature(state_lock.__wrapped__).parameters["wait"].default
    expected = {
        "input-formats.md": [f"a run file of at most {runs.COMPILED_MAX // mb} MB",
                             f"a field longer than {tokenize.MAX_FIELD >> 10} KiB, or a column that would need more "
                             f"than {tokenize.column_budget(1 << 40) >> 40} × the file",
                             f"(at least {tokenize.MIN_BUDGET // mb} MB)",
                             f"one under {fastparse.PYARROW_MIN // mb} MB",
                             f"in {fastparse.BLOCK // mb} MB blocks", f"An input over {fastparse.SPLIT_MIN // mb} MB",
                             f"vectorised numpy, {tokenize.CHUNK // mb} MB chunks"],
        "zelo_fit.md": [f"at most about {fit.SERIAL_BLOCK_JUDGMENTS:,} judgments a block; "
                        f"{fit.BLOCK_JUDGMENTS:,} with `--jobs`/`--scheduler`",
                        f"a fit of at least {2 * fit.THREAD_JUDGMENTS:,} judgments",
                        f"at least {fit.THREAD_JUDGMENTS:,}, a multiple of N blocks",
                        f"larger than {judgments.STREAM_CHUNK // mb} MB "
                        f"(read in {judgments.STREAM_CHUNK // mb} MB parts)"],
        "pref_aggregate.md": [f"one JSON document per {pref_jsonl.CHUNK_BYTES // mb} MB block"],
        "judging.md": [f"(prompt characters / 4 in, {OUT_TOKENS_ESTIMATE} out per request)"],
        "zelo_pairs.md": [f"the second waits (up to {lock_wait:g} s, then it is refused"],
        "dask.md": [f"one per {fit.BLOCK_JUDGMENTS:,} judgments", f"no TCP\nanswer within {PROBE_SECONDS:g} s"],
    }
    missing = [(page, text) for page, texts in expected.items() for text in texts
               if text not in (DOCS / page).read_text(encoding="utf-8")]
    assert not missing, missing


def test_api_page_names_every_public_name():
    """Every name ``pref_eval.api`` exports (``__all__``) is named on docs/api.md (in backticks or as
    ``pref_eval.NAME``)."""
    import pref_eval.api as api

    page = (DOCS / "api.md").read_text(encoding="utf-8")
    missing = [n for n in api.__all__ if not re.search(rf"(?:`|pref_eval\.|pref_eval\.api\.){n}\b", page)]
    assert not missing, missing
