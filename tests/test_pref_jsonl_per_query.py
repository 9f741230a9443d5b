"""pref_eval.py's JSON lines (``pref_eval.py -q``, ``zelo_eval -q`` default ``-o pref``) as a per-query file.

Session 25 (v35, a pref_eval.py user's trial): ``zelo_compare -P prefs.jsonl`` on the file ``pref_eval.py -q``
writes (and ``zelo_eval -q`` writes by default) said only ``prefs.jsonl:1: missing key(s) measure, value``. The
file holds the per-query values, a key per measure: preference lines ``{"qid", "runi", "runj", "sample", "type":
"preference", <measure>: value...}`` and metric lines ``{"qid", "run", ..., "type": "metric", ...}``; summary
lines ``"qid": "all"`` are left out as in the long tables. A preference line also holds each metric's difference:
the metric lines hold the values, so a metric is tested as in ``-o tsv`` (runs paired), a preference measure as
the per-query preferences against 0.

Oracle: pref_eval.py's own output (HEAD 28d7bd3 run live, stored in tests/data/pref_eval_ref/medium/params.jsonl
by run_reference.sh), read here with ``json`` and tested with scipy's ``ttest_1samp`` / ``ttest_rel``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from cli_harness import run_module_inproc

REF = Path(__file__).parent / "data" / "pref_eval_ref" / "medium" / "params.jsonl"


def _lines() -> list[dict]:
    return [json.loads(ln) for ln in REF.read_text().splitlines() if ln.strip()]


def _records(args: list[str], cwd: Path | str = ".") -> list[dict]:
    res = run_module_inproc("compare", [*args, "--tests", "t", "-o", "jsonl", "-Q"], cwd=cwd)
    assert res.returncode == 0, res.stderr
    return [json.loads(ln) for ln in res.stdout.splitlines()]


@pytest.mark.parametrize("measure", ["rpp", "sgnLP", "rrLP"])
def test_preference_measure_against_scipy(measure: str) -> None:
    values: dict[tuple[str, str], list[float]] = {}
    for o in _lines():
        if o.get("type") == "preference":
            values.setdefault((o["runi"], o["runj"]), []).append(float(o[measure]))
    recs = _records(["-P", str(REF), "-m", measure])
    assert len(recs) == len(values) == 15
    for r in recs:
        v = values[(r["run_a"], r["run_b"])]
        want = stats.ttest_1samp(v, 0.0)
        assert r["n_queries"] == len(v)
        assert r["mean_diff"] == pytest.approx(sum(v) / len(v), rel=1e-9)
        assert r["p_value"] == pytest.approx(float(want.pvalue), rel=1e-9)


def test_metric_against_scipy_and_summaries_left_out() -> None:
    per_run: dict[str, dict[str, float]] = {}
    for o in _lines():
        if o.get("type") == "metric":
            per_run.setdefault(o["run"], {})[o["qid"]] = float(o["ap@5"])
    recs = _records(["-P", str(REF), "-m", "ap@5"])
    assert len(recs) == 15
    for r in recs:
        a, b = per_run[r["run_a"]], per_run[r["run_b"]]
        qids = sorted(a)
        assert r["n_queries"] == len(qids) == 14  # the "all" lines are not a query
        want = stats.ttest_rel([a[q] for q in qids], [b[q] for q in qids])
        assert r["p_value"] == pytest.approx(float(want.pvalue), rel=1e-9)


def test_several_samples_refused(tmp_path: Path) -> None:
    lines = REF.read_text().splitlines()
    other = json.loads(lines[0])
    other["sample"] = 1
    (tmp_path / "p.jsonl").write_text("\n".join([*lines, json.dumps(other)]) + "\n")
    res = run_module_inproc("compare", ["-P", "p.jsonl", "-m", "rpp", "-Q"], cwd=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert f"p.jsonl:{len(lines) + 1}: rows of more than one sample" in res.stderr
