"""``pref_eval.compare`` (the DataFrame API of ``zelo_compare -P``) as the commands (session 24, a33).

* Runs with no query in common: ``compare`` returned records of ``nan`` (n_queries 0) where every command
  that compares runs exits 2 (session 23, e32); now every public function that compares runs raises the same
  ``UsageError`` (the commands' message; the API names ``complete=True`` for ``-c``). ``complete=True``
  counts the missing queries as 0: AP by hand, X finds q1's one relevant document at rank 1 (AP 1) and
  nothing of q2 (0), Y the reverse: both means 0.5, differences +1 and -1.
* Its options of the wrong type or out of range were taken (``complete="no"`` as True, ``resamples=1.5``,
  ``jobs=0``) or ended in Python's TypeError (``alpha="0.05"``) / AttributeError (``ci_method=3``): now a
  ``UsageError`` naming the option (``zelo_compare``'s ranges).
* A per-query file of preference measures (``zelo_eval -q -o tsv`` with ``rpp``: a value per pair of runs)
  was read as per-run values ("two values for run ... on query ..."): now refused naming ``compare_runs``,
  which tests them; ``measures=`` selects its per-run rows (p-value = scipy's ttest_rel, live).
"""
from __future__ import annotations

import warnings

import pytest

import pref_eval
from pref_eval import api
from pref_eval.errors import UsageError

QRELS = "q1 0 d1 1\nq2 0 d1 1\n"
RUN_X = "q1 Q0 d1 1 3 X\n"
RUN_Y = "q2 Q0 d1 1 3 Y\n"
NO_COMMON = r"map: no query has a value for every run \(X.run, Y.run; 2 quer\(y/ies\), each lacking for some run\)"


@pytest.fixture()
def disjoint(tmp_path, monkeypatch):
    for name, text in (("q.txt", QRELS), ("X.run", RUN_X), ("Y.run", RUN_Y)):
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # each run lacks one qrels topic (warned; not what is tested)
        table = pref_eval.evaluate("q.txt", ["X.run", "Y.run"], ["map"])
    table.to_csv("pq.csv", index=False)
    return table


def _plot(**kw):
    return api.plot_systems(api.PlotValues(qrels="q.txt", runs=("X.run", "Y.run"), measure="map", **kw),
                            api.PlotImage("p.svg", 4, 3))


@pytest.mark.parametrize("call", [
    lambda t: pref_eval.compare(t),
    lambda t: pref_eval.compare("pq.csv"),
    lambda t: api.compare(t, tests=["t"], measures=["map"]),
    lambda t: api.compare_runs(qrels="q.txt", runs=["X.run", "Y.run"], measures=["map"]),
    lambda t: api.compare_runs(per_query_file="pq.csv"),
    lambda t: api.evaluate_runs("q.txt", ["X.run", "Y.run"], measures=["map"], output_format="text", output=None),
    lambda t: _plot(),
], ids=["compare", "compare-path", "api.compare", "compare_runs-R", "compare_runs-P", "evaluate_runs-text",
        "plot_systems"])
