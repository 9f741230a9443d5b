"""A track organizer's batch, session 22 (k31): bad runs named alike by zelo_eval and zelo_compare, orderings
refused before any warning, ``-o topics`` in the other table formats, ``--keep-going`` in preference mode and
the pool's per-run contribution report. Oracles: the runs alone (what leaving a bad run out must give),
hand-worked values, pandas computed live."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_harness import ROOT, run_inproc
from test_track_runs import BAD, GOOD, OTHER, QRELS, THIRD


def _files(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(GOOD)
    (tmp_path / "other.run").write_text(OTHER)
    (tmp_path / "third.run").write_text(THIRD)
    for name, text in BAD.items():
        (tmp_path / name).write_text(text)
    return tmp_path


# -- bad runs named by the path as given (what the user typed), in the order given, by both commands

NAMES = ["--name", "dup.run=X", "--name", "none.run=Y", "--name", "short.run=Z"]
RUNS = ["good.run", "dup.run", "./none.run", "other.run", "short.run", "third.run"]


@pytest.mark.slow  # scipy's import in zelo_compare: ~2 s
def test_bad_runs_named_alike_by_zelo_eval_and_zelo_compare(tmp_path):
    """n30: zelo_compare named them by their --name labels (X, Y, Z) and listed them reads first; zelo_eval by path
    in the order given. Both now say the paths as typed (``./none.run``), with the file's line where one is bad."""
    ws = _files(tmp_path)
    ev = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--keep-going", *NAMES, *RUNS], ws)
    co = run_inproc("zelo_compare", ["-R", "q.txt", "-m", "map", "--tests", "t", "-o", "csv", "--keep-going",
                                     *NAMES, *RUNS], ws)
    assert ev.returncode == co.returncode == 2
    tail = ": 3 of 6 runs {} (--keep-going; their errors above): dup.run, ./none.run, short.run"
    assert ev.stderr.splitlines()[-1] == "zelo_eval" + tail.format("not evaluated")
    assert co.stderr.splitlines()[-1] == "zelo_compare" + tail.format("not compared")
    # the error lines: the same set (zelo_compare reads every run before evaluating: read errors come first)
    assert sorted(x.split(": ", 1)[1] for x in ev.stderr.splitlines()[:-1]) == \
        sorted(x.split(": ", 1)[1] for x in co.stderr.splitlines()[:-1])
    assert "./none.run: no queries with both results" in co.stderr and "Y:" not in co.stderr
    assert "dup.run:2: duplicate document a" in co.stderr and "short.run:1: expected" in co.stderr


def test_zelo_compare_keep_going_messages_name_paths_not_labels(tmp_path):
    ws = _files(tmp_path)
    argv = ["-R", "q.txt", "-m", "map", "--tests", "t", "-o", "csv", "--keep-going", "--name", "dup.run=X"]
    res = run_inproc("zelo_compare", [*argv, "--baseline", "X", "good.run", "dup.run", "other.run"], ws)
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr.splitlines()[-1] == ("zelo_compare: baseline 'X' could not be evaluated (--keep-going: "
                                           "dup.run left out, its error above); nothing written")
    res = run_inproc("zelo_compare", [*argv, "good.run", "dup.run"], ws)
    assert res.returncode == 2 and res.stderr.splitlines()[-1] == (
        "zelo_compare: fewer than two runs left to compare (--keep-going): dup.run could not be evaluated; "
        "nothing written")


# -- zelo_compare --orderings: a format it cannot write is refused before anything is read or warned

def test_orderings_latex_refused_before_any_warning(tmp_path):
    """n30: with orderings of different systems the 'left out' warning came first, then the refusal."""
    a, b = (str(ROOT / "tests/data/stats" / n) for n in ("order_a.tsv", "order_top3.txt"))
    ok = run_inproc("zelo_compare", ["--orderings", a, b, "-o", "csv"], tmp_path)
    assert ok.returncode == 0 and "warning" in ok.stderr  # the two files do hold different systems
    res = run_inproc("zelo_compare", ["--orderings", a, b, "-o", "latex"], tmp_path)
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr == "zelo_compare: --orderings supports -o text, markdown, csv or jsonl\n"
    res = run_inproc("zelo_compare", ["--orderings", "missing.tsv", b, "-o", "latex"], tmp_path)
    assert res.stderr == "zelo_compare: --orderings supports -o text, markdown, csv or jsonl\n"


# -- -o topics-csv / topics-jsonl: the per-topic table of -o topics in the other long-table formats

