"""zbench's measures undefined on a query (NaN) in a paired comparison (session 30, f40; f39's leftover):
``zelo_compare -R ANN`` (and ``zelo_plot systems|pairs -R``) whose annotated query holds no document ended with
``per-query table: value nan of run 'rd.jsonl', query ..., measure 'zndcg@10' is not a finite number`` (exit 2,
naming a run, not the file). Now such values are left out of the comparison, as zelo_eval leaves them out of its
means, with a warning naming the file and line (a query without documents) or the measure, runs and queries.
Oracles: the same comparison of the file without that query's line (metamorphic: "left out" means exactly that),
and scipy's ``ttest_rel`` on the per-query values zelo_eval prints for the defined queries."""
from __future__ import annotations

import json

import pytest

from cli_harness import check_contract, run_inproc


def _ann(ws, drop: bool):
    lines = (ws / "ann.jsonl").read_text().splitlines()
    rec = json.loads(lines[2])
    qid = rec["query"]["id"]
    if drop:
        del lines[2]
    else:
        rec["documents"] = []
        lines[2] = json.dumps(rec)
    (ws / "a.jsonl").write_text("\n".join(lines) + "\n")
    return qid


@pytest.mark.parametrize("script, argv", [
    ("zelo_compare", ["-R", "a.jsonl", "-m", "zndcg@10", "-m", "zacc", "--tests", "t", "-o", "jsonl", "rd.jsonl",
                      "rr.jsonl"]),
    ("zelo_plot", ["systems", "-R", "a.jsonl", "-m", "zndcg@10", "rd.jsonl", "rr.jsonl", "-o", "p.svg"]),
], ids=["compare", "plot"])
def test_a_query_without_documents_is_left_out(ws, script, argv):
    if script == "zelo_plot":
        pytest.importorskip("matplotlib")
    qid = _ann(ws, drop=False)
    res = run_inproc(script, argv, ws)
    assert check_contract(res, script=script, expect={0}) == [], res.stderr
    assert (f"{script}: warning: a.jsonl:3: query '{qid}' holds no document (\"documents\": []): every measure is "
            "undefined on it, and it is left out of the comparison (zelo_eval leaves it out of its means)") \
        in res.stderr.splitlines()
    out = res.stdout if script == "zelo_compare" else (ws / "p.svg").read_bytes()
    _ann(ws, drop=True)
    again = run_inproc(script, argv, ws)
    assert again.returncode == 0
    assert out == (again.stdout if script == "zelo_compare" else (ws / "p.svg").read_bytes())


def test_against_scipy(ws):
    """The t-test of the defined queries: scipy's ttest_rel on zelo_eval's per-query values without the NaN."""
    scipy_stats = pytest.importorskip("scipy.stats")
    qid = _ann(ws, drop=False)
    per = run_inproc("zelo_eval", ["-R", "a.jsonl", "-q", "-m", "zndcg@10", "-o", "tsv", "-Q", "rd.jsonl", "rr.jsonl"],
                     ws)
    vals: dict[str, dict[str, float]] = {}
    for line in per.stdout.decode().splitlines()[1:]:
        run, q, _, v = line.split("\t")
        if q != "all":
            vals.setdefault(run, {})[q] = float(v)
    assert vals["rd.jsonl"][qid] != vals["rd.jsonl"][qid]  # NaN in zelo_eval's table
    qs = [q for q in vals["rd.jsonl"] if q != qid]
    res = run_inproc("zelo_compare", ["-R", "a.jsonl", "-m", "zndcg@10", "--tests", "t", "-o", "jsonl", "-Q",
                                      "rd.jsonl", "rr.jsonl"], ws)
    assert res.returncode == 0, res.stderr
    rec = json.loads(res.stdout.decode().splitlines()[0])
    want = scipy_stats.ttest_rel([vals[rec["run_a"]][q] for q in qs], [vals[rec["run_b"]][q] for q in qs])
    assert rec["n_queries"] == len(qs) == 7
    assert rec["p_value"] == pytest.approx(float(want.pvalue), rel=1e-9)


def test_a_measure_undefined_for_one_run(ws):
    """zacc of a run with one scored document on a query is undefined for that run only: named per measure, the
    query left out of that measure's comparison (the other measure keeps it)."""
    lines = (ws / "rd.jsonl").read_text().splitlines()
    rec = json.loads(lines[1])
    rec["documents"] = rec["documents"][:1]
    lines[1] = json.dumps(rec)
    (ws / "one.jsonl").write_text("\n".join(lines) + "\n")
    res = run_inproc("zelo_compare", ["-R", "ann.jsonl", "-m", "zacc", "-m", "zndcg@10", "--tests", "t",
                                      "-o", "jsonl", "one.jsonl", "rr.jsonl"], ws)
    assert check_contract(res, script="zelo_compare", expect={0}) == [], res.stderr
    assert (f"zelo_compare: warning: zacc is undefined (nan) for 1 (run, query) pair(s) against ann.jsonl (one.jsonl "
            f"on {rec['query']['id']}): left out of the comparison, as zelo_eval leaves them out of its means (zacc "
            "needs two of the run's documents with different zELO scores, zndcg and zrecall one)") \
        in res.stderr.splitlines()
    n = {json.loads(x)["measure"]: json.loads(x)["n_queries"] for x in res.stdout.decode().splitlines()}
    assert n == {"zacc": 7, "zndcg@10": 8}


def test_a_run_with_no_defined_value_is_refused(ws):
    """A run whose every value is undefined (its one document has no zELO score) would leave the comparison
    silently ("need at least two runs"): named instead."""
    lines = (ws / "bm25.run").read_text().splitlines()
    one = [x for x in lines if x.split()[0] == "1037798"][:1] + [x for x in lines if x.split()[0] != "1037798"]
    (ws / "one.run").write_text("\n".join(one) + "\n")
    res = run_inproc("zelo_compare", ["-R", "scores.tsv", "-m", "zacc", "--tests", "t", "one.run", "dense.run"], ws)
    assert check_contract(res, script="zelo_compare", expect={2}) == [], res.stderr
    assert res.stderr.splitlines()[-1] == ("zelo_compare: one.run: every value against scores.tsv is undefined (nan): "
                                           "no query to compare it on")


@pytest.mark.parametrize("script, fmt", [("zelo_compare", "text"), ("zelo_eval", "text")])
def test_a_run_lacking_a_query_points_at_no_refused_option(ws, script, fmt):
    """Against a score file ``-c`` is refused ("applies to trec_eval measures"), so the warning on the queries a
    run lacks must not end "-c counts them as 0" (it did until session 30); with TREC qrels it still does."""
    lines = (ws / "rr.jsonl").read_text().splitlines()
    qid = json.loads(lines[0])["query"]["id"]
    (ws / "short.jsonl").write_text("\n".join(lines[1:]) + "\n")
    argv = ["-R", "ann.jsonl", "-m", "zndcg@10", "-o", fmt, "rd.jsonl", "short.jsonl"]
    res = run_inproc(script, argv + (["--tests", "t"] if script == "zelo_compare" else []), ws)
    assert check_contract(res, script=script, expect={0}) == [], res.stderr
    assert f"{script}: warning: zndcg@10: 1 quer(y/ies) missing for some run left out ({qid})" \
        in res.stderr.splitlines()
    again = run_inproc(script, [*argv[:2], "-c", *argv[2:]], ws)  # what the old warning pointed at
    assert again.returncode == 2 and "-c" in again.stderr.splitlines()[-1]
