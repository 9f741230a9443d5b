"""The bulk JSON literal formatting of pref_eval's output equals Python's ``repr`` / ``json.dumps``."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pref_eval.output.preferences import _literals


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


@pytest.mark.parametrize("orjson_min", [0, None])  # 0: orjson formats every array; None: the shipped threshold
@pytest.mark.parametrize("orjson_off", [False, True])
def test_float_literals_equal_repr(monkeypatch, orjson_off, orjson_min):
    from pref_eval.output import preferences as output

    if orjson_off:
        monkeypatch.setitem(sys.modules, "orjson", None)  # import fails -> repr path
    if orjson_min is not None:
        monkeypatch.setattr(output, "ORJSON_MIN", orjson_min)
    v = _values()
    assert _literals(v) == _expected(v)
    assert _literals(v[:350].reshape(-1, 7).T, pre=', "ap": ', post="}\n") == \
        _expected(v[:350].reshape(-1, 7).T.ravel(), ', "ap": ', "}\n")


def test_orjson_once_loaded_formats_smaller_arrays(monkeypatch):
    """Below ORJSON_MIN, an array is formatted by orjson once orjson is loaded (ORJSON_MIN_LOADED), by repr before:
    the same texts either way (the DL-shape output: ~13,700 floats a call, 1.5 M in all)."""
    pytest.importorskip("orjson")
    from pref_eval.output import preferences as output

    v = _values()[-3000:]  # the edge values included
    assert output.ORJSON_MIN_LOADED <= len(v) < output.ORJSON_MIN
    calls = []
    real = sys.modules["orjson"].dumps
    monkeypatch.setattr(sys.modules["orjson"], "dumps", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert _literals(v) == _expected(v)
    assert calls  # orjson did the formatting
    monkeypatch.delitem(sys.modules, "orjson")  # not loaded: repr, no import
    calls.clear()
    assert _literals(v) == _expected(v)
    assert not calls and "orjson" not in sys.modules

def test_int_literals_and_ties():
    v = np.array([[-1, 0, 1], [1, 1, -1]], dtype=np.int64)
    assert _literals(v, pre="<", post=">") == ["<-1>", "<0>", "<1>", "<1>", "<1>", "<-1>"]
    f = np.array([0.25, 0.0, -0.0])
    assert _literals(f, ties=np.array([False, True, False])) == ["0.25", "0", "-0.0"]


def _naive_lines(res, per_query=True, summary=True):
    """pref_eval.py's own way: one json.dumps per line, values as Python ints/floats (tie -> int 0)."""
    out = []
    keys = [m.key for m in res.measures]
    mkeys = [m.key for m in res.measures if m.is_metric]

    def val(k, p, q):
        v = res.pair_values(k)[p, q]
        if k in res.ties and res.ties[k][p, q]:
            return 0
        return int(v) if res.pair_values(k).dtype.kind == "i" else float(v)

    if per_query:
        for q, qid in enumerate(res.qids):
            for i, run in enumerate(res.runs):
                for p in np.flatnonzero(i == res.run_i):
                    d = {"qid": qid, "runi": run, "runj": res.runs[res.run_j[p]], "sample": res.sample,
                         "type": "preference"}
                    d.update({k: val(k, p, q) for k in keys})
                    out.append(json.dumps(d) + "\n")
                if mkeys:
                    d = {"qid": qid, "run": run, "sample": res.sample, "type": "metric"}
                    d.update({k: float(res.metrics[k][i, q]) for k in mkeys})
                    out.append(json.dumps(d) + "\n")
    if summary:
        from pref_eval.output.preferences import summary_means

        for p in range(len(res.run_i)):
            d = {"qid": "all", "runi": res.runs[res.run_i[p]], "runj": res.runs[res.run_j[p]], "sample": res.sample}
            d.update({k: float(summary_means(res.pair_values(k), res.qids)[p]) for k in keys})
            out.append(json.dumps(d) + "\n")
    return "".join(out)


def _compiled_or_skip(monkeypatch, compiled: bool) -> None:
    """Python path (PREF_EVAL_PURE_PYTHON=1) or the compiled kernels' pref_lines (skip when not built)."""
    from pref_eval.native import kernels

    if not compiled:
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    elif kernels() is None or not hasattr(kernels(), "pref_lines"):
        pytest.skip("compiled kernels not built")


