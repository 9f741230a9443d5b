"""The documentation builds with `mkdocs build --strict`, and every shell example runs.

Convention for docs/*.md: a fenced block marked ```sh is run with `bash -e`
(exit status 0 required); ```console and ```text blocks are not run. The
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

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")


def shell_blocks(text: str) -> list[tuple[int, str]]:
    """``(line of the opening fence, code)`` of every ```sh block (info string ``sh``)."""
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
        if info.split()[:1] == ["sh"]:
            out.append((start, "\n".join(body) + "\n"))
    return out


PAGES = sorted(DOCS.glob("*.md"))


def test_shell_block_parser():
    text = "x\n```sh\necho a\n```\n\n- item\n\n    ```sh\n    echo b\n    ```\n```console\n$ no\n```\n```text\nno\n```\n"
    assert shell_blocks(text) == [(2, "echo a\n"), (8, "echo b\n")]  # line of the opening fence


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


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_shell_examples_run(page, tmp_path):
    blocks = shell_blocks(page.read_text(encoding="utf-8"))
    if not blocks:
        pytest.skip("no ```sh blocks")
    have_mpl = importlib.util.find_spec("matplotlib") is not None
    work = scratch_root(tmp_path)
    env = {**os.environ, "PATH": f"{ROOT / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "PYTHON": sys.executable}
    skipped = 0
    for line, code in blocks:
        if not have_mpl and "zelo_plot" in code:
            skipped += 1
            continue
        res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], capture_output=True, text=True,
                             cwd=work, env=env, timeout=300)
        assert res.returncode == 0, (f"{page.name}:{line}: block exited {res.returncode}\n--- block\n{code}"
                                     f"--- stdout (tail)\n{res.stdout[-2000:]}--- stderr\n{res.stderr[-3000:]}")
    if skipped:
        pytest.skip(f"{skipped} block(s) need matplotlib (pip install 'pref_eval[plot]')")