FOURTH = "1 Q0 a 1 9 f\n1 Q0 c 2 8 f\n"  # AP 1 on topic 1; lacks topic 2


@pytest.mark.slow  # pandas' import: ~1.5 s
def test_topics_csv_and_jsonl_hold_the_tsv_table(tmp_path):
    """The CSV read by pandas (a run named with a comma and a quote: quoted cells) and the JSON lines equal the TSV
    table read by pandas, and hand-worked AP (test_track_runs.AP): a run lacking a topic is an empty cell / null."""
    import io
    import json

    import pandas as pd

    from test_track_runs import AP

    ws = _files(tmp_path)
    (ws / "fourth.run").write_text(FOURTH)
    argv = ["-R", "q.txt", "-m", "map", "-m", "num_rel_ret", "-Q", "--name", 'fourth.run=f,"4"', "good.run",
            "other.run", "fourth.run"]
    got = {f: run_inproc("zelo_eval", [*argv, "-o", f], ws) for f in ("topics", "topics-csv", "topics-jsonl")}
    assert all(r.returncode == 0 for r in got.values()), {f: r.stderr for f, r in got.items()}
    tsv = pd.read_csv(io.BytesIO(got["topics"].stdout), sep="\t", dtype={"qid": str}, quoting=3)
    csv_ = pd.read_csv(io.BytesIO(got["topics-csv"].stdout), dtype={"qid": str})
    assert list(csv_.columns) == ["qid", "measure", "runs", "min", "median", "max", "good.run", "other.run",
                                  'f,"4"']
    assert list(tsv.columns) == list(csv_.columns)  # TSV cells are never quoted (QUOTE_NONE reads them raw)
    pd.testing.assert_frame_equal(csv_, tsv)
    lines = [json.loads(x) for x in got["topics-jsonl"].stdout.decode().splitlines()]
    assert [(d["qid"], d["measure"]) for d in lines] == list(zip(tsv.qid, tsv.measure, strict=True))
    ap = lines[[(d["qid"], d["measure"]) for d in lines].index(("1", "map"))]
    assert ap["runs"] == 3 and ap["values"] == pytest.approx({"good.run": AP["good.run"]["1"],
                                                              "other.run": 1.0, 'f,"4"': 1.0})
    two = lines[[(d["qid"], d["measure"]) for d in lines].index(("2", "map"))]
    assert two["values"]['f,"4"'] is None and two["runs"] == 2
    assert two["median"] == pytest.approx((AP["good.run"]["2"] + AP["other.run"]["2"]) / 2)
    rel = lines[[(d["qid"], d["measure"]) for d in lines].index(("1", "num_rel_ret"))]
    assert rel["values"] == {"good.run": 2, "other.run": 2, 'f,"4"': 2} and isinstance(rel["min"], int)
    for d in lines:
        row = tsv[(tsv.qid == d["qid"]) & (tsv.measure == d["measure"])].iloc[0]
        assert [d[k] for k in ("runs", "min", "median", "max")] == pytest.approx(
            [row[k] for k in ("runs", "min", "median", "max")])


@pytest.mark.parametrize("fmt", ["topics-csv", "topics-jsonl"])
def test_topics_formats_refused_outside_metric_mode(tmp_path, fmt):
    ws = _files(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "rpp", "-o", fmt, "good.run", "other.run"], ws)
    assert res.returncode == 2 and res.stderr == (f"zelo_eval: -o {fmt} is a table of trec_eval measures (metric "
                                                  "mode), not of preference measures\n")


# -- zelo_pairs pool --contributions: each run's documents in the pool, those only it pooled, with --qrels the
#    relevant ones and the relevant ones only it pooled (TREC overview papers' "unique relevant documents")

from test_track_runs import POOL_A, POOL_B  # noqa: E402

POOL_QRELS_REL = "1 0 d9 0\n2 0 e2 -1\n7 0 z 1\n1 0 d2 2\n3 0 x 1\n"


