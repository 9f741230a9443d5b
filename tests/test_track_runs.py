"""A TREC track organizer's batch over many runs (session 21, k30): ``zelo_eval --keep-going`` (a bad run is
named and left out, the others evaluated), ``zelo_eval -o topics`` (per topic and measure the min / median /
max over the runs beside each run's value) and ``zelo_pairs pool`` (a depth-N pool as ``qid docno`` lines).
Oracles: hand-worked values, numpy / pandas computed live, and trec_eval's documented ranking rule
(score descending, docno descending) applied here independently."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_harness import ROOT, run_inproc

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n2 0 d 1\n"
# AP by hand: topic 1 (2 relevant: a, c), topic 2 (2 relevant: a, d)
GOOD = "1 Q0 a 1 3 g\n1 Q0 b 2 2 g\n1 Q0 c 3 1 g\n2 Q0 d 1 5 g\n2 Q0 x 2 4 g\n"  # 1: (1 + 2/3)/2; 2: 1/2
OTHER = "1 Q0 c 1 9 o\n1 Q0 a 2 8 o\n2 Q0 x 1 9 o\n2 Q0 a 2 8 o\n2 Q0 d 3 7 o\n"  # 1: 1; 2: (1/2 + 2/3)/2
AP = {"good.run": {"1": (1 + 2 / 3) / 2, "2": 0.5}, "other.run": {"1": 1.0, "2": (0.5 + 2 / 3) / 2}}
BAD = {"short.run": "1 Q0 a 1\n", "dup.run": "1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n", "none.run": "9 Q0 a 1 1 t\n"}
SAYS = {"short.run": "short.run:1: expected at least 6 fields", "dup.run": "dup.run:2: duplicate document a",
        "none.run": "none.run: no queries with both results", "missing.run": "missing.run: no such file"}


def _files(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(GOOD)
    (tmp_path / "other.run").write_text(OTHER)
    for name, text in BAD.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _table(text: str) -> dict[tuple[str, str], float]:
    rows = [line.split("\t") for line in text.splitlines()[1:]]
    return {(r[0], r[1]): float(r[3]) for r in rows if r[2] == "map"}


def _ap_table(runs=("good.run", "other.run")) -> dict[tuple[str, str], float]:
    want = {}
    for r in runs:
        want.update({(r, q): v for q, v in AP[r].items()})
        want[(r, "all")] = sum(AP[r].values()) / 2
    return want


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_keep_going_evaluates_the_good_runs_and_names_the_bad(tmp_path, jobs):
    ws = _files(tmp_path)
    argv = ["-R", "q.txt", "-m", "map", "-q", "-o", "tsv", "--keep-going", "--jobs", jobs, "--output", "out.tsv",
            "good.run", "short.run", "dup.run", "other.run", "none.run", "missing.run"]
    res = run_inproc("zelo_eval", argv, ws)
    assert res.returncode == 2
    got = _table((ws / "out.tsv").read_text())
    assert got == pytest.approx(_ap_table())
    assert list(got) == list(_ap_table())  # run order kept
    lines = res.stderr.splitlines()
    assert len(lines) == 5, lines
    for line, name in zip(lines, ("short.run", "dup.run", "none.run", "missing.run"), strict=False):
        assert line.startswith(f"zelo_eval: {SAYS[name]}"), (line, name)
    assert lines[-1] == ("zelo_eval: 4 of 6 runs not evaluated (--keep-going; their errors above): "
                         "short.run, dup.run, none.run, missing.run")


def test_keep_going_output_is_that_of_the_good_runs_alone(tmp_path):
    ws = _files(tmp_path)
    alone = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-m", "P@1", "-q", "good.run", "other.run",
                                     "-o", "trec"], ws)
    assert alone.returncode == 0, alone.stderr
    kept = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-m", "P@1", "-q", "good.run", "short.run",
                                    "other.run", "-o", "trec", "--keep-going", "-Q"], ws)
    assert kept.returncode == 2 and kept.stdout == alone.stdout
    assert kept.stderr.splitlines()[0].startswith("zelo_eval: short.run:1:")  # -Q silences warnings, not errors


def test_without_keep_going_the_first_bad_run_stops(tmp_path):
    ws = _files(tmp_path)
    (ws / "out.tsv").write_text("before\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--output", "out.tsv", "good.run",
                                   "dup.run", "short.run"], ws)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and SAYS["dup.run"] in res.stderr
    assert (ws / "out.tsv").read_text() == "before\n"


def test_keep_going_with_every_run_bad_writes_nothing(tmp_path):
    ws = _files(tmp_path)
    (ws / "out.tsv").write_text("before\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--output", "out.tsv", "--keep-going",
                                   "dup.run", "short.run"], ws)
    assert res.returncode == 2
    assert res.stderr.splitlines()[-1] == ("zelo_eval: none of the 2 runs could be evaluated (--keep-going): "
                                           "dup.run, short.run; nothing written")
    assert (ws / "out.tsv").read_text() == "before\n"


@pytest.mark.parametrize("fmt", ["text", "wide-csv"])
def test_keep_going_table_of_runs_with_one_run_left(tmp_path, fmt):
    """The runs x measures tables compare runs: one good run left is refused as zelo_compare --keep-going
    refuses it (n30: was 'need at least two runs to compare', the bad run not named in it); -o tsv writes it."""
    ws = _files(tmp_path)
    (ws / "out.txt").write_text("before\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", fmt, "--output", "out.txt", "--keep-going",
                                   "dup.run", "good.run"], ws)
    assert res.returncode == 2 and (ws / "out.txt").read_text() == "before\n"
    assert res.stderr.splitlines() == [f"zelo_eval: {SAYS['dup.run']} for query 1 (first at line 1); trec_eval "
                                       "refuses duplicates", "zelo_eval: fewer than two runs left to compare "
                                       "(--keep-going): dup.run could not be evaluated; nothing written"]
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--keep-going", "dup.run", "good.run"],
                     ws)
    want = {("good.run", "all"): sum(AP["good.run"].values()) / 2}
    assert res.returncode == 2 and _table(res.stdout.decode()) == pytest.approx(want)


def test_keep_going_all_good_exits_0(tmp_path):
    ws = _files(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--keep-going", "good.run",
                                   "other.run"], ws)
    assert res.returncode == 0 and res.stderr == ""
    assert _table(res.stdout.decode()) == pytest.approx({k: v for k, v in _ap_table().items() if k[1] == "all"})


@pytest.mark.parametrize("argv", [["-o", "pref", "good.run", "other.run"],
                                  ["-m", "rpp", "-o", "tsv", "good.run", "other.run"]])
def test_keep_going_refused_where_the_labels_depend_on_every_run(tmp_path, argv):
    """Preference mode takes --keep-going since session 22 (tests/test_track_batch.py), but not with the 'pool'
    label policy: the labels kept are those most runs retrieve, so leaving a run out changes the others' numbers."""
    ws = _files(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "--keep-going", "--label_fraction", "0.5",
                                   "--label_fraction_policy", "pool", *argv], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: --keep-going is refused with "
                                                         "--label_fraction_policy pool")


