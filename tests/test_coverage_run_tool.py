"""tools/coverage_run.py: the parts that run without coverage installed (the whole run takes an hour: NOTES.md,
session 26, v36)."""
from __future__ import annotations

import subprocess
import sys
import types

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import coverage_run  # noqa: E402


def test_missed_lines_are_shown_as_ranges():
    assert coverage_run._ranges([3, 4, 5, 9, 11, 12]) == "3-5 9 11-12"
    assert coverage_run._ranges([]) == ""


def test_the_plugin_saves_the_current_coverage_and_is_quiet_without_one(monkeypatch):
    """Each pytest process saves its data when its session ends (an xdist worker ended by execnet's os._exit
    never reaches coverage's atexit save); without coverage, or with none started, the hook does nothing."""
    saved = []
    current = types.SimpleNamespace(save=lambda: saved.append(1))
    fake = types.SimpleNamespace(Coverage=types.SimpleNamespace(current=lambda: current))
    monkeypatch.setitem(sys.modules, "coverage", fake)
    coverage_run.pytest_sessionfinish(None, 0)
    assert saved == [1]
    fake.Coverage.current = lambda: None
    coverage_run.pytest_sessionfinish(None, 0)
    assert saved == [1]
    monkeypatch.setitem(sys.modules, "coverage", None)  # not installed: ``import coverage`` raises ImportError
    coverage_run.pytest_sessionfinish(None, 0)


def test_an_unknown_step_is_refused(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "coverage_run.py"), "--out", str(tmp_path),
                        "--steps", "default,fast"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.splitlines()[-1].endswith("--steps: default or slow, not 'default,fast'")
    assert list(tmp_path.iterdir()) == []  # refused before the virtual environment is made