def test_pool_contributions_hand_worked(tmp_path):
    """Depth 2: a.run pools (1 d1) (1 d9) (2 e1); b.run (1 d1) (1 d2) (2 e1) (2 e2) (3 x) (10 y): shared d1 and e1,
    so a.run alone holds d9 (1), b.run d2, e2, x, y (4); relevant (grade >= 1): b.run's d2 and x, both its own."""
    (tmp_path / "a.run").write_text(POOL_A)
    (tmp_path / "b.run").write_text(POOL_B)
    (tmp_path / "j.qrels").write_text(POOL_QRELS_REL)
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--contributions", "c.tsv", "-Q", "a.run", "b.run"],
                     tmp_path)
    assert res.returncode == 0 and res.stdout.decode() == "1 d1\n1 d2\n1 d9\n10 y\n2 e1\n2 e2\n3 x\n"  # unchanged
    assert (tmp_path / "c.tsv").read_text() == "run\tpooled\tunique\na.run\t3\t1\nb.run\t6\t4\nall\t7\t5\n"
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--qrels", "j.qrels", "--contributions", "-", "-o",
                                    "p.txt", "-Q", "a.run", "b.run"], tmp_path)
    assert res.returncode == 0 and (tmp_path / "p.txt").read_text() == "1 d1\n10 y\n2 e1\n"
    assert res.stdout.decode() == ("run\tpooled\tunique\trelevant\tunique_relevant\na.run\t3\t1\t0\t0\n"
                                   "b.run\t6\t4\t2\t2\nall\t7\t5\t2\t2\n")
    for bad, says in ((["--contributions", "-"], "--contributions - and the pool would share stdout"),
                      (["--contributions", "a.run"], "a.run")):
        res = run_inproc("zelo_pairs", ["pool", "--depth", "2", *bad, "a.run", "b.run"], tmp_path)
        assert res.returncode == 2 and res.stdout == b"" and says in res.stderr, res.stderr
    assert (tmp_path / "a.run").read_text() == POOL_A


def test_pool_contributions_keep_going_rows_of_the_good_runs(tmp_path):
    (tmp_path / "a.run").write_text(POOL_A)
    (tmp_path / "b.run").write_text(POOL_B)
    (tmp_path / "short.run").write_text("1 Q0 a 1\n")
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--keep-going", "--contributions", "c.tsv", "-o", "p.txt",
                                    "a.run", "./short.run", "b.run"], tmp_path)
    assert res.returncode == 2 and res.stderr.splitlines()[-1] == (
        "zelo_pairs: 1 of 3 runs not pooled (--keep-going; their errors above): ./short.run")
    assert (tmp_path / "c.tsv").read_text() == "run\tpooled\tunique\na.run\t3\t1\nb.run\t6\t4\nall\t7\t5\n"


@pytest.mark.slow  # pandas' import: ~1.5 s
def test_pool_contributions_equal_pandas_on_the_shipped_runs(tmp_path):
    """Each run's top N by pandas' sort (score desc, docno desc: trec_eval's rule); a document is unique when one
    run alone has it (pandas' groupby count), relevant when the qrels grade it >= 1; row 'all' the pool's."""
    import pandas as pd

    runs = [ROOT / f"runs/{n}.run" for n in ("bm25", "dense", "rerank")]
    qrels = ROOT / "qrels/dl19-sample.qrels"
    j = pd.read_csv(qrels, sep=r"\s+", header=None, dtype=str, names=["qid", "it", "docno", "rel"])
    rel = set(map(tuple, j[j.rel.astype(int) >= 1][["qid", "docno"]].to_numpy().tolist()))
    for depth in (1, 10, 40):
        tops = []
        for k, r in enumerate(runs):
            d = pd.read_csv(r, sep=r"\s+", header=None, dtype=str, names=["qid", "q0", "docno", "rank", "score", "t"])
            d["score"] = d.score.astype(float)
            d = d.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="stable")
            tops.append(d.groupby("qid").head(depth)[["qid", "docno"]].assign(run=k))
        allt = pd.concat(tops)
        allt["n"] = allt.groupby(["qid", "docno"]).run.transform("count")
        allt["rel"] = [x in rel for x in zip(allt.qid, allt.docno, strict=True)]
        want = ["run\tpooled\tunique\trelevant\tunique_relevant"]
        for k, r in enumerate(runs):
            t = allt[allt.run == k]
            want.append(f"{r}\t{len(t)}\t{(t.n == 1).sum()}\t{t.rel.sum()}\t{(t.rel & (t.n == 1)).sum()}")
        pool = allt.drop_duplicates(["qid", "docno"])
        want.append(f"all\t{len(pool)}\t{(pool.n == 1).sum()}\t{pool.rel.sum()}\t{(pool.rel & (pool.n == 1)).sum()}")
        res = run_inproc("zelo_pairs", ["pool", "--depth", str(depth), "--qrels", str(qrels), "-Q", "-o", "p.txt",
                                        "--contributions", "-", *map(str, runs)], tmp_path)
        assert res.returncode == 0, res.stderr
        assert res.stdout.decode().splitlines() == want, depth
        assert sum(int(x.split("\t")[2]) for x in want[1:-1]) == int(want[-1].split("\t")[2])