def test_shipped_runs_keep_going_equals_them_alone(tmp_path):
    """The sample runs with a broken copy among them: the same table as without it."""
    (tmp_path / "broken.run").write_text((ROOT / "runs/bm25.run").read_text().replace(" Q0 ", " ", 1))
    runs = [str(ROOT / f"runs/{n}.run") for n in ("bm25", "dense", "rerank")]
    q = str(ROOT / "qrels/dl19-sample.qrels")
    alone = run_inproc("zelo_eval", ["-R", q, "-c", "-q", "-M", "official", "-o", "tsv", *runs], tmp_path)
    kept = run_inproc("zelo_eval", ["-R", q, "-c", "-q", "-M", "official", "-o", "tsv", "--keep-going",
                                    runs[0], "broken.run", *runs[1:]], tmp_path)
    assert alone.returncode == 0 and kept.returncode == 2
    assert kept.stdout == alone.stdout
    assert kept.stderr.startswith("zelo_eval: broken.run:1: ")


@pytest.mark.slow  # ~20 mutated runs, each a command
def test_keep_going_with_a_mutated_run(pristine, tmp_path):
    """The fault suite's mutators on one run among good ones: exit 0 or 2, no traceback, every error line names
    the mutated run, the summary line last; the good run is always in the output."""
    import random
    import shutil

    from cli_harness import check_contract
    from test_fuzz_inputs import MUTATORS

    for m in MUTATORS:
        ws = tmp_path / m.__name__
        shutil.copytree(pristine, ws, symlinks=True)
        (ws / "bm25.run").write_bytes(m((ws / "bm25.run").read_bytes(), random.Random(f"k30/{m.__name__}")))
        res = run_inproc("zelo_eval", ["-R", "q.qrels", "-m", "map", "-c", "--keep-going", "-o", "tsv", "dense.run",
                                       "bm25.run"], ws, timeout=60)
        assert check_contract(res, script="zelo_eval", expect={0, 2}, names=("bm25.run",)) == [], m.__name__
        assert "dense.run\tall\tmap\t" in res.stdout.decode(), (m.__name__, res.stderr)
        if res.returncode == 2:
            errors = [x for x in res.stderr.splitlines() if ": warning: " not in x]
            assert len(errors) == 2 and errors[0].startswith("zelo_eval: bm25.run"), (m.__name__, errors)
            assert errors[1] == ("zelo_eval: 1 of 2 runs not evaluated (--keep-going; their errors above): "
                                 "bm25.run"), (m.__name__, errors)


