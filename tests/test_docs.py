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
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT  # noqa: E402
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


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_shell_examples_run(page, tmp_path):
    """Every block of every page, but the ``LONG_BLOCKS`` (``test_shell_examples_run_long`` runs each page that
    has some whole, every block in order)."""
    _run_page(page, tmp_path, with_long=False)


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(LONG_BLOCKS))
def test_shell_examples_run_long(page, tmp_path):
    _run_page(DOCS / page, tmp_path, with_long=True)


def _run_page(page: Path, tmp_path: Path, with_long: bool) -> None:
    blocks = shell_blocks(page.read_text(encoding="utf-8"), ("sh", "console"))
    if not with_long:
        blocks = [b for b in blocks if not _is_long(page, b[2])]
    if not blocks:
        pytest.skip("no ```sh or ```console blocks")
    have_mpl = importlib.util.find_spec("matplotlib") is not None
    work = scratch_root(tmp_path)
    env = {**os.environ, "PATH": f"{ROOT / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "PYTHON": sys.executable}
    skipped = 0
    for line, kind, code in blocks:
        if not have_mpl and "zelo_plot" in code:
            skipped += 1
            continue
        steps = [(code, None)] if kind == "sh" else console_commands(code)
        for cmd, expected in steps:
            res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], capture_output=True, text=True,
                                 cwd=work, env=env, timeout=300)
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
    subcommand) appears on the command's page, by its long or short name."""
    import click

    mod = __import__(f"pref_eval.cli.{module}", fromlist=["command"])
    text = (DOCS / f"{COMMAND_PAGES[module]}.md").read_text(encoding="utf-8")
    missing = []
    for sub, cmd in _leaf_commands(mod.command):
        for p in cmd.params:
            if not isinstance(p, click.Option) or p.hidden:
                continue
            if not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text) for o in p.opts):
                missing.append(f"{sub} {'/'.join(p.opts)}".strip())
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