@pytest.mark.parametrize("orjson_min", [0, None])
@pytest.mark.parametrize("orjson_off", [False, True])
@pytest.mark.parametrize("reference", [None, 2])
@pytest.mark.parametrize("compiled", [False, True])
def test_json_lines_equal_json_dumps_per_line(monkeypatch, orjson_off, reference, orjson_min, compiled):
    """Bulk writer (coded low-cardinality columns, merged pieces, blocks of queries; or the compiled
    kernels' lines) vs json.dumps."""
    from pref_eval.output import preferences as output
    from pref_eval.run_preferences.evaluate import PrefResult
    from pref_eval.run_preferences.names import resolve
    from pref_eval.run_preferences.pairwise import pairs_of

    if compiled and orjson_min is not None:
        pytest.skip("the compiled lines have no orjson threshold")
    _compiled_or_skip(monkeypatch, compiled)
    monkeypatch.setattr(output, "CHUNK_LINES", 200)  # several blocks
    if orjson_off:
        monkeypatch.setitem(sys.modules, "orjson", None)
    if orjson_min is not None:
        monkeypatch.setattr(output, "ORJSON_MIN", orjson_min)
    monkeypatch.setattr(output, "CHUNK_PIECES", 5000)  # several blocks
    rng = np.random.default_rng(5)
    R, nq = 9, 23
    run_i, run_j = pairs_of(R, reference)
    P = len(run_i)
    measures = resolve(["rpp", "lexirecall", "sgnLP", "rrLP", "ap", "p@10", "r@1", "rr", "ndcg"], None)
    res = PrefResult(qids=[f"q{k}" if k % 5 else f'q"{k}\\é' for k in range(nq)], runs=[f"run {r}" for r in range(R)],
                     run_i=run_i, run_j=run_j, measures=measures)
    few = np.array([0.0, -0.0, 0.5, 1e-5, -1 / 3, 2.5e-300, 1e17])
    res.prefs["rpp"] = rng.choice(few, (P, nq))                         # few distinct, odd notations
    res.prefs["lexirecall"] = rng.integers(-1, 2, (P, nq))
    res.prefs["sgnLP"] = rng.integers(-1, 2, (P, nq))
    rr = rng.choice([0.0, 0.5, -0.25, 1 / 7, -0.0], (P, nq))
    res.prefs["rrLP"] = rr
    res.ties["rrLP"] = (rr == 0) & (rng.random((P, nq)) < 0.5)
    for k in ("ap", "ndcg"):                                             # many distinct
        m = rng.random((R, nq)) * 10.0 ** rng.integers(-6, 2, (R, nq))
        res.metrics[k] = m
        res.diffs[k] = m[run_i] - m[run_j]
    for k in ("p@10", "r@1", "rr"):
        m = rng.integers(0, 11, (R, nq)) / 10.0
        res.metrics[k] = m
        res.diffs[k] = m[run_i] - m[run_j]
    got = "".join(output.pref_json_lines(res, per_query=True, summary=True))
    assert got == _naive_lines(res)
    assert res.I is res.run_i and res.J is res.run_j  # the former field names still read


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_json_str_equals_json_dumps(s):
    """The writer's quoting of names and query ids (no json import on the common path) = json.dumps."""
    from pref_eval.output.json_text import json_str

    assert json_str(s) == json.dumps(s)
    for t in ("run 1", "q\x7f", 'a"b', "a\\b", "é", "\t", "~ !", ""):
        assert json_str(t) == json.dumps(t)


HARD = [0.0, -0.0, 1e-7, 0.1 + 0.2, 5e-324, -5e-324, 1e16, -1e16, 1e16 - 2, 1e22, 1e23, 123456789.0, 1e-3,
        np.nextafter(1e-3, 0), 1e-4, np.nextafter(1e-4, 0), 0.5, 1 / 3, -2 / 3, 1.7976931348623157e308,
        2.2250738585072014e-308, 9007199254740993.0, float("nan"), float("inf"), -float("inf"), 1.0, -1.0, 100.0]


@pytest.mark.parametrize("orjson_off", [False, True])
@pytest.mark.parametrize("shape", ["all", "no_metrics", "only_metrics", "no_measures"])
def test_compiled_lines_equal_python_lines(monkeypatch, shape, orjson_off):
    """``_kernels.pref_lines`` writes the Python path's text: hard floats (repr's notations, both zeros,
    subnormals, nan/inf), ties as 0, int64 columns beyond 32 bits, escaped names; several blocks; with
    orjson's texts (1e-4 <= |x| < 1e16) or without orjson (repr in C for all)."""
    from pref_eval.output import preferences as output
    from pref_eval.run_preferences.evaluate import PrefResult
    from pref_eval.run_preferences.names import resolve
    from pref_eval.run_preferences.pairwise import pairs_of

    _compiled_or_skip(monkeypatch, True)
    if orjson_off:
        monkeypatch.setitem(sys.modules, "orjson", None)
    else:  # orjson's texts whatever the size (the shipped thresholds: see _compiled_lines)
        monkeypatch.setattr(output, "ORJSON_MIN", 0)
        monkeypatch.setattr(output, "ORJSON_MIN_LOADED", 0)
    used = []
    real = output._orjson_dumps
    monkeypatch.setattr(output, "_orjson_dumps", lambda: used.append(1) or real())
    rng = np.random.default_rng(11)
    R, nq = 5, 13
    run_i, run_j = pairs_of(R, None)
    P = len(run_i)
    names = {"all": ["rpp", "lexirecall", "rrLP", "ap", "ndcg"], "no_metrics": ["rpp", "sgnLP", "rrLP"],
             "only_metrics": ["ap", "ndcg"], "no_measures": ["ap"]}[shape]
    res = PrefResult(qids=[f"q{k}" if k % 4 else f"q\u00e9\t{k}" for k in range(nq)],
                     runs=[f"r{r}" if r else 'r"0' for r in range(R)], run_i=run_i, run_j=run_j,
                     measures=resolve(names, None))
    hard = np.concatenate([HARD, _values()[::97]])
    res.prefs["rpp"] = rng.choice(hard, (P, nq))
    res.prefs["lexirecall"] = rng.choice([-1, 0, 1, 2**40, -(2**62)], (P, nq))
    res.prefs["sgnLP"] = rng.integers(-1, 2, (P, nq))
    rr = rng.choice(hard, (P, nq))
    res.prefs["rrLP"] = rr
    res.ties["rrLP"] = rng.random((P, nq)) < 0.3
    for k in ("ap", "ndcg"):
        m = np.where(rng.random((R, nq)) < 0.5, rng.choice(hard, (R, nq)), rng.random((R, nq)))
        res.metrics[k] = m
        res.diffs[k] = m[run_i] - m[run_j]
    if shape == "no_measures":  # preference lines with no value: '..."type": "preference"}'
        res.measures = []
    monkeypatch.setattr(output, "CHUNK_LINES", 37)
    got = list(output.pref_json_lines(res, per_query=True, summary=False))
    assert bool(used) == (not orjson_off)
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    want = list(output.pref_json_lines(res, per_query=True, summary=False))
    assert "".join(got) == "".join(want)
    assert len(got) > 1 or not want