# -- -o topics: per topic and measure, min / median / max over the runs, each run's value beside them

THIRD = "1 Q0 b 1 9 t\n1 Q0 a 2 8 t\n2 Q0 a 1 9 t\n"  # AP by hand: 1: (1/2)/2 = 1/4; 2: (1/1)/2 = 1/2
FOURTH = "1 Q0 a 1 9 f\n1 Q0 c 2 8 f\n"  # AP: 1: 1; topic 2 lacking (0 with -c)


def _topics(text: str) -> tuple[list[str], dict[tuple[str, str], list[str]]]:
    lines = [x.split("\t") for x in text.splitlines()]
    return lines[0], {(r[0], r[1]): r[2:] for r in lines[1:]}


def test_topics_hand_worked_odd_and_even(tmp_path):
    ws = _files(tmp_path)
    (ws / "third.run").write_text(THIRD)
    (ws / "fourth.run").write_text(FOURTH)
    ap = {"good.run": AP["good.run"], "other.run": AP["other.run"], "third.run": {"1": 0.25, "2": 0.5}}
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "topics", "good.run", "other.run", "third.run"],
                     ws)
    assert res.returncode == 0, res.stderr
    head, rows = _topics(res.stdout.decode())
    assert head == ["qid", "measure", "runs", "min", "median", "max", "good.run", "other.run", "third.run"]
    assert list(rows) == [("1", "map"), ("2", "map"), ("all", "map")]
    for q in ("1", "2"):
        vals = sorted(ap[r][q] for r in ap)
        row = rows[(q, "map")]
        assert row[0] == "3" and [float(x) for x in row[1:4]] == pytest.approx([vals[0], vals[1], vals[2]])
        assert [float(x) for x in row[4:]] == pytest.approx([ap[r][q] for r in ap])
    # four runs, -c: topic 2 of fourth.run counts 0; the median of 4 values is the mean of the middle two
    ap["fourth.run"] = {"1": 1.0, "2": 0.0}
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-c", "-o", "topics", "-n", *ap], ws)
    head, rows = _topics(res.stdout.decode())
    assert list(rows) == [("1", "map"), ("2", "map")]
    for q in ("1", "2"):
        vals = sorted(ap[r][q] for r in ap)
        assert [float(x) for x in rows[(q, "map")][1:4]] == pytest.approx([vals[0], (vals[1] + vals[2]) / 2,
                                                                          vals[3]])
    # without -c, fourth.run lacks topic 2: an empty cell, three runs counted
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "topics", "-Q", *ap], ws)
    head, rows = _topics(res.stdout.decode())
    assert rows[("2", "map")][0] == "3" and rows[("2", "map")][-1] == ""
    three = sorted(ap[r]["2"] for r in ap if r != "fourth.run")  # 1/2, 1/2, 7/12
    assert [float(x) for x in rows[("2", "map")][1:4]] == pytest.approx(three)


