"""Options honoured or refused, never ignored (session 22, e31: session 21's audit leftovers and a second audit).

* ``--seed`` seeds a random draw: zelo_eval's ``--query_fraction < 1`` or ``--label_fraction < 1`` with the
  ``random`` policy, pref_aggregate's ``--query_fraction < 1``. Elsewhere it was accepted and unused; now
  refused in one line (pref_eval.py and pref_aggregate.py have no ``--seed``: nothing of the drop-in is lost).
  ``--label_fraction_policy`` without ``--label_fraction < 1`` likewise.
* ``zelo_compare -P -c``: a (run, topic) the file lacks counts as trec_eval ``-c`` counts a topic the run
  lacks (an empty ranking): 0, but ``num_rel`` / ``ideal_dcg`` (read the qrels only) the topic's value, and
  ``yaap`` (log(1/(1+R)) on an empty ranking) refused. Was 0 for all.
* ``--baseline``: every record (other, baseline), metric and preference alike (the preference records were
  (baseline, other)).

Oracles: trec_eval's ``-c`` definition worked by hand (num_rel = the topic's relevant documents, whatever
the run), scipy's ``ttest_rel`` / ``ttest_1samp`` on the per-query values zelo_eval prints.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from cli_harness import judge_env, run_module_inproc

QRELS = "t1 0 d1 1\nt1 0 d2 0\nt1 0 d3 1\nt2 0 d1 1\nt2 0 d2 2\nt2 0 d4 1\nt3 0 d1 1\n"
RUN_A = "".join(f"{t} Q0 {d} {i} {10 - i} A\n" for t, ds in (("t1", "d1 d2 d3"), ("t2", "d1 d9"), ("t3", "d2 d1"))
                for i, d in enumerate(ds.split(), 1))
RUN_B = "".join(f"{t} Q0 {d} {i} {10 - i} B\n" for t, ds in (("t1", "d2 d1"), ("t3", "d1"))  # lacks t2
                for i, d in enumerate(ds.split(), 1))
RELEVANT = {"t1": 2, "t2": 3, "t3": 1}  # trec_eval -l 1: grade >= 1, by hand from QRELS


@pytest.fixture()
def coll(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "A.run").write_text(RUN_A)
    (tmp_path / "B.run").write_text(RUN_B)
    return tmp_path


def _run(module, coll, *args):
    res = run_module_inproc(module, [str(a) for a in args], cwd=coll)
    return res.returncode, res.stdout, res.stderr


# --- --seed and --label_fraction_policy ---------------------------------------------------------------

@pytest.mark.parametrize("extra, flag", [
    (["--seed", "3"], "--seed"),
    (["--seed", "3", "--samples", "2"], "--seed"),
    (["--seed", "3", "--label_fraction", "0.5", "--label_fraction_policy", "pool"], "--seed"),
    (["--seed", "3", "-m", "map"], "--seed"),
    (["--label_fraction_policy", "pool"], "--label_fraction_policy"),
    (["--label_fraction_policy", "random", "-q"], "--label_fraction_policy"),
])
def test_zelo_eval_refuses_what_nothing_reads(coll, extra, flag):
    code, out, err = _run("eval", coll, "-R", "q.txt", *extra, "A.run", "B.run")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"zelo_eval: {flag} applies only with"), err


@pytest.mark.parametrize("extra", [["--query_fraction", "0.5"], ["--label_fraction", "0.5"],
                                   ["--label_fraction", "0.5", "--label_fraction_policy", "random"]])
def test_zelo_eval_seed_where_something_is_drawn(coll, extra):
    outs = {_run("eval", coll, "-R", "q.txt", *extra, "--samples", "4", "-q", "--seed", s, "A.run", "B.run")
            for s in ("1", "1", "2", "5")}
    assert len(outs) >= 2 and all(c == 0 for c, _, _ in outs)  # read: another seed, other samples


def test_zelo_eval_pool_policy_without_seed_is_deterministic(coll):
    a = _run("eval", coll, "-R", "q.txt", "--label_fraction", "0.5", "--label_fraction_policy", "pool", "-q",
             "A.run", "B.run")
    assert a[0] == 0 and a[1]


def test_pref_aggregate_seed_only_with_a_draw(coll):
    code, prefs, err = _run("eval", coll, "-R", "q.txt", "-q", "A.run", "B.run")
    assert code == 0, err
    (coll / "p.jsonl").write_text(prefs)
    code, out, err = _run("aggregate", coll, "-P", "p.jsonl", "--seed", "4")
    assert code == 2 and out == "" and err == ("pref_aggregate: --seed applies only with --query_fraction < 1 "
                                               "(the only random draw)\n")
    code, out, err = _run("aggregate", coll, "-P", "p.jsonl", "--seed", "4", "--query_fraction", "0.5")
    assert code == 0 and out, err


# --- -P -c: trec_eval -c's value of a topic the run lacks ----------------------------------------------

def _records(out):
    return {(r["measure"], r["run_a"], r["run_b"]): r for r in map(json.loads, out.splitlines())}


def _per_query_file(coll, *measures):
    code, out, err = _run("eval", coll, "-R", "q.txt", "-o", "tsv", "-q", "-n",
                          *[x for m in measures for x in ("-m", m)], "A.run", "B.run")
    assert code == 0, err
    (coll / "pq.tsv").write_text(out)
    assert "\tt2\t" not in "".join(x for x in out.splitlines(True) if x.startswith("B.run"))  # B lacks t2


def test_P_complete_num_rel_is_the_topics_count(coll):
    _per_query_file(coll, "num_rel", "map")
    code, out, err = _run("compare", coll, "-P", "pq.tsv", "-c", "--tests", "t", "-o", "jsonl", "-Q")
    assert code == 0, err
    rec = _records(out)
    # trec_eval -c: B's empty ranking of t2 has num_rel 3 (its qrels), A's t2 has 3: every difference 0
    num_rel = rec[("num_rel", "A.run", "B.run")]
    assert num_rel["n_queries"] == 3 and num_rel["mean_diff"] == 0.0 and num_rel["wins"] == 0
    # map: 0 for the empty ranking, as before -- AP by hand: A t1 (1 + 2/3)/2, t2 1/3, t3 1/2; B t1 (1/2)/2, t3 1
    d = np.array([(1 + 2 / 3) / 2 - 1 / 4, 1 / 3 - 0.0, 1 / 2 - 1.0])
    assert rec[("map", "A.run", "B.run")]["mean_diff"] == pytest.approx(d.mean(), abs=1e-12)
    assert rec[("map", "A.run", "B.run")]["p_value"] == pytest.approx(stats.ttest_1samp(d, 0).pvalue, rel=1e-9)
    # the same records as -R -c (trec_eval -c through zelo_eval) for num_rel
    code, out2, err = _run("compare", coll, "-R", "q.txt", "-c", "-m", "num_rel", "--tests", "t", "-o", "jsonl",
                           "A.run", "B.run")
    assert code == 0, err
    r2 = _records(out2)[("num_rel", "A.run", "B.run")]
    assert (r2["n_queries"], r2["mean_diff"]) == (3, 0.0)


def test_P_complete_yaap_refused_and_ideal_dcg_copied(coll):
    _per_query_file(coll, "yaap", "ideal_dcg")
    code, out, err = _run("compare", coll, "-P", "pq.tsv", "-c", "-m", "yaap", "--tests", "t")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "'yaap' is not 0 on a topic a run lacks" in err and "'B.run' lacks query 't2'" in err
    code, out, err = _run("compare", coll, "-P", "pq.tsv", "-c", "-m", "ideal_dcg", "--tests", "t", "-o", "jsonl")
    rec = _records(out)[("ideal_dcg", "A.run", "B.run")]
    assert code == 0 and rec["n_queries"] == 3 and rec["mean_diff"] == 0.0, err
    # without -c nothing is filled: yaap is tested on the topics both runs have
    code, out, err = _run("compare", coll, "-P", "pq.tsv", "-m", "yaap", "--tests", "t", "-o", "jsonl", "-Q")
    assert code == 0 and _records(out)[("yaap", "A.run", "B.run")]["n_queries"] == 2, err


def test_P_complete_num_rel_of_other_qrels_refused(coll):
    rows = [f"A.run\tt{i}\tnum_rel\t{n}\n" for i, n in ((1, 2), (2, 3), (3, 1))]
    rows += ["B.run\tt1\tnum_rel\t5\n", "B.run\tt3\tnum_rel\t1\n"]
    (coll / "pq.tsv").write_text("run\tqid\tmeasure\tvalue\n" + "".join(rows))
    code, out, err = _run("compare", coll, "-P", "pq.tsv", "-c", "--tests", "t")
    assert code == 2 and out == "" and "differ on query 't1' (2 vs 5)" in err and err.count("\n") == 1


CORNER = "tests/data/pref_eval_ref/corner/all_q.jsonl"  # pref_eval.py 60e3203 -M all -q; sysC lacks topic c5


def test_P_complete_on_preference_pairs_refuses_a_missing_pair_query(tmp_path):
    """``-c`` on preference rows (session 23, e32): pref_eval.py scores a topic a run lacks on its empty
    ranking, so its file holds every query for every pair -- and that value is no tie (sysA over sysC on c5:
    rpp 1/6); a (pair, query) missing from a table cannot be filled (it was 0)."""
    with open(CORNER, encoding="utf-8") as fh:
        prefs = [r for r in map(json.loads, fh) if r.get("type") == "preference"]
    rows = [(r["runi"], r["runj"], r["qid"], r["rpp"]) for r in prefs]
    assert len(rows) == 6 * 6  # 6 pairs x the 6 qrels topics with a relevant document, c5 for sysC too
    gone = [x for x in rows if x[:3] == ("sysA", "sysC", "c5")]
    assert len(gone) == 1 and gone[0][3] == pytest.approx(1 / 6)  # the oracle: not 0

    def table(name, keep):  # the -P layout of zelo_eval -q -o tsv (pref_eval.py's values)
        (tmp_path / name).write_text("runi\trunj\tqid\tmeasure\tvalue\n"
                                     + "".join(f"{a}\t{b}\t{q}\trpp\t{v!r}\n" for a, b, q, v in keep))
        return str(tmp_path / name)

    cut, full = table("cut.tsv", [x for x in rows if x not in gone]), table("full.tsv", rows)
    argv = ["--tests", "t", "-o", "jsonl", "-Q"]
    res = run_module_inproc("compare", ["-P", cut, "-c", *argv])
    assert res.returncode == 2 and res.stdout == "" and res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith("zelo_compare: -c: pair 'sysA' / 'sysC' lacks query 'c5' of measure 'rpp'; ")
    # without -c: the queries every pair has; on pref_eval.py's whole file -c changes nothing (none missing)
    assert run_module_inproc("compare", ["-P", cut, *argv]).returncode == 0
    a, b = (run_module_inproc("compare", ["-P", full, *c, *argv]) for c in ([], ["-c"]))
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout and '"n_queries": 6' in a.stdout


# --- --baseline: one orientation -------------------------------------------------------------------------

def test_baseline_records_are_other_minus_baseline(coll):
    (coll / "C.run").write_text(RUN_A.replace(" A\n", " C\n").replace("t3 Q0 d2 1", "t3 Q0 d7 1"))
    code, out, err = _run("compare", coll, "-R", "q.txt", "-c", "-m", "map", "-m", "rpp", "--baseline", "B",
                          "--tests", "t", "-o", "jsonl", "-Q", "A.run", "B.run", "C.run")
    assert code == 0, err
    recs = [json.loads(x) for x in out.splitlines()]
    assert {(r["run_a"], r["run_b"]) for r in recs} == {("A.run", "B.run"), ("C.run", "B.run")}
    code, pq, err = _run("eval", coll, "-R", "q.txt", "-q", "-n", "-c", "-o", "tsv", "-m", "map", "A.run", "B.run",
                         "C.run")
    vals: dict = {}
    for line in pq.splitlines()[1:]:
        run, qid, _, v = line.split("\t")
        vals.setdefault(run, {})[qid] = float(v)
    code, pp, err = _run("eval", coll, "-R", "q.txt", "-q", "-n", "-o", "tsv", "-m", "rpp", "A.run", "B.run",
                         "C.run")
    prefs: dict = {}
    for line in pp.splitlines()[1:]:
        ri, rj, qid, _, v = line.split("\t")
        prefs.setdefault((ri, rj), []).append(float(v))
    for r in recs:
        a, b = r["run_a"], r["run_b"]
        if r["measure"] == "map":  # scipy.stats.ttest_rel(other, baseline)
            x, y = (np.array([vals[k][q] for q in sorted(vals[k])]) for k in (a, b))
            want = stats.ttest_rel(x, y)
        else:  # the preference of the other run over the baseline; zelo_eval writes (A, B) and (B, C)
            v = np.array(prefs[(a, b)] if (a, b) in prefs else [-x for x in prefs[(b, a)]])
            want = stats.ttest_1samp(v, 0)
        assert r["statistic"] == pytest.approx(want.statistic, rel=1e-9), r
        assert np.sign(r["mean_diff"]) == np.sign(want.statistic)


# --- the second audit (e31) ---------------------------------------------------------------------------------

AGREE = ["-J", "judgments/dl21-crowd-sample.txt", "-J", "judgments/dl21-gpt4o-sample.human", "-l", "pair",
         "--resamples", "0", "-Q"]


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_zelo_agree_digits_refused_where_every_digit_is_written(fmt):
    res = run_module_inproc("agree", [*AGREE, "-o", fmt, "--digits", "2"])
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (f"zelo_agree: --digits applies to the tables (-o text, markdown, latex); -o {fmt} writes "
                          "every value in full precision\n")


def test_zelo_agree_digits_honoured_in_a_table():
    a = run_module_inproc("agree", [*AGREE, "-o", "markdown"])
    b = run_module_inproc("agree", [*AGREE, "-o", "markdown", "--digits", "2"])
    assert a.returncode == b.returncode == 0 and a.stdout != b.stdout


@pytest.mark.parametrize("extra, flag", [
    (["--confidence", "0.8"], "--confidence"),
    (["--tests", "t,bootstrap", "--ci-method", "basic"], "--ci-method"),
    (["--tests", "t,wilcoxon", "--zero-method", "pratt"], "--zero-method"),
    (["--tests", "t,wilcoxon", "--wilcoxon-method", "exact", "-o", "latex"], "--wilcoxon-method"),
    (["--tests", "t,sign", "--sign-min-diff", "0.1", "-o", "markdown"], "--sign-min-diff"),
])
def test_zelo_compare_tables_refuse_what_they_do_not_show(extra, flag):
    """The tables show means and the marker test's markers: these options changed no byte of them."""
    res = run_module_inproc("compare", ["-P", "tests/data/stats/perquery.tsv", "-Q", *extra])
    assert res.returncode == 2 and res.stdout == "" and res.stderr.startswith(f"zelo_compare: {flag} applies only")
    assert res.stderr.count("\n") == 1
    options = extra[:-2] if "-o" in extra else extra
    jsonl = run_module_inproc("compare", ["-P", "tests/data/stats/perquery.tsv", "-Q", *options, "-o", "jsonl"])
    assert jsonl.returncode == 0, jsonl.stderr