def test_every_function_comparing_runs_refuses_no_common_query(disjoint, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(UsageError, match=r"(no query has a value for every run)"):
            call(disjoint)


def test_compare_message_names_the_api_option(disjoint):
    with pytest.raises(UsageError, match=f"^{NO_COMMON}: nothing to average or test; complete=True counts"):
        pref_eval.compare(disjoint)
    with pytest.raises(UsageError, match="^pq.csv: map: no query has a value for every run "):
        pref_eval.compare("pq.csv")


def test_compare_complete_counts_the_missing_queries(disjoint):
    rec = pref_eval.compare(disjoint, complete=True, tests="t").records.iloc[0]
    assert (rec["n_queries"], rec["mean_diff"], rec["wins"], rec["losses"]) == (2, 0.0, 1, 1)
    means = pref_eval.compare(disjoint, complete=True, tests="t").means["map"].tolist()
    assert means == [0.5, 0.5]


BAD_OPTIONS = [("complete", "no"), ("complete", 1), ("tests", 5), ("tests", ["t", 5]), ("alpha", "0.05"),
               ("alpha", float("nan")), ("alpha", 1.0), ("confidence", "x"), ("resamples", 1.5),
               ("resamples", True), ("resamples", 0), ("jobs", 0), ("jobs", "2"), ("sign_min_diff", "0.1"),
               ("sign_min_diff", -1.0), ("correction", None), ("zero_method", 1), ("ci_method", 3),
               ("wilcoxon_method", None), ("baseline", 3), ("measures", 5), ("runs", {"a": 1}),
               ("progress", 5), ("seed", -1), ("seed", 1.0)]


@pytest.mark.parametrize("name, value", BAD_OPTIONS, ids=[f"{n}={v!r}" for n, v in BAD_OPTIONS])
def test_compare_option_of_wrong_type_or_range_is_refused_naming_it(name, value):
    table = pref_eval.evaluate("qrels/dl19-sample.qrels", ["runs/bm25.run", "runs/dense.run"], ["map"])
    with pytest.raises(UsageError, match=f"^{name}: expected "):
        pref_eval.compare(table, **{name: value})


def test_compare_measures_as_one_string_and_the_default_values_pass():
    table = pref_eval.evaluate("qrels/dl19-sample.qrels", ["runs/bm25.run", "runs/dense.run"], ["map", "P@5"])
    one = pref_eval.compare(table, measures="map P@5", tests="t").records
    many = pref_eval.compare(table, measures=["map", "P@5"], tests=("t",), complete=False, alpha=0.05, jobs=1,
                             baseline=None, progress=None, seed=None).records
    assert one["measure"].tolist() == many["measure"].tolist() == ["map", "P@5"]
    assert one["p_value"].tolist() == many["p_value"].tolist()


def test_compare_refuses_preference_pairs_and_tests_the_per_run_rows(tmp_path):
    scipy_stats = pytest.importorskip("scipy.stats")
    out = tmp_path / "pq.tsv"
    api.evaluate_runs("qrels/dl19-sample.qrels", ["runs/bm25.run", "runs/dense.run"], measures=["rpp", "p@10"],
                      per_query=True, output_format="tsv", output=str(out))
    with pytest.raises(UsageError, match=r"pq.tsv: rpp: values per pair of runs .*compare_runs\(per_query_file=PATH\)"):
        pref_eval.compare(str(out))
    rec = pref_eval.compare(str(out), measures=["p@10"], tests="t").records
    import pandas as pd

    rows = pd.read_csv(out, sep="\t", keep_default_na=False)
    rows = rows[(rows["runj"] == "") & (rows["measure"] == "p@10") & (rows["qid"] != "all")]
    wide = rows.pivot(index="qid", columns="runi", values="value")
    exp = scipy_stats.ttest_rel(wide["bm25.run"], wide["dense.run"]).pvalue
    assert rec["measure"].tolist() == ["p@10"] and rec["p_value"].iloc[0] == pytest.approx(exp, rel=1e-12)


def test_compare_refuses_data_that_is_no_table():
    with pytest.raises(UsageError, match="^per_query: expected a path or a DataFrame .*got dict"):
        pref_eval.compare({"bm25": {"q1": 0.5}})


@pytest.mark.parametrize("name, value", BAD_OPTIONS[:12], ids=[f"{n}={v!r}" for n, v in BAD_OPTIONS[:12]])
def test_the_building_block_refuses_the_same_options(name, value):
    """``pref_eval.stats.compare`` (whose options ``compare`` passes on, api.md) checks them too."""
    from pref_eval.stats import compare as stats_compare

    table = pref_eval.evaluate("qrels/dl19-sample.qrels", ["runs/bm25.run", "runs/dense.run"], ["map"])
    with pytest.raises(UsageError, match=f"^{name}: expected "):
        stats_compare(table, **{name: value})