@pytest.mark.slow  # pandas' import: ~1.5 s
def test_topics_equal_pandas_on_the_shipped_runs(tmp_path):
    """The table against pandas' groupby min / median / max of the `-q -o tsv` long table, computed here."""
    import io

    import numpy as np
    import pandas as pd

    q = str(ROOT / "qrels/dl19-sample.qrels")
    runs = [str(ROOT / f"runs/{n}.run") for n in ("bm25", "dense", "rerank")]
    runs.append(str(tmp_path / "half.run"))  # a fourth run (an even count): bm25's first half of each topic
    lines = (ROOT / "runs/bm25.run").read_text().splitlines()
    (tmp_path / "half.run").write_text("".join(x + "\n" for x in lines if int(x.split()[3]) <= 40))
    args = ["-R", q, "-c", "-M", "official", "-m", "ndcg_cut.10", "-m", "Judged@10"]
    long = run_inproc("zelo_eval", [*args, "-q", "-o", "tsv", *runs], tmp_path)
    top = run_inproc("zelo_eval", [*args, "-o", "topics", *runs], tmp_path)
    assert long.returncode == 0 and top.returncode == 0, (long.stderr, top.stderr)
    d = pd.read_csv(io.BytesIO(long.stdout), sep="\t", dtype={"qid": str, "value": str})
    d = d[d.measure != "runid"].astype({"value": float})
    want = d.groupby(["qid", "measure"]).value.agg(["count", "min", "median", "max"])
    wide = d.pivot(index=["qid", "measure"], columns="run", values="value")
    t = pd.read_csv(io.BytesIO(top.stdout), sep="\t", dtype={"qid": str})
    t = t.set_index(["qid", "measure"])
    assert len(t) == len(want) == d.groupby(["qid", "measure"]).ngroups
    got = t.loc[want.index]
    assert np.array_equal(got["runs"].to_numpy(), want["count"].to_numpy())
    for c in ("min", "median", "max"):
        assert np.allclose(got[c].to_numpy(float), want[c].to_numpy(), rtol=0, atol=1e-12), c
    ids = list(t.columns[4:])
    assert np.allclose(got[ids].to_numpy(float), wide.loc[want.index, ids].to_numpy(), rtol=0, atol=0)
    assert np.allclose(want["median"], np.median(wide.loc[want.index, ids].to_numpy(), axis=1))
    qids = [x for x in dict.fromkeys(t.index.get_level_values(0)) if x != "all"]
    assert qids == sorted(qids, key=str.encode) and t.index[-1][0] == "all"


def test_topics_refused_outside_metric_mode(tmp_path):
    ws = _files(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "rpp", "-o", "topics", "good.run", "other.run"], ws)
    assert res.returncode == 2 and "-o topics is a table of trec_eval measures" in res.stderr


# -- zelo_pairs pool: the union of each run's top N per topic (trec_eval's order), qid docno lines

# topic 1 of A: scores 3, 2, 2, 2, 1 -- the tie at the depth-2 cut is broken by docno descending (trec_eval's
# comp_sim_docno): d9 > d5 > d10 in byte order, so the top 2 are d1, d9 (not d10 or d5 by line order)
POOL_A = "1 Q0 d1 1 3 a\n1 Q0 d10 2 2 a\n1 Q0 d5 3 2 a\n1 Q0 d9 4 2 a\n1 Q0 d2 5 1 a\n2 Q0 e1 1 1 a\n"
# B: lines out of score order; topic 3 judged nowhere; topic 10 sorts before 2 (byte order)
POOL_B = "3 Q0 x 1 0.5 b\n1 Q0 d2 2 5 b\n1 Q0 d1 1 4 b\n10 Q0 y 1 1 b\n2 Q0 e2 9 -1 b\n2 Q0 e1 1 7 b\n"
POOL_QRELS = "1 0 d9 0\n2 0 e2 -1\n7 0 z 1\n"