# -- zelo_eval --keep-going in preference mode: a pair's values depend on its two runs and the qrels only, so the
#    output is that of the good runs alone (the oracle: the same command without the bad runs)

@pytest.mark.parametrize("argv", [["-o", "pref", "-q"], ["-m", "rpp", "-m", "lexiprecision", "-m", "P@1", "-o", "tsv",
                                                        "-q"],
                                  ["-o", "pref", "--query_fraction", "0.5", "--label_fraction", "0.5",
                                   "--samples", "3", "--seed", "7"],
                                  ["-o", "pref", "--jobs", "2"], ["-o", "pref", "--reference", "other.run"]])
def test_preference_keep_going_equals_the_good_runs_alone(tmp_path, argv):
    ws = _files(tmp_path)
    alone = run_inproc("zelo_eval", ["-R", "q.txt", *argv, "good.run", "other.run", "third.run"], ws)
    kept = run_inproc("zelo_eval", ["-R", "q.txt", *argv, "--keep-going", "good.run", "short.run", "other.run",
                                    "dup.run", "third.run", "missing.run"], ws)
    assert alone.returncode == 0 and kept.returncode == 2, (alone.stderr, kept.stderr)
    assert kept.stdout == alone.stdout and len(alone.stdout) > 100
    lines = kept.stderr.splitlines()
    assert [x.split(":")[1].strip() for x in lines[:3]] == ["short.run", "dup.run", "missing.run"]
    assert lines[-1] == ("zelo_eval: 3 of 6 runs not evaluated (--keep-going; their errors above): short.run, "
                         "dup.run, missing.run")


def test_preference_keep_going_ranks_each_run_once(tmp_path, monkeypatch):
    """--keep-going ranks each run against the qrels to check it; the evaluation of the whole qrels takes those
    rankings (session 23; before, every run was ranked again: 2 rankings a run). With a sample of the queries
    each sample ranks the runs against its own qrels, as without --keep-going."""
    import pref_eval.collection as collection

    ws = _files(tmp_path)
    ranked: list[int] = []
    real = collection.build_collection

    def counting(qrels, runs, *args, **kwargs):
        ranked.extend(id(r) for r in runs)
        return real(qrels, runs, *args, **kwargs)

    monkeypatch.setattr(collection, "build_collection", counting)
    for argv, per_run in ((["-m", "rpp"], 1), (["-m", "rpp", "--query_fraction", "0.5", "--samples", "2"], 3)):
        ranked.clear()
        res = run_inproc("zelo_eval", ["-R", "q.txt", "-Q", "--keep-going", *argv, "good.run", "other.run",
                                       "third.run"], ws)
        assert res.returncode == 0, res.stderr
        assert len(ranked) == 3 * per_run and len(set(ranked)) == 3, ranked


def test_preference_keep_going_refusals(tmp_path):
    ws = _files(tmp_path)
    (ws / "out.jsonl").write_text("before\n")
    base = ["-R", "q.txt", "--keep-going", "--output", "out.jsonl"]
    res = run_inproc("zelo_eval", [*base, "good.run", "dup.run"], ws)
    assert res.returncode == 2 and res.stderr.splitlines()[-1] == (
        "zelo_eval: fewer than two runs left to compare (--keep-going): dup.run could not be evaluated; nothing "
        "written")
    res = run_inproc("zelo_eval", [*base, "--reference", "dup.run", "good.run", "./dup.run", "other.run"], ws)
    assert res.returncode == 2 and res.stderr.splitlines()[-1] == (
        "zelo_eval: --reference 'dup.run' could not be evaluated (--keep-going: ./dup.run left out, its error above); "
        "nothing written")
    res = run_inproc("zelo_eval", [*base, "dup.run", "short.run"], ws)
    assert res.returncode == 2 and "none of the 2 runs could be evaluated" in res.stderr
    assert (ws / "out.jsonl").read_text() == "before\n"
    # one good run left is enough for a table of metrics (no pair to compare), as in metric mode
    res = run_inproc("zelo_eval", ["-R", "q.txt", "--keep-going", "-m", "rpp", "-m", "P@1", "-o", "tsv", "good.run",
                                   "dup.run"], ws)
    assert res.returncode == 2 and res.stdout.decode().splitlines()[1:] == ["good.run\t\tall\tP@1\t1.0"]


