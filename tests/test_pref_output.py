"""The bulk JSON literal formatting of pref_eval's output equals Python's ``repr`` / ``json.dumps``."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from pref_eval.preferences.output import _literals


def _values() -> np.ndarray:
    rng = np.random.default_rng(7)
    e = rng.uniform(-30, 30, 20000)
    edge = [0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, 100.0, 1e15, 1e16, 1.2345678901234567e16, 1e-4, -1e-4,
            np.nextafter(1e-4, 0), np.nextafter(1e16, 0), 5e-324, 1.7976931348623157e308, float("nan"),
            float("inf"), -float("inf")]
    return np.concatenate([10.0 ** e * rng.choice([-1, 1], e.size), rng.random(20000) - 0.5,
                           rng.integers(-1000, 1000, 5000) / rng.integers(1, 97, 5000), edge])


def _expected(vals, pre="", post=""):
    return [pre + (json.dumps(v) if np.isfinite(v) else repr(v)) + post for v in vals.tolist()]


@pytest.mark.parametrize("orjson_off", [False, True])
def test_float_literals_equal_repr(monkeypatch, orjson_off):
    if orjson_off:
        monkeypatch.setitem(sys.modules, "orjson", None)  # import fails -> repr path
    v = _values()
    assert _literals(v) == _expected(v)
    assert _literals(v[:350].reshape(-1, 7).T, pre=', "ap": ', post="}\n") == \
        _expected(v[:350].reshape(-1, 7).T.ravel(), ', "ap": ', "}\n")


def test_int_literals_and_ties():
    v = np.array([[-1, 0, 1], [1, 1, -1]], dtype=np.int64)
    assert _literals(v, pre="<", post=">") == ["<-1>", "<0>", "<1>", "<1>", "<1>", "<-1>"]
    f = np.array([0.25, 0.0, -0.0])
    assert _literals(f, ties=np.array([False, True, False])) == ["0.25", "0", "-0.0"]