def test_zelo_compare_table_takes_the_marker_tests_option():
    base = ["-P", "tests/data/stats/perquery.tsv", "-Q", "--tests", "t,wilcoxon", "--marker-test", "wilcoxon"]
    res = run_module_inproc("compare", [*base, "--zero-method", "pratt"])
    assert res.returncode == 0, res.stderr


def test_zelo_plot_matrix_prior_refused_with_given_scores(tmp_path):
    """-S gives the order: nothing is fitted, so --prior changed no byte of the image (was accepted)."""
    scores = tmp_path / "s.tsv"
    assert run_module_inproc("fit", ["-J", "judgments/dl19-sample.judge", "-Q", "-o", scores]).returncode == 0
    base = ["matrix", "-J", "judgments/dl19-sample.judge", "-q", "1037798", "-Q", "--image-format", "svg", "-o", "-"]
    assert run_module_inproc("plot", [*base, "-S", scores]).returncode == 0
    res = run_module_inproc("plot", [*base, "-S", scores, "--prior", "2"])
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == ("zelo_plot: --prior applies only with the fit done here (not with -S SCORES, whose order "
                          "is taken as given)\n")
    a, b = (run_module_inproc("plot", [*base, "--prior", p]) for p in ("0.5", "50"))
    assert a.returncode == b.returncode == 0 and a.stdout != b.stdout  # without -S it orders by the fit