def _pool_files(tmp_path: Path) -> Path:
    (tmp_path / "a.run").write_text(POOL_A)
    (tmp_path / "b.run").write_text(POOL_B)
    (tmp_path / "j.qrels").write_text(POOL_QRELS)
    return tmp_path


def test_pool_hand_worked(tmp_path):
    ws = _pool_files(tmp_path)
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "a.run", "b.run"], ws)
    assert res.returncode == 0, res.stderr
    # a: 1 -> d1, d9; 2 -> e1.  b: 1 -> d2, d1; 2 -> e1, e2; 3 -> x; 10 -> y
    assert res.stdout.decode() == "1 d1\n1 d2\n1 d9\n10 y\n2 e1\n2 e2\n3 x\n"
    assert res.stderr == "zelo_pairs: 7 documents for 4 topics from 2 runs at depth 2\n"
    # the judged ones (any grade, a negative one too) left out; qrels topic 7 is in no run
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--qrels", "j.qrels", "-Q", "a.run", "b.run"], ws)
    assert res.returncode == 0 and res.stdout.decode() == "1 d1\n1 d2\n10 y\n2 e1\n3 x\n" and res.stderr == ""
    res = run_inproc("zelo_pairs", ["pool", "--depth", "1", "-Q", "a.run"], ws)
    assert res.stdout.decode() == "1 d1\n2 e1\n"


def test_pool_keep_going_and_a_duplicate(tmp_path):
    ws = _pool_files(tmp_path)
    (ws / "dup.run").write_text("1 Q0 d1 1 3 t\n1 Q0 d3 2 2 t\n1 Q0 d1 3 1 t\n")
    res = run_inproc("zelo_pairs", ["pool", "--depth", "3", "a.run", "dup.run"], ws)
    assert res.returncode == 2 and res.stderr == ("zelo_pairs: dup.run:3: duplicate document d1 for query 1 "
                                                  "(first at line 1); trec_eval refuses duplicates\n")
    # below the cut a duplicate is accepted, as trec_eval -M accepts it
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "-Q", "dup.run"], ws)
    assert res.returncode == 0 and res.stdout.decode() == "1 d1\n1 d3\n"
    res = run_inproc("zelo_pairs", ["pool", "--depth", "1", "--keep-going", "-o", "p.txt", "a.run", "dup.run",
                                    "none.run"], ws)
    assert res.returncode == 2 and (ws / "p.txt").read_text() == "1 d1\n2 e1\n"
    lines = res.stderr.splitlines()
    assert lines[0].startswith("zelo_pairs: none.run: no such file") and len(lines) == 2
    assert lines[1] == "zelo_pairs: 1 of 3 runs not pooled (--keep-going; their errors above): none.run"


def test_pool_refuses_a_run_given_twice(tmp_path):
    """As zelo_eval and ``cycles --run`` refuse it (n30): the pool was the same, but its line said '2 runs'."""
    ws = _pool_files(tmp_path)
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "a.run", "b.run", "./a.run"], ws)
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr == "zelo_pairs: a.run is given twice (as ./a.run)\n"
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "a.run"], ws)
    assert res.returncode == 0 and res.stderr == "zelo_pairs: 3 documents for 2 topics from 1 run at depth 2\n"


