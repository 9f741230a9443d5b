"""Options and combinations that silently gave other numbers (session 21, e30's outside audit).

* ``zelo_compare -R -m map -m rpp``: a preference measure sent every measure through zelo_eval's
  preference mode, so ``map`` was tested on pref_eval.py's query set (a topic a run lacks as an empty
  ranking, topics without a relevant document left out), ``-c`` was accepted and ignored, ``-b``/``-f``
  (documented for preference measures, refused with ``-m map`` alone) changed ``map``, and ``rbp`` became
  pref_eval.py's rbp (gamma 0.5, binary) instead of trec_eval's (p 0.9). Now a trec_eval / ir-measures
  name gives the records it gives alone.
* ``zelo_eval -o tsv -m rbp -m rpp``: the same ``rbp`` label for pref_eval.py's measure: warned.
* ``zelo_fit --weights agreement --weight-power 0``: every weight ``w ** 0 = 1``, the agreement unused.

Oracles: AP and RBP worked by hand from their definitions (Buckley & Voorhees 2005; Moffat & Zobel 2008)
on a four-topic collection, and scipy's ``ttest_1samp`` on those differences.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from cli_harness import run_module_inproc

QRELS = """\
t1 0 d1 1
t1 0 d2 0
t1 0 d3 1
t2 0 d1 1
t3 0 d1 0
t4 0 d1 1
t4 0 d2 1
"""
# A: t1 d1 d2 d3; t2 d1; t3 d1; t4 d1 d2.   B: t1 d2 d1 d3; (no t2); t3 d1; t4 d9 d1 d2
RUN_A = "".join(f"{t} Q0 {d} {i} {10 - i} A\n" for t, ds in (("t1", "d1 d2 d3"), ("t2", "d1"), ("t3", "d1"),
                                                              ("t4", "d1 d2")) for i, d in enumerate(ds.split(), 1))
RUN_B = "".join(f"{t} Q0 {d} {i} {10 - i} B\n" for t, ds in (("t1", "d2 d1 d3"), ("t3", "d1"), ("t4", "d9 d1 d2"))
                for i, d in enumerate(ds.split(), 1))
# AP by hand (trec_eval: every qrels topic the run has, t3 without a relevant document scores 0)
AP_A = {"t1": (1 / 1 + 2 / 3) / 2, "t2": 1.0, "t3": 0.0, "t4": 1.0}
AP_B = {"t1": (1 / 2 + 2 / 3) / 2, "t3": 0.0, "t4": (1 / 2 + 2 / 3) / 2}


def _rbp(ranks: list[int], p: float) -> float:
    return (1 - p) * sum(p ** (r - 1) for r in ranks)


# trec_eval's rbp, p = 0.9, binary grades here (gain 1 for grade 1): ranks of the relevant documents
RBP_A = {"t1": _rbp([1, 3], 0.9), "t2": _rbp([1], 0.9), "t3": 0.0, "t4": _rbp([1, 2], 0.9)}
RBP_B = {"t1": _rbp([2, 3], 0.9), "t3": 0.0, "t4": _rbp([2, 3], 0.9)}


@pytest.fixture()
def coll(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "A.run").write_text(RUN_A)
    (tmp_path / "B.run").write_text(RUN_B)
    return tmp_path


def _compare(coll, *args):
    res = run_module_inproc("compare", ["-R", "q.txt", "A.run", "B.run", "--tests", "t", "-o", "jsonl", "-Q",
                                        *args], cwd=coll)
    return res.returncode, [json.loads(x) for x in res.stdout.splitlines()], res.stderr


def _record(records, measure):
    (rec,) = [r for r in records if r["measure"] == measure]
    return rec


def _expect(rec, a: dict, b: dict, topics: list[str]) -> None:
    d = np.array([a.get(t, 0.0) - b.get(t, 0.0) for t in topics])
    assert rec["n_queries"] == len(topics)
    assert rec["mean_diff"] == pytest.approx(d.mean(), abs=1e-12)
    assert rec["p_value"] == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-9)


@pytest.mark.parametrize("extra", [[], ["-b", "1"], ["-f", "1"], ["--depth", "3"]])
def test_map_beside_rpp_is_map_alone(coll, extra):
    """Before: with -m rpp, map's topics were t1 t2 t4 (t2 as B's empty ranking, t3 left out): mean 0.5556."""
    code, alone, err = _compare(coll, "-m", "map")
    assert code == 0, err
    _expect(_record(alone, "map"), AP_A, AP_B, ["t1", "t3", "t4"])  # the topics both runs have
    code, mixed, err = _compare(coll, "-m", "map", "-m", "rpp", *extra)
    assert code == 0, err
    assert _record(mixed, "map") == _record(alone, "map")
    assert _record(mixed, "rpp")["n_queries"] == 3  # pref_eval.py's query set: topics with a relevant document


def test_complete_applies_to_map_beside_rpp(coll):
    """-c was ignored with a preference measure: map over t1..t4, B's missing t2 a 0 (trec_eval -c)."""
    code, recs, err = _compare(coll, "-m", "map", "-m", "rpp", "-c")
    assert code == 0, err
    _expect(_record(recs, "map"), AP_A, AP_B, ["t1", "t2", "t3", "t4"])


