"""tools/cpu_kinds.py: the comparison of two outputs it prints."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("cpu_kinds_tool", ROOT / "tools" / "cpu_kinds.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_max_rel_diff():
    f = _tool().max_rel_diff
    a = b"q\td1\t0.9611862348702751\t-1.5e-3\n"
    assert f(a, a) == 0.0
    b = b"q\td1\t0.9611862348702752\t-1.5e-3\n"
    assert 1e-16 < f(a, b) < 2e-16  # one unit in the last place of 0.96...
    assert f(a, b"q\td2\t0.9611862348702751\t-1.5e-3\n") is None  # other text
    assert f(a, b"q\td1\t0.9611862348702751\n") is None  # other count of numbers
    assert f(b"x 2.0", b"x -2.0") == 2.0


def test_settings_name_their_variables():
    s = _tool().SETTINGS
    assert {k for env in s.values() for k in env} == {"OPENBLAS_CORETYPE", "GLIBC_TUNABLES", "NPY_DISABLE_CPU_FEATURES"}