@pytest.mark.slow  # pandas' import: ~1.5 s
def test_pool_equals_pandas_on_the_shipped_runs(tmp_path):
    """Each run's top N per topic by pandas' sort (score descending, docno descending: trec_eval's rule), their
    union less the qrels' documents, sorted; bm25's tied scores change its top 7 by the rule (docno ascending
    would not)."""
    import pandas as pd

    runs = [ROOT / f"runs/{n}.run" for n in ("bm25", "dense", "rerank")]
    qrels = ROOT / "qrels/dl19-sample.qrels"
    for depth in (1, 7, 25):
        tops = []
        for r in runs:
            d = pd.read_csv(r, sep=r"\s+", header=None, dtype=str, names=["qid", "q0", "docno", "rank", "score", "t"])
            d["score"] = d.score.astype(float)
            d = d.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="stable")
            tops.append(d.groupby("qid").head(depth)[["qid", "docno"]])
        union = pd.concat(tops).drop_duplicates()
        want = sorted(map(tuple, union.to_numpy().tolist()))
        j = pd.read_csv(qrels, sep=r"\s+", header=None, dtype=str, names=["qid", "it", "docno", "rel"])
        judged = set(map(tuple, j[["qid", "docno"]].to_numpy().tolist()))
        res = run_inproc("zelo_pairs", ["pool", "--depth", str(depth), "-Q", *map(str, runs)], tmp_path)
        assert res.returncode == 0, res.stderr
        assert [tuple(x.split(" ")) for x in res.stdout.decode().splitlines()] == want
        res = run_inproc("zelo_pairs", ["pool", "--depth", str(depth), "-Q", "--qrels", str(qrels),
                                        *map(str, runs)], tmp_path)
        assert [tuple(x.split(" ")) for x in res.stdout.decode().splitlines()] == [x for x in want
                                                                                   if x not in judged]


def test_pairs_pool_function_writes_what_the_command_writes(tmp_path):
    import pref_eval

    ws = _pool_files(tmp_path)
    got = pref_eval.pairs_pool([str(ws / "a.run"), str(ws / "b.run")], 2, qrels=str(ws / "j.qrels"),
                               output=str(ws / "api.txt"))
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--qrels", "j.qrels", "-Q", "a.run", "b.run"], ws)
    assert (ws / "api.txt").read_bytes() == res.stdout
    assert got == [tuple(x.split(" ")) for x in res.stdout.decode().splitlines()]


@pytest.mark.slow  # scipy's import: ~2 s
def test_zelo_compare_keep_going_equals_the_good_runs_alone(tmp_path):
    ws = _files(tmp_path)
    (ws / "third.run").write_text(THIRD)
    argv = ["-R", "q.txt", "-m", "map", "--tests", "t", "-o", "csv"]
    alone = run_inproc("zelo_compare", [*argv, "good.run", "other.run", "third.run"], ws)
    kept = run_inproc("zelo_compare", [*argv, "--keep-going", "good.run", "short.run", "other.run", "dup.run",
                                       "third.run", "missing.run"], ws)
    assert alone.returncode == 0 and kept.returncode == 2 and kept.stdout == alone.stdout
    lines = kept.stderr.splitlines()
    # the error lines in the order given (e32; were the unreadable runs first)
    assert [x.split(":")[1].strip() for x in lines[:3]] == ["short.run", "dup.run", "missing.run"]
    assert lines[-1] == ("zelo_compare: 3 of 6 runs not compared (--keep-going; their errors above): "
                         "short.run, dup.run, missing.run")  # in the order given, as zelo_eval (k31)
    few = run_inproc("zelo_compare", [*argv, "--keep-going", "good.run", "short.run"], ws)
    assert few.returncode == 2 and "fewer than two runs left to compare" in few.stderr
    res = run_inproc("zelo_compare", ["--keep-going", "-P", "q.txt"], ws)  # (preference measures: session 22)
    assert res.returncode == 2 and "--keep-going" in res.stderr, res.stderr


@pytest.mark.parametrize("baseline", ["dup.run", "dup"])
def test_zelo_compare_keep_going_baseline_left_out(tmp_path, baseline):
    """A --baseline that is one of the runs left out is said so, nothing written (n30: was 'baseline 'dup.run' is
    not one of the runs (good.run, other.run)')."""
    ws = _files(tmp_path)
    res = run_inproc("zelo_compare", ["-R", "q.txt", "-m", "map", "--keep-going", "--baseline", baseline,
                                      "-o", "csv", "good.run", "dup.run", "other.run"], ws)
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr.splitlines()[-1] == (f"zelo_compare: baseline {baseline!r} could not be evaluated "
                                           "(--keep-going: dup.run left out, its error above); nothing written")