def test_rbp_beside_rpp_is_trec_evals(coll):
    """Before: rbp beside rpp was pref_eval.py's rbp (gamma 0.5, binary, topics t1 t2 t4)."""
    code, recs, err = _compare(coll, "-m", "rbp", "-m", "rpp")
    assert code == 0, err
    _expect(_record(recs, "rbp"), RBP_A, RBP_B, ["t1", "t3", "t4"])


def test_complete_with_preference_measures_only_refused(coll):
    code, recs, err = _compare(coll, "-m", "rpp", "-c")
    assert code == 2 and not recs
    assert err.count("\n") == 1 and "-c applies to trec_eval" in err and "empty ranking" in err
    code, recs, err = _compare(coll, "-m", "map", "-b", "1")  # unchanged: -b without a preference measure
    assert code == 2 and "-b applies to preference measures" in err


def test_zelo_eval_warns_rbp_in_preference_tables(coll):
    """zelo_eval -o tsv: `-m rbp` alone is trec_eval's rbp; beside rpp the label is pref_eval.py's rbp."""
    res = run_module_inproc("eval", ["-R", "q.txt", "-m", "rbp", "-m", "rpp", "-q", "-n", "-o", "tsv",
                                     "A.run", "B.run"], cwd=coll)
    assert res.returncode == 0, res.stderr
    assert "rbp: pref_eval.py's rbp in preference mode" in res.stderr and "rbp.p=0.9" in res.stderr
    rows = [ln.split("\t") for ln in res.stdout.splitlines()[1:]]
    got = {r[2]: float(r[4]) for r in rows if r[0] == "A.run" and r[1] == "" and r[3] == "rbp"}
    # pref_eval.py's rbp: gamma 0.5, binary, the topics with a relevant document
    assert got == pytest.approx({"t1": _rbp([1, 3], 0.5), "t2": _rbp([1], 0.5), "t4": _rbp([1, 2], 0.5)})
    res = run_module_inproc("eval", ["-R", "q.txt", "-m", "rbp", "-q", "-n", "-o", "tsv", "A.run", "B.run"], cwd=coll)
    assert res.returncode == 0 and "pref_eval.py's rbp" not in res.stderr
    got = {r[1]: float(r[3]) for r in (ln.split("\t") for ln in res.stdout.splitlines()[1:]) if r[0] == "A.run"}
    assert got == pytest.approx(RBP_A)