# -- --median upper: NIST's per-topic medians of an even number of runs are the upper median (TREC 2008 Blog
#    overview); the oracle is Python's statistics.median_high (and statistics.median for the default)

@pytest.mark.parametrize("fmt", ["topics", "topics-csv"])
def test_topics_upper_median_equals_statistics_median_high(tmp_path, fmt):
    import csv
    import io
    import statistics

    ws = _files(tmp_path)
    (ws / "fourth.run").write_text(FOURTH)
    runs = ["good.run", "other.run", "third.run", "fourth.run"]  # -c: 4 values a topic; without: topic 2 has 3
    for extra in (["-c"], []):
        for median, oracle in (("upper", statistics.median_high), ("mean", statistics.median)):
            res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-m", "P@2", *extra, "-o", fmt, "--median",
                                           median, "-Q", *runs], ws)
            assert res.returncode == 0, res.stderr
            rows = list(csv.reader(io.StringIO(res.stdout.decode()), delimiter="\t" if fmt == "topics" else ","))
            assert rows[0][:6] == ["qid", "measure", "runs", "min", "median", "max"] and len(rows) == 7
            for r in rows[1:]:
                vals = [float(x) for x in r[6:] if x != ""]
                assert float(r[4]) == pytest.approx(oracle(vals), abs=1e-15), (median, extra, r)
    # hand-worked: topic 1 with -c, AP 5/6, 1, 1/4, 1: upper median 1 (mean of the middle two 11/12)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-c", "-o", fmt, "--median", "upper", *runs], ws)
    line = res.stdout.decode().splitlines()[1]
    assert line.split("\t" if fmt == "topics" else ",")[:6] == ["1", "map", "4", "0.25", "1.0", "1.0"]


@pytest.mark.parametrize("argv", [["-o", "tsv"], []])
def test_median_refused_outside_the_topics_table(tmp_path, argv):
    ws = _files(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", *argv, "--median", "upper", "good.run"], ws)
    assert res.returncode == 2 and res.stderr.startswith(
        "zelo_eval: --median applies to -o topics|topics-csv|topics-jsonl|topics-text|topics-markdown|topics-latex "
        "(the per-topic table), not to ")


# -- zelo_compare -R --keep-going with preference measures (session 22): the pairs of the good runs are those of
#    the good runs alone, so the report is too (the oracle: the same command without the bad runs)

@pytest.mark.slow  # scipy's import: ~2 s
@pytest.mark.parametrize("measures", [["-m", "rpp"], ["-m", "rpp", "-m", "map"]])
def test_zelo_compare_keep_going_preference_measures(tmp_path, measures):
    ws = _files(tmp_path)
    argv = ["-R", "q.txt", *measures, "--tests", "t", "-o", "csv"]
    alone = run_inproc("zelo_compare", [*argv, "good.run", "other.run", "third.run"], ws)
    kept = run_inproc("zelo_compare", [*argv, "--keep-going", "good.run", "dup.run", "other.run", "short.run",
                                       "third.run"], ws)
    assert alone.returncode == 0 and kept.returncode == 2, (alone.stderr, kept.stderr)
    assert kept.stdout == alone.stdout and b"rpp" in alone.stdout
    lines = kept.stderr.splitlines()
    assert [x.split(":")[1].strip() for x in lines[:2]] == ["dup.run", "short.run"] and len(lines) == 3
    assert lines[-1] == ("zelo_compare: 2 of 5 runs not compared (--keep-going; their errors above): dup.run, "
                         "short.run")
    # a run the trec_eval measure cannot evaluate (no topic in common) is left out of the rpp pairs too
    if "map" in measures:
        none = run_inproc("zelo_compare", [*argv, "--keep-going", "-Q", "good.run", "none.run", "other.run",
                                           "third.run"], ws)
        assert none.returncode == 2 and none.stdout == alone.stdout, none.stderr
    few = run_inproc("zelo_compare", [*argv, "--keep-going", "good.run", "dup.run"], ws)
    assert few.returncode == 2 and few.stdout == b"" and few.stderr.splitlines()[-1] == (
        "zelo_compare: fewer than two runs left to compare (--keep-going): dup.run could not be evaluated; "
        "nothing written")
    base = run_inproc("zelo_compare", [*argv, "--keep-going", "--baseline", "dup.run", "good.run", "dup.run",
                                       "other.run"], ws)
    assert base.returncode == 2 and base.stdout == b"" and "baseline 'dup.run' could not be evaluated" in base.stderr
