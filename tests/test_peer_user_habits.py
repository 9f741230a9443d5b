"""What PyTerrier, ranx and ir_measures users type, against those tools computed live.

* PyTerrier's ``pt.Experiment(..., eval_metrics, names, perquery, baseline=0, test, correction,
  correction_alpha, round, highlight)`` keywords given to ``pref_eval.evaluate`` / ``compare``: refused naming
  ours (``peer_names.PYTERRIER_KEYWORDS``); its ``baseline=0`` (a position) and ``correction=None``.
* PyTerrier's ``correction`` names are statsmodels' ``multipletests`` methods: the aliases of our three name
  ours (checked against ``multipletests`` live: same adjusted p-values), the others are said not offered.
* What ``pt.Experiment(baseline=i, correction=c)`` computes (scipy's test of each system against the
  baseline, statsmodels' correction over the systems per measure: PyTerrier's ``RenderFromPerQuery``) is
  ``compare(per_query, baseline=NAME, correction=c)``'s ``p_value`` / ``p_adjusted``.
* ranx's DataFrames (``Qrels.to_dataframe()`` / ``Run.to_dataframe()``: ``q_id, doc_id, score``) are read as
  ranx reads them (refused before).
* ir_measures' command line takes a missing qrels path as an ir_datasets id: ours says ``irds:ID``.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.peer_names import PYTERRIER_KEYWORDS, STATSMODELS_CORRECTIONS

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUNS = {n: str(ROOT / "runs" / f"{n}.run") for n in ("bm25", "dense", "rerank")}


@pytest.fixture(scope="module")
def per_query():
    return pref_eval.evaluate(QRELS, RUNS, ["map", "ndcg_cut.10", "P.5"])


@pytest.mark.parametrize("function,keyword", [(f, k) for k, d in PYTERRIER_KEYWORDS.items() for f in d])
def test_pt_experiment_keywords_are_refused_naming_ours(per_query, function, keyword):
    ours = PYTERRIER_KEYWORDS[keyword][function][0]
    with pytest.raises(UsageError) as e:
        if function == "evaluate":
            pref_eval.evaluate(QRELS, RUNS["bm25"], ["map"], **{keyword: 1})
        elif function == "compare_runs":  # (session 30: Python's TypeError before)
            pref_eval.compare_runs(QRELS, [RUNS["bm25"], RUNS["dense"]], measures=["map"], **{keyword: 1})
        else:
            pref_eval.compare(per_query, **{keyword: 1})
    msg = str(e.value)
    assert f"unknown option {keyword!r} (PyTerrier's pt.Experiment keyword; here: {ours}" in msg, msg
    assert "\n" not in msg


def test_the_options_named_exist():
    """Every option a hint names as ours is an option of that function (a renamed option breaks this)."""
    import inspect

    from pref_eval.stats.compare import compare as compare_table

    takes = {"compare": set(inspect.signature(compare_table).parameters),
             "evaluate": set(inspect.signature(pref_eval.evaluate).parameters),
             "compare_runs": set(inspect.signature(pref_eval.compare_runs).parameters)}
    for keyword, where in PYTERRIER_KEYWORDS.items():
        for function, (ours, _rest) in where.items():
            name = ours.split(" ")[0]
            if name.isidentifier() and name not in ("the", "no", "a"):
                assert name in takes[function], (keyword, function, ours)
            call = re.search(r"(\w+)\(", ours)  # a call the hint writes out: its function and keywords today
            if call:
                fn = compare_table if call.group(1) == "compare" else getattr(pref_eval, call.group(1))
                params = inspect.signature(fn).parameters  # (pref_eval.compare passes **options on)
                for kw in re.findall(r"(\w+)=", ours):
                    assert kw in params, (keyword, function, ours)


def test_pt_baseline_position_and_correction_none(per_query):
    with pytest.raises(UsageError, match=r"^baseline: expected a string, got 0 \(a run's name, as in the run "
                                         r"column; PyTerrier's baseline is a position"):
        pref_eval.compare(per_query, baseline=0)
    with pytest.raises(UsageError, match=r"^correction: expected a string, got None \(PyTerrier's "
                                         r"correction=None is 'none' here; the default is holm\)"):
        pref_eval.compare(per_query, baseline="bm25", correction=None)


def test_statsmodels_correction_names_against_multipletests(per_query):
    """Each statsmodels name mapped to ours adjusts as ours does (multipletests live, tied p-values too);
    every name of the table is one statsmodels takes; the refusal names ours or says it is not offered."""
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    from pref_eval.stats.correction import adjust

    rng = np.random.default_rng(5)
    ps = np.concatenate([rng.uniform(0, 0.2, 9), [0.01, 0.01, 0.04]])
    for name, ours in STATSMODELS_CORRECTIONS.items():
        theirs = multitest.multipletests(ps, alpha=0.05, method=name)[1]  # raises for a name it does not take
        with pytest.raises(UsageError) as e:
            pref_eval.compare(per_query, baseline="bm25", correction=name)
        msg = str(e.value)
        if ours is None:
            assert f"(statsmodels' {name!r} is not offered here)" in msg, msg
            continue
        assert f"(statsmodels' name of {ours}: write {ours!r})" in msg, msg
        np.testing.assert_allclose(adjust(ps, ours), theirs, rtol=1e-13, atol=0)
    with pytest.raises(UsageError, match=r"unknown correction 'Holm' \(write 'holm'\); expected one of"):
        pref_eval.compare(per_query, correction="Holm")


@pytest.mark.parametrize("test,correction", [("t", "bonferroni"), ("t", "holm"), ("wilcoxon", "bh")])
def test_compare_with_a_baseline_is_what_pt_experiment_computes(test, correction):
    """PyTerrier's RenderFromPerQuery: per measure, scipy's ttest_rel / wilcoxon of (system, baseline) over the
    baseline's queries, statsmodels' multipletests over the systems but the baseline. The per-query table is
    ir-measures' (PyTerrier's evaluator), in PyTerrier's ``name, qid, measure, value`` shape."""
    ir_measures = pytest.importorskip("ir_measures")
    stats = pytest.importorskip("scipy.stats")
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    measures = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5]
    qrels = list(ir_measures.read_trec_qrels(QRELS))
    rows = [(name, m.query_id, str(m.measure), m.value) for name, path in RUNS.items()
            for m in ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(path))]
    pq = pd.DataFrame(rows, columns=["name", "qid", "measure", "value"]).sort_values(["name", "qid"])
    records = pref_eval.compare(pq, baseline="bm25", tests=[test], correction=correction).records
    test_fn = stats.ttest_rel if test == "t" else stats.wilcoxon
    method = {"bh": "fdr_bh"}.get(correction, correction)
    for m in map(str, measures):
        v = pq[pq.measure == m].pivot(index="qid", columns="name", values="value")
        p = [test_fn(v[s].to_numpy(), v["bm25"].to_numpy())[1] for s in ("dense", "rerank")]
        adjusted = multitest.multipletests(p, alpha=0.05, method=method)[1]
        ours = records[records.measure == m].set_index("run_a").loc[["dense", "rerank"]]
        assert set(ours.run_b) == {"bm25"}
        np.testing.assert_allclose(ours.p_value.to_numpy(float), p, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(ours.p_adjusted.to_numpy(float), adjusted, rtol=1e-9, atol=1e-15)


def _ranx_objects(ranx):
    lines = [ln.split() for ln in Path(RUNS["rerank"]).read_text().splitlines()]
    run: dict = {}
    for i, (q, _, d, *_rest) in enumerate(lines):
        run.setdefault(q, {})[d] = float(len(lines) - i)  # the file's order, no tied score
    qrels: dict = {}
    for q, _, d, g in (ln.split() for ln in Path(QRELS).read_text().splitlines()):
        qrels.setdefault(q, {})[d] = int(g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ranx.Qrels(qrels), ranx.Run(run)


RANX_NAMES = ["ndcg@10", "map@100", "mrr", "precision@5", "recall@100", "r-precision"]


def test_ranx_dataframe_layout_is_read():
    """ranx's frame layout (``q_id, doc_id, score`` of ``to_dataframe()`` / ``from_df``, string columns; refused
    before) gives ir-measures' values on the same data (live; ranx itself: the slow test below)."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = pd.DataFrame(list(ir_measures.read_trec_qrels(QRELS)))
    run = pd.DataFrame(list(ir_measures.read_trec_run(RUNS["rerank"])))
    qdf = qrels.rename(columns={"query_id": "q_id", "relevance": "score"})[["q_id", "doc_id", "score"]]
    rdf = run.rename(columns={"query_id": "q_id"}).astype({"q_id": "string", "doc_id": "string"})
    measures = [ir_measures.nDCG @ 10, ir_measures.AP @ 100, ir_measures.RR, ir_measures.P @ 5, ir_measures.Rprec]
    theirs = ir_measures.calc_aggregate(measures, qrels, run)
    ours = pref_eval.calc_aggregate(measures, qdf.astype({"q_id": "string", "doc_id": "string"}), rdf)
    for m in measures:
        assert ours[m] == pytest.approx(theirs[m], abs=1e-12), m
    # the grade column is named score only beside ranx's q_id: a run given as qrels is still refused
    with pytest.raises(pref_eval.errors.InputError, match="relevance/rel/label columns"):
        pref_eval.calc_aggregate(["map"], rdf.rename(columns={"q_id": "qid"}), rdf)


@pytest.mark.slow
def test_ranx_dataframes_against_ranx_evaluate():
    """ranx's own ``Qrels.to_dataframe()`` / ``Run.to_dataframe()`` against ``ranx.evaluate`` live (numba compiles
    ranx's functions: ~30 s here)."""
    ranx = pytest.importorskip("ranx")
    qrels, run = _ranx_objects(ranx)
    assert list(qrels.to_dataframe().columns) == list(run.to_dataframe().columns) == ["q_id", "doc_id", "score"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(qrels, run, RANX_NAMES, make_comparable=True)
    ours = pref_eval.calc_aggregate(RANX_NAMES, qrels.to_dataframe(), run.to_dataframe(), complete=True)
    for n in RANX_NAMES:
        assert ours[n] == pytest.approx(float(theirs[n]), abs=1e-12), n
    # fractional grades (measures.md, "Coming from ranx"): ranx truncates, ours refuses
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert dict(ranx.Qrels({"q": {"a": 1.5}}).to_dict()) == {"q": {"a": 1}}
    with pytest.raises(pref_eval.errors.InputError, match="relevance grade 1.5 is not an integer"):
        pref_eval.calc_aggregate(["ndcg"], {"q": {"a": 1.5}}, {"q": {"a": 1.0}})
    # ranx's own classes swapped (the stand-ins of the test above)
    with pytest.raises(UsageError, match=r"^qrels: got a ranx.Run \(a run\) where the qrels go"):
        pref_eval.evaluate(run, qrels, ["map"])
    with pytest.raises(UsageError, match=r"^run: got a ranx.Qrels \(qrels\) where a run goes"):
        pref_eval.calc_aggregate(["map"], qrels, qrels)


def _zelo_trec(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)


def test_ir_datasets_id_where_a_path_goes(monkeypatch):
    """ir_measures' command line takes ``msmarco-passage/trec-dl-2019/judged`` (no such file) as an ir_datasets
    id; here it is ``irds:ID``. A missing file of a directory that exists, or with a file's suffix, gets no hint.
    (``irds:`` where a run goes: its scoreddocs, tests/test_irds_scoreddocs.py.)"""
    p = _zelo_trec("msmarco-passage/trec-dl-2019/judged", RUNS["bm25"])
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == ("zelo_trec: msmarco-passage/trec-dl-2019/judged: no such file (expected a qrels file; if "
                        "'msmarco-passage/trec-dl-2019/judged' is an ir_datasets id, write "
                        "irds:msmarco-passage/trec-dl-2019/judged)\n")
    monkeypatch.chdir(ROOT)  # qrels/ exists: a missing file there is a missing file
    for missing in ("qrels/dl19.qrels", "qrels/nothing", "dl19.qrels.gz"):
        with pytest.raises(pref_eval.errors.InputError) as e:
            pref_eval.evaluate(missing, RUNS["bm25"], ["map"])
        assert str(e.value) == f"{missing}: no such file (expected a qrels file)"


def test_pyterrier_mrt_is_no_measure():
    """``pt.Experiment(eval_metrics=["map", "mrt"])``: mrt is PyTerrier's mean response time (was "did you mean
    mrr, num_ret?")."""
    with pytest.raises(UsageError, match=r"^unknown measure 'mrt': PyTerrier's mean response time \(pt.Experiment "
                                         r"times the pipelines it runs\) is no measure of a run's ranking"):
        pref_eval.evaluate(QRELS, RUNS["bm25"], ["map", "mrt"])


class Run:
    """Stands for ranx.Run (taken by module and class name and to_dict(); ranx's own: the slow test)."""

    __module__ = "ranx.data_structures.run"

    def __init__(self, d: dict, name: str | None = None):
        self.d, self.name = d, name

    def to_dict(self) -> dict:
        return self.d


class Qrels(Run):
    __module__ = "ranx.data_structures.qrels"


def test_a_run_and_qrels_swapped_are_refused_saying_the_order():
    """PyTerrier's ``pt.Evaluate(res, qrels)`` takes the run first. A ranx.Run where the qrels go (or a ranx.Qrels
    where a run goes) was read through to_dict() -- its scores taken as grades, map 1.0 with no error (hand-worked:
    qrels q: a graded 1, run q: a retrieved: any answer but a refusal is a wrong number here). Frames say which
    column they have."""
    run, qrels = Run({"q": {"a": 1.0, "b": 2.0}}), Qrels({"q": {"a": 1}})  # ranx's classes: the slow test
    order = "the order is evaluate(qrels, runs, measures), calc_aggregate(measures, qrels, run)"
    with pytest.raises(UsageError, match=r"^qrels: got a ranx.Run \(a run\) where the qrels go; " + re.escape(order)):
        pref_eval.evaluate(run, qrels, ["map"])
    with pytest.raises(UsageError, match=r"^run: got a ranx.Qrels \(qrels\) where a run goes; " + re.escape(order)):
        pref_eval.calc_aggregate(["map"], {"q": {"a": 1}}, qrels)
    assert pref_eval.calc_aggregate(["map"], qrels, run)["map"] == 0.5  # the right order: a at rank 2
    res = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": [1.0, 2.0], "rank": [1, 0]})
    lab = pd.DataFrame({"qid": ["q"], "docno": ["a"], "label": [1]})
    with pytest.raises(pref_eval.errors.InputError, match=r"this one has a run's score column: the qrels come first"):
        pref_eval.evaluate(res, lab, ["map"])
    with pytest.raises(pref_eval.errors.InputError, match=r"this one has a qrels' grade column: a run goes here"):
        pref_eval.calc_aggregate(["map"], res, lab)


def test_statsmodels_correction_names_on_the_command_lines():
    """``zelo_compare --correction fdr_bh`` names ours as the API does; zelo_agree's and zelo_plot's
    ``--correction`` are the same type."""
    import click

    from pref_eval.cli import agree, compare, plot
    from pref_eval.cli.param_types import Correction

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.compare", "-R", QRELS, "-m", "map", RUNS["bm25"],
                        RUNS["dense"], "--correction", "fdr_bh"], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines()[0] == ("zelo_compare: Invalid value for '--correction': 'fdr_bh' is not one of "
                                        "'holm', 'bonferroni', 'bh', 'none' (statsmodels' name of bh: write 'bh').")
    commands = [compare.command, agree.command, *plot.command.commands.values()]
    types = [p.type for c in commands for p in c.params if p.name == "correction"]
    assert len(types) >= 3 and all(isinstance(t, Correction) for t in types)
    with pytest.raises(click.BadParameter, match=r"'hommel' is not one of .* \(statsmodels' 'hommel' is not offered"):
        types[1].convert("hommel", None, None)
    assert types[1].convert("bh", None, None) == "bh"


def test_a_measure_named_differently_by_two_runs():
    """Per-query tables of two tools put together (ir-measures' ``AP`` beside trec_eval's ``map``): the refusal
    says which run has no value of the measure and what it has (was only "no query has a value for every run")."""
    pq = pd.DataFrame({"name": ["A", "A", "B", "B"], "qid": ["1", "2", "1", "2"], "measure": ["AP", "AP", "map", "map"],
                       "value": [0.5, 0.3, 0.7, 0.2]})
    with pytest.raises(UsageError, match=r"^AP: no query has a value for every run \(A, B; .*; run 'B' has no value "
                                         r"of 'AP' \(its measures: map\)$"):
        pref_eval.compare(pq, tests=["t"])
    pq.loc[2, "measure"] = "AP"  # B has AP for query 1 only: the plain refusal is not this one's
    assert len(pref_eval.compare(pq, tests=["t"], measures=["AP"]).records) == 1


def test_a_measure_named_differently_in_a_per_query_file(tmp_path):
    """The same through ``zelo_compare -P`` (its function, compare_runs)."""
    f = tmp_path / "pq.csv"
    f.write_text("name,qid,measure,value\nA,1,AP,0.5\nA,2,AP,0.3\nB,1,map,0.7\nB,2,map,0.2\n")
    with pytest.raises(UsageError, match=r"pq.csv: AP: no query has a value for every run .*; run 'B' has no value "
                                         r"of 'AP' \(its measures: map\)$"):
        pref_eval.compare_runs(per_query_file=str(f), tests="t")


class Dataset:
    """Stands for what ``ir_datasets.load(ID)`` returns (recognised by its module; ir_datasets' import makes the
    directories of IR_DATASETS_HOME, so it is not imported here)."""

    __module__ = "ir_datasets.datasets.base"


def test_an_ir_datasets_dataset_object_names_what_to_pass():
    with pytest.raises(UsageError, match=r"got Dataset \(an ir_datasets object: pass 'irds:ID' or "
                                         r"ds.qrels_iter\(\)\)$"):
        pref_eval.calc_aggregate(["map"], Dataset(), RUNS["bm25"])
    with pytest.raises(UsageError, match=r"got Dataset \(an ir_datasets object: pass 'irds:ID' or "
                                         r"ds.scoreddocs_iter\(\) as the run\)$"):
        pref_eval.evaluate(QRELS, Dataset(), ["map"])