def test_zelo_fit_agreement_weights_with_power_zero_refused(tmp_path):
    j = tmp_path / "j.jsonl"
    j.write_text('{"qid": "q", "doc_a": "a", "doc_b": "b", "votes": [1, -1]}\n'
                 '{"qid": "q", "doc_a": "a", "doc_b": "c", "votes": [1, 1]}\n')
    res = run_module_inproc("fit", ["-J", j, "--weights", "agreement", "--weight-power", "0"], cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "--weights agreement has no effect with --weight-power 0" in res.stderr


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_zelo_eval_samples_in_tables_have_a_sample_column(coll, fmt):
    """`zelo_eval -o tsv|csv|jsonl --samples N` wrote the N samples' rows one after another with nothing to
    tell them apart; now a last column `sample`. Oracle: each sample's summary row is the mean of its per-query
    rows (pref_eval.py's summary, worked here), and zelo_compare -P refuses the rows of several samples."""
    import csv
    import io

    args = ["-R", "q.txt", "-m", "rpp", "-m", "ap", "-q", "--samples", "3", "--query_fraction", "0.7",
            "--seed", "4", "-o", fmt, "A.run", "B.run"]
    res = run_module_inproc("eval", args, cwd=coll)
    assert res.returncode == 0, res.stderr
    if fmt == "jsonl":
        rows = [json.loads(x) for x in res.stdout.splitlines()]
    else:
        rows = list(csv.DictReader(io.StringIO(res.stdout), delimiter="\t" if fmt == "tsv" else ","))
    assert {str(r["sample"]) for r in rows} == {"0", "1", "2"}
    for s in ("0", "1", "2"):
        for m, runj in (("rpp", "B.run"), ("ap", "")):
            sel = [r for r in rows if str(r["sample"]) == s and r["measure"] == m and r["runi"] == "A.run"
                   and r["runj"] == runj]
            per_q = [float(r["value"]) for r in sel if r["qid"] != "all"]
            (summary,) = [float(r["value"]) for r in sel if r["qid"] == "all"]
            assert len(per_q) == 2  # max(1, int(3 * 0.7)) of the 3 topics with a relevant document
            assert summary == pytest.approx(sum(per_q) / len(per_q), abs=1e-15)
    (coll / f"pq.{fmt}").write_text(res.stdout)
    res = run_module_inproc("compare", ["-P", f"pq.{fmt}"], cwd=coll)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "rows of more than one sample (column 'sample': 0, 1" in res.stderr


@pytest.mark.parametrize("opt", [["--damping", "0.3"], ["--mc4-steps", "5"]])
def test_pref_aggregate_mc4_options_with_metrics_only_refused(tmp_path, opt):
    """pref_aggregate -m ap --damping 0.3 (or --mc4-steps): metrics are ordered by their mean, no MC4 runs:
    the option was accepted and unused. With a preference measure it applies (the mean ordering of ap, worked
    by hand, is the same either way)."""
    lines = [{"qid": "q1", "runi": "A", "runj": "B", "sample": 0, "type": "preference", "rpp": 0.5},
             {"qid": "q1", "run": "A", "sample": 0, "type": "metric", "ap": 0.2},
             {"qid": "q1", "run": "B", "sample": 0, "type": "metric", "ap": 0.4},
             {"qid": "q2", "runi": "A", "runj": "B", "sample": 0, "type": "preference", "rpp": -0.25},
             {"qid": "q2", "run": "A", "sample": 0, "type": "metric", "ap": 0.9},
             {"qid": "q2", "run": "B", "sample": 0, "type": "metric", "ap": 0.5}]
    f = tmp_path / "p.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = run_module_inproc("aggregate", ["-P", f, "-m", "ap", *opt], cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert f"{opt[0]} applies to MC4" in res.stderr
    res = run_module_inproc("aggregate", ["-P", f, "-m", "ap", "-m", "rpp", *opt], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.splitlines()[-1])
    assert summary["ap"]["mean"] == ["A", "B"]  # A: (0.2 + 0.9) / 2 = 0.55 > B: (0.4 + 0.5) / 2 = 0.45
