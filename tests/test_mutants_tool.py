"""tools/mutants.py: which mutants it lists (the run itself takes minutes a mutant: NOTES.md, session 28, c38)."""
from __future__ import annotations

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import mutants  # noqa: E402

SOURCE = '''import os
from math import floor


def f(x: int | None, y: list[int] = []) -> bool:
    if x is None:
        raise ValueError("x < 0")
    log.warn(f"{x + 1}")
    return x < 2 and floor(x * 0.5) in y


assert f(1)
'''


def test_the_mutants_of_a_small_source(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    got = {(m["line"], m["old"], m["new"]) for m in mutants.generate(str(tmp_path), ["m.py"])}
    assert got == {(6, "is", "is not"), (9, "<", "<="), (9, "2", "3"), (9, "2", "1"), (9, "2", "0"),
                   (9, "and", "or"), (9, "floor", "ceil"), (9, "*", "/"), (9, "0.5", "1.0"), (9, "0.5", "0.0"),
                   (9, "in", "not in")}  # not the annotations (|), the raise, the import, log.warn, the assert


def test_a_line_range_and_the_mutant_applied(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    ms = mutants.generate(str(tmp_path), ["m.py:6-6"])
    assert [(m["line"], m["old"], m["new"], m["id"]) for m in ms] == [(6, "is", "is not", 0)]
    assert mutants.apply(SOURCE, ms[0]).splitlines()[5] == "    if x is not None:"
    with pytest.raises(SystemExit, match="the file changed"):
        mutants.apply(SOURCE.replace("    if x", "    if  x"), ms[0])