def test_zelo_judge_dry_run_says_where_the_limits_stop(tmp_path):
    """--budget-requests / --max-cost were left out of the --dry-run estimate (the same lines with and without)."""
    (tmp_path / "pairs.jsonl").write_text("".join(f'{{"qid": "q1", "doc_a": "d{i}", "doc_b": "d{i + 1}"}}\n'
                                                  for i in range(10)))
    (tmp_path / "docs.tsv").write_text("".join(f"d{i}\tdocument {i}\n" for i in range(11)))
    (tmp_path / "queries.tsv").write_text("q1\tquery one\n")
    judge = "cmd:false"
    base = ["pairs.jsonl", "--queries", "queries.tsv", "--docs", "docs.tsv", "--store", "s.sqlite", "--judge", judge,
            "--dry-run", "--price", f"{judge}=1,1"]
    plain = run_module_inproc("judge", base, cwd=tmp_path)
    assert plain.returncode == 0 and plain.stdout.startswith("10 requests would be sent"), plain.stderr
    cost = float(plain.stdout.split("estimated cost: $")[1].split()[0])
    res = run_module_inproc("judge", [*base, "--budget-requests", "4", "--max-cost", str(cost / 2)], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    extra = res.stdout[len(plain.stdout):].splitlines()
    assert res.stdout.startswith(plain.stdout) and extra[0] == "--budget-requests 4: this run stops after 4 of the 10"
    # the printed cost is rounded to 4 decimals: half of it is about half of the requests
    assert extra[1] in (f"--max-cost {cost / 2:g}: this run stops before that, after about {k} of the 10"
                        for k in (4, 5)) and len(extra) == 2
    assert not (tmp_path / "s.sqlite").exists()


def test_zelo_simulate_names_the_C_option():
    res = run_module_inproc("simulate", ["bandit", "--algorithm", "dts", "--case", "a", "--reps", "1", "--C", "5"])
    assert res.returncode == 2 and res.stderr == "zelo_simulate: --C does not apply to --algorithm dts\n"


@pytest.mark.parametrize("fmt", ["topics-csv", "topics-jsonl", "topics"])
def test_zelo_eval_topics_refuses_q(fmt):
    """-o topics is always per topic: -q changed no byte (was accepted); -n still leaves out the means."""
    res = run_module_inproc("eval", ["-R", "qrels/dl19-sample.qrels", "-m", "map", "-o", fmt, "-q", "runs/bm25.run",
                                     "runs/dense.run"])
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (f"zelo_eval: -o {fmt} is per topic already: -q does not apply (-n leaves out the 'all' "
                          "rows)\n")
    base = ["-R", "qrels/dl19-sample.qrels", "-m", "map", "-o", "topics", "-Q", "runs/bm25.run", "runs/dense.run"]
    full, no_means = run_module_inproc("eval", base), run_module_inproc("eval", [*base, "-n"])
    assert full.returncode == no_means.returncode == 0
    assert [x for x in full.stdout.splitlines() if not x.startswith("all\t")] == no_means.stdout.splitlines()


@pytest.mark.parametrize("extra, message", [
    (["-o", "tsv", "-m", "rpp", "-m", "ap"], "--means applies to -o pref (the per-run mean lines); -o tsv holds each "
                                             "run's metric values already (the 'all' rows)"),
    (["-m", "rpp"], "--means adds a per-run mean line for every metric (ap, ndcg, p@10, ...): none is requested"),
])
def test_zelo_eval_means_refused_where_it_adds_nothing(extra, message):
    res = run_module_inproc("eval", ["-R", "qrels/dl19-sample.qrels", "-Q", *extra, "--means", "runs/bm25.run",
                                     "runs/dense.run"])
    assert res.returncode == 2 and res.stdout == "" and res.stderr == f"zelo_eval: {message}\n"


def test_zelo_eval_means_with_a_metric():
    """Oracle: the mean of the per-query AP lines of the same output (pref_eval.py's definition of the line)."""
    base = ["-R", "qrels/dl19-sample.qrels", "-Q", "-q", "-m", "rpp", "-m", "ap", "runs/bm25.run", "runs/dense.run"]
    res = run_module_inproc("eval", [*base, "--means"])
    assert res.returncode == 0, res.stderr
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    for run in ("bm25.run", "dense.run"):
        (mean,) = [x for x in lines if x.get("run") == run and x["qid"] == "all"]
        per_query = [x["ap"] for x in lines if x.get("run") == run and x["qid"] != "all"]
        assert mean["ap"] == pytest.approx(np.mean(per_query), rel=1e-12)


@pytest.mark.parametrize("extra, message", [
    (["--confidence", "0.8"], "--confidence sets the bootstrap intervals: none with --resamples 0"),
    (["--seed", "3"], "--seed seeds the bootstrap (none with --resamples 0) and a randomised system-level test "
                      "(none here)"),
])
def test_zelo_agree_without_resamples_refuses_interval_options(extra, message):
    res = run_module_inproc("agree", [*AGREE, "-o", "jsonl", *extra])  # AGREE: --resamples 0
    assert res.returncode == 2 and res.stdout == "" and res.stderr == f"zelo_agree: {message}\n"
    with_draws = [x if x != "0" else "20" for x in AGREE]
    a, b = (run_module_inproc("agree", [*with_draws, "-o", "jsonl", *e]) for e in ([], extra))
    assert a.returncode == b.returncode == 0 and a.stdout != b.stdout  # read where there is a bootstrap


@pytest.mark.parametrize("argv", [["status", "--verify"], ["result", "--verify"], ["result", "--no-verify"]])
def test_zelo_pairs_verify_refused_on_a_tournament_state(tmp_path, argv):
    """A tournament state has nothing to replay: --verify / --no-verify changed nothing there (was accepted)."""
    st = tmp_path / "t.json"
    assert run_module_inproc("pairs", ["init", "--state", st, "--qrels", "qrels/dl19-sample.qrels", "--k", "2",
                                       "-Q"]).returncode == 0
    res = run_module_inproc("pairs", [argv[0], "--state", st, argv[1]])
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith(f"zelo_pairs: {argv[1]} applies to adaptive states") and res.stderr.count("\n") == 1
    assert run_module_inproc("pairs", [argv[0], "--state", st]).returncode == 0


def test_pref_aggregate_damping_default_value_with_mc4_steps_refused(coll):
    """--damping 0.15 (its default, given) with --mc4-steps was taken and unused (the API sees only the value)."""
    code, prefs, err = _run("eval", coll, "-R", "q.txt", "-q", "A.run", "B.run")
    (coll / "p.jsonl").write_text(prefs)
    code, out, err = _run("aggregate", coll, "-P", "p.jsonl", "--mc4-steps", "10", "--damping", "0.15")
    assert code == 2 and out == "" and err.startswith("pref_aggregate: --damping applies to the stationary MC4")


def test_zelo_simulate_tournament_k_is_the_returned_top_set(tmp_path):
    """--k was read only for the --p / --f floors: the columns took the documents with the most wins. On a
    deterministic total order (M[i][j] = 1 for i < j) every pruning keeps the true top and the final ranks
    strictly, so by hand: the top set is items 0..k-1 -- size k, found (item 0, the Copeland winner) always."""
    K = 12
    (tmp_path / "det.txt").write_text("".join(" ".join("0.5" if i == j else ("1" if i < j else "0")
                                                       for j in range(K)) + "\n" for i in range(K)))
    for k in (1, 3):
        res = run_module_inproc("simulate", ["tournament", "--matrix", "det.txt", "--reps", "4", "--k", str(k),
                                             "-Q"], cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        header, row = (x.split("\t") for x in res.stdout.splitlines())
        cells = dict(zip(header, row, strict=True))
        assert (cells["found"], cells["found_all"], float(cells["mean_best_set"])) == ("4", "4", float(k))


# --- zelo_judge against a server (session 23, j32) -----------------------------------------------------

def _judge_texts(tmp_path, n=2):
    """n pairs of one query, texts with tests/fake_openai.py's markers."""
    (tmp_path / "q.tsv").write_text("q1\tQID=q1 a question\n")
    (tmp_path / "d.tsv").write_text("".join(f"d{i}\tDOC=d{i} text\n" for i in range(n + 1)))
    (tmp_path / "p.jsonl").write_text("".join(f'{{"qid": "q1", "doc_a": "d{i}", "doc_b": "d{i + 1}"}}\n'
                                              for i in range(n)))
    return ["p.jsonl", "--queries", "q.tsv", "--docs", "d.tsv"]


@pytest.mark.parametrize("extra, message", [
    (["--retries", "0", "--seed", "3"], "--seed seeds the jitter of the waits between retries: none with --retries 0"),
    (["--backoff", "0", "--seed", "3"], "--seed seeds the jitter of the waits between retries: none with --backoff 0"),
    (["--retries", "0", "--backoff", "2"], "--backoff sets the waits between retries: none with --retries 0"),
])
def test_zelo_judge_retry_options_without_retries_refused(tmp_path, extra, message):
    """The seed governs only the jitter of the retry waits (docs), --backoff only those waits: with no retry, or
    no wait, they changed nothing (were accepted)."""
    res = run_module_inproc("judge", [*_judge_texts(tmp_path), "--store", "s.sqlite", "--judge", "cmd:false",
                                      *extra], cwd=tmp_path)
    assert (res.returncode, res.stdout, res.stderr) == (2, "", f"zelo_judge: {message}\n")
    assert not (tmp_path / "s.sqlite").exists()


@pytest.fixture()
def http_server(request):
    """conftest's ``server`` (tests/fake_openai.py), skipped without openai or aiohttp."""
    pytest.importorskip("openai")
    pytest.importorskip("aiohttp")
    return request.getfixturevalue("server")


def test_zelo_judge_backoff_and_seed_are_the_retry_waits(tmp_path, http_server, monkeypatch):
    """--backoff B --seed S: retry k waits min(60, B 2^k) U(1/2, 1), U from Python's random.Random(S) (the
    docs' definition, the oracle): seeds 0 and 1 give waits 0.46 s and 0.28 s. The wait the scheduler asks
    for is recorded (its ``asyncio.wait_for``'s timeout: deterministic, exact to the bit), and the server's
    log shows it was waited: the retry comes at least that long after the first request. (The server's gap
    was also bounded from above, wait + 0.15 s: a bound on how late a loaded machine wakes a sleeper, not on
    the option; session 24, fl34.)"""
    import asyncio
    import random

    from pref_eval.judge import scheduler

    class Spy:  # scheduler's view of asyncio: wait_for's timeout recorded
        def __init__(self, waits: list) -> None:
            self.waits = waits

        def __getattr__(self, name):
            return getattr(asyncio, name)

        def wait_for(self, aw, timeout):
            self.waits.append(timeout)
            return asyncio.wait_for(aw, timeout)

    args = _judge_texts(tmp_path, n=1)
    seen = {}
    for seed in (0, 1):
        srv, url = http_server(faults={("m0", "q1", "d0", "d1"): ["500"]})
        waits: list = []
        monkeypatch.setattr(scheduler, "asyncio", Spy(waits))
        res = run_module_inproc("judge", [*args, "--store", f"s{seed}.sqlite", f"--judge=openai:m0@{url}",
                                          "--retries", "1", "--backoff", "0.5", "--seed", str(seed), "-Q"],
                                cwd=tmp_path)
        assert res.returncode == 0 and len(srv.times) == 2, res.stderr
        wait = 0.5 * random.Random(seed).uniform(0.5, 1.0)
        assert waits == [wait], (seed, waits, wait)
        seen[seed] = (srv.times[1] - srv.times[0], wait)
    for gap, wait in seen.values():
        assert gap >= wait - 0.01, seen  # a sleeper wakes late, never early
    assert seen[0][1] - seen[1][1] > 0.15  # the two seeds' waits differ


def test_zelo_judge_api_key_env_names_the_key_sent(tmp_path, http_server):
    """--api-key-env VAR: the key sent is VAR's (OPENAI_API_KEY set beside it is not), and it is in no output."""
    key = "sk-j32-PROBE-0123456789"
    srv, url = http_server(api_key=key)
    env = judge_env(MY_KEY=key, OPENAI_API_KEY="sk-not-this-one")
    res = run_module_inproc("judge", [*_judge_texts(tmp_path), "--store", "s.sqlite", f"--judge=openai:m0@{url}",
                                      "--api-key-env", "MY_KEY", "-o", "o.jsonl"], cwd=tmp_path, env=env)
    assert res.returncode == 0, res.stderr
    assert srv.auth_seen == [f"Bearer {key}"] * 2
    assert key not in res.stdout + res.stderr
    assert all(key.encode() not in f.read_bytes() for f in tmp_path.iterdir())


@pytest.mark.parametrize("out, code, message", [
    ("q.tsv", 2, "output file q.tsv is the same file as --queries q.tsv; refusing to overwrite it"),
    ("no/o.jsonl", 1, "no/o.jsonl: cannot write: directory no does not exist"),
])
def test_zelo_judge_dry_run_checks_the_output(tmp_path, out, code, message):
    """--dry-run writes no -o, but refuses one the same command without --dry-run refuses (was accepted)."""
    args = [*_judge_texts(tmp_path), "--store", "s.sqlite", "--judge", "cmd:false", "--dry-run"]
    before = (tmp_path / "q.tsv").read_bytes()
    res = run_module_inproc("judge", [*args, "-o", out], cwd=tmp_path)
    assert (res.returncode, res.stdout, res.stderr) == (code, "", f"zelo_judge: {message}\n")
    assert (tmp_path / "q.tsv").read_bytes() == before
    ok = run_module_inproc("judge", [*args, "-o", "o.jsonl"], cwd=tmp_path)
    assert ok.returncode == 0 and ok.stdout.startswith("2 requests would be sent")
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize("module, args", [
    ("eval", ["-R", "qrels/dl19-sample.qrels", "-m", "map", "runs/bm25.run", "runs/dense.run"]),
    ("eval", ["-R", "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run"]),
    ("fit", ["-J", "judgments/dl19-sample.judge"]),
])
def test_jobs_with_a_scheduler_refused(module, args):
    """--jobs N was unused beside --scheduler (the scheduler's workers did the work): refused before any
    connection (the address here has no scheduler)."""
    res = run_module_inproc(module, [*args, "--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"])
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (f"zelo_{module}: --jobs 2 and --scheduler: give one (--scheduler runs the pieces on the "
                          "cluster's workers, --jobs in processes of this machine)\n")


def test_zelo_judge_ties_under_a_state(tmp_path):
    """--ties under --state: a judge that always answers 0 (a tie) adds ½ per judgment with half and 0 with zbench
    (the rule of zelo_fit --ties, docs/zelo_judge.md), to the state's judgments."""
    (tmp_path / "g.qrels").write_text("q1 0 a 1\nq1 0 b 2\n")
    (tmp_path / "q.tsv").write_text("q1\tquery\n")
    (tmp_path / "d.tsv").write_text("a\tA\nb\tB\n")
    for ties, score in (("half", 0.5), ("zbench", 0.0)):
        st = tmp_path / f"{ties}.json"
        assert run_module_inproc("pairs", ["init", "--state", str(st), "--qrels", "g.qrels", "--strategy", "adaptive",
                                           "-Q"], cwd=tmp_path).returncode == 0
        res = run_module_inproc("judge", ["--state", str(st), "--queries", "q.tsv", "--docs", "d.tsv", "--store",
                                          f"{ties}.sqlite", "--judge", "cmd:while read l; do echo 0; done",
                                          "--ties", ties, "-Q"], cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        added = [r[3] for g in json.loads(st.read_text())["adds"] for r in g]
        assert added and set(added) == {score}


# --- session 24 (k33): the per-topic table per run type and its quartiles --------------------------------------

@pytest.mark.parametrize("extra, flag", [
    (["-o", "tsv", "--run-types", "types.txt"], "--run-types applies to -o topics|topics-csv|topics-jsonl|"
                                                "topics-text|topics-markdown|topics-latex (the per-topic table), "
                                                "not to -o tsv"),
    (["--quartiles"], "--quartiles applies to -o topics|topics-csv|topics-jsonl|topics-text|topics-markdown|"
                      "topics-latex (the per-topic table), not to the default output"),
    (["-o", "markdown", "--quartiles"], "--quartiles applies to -o topics|topics-csv|topics-jsonl|topics-text|"
                                        "topics-markdown|topics-latex (the per-topic table), not to -o markdown"),
    (["-o", "trec", "--clef-stats"], "--clef-stats applies to -o topics|topics-csv|topics-jsonl|topics-text|"
                                     "topics-markdown|topics-latex (the per-topic table), not to -o trec"),
    (["--clef-stats"], "--clef-stats applies to -o topics|topics-csv|topics-jsonl|topics-text|topics-markdown|"
                       "topics-latex (the per-topic table), not to the default output"),
])
def test_zelo_eval_run_types_and_quartiles_refused_outside_the_per_topic_table(coll, extra, flag):
    (coll / "types.txt").write_text("A automatic\nB manual\n")
    res = run_module_inproc("eval", ["-R", "q.txt", "-m", "map", *extra, "A.run", "B.run"], cwd=coll)
    assert res.returncode == 2 and res.stdout == "" and res.stderr == f"zelo_eval: {flag}\n"


def test_zelo_eval_run_types_and_quartiles_honoured(coll):
    (coll / "types.txt").write_text("A automatic\nB manual\n")
    argv = ["-R", "q.txt", "-m", "map", "-o", "topics", "-Q", "A.run", "B.run"]
    plain, typed, quart = (run_module_inproc("eval", [*argv, *x], cwd=coll)
                           for x in ([], ["--run-types", "types.txt"], ["--quartiles"]))
    assert plain.stdout.splitlines()[0].split("\t")[:6] == ["qid", "measure", "runs", "min", "median", "max"]
    assert typed.stdout.splitlines()[0].split("\t")[:7] == ["qid", "measure", "type", "runs", "min", "median", "max"]
    assert quart.stdout.splitlines()[0].split("\t")[:8] == ["qid", "measure", "runs", "min", "q1", "median", "q3",
                                                             "max"]
    clef = run_module_inproc("eval", [*argv, "--clef-stats"], cwd=coll)  # session 25 (k35)
    assert clef.stdout.splitlines()[0].split("\t")[:12] == ["qid", "measure", "runs", "min", "q1", "median", "q3",
                                                             "max", "mean", "std", "iqr", "range"]


def test_zelo_compare_ci_method_in_any_letter_case():
    """scipy's bootstrap takes its method in any case, and so does pref_eval.compare(ci_method=...): the command
    took only 'BCa' (f35's fuzz); 'bca' / 'PERCENTILE' are the same intervals as 'BCa' / 'percentile'."""
    base = ["-P", "tests/data/stats/perquery.tsv", "-Q", "--tests", "bootstrap", "--resamples", "200", "--seed", "3",
            "-o", "jsonl"]
    for spelt, canon in (("bca", "BCa"), ("PERCENTILE", "percentile")):
        a = run_module_inproc("compare", [*base, "--ci-method", spelt])
        b = run_module_inproc("compare", [*base, "--ci-method", canon])
        assert a.returncode == b.returncode == 0, a.stderr
        assert a.stdout == b.stdout and '"ci_low"' in a.stdout
    other = run_module_inproc("compare", [*base, "--ci-method", "basic"])
    assert other.stdout != b.stdout


# --- session 26 (j36) ----------------------------------------------------------------------------------------

def test_zelo_agree_judged_depth_refused_without_the_system_level():
    """--judged-depth sets the system level's judged@K:RUN (tests/test_agree_judged_depth.py: honoured, against
    ir-measures' Judged@K); no other level reads it."""
    res = run_module_inproc("agree", [*AGREE, "-o", "jsonl", "--judged-depth", "10"])
    assert (res.returncode, res.stdout, res.stderr) == (2, "", "zelo_agree: --judged-depth is used only by the "
                                                               "system level (add --level system)\n")


def test_zelo_judge_verbose_and_quiet_refused_together(tmp_path):
    """-v asks for lines on stderr that -Q silences: the pair is refused before anything is read (honoured:
    tests/test_judge_verbose.py)."""
    res = run_module_inproc("judge", [*_judge_texts(tmp_path), "--store", "s.sqlite", "--judge", "cmd:false", "-v",
                                      "-Q"], cwd=tmp_path)
    assert (res.returncode, res.stderr) == (2, "zelo_judge: -v/--verbose and -Q/--quiet: choose one (-Q silences "
                                               "every line on stderr)\n")
    assert not (tmp_path / "s.sqlite").exists()


# --- a single-value option given twice (session 26, r36: pref_eval/cli/once.py; the whole registry in
# tests/test_cli_given_twice.py). click kept the last value in silence: the first was ignored.

@pytest.mark.parametrize("module, args, line", [
    ("fit", ["--prior", "1", "--prior", "0", "-J", "judgments/dl19-sample.judge"],
     "zelo_fit: --prior given twice (1 and 0): it takes one value; give it once"),
    ("compare", ["-P", "tests/data/stats/perquery.tsv", "--alpha", "0.05", "--alpha", "0.01"],
     "zelo_compare: --alpha given twice (0.05 and 0.01): it takes one value; give it once"),
    ("aggregate", ["-P", "x", "--query_fraction", "0.5", "--seed", "1", "--seed", "2"],
     "pref_aggregate: --seed given twice (1 and 2): it takes one value; give it once"),
    ("eval", ["-R", "q.txt", "-o", "tsv", "-o", "csv", "A.run"],
     "zelo_eval: -o/--output-format given twice (tsv and csv): it takes one value; give it once"),
])
def test_our_option_given_twice_refused(coll, module, args, line):
    res = run_module_inproc(module, args, cwd=coll if module == "eval" else ".")
    assert res.returncode == 2 and res.stdout == "" and res.stderr.splitlines()[0] == line


def test_pref_eval_py_option_given_twice_honours_the_last(coll):
    """zelo_eval as pref_eval.py: ``-b 2 -b 1`` is ``-b 1`` (argparse keeps the last), said on stderr."""
    argv = ["-R", "q.txt", "-m", "ap", "-m", "rpp", "-q", "A.run", "B.run"]
    twice = run_module_inproc("eval", [*argv[:-2], "-b", "2", "-b", "1", *argv[-2:]], cwd=coll)
    last = run_module_inproc("eval", [*argv[:-2], "-b", "1", *argv[-2:]], cwd=coll)
    first = run_module_inproc("eval", [*argv[:-2], "-b", "2", *argv[-2:]], cwd=coll)
    assert twice.returncode == 0 and twice.stdout == last.stdout != first.stdout
    assert twice.stderr == ("zelo_eval: warning: -b/--binary_relevance given twice: 2 dropped, 1 taken (the last, "
                            "as pref_eval.py takes it)\n")


@pytest.mark.parametrize("kw, message", [
    ({"output_format": "nope"}, "output_format: expected one of text, tsv, csv, jsonl, markdown, latex, got 'nope'"),
    ({"output_format": "jsonl"}, "output_format applies to what is written: give output=FILE (output='-': standard "
                                 "output); the records returned hold every value in full precision"),
    ({"digits": 2}, "digits applies to what is written: give output=FILE (output='-': standard output); the records "
                    "returned hold every value in full precision")])
def test_agree_output_format_and_digits_without_an_output_refused(kw, message):
    """``pref_eval.agree(..., output_format=..., digits=...)`` without ``output`` wrote nothing and took any
    value, ``'nope'`` included (session 28): refused, as compare_runs/pairs refuse a format they do not know."""
    from pref_eval.api import agree
    from pref_eval.errors import UsageError

    with pytest.raises(UsageError) as err:
        agree(["judgments/dl21-crowd-sample.txt", "judgments/dl21-gpt4o-sample.human"], levels=["pair"],
              resamples=0, **kw)
    assert str(err.value) == message
