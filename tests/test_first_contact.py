"""Issue #10 ("first contact"): what a new user meets in the first hour.

One test (or a few) per item of the issue; each ran against the main of the
day the issue was filed and failed there. Oracles: pytrec_eval computed live,
trec_eval's definitions (gm_map = exp(mean ln max(AP, 1e-5))), hand-made files.
"""
from __future__ import annotations

import contextlib
import io
import math
import os
from pathlib import Path

import pytest

from conftest import ROOT  # noqa: E402
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / n for n in ("bm25.run", "dense.run", "rerank.run")]
JUDGE = ROOT / "judgments" / "dl19-sample.judge"


def cli(module: str, *args) -> tuple[int, str, str]:
    """Run ``pref_eval.cli.MODULE``'s main in-process: (exit code, stdout, stderr)."""
    import importlib

    main = importlib.import_module(f"pref_eval.cli.{module}").main
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main([str(a) for a in args])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def _pytrec(measure: str) -> dict[str, dict[str, float]]:
    """{run file name: {qid: value}} from pytrec_eval (the oracle)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {measure})
    out = {}
    for p in RUNS:
        run: dict[str, dict[str, float]] = {}
        for line in p.read_text().splitlines():
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
        out[p.name] = {q: v[measure] for q, v in ev.evaluate(run).items()}
    return out


def _blocks(text: str) -> dict[str, dict[str, str]]:
    """trec_eval blocks keyed by their runid line."""
    blocks: dict[str, dict[str, str]] = {}
    cur = None
    for line in text.splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        if name == "runid":
            cur = blocks.setdefault(value, {})
        else:
            assert cur is not None, f"block without a runid line: {line!r}"
            cur[(name, qid)] = value
    return blocks


# 1 ------------------------------------------------------------------------------------------------

def test_item1_trec_eval_measure_with_several_runs_prints_each_runs_value():
    """``zelo_eval -R q -m map A B C`` printed only pair differences; now one labelled block per run."""
    code, out, err = cli("eval", "-R", QRELS, "-m", "map", *RUNS)
    assert code == 0, err
    ref = _pytrec("map")
    blocks = _blocks(out)
    assert list(blocks) == [p.name for p in RUNS]
    for name, vals in ref.items():
        assert blocks[name][("map", "all")] == f"{sum(vals.values()) / len(vals):6.4f}"


def test_item1_trec_output_blocks_carry_the_run_id():
    code, out, _ = cli("eval", "-R", QRELS, "-m", "nDCG@10", "-o", "trec", *RUNS)
    assert code == 0
    assert list(_blocks(out)) == ["bm25.run", "dense.run", "rerank.run"]


def test_item1_pref_eval_names_keep_pref_eval_output():
    """pref_eval.py's own metric names (ndcg, ap, p@10) keep its JSON lines (the drop-in)."""
    code, out, _ = cli("eval", "-R", QRELS, "-m", "ndcg", *RUNS[:2])
    assert code == 0 and out.startswith('{"qid": "all", "runi": "bm25.run", "runj": "dense.run"')


# 2 ------------------------------------------------------------------------------------------------

def _gm(vals) -> float:
    """trec_eval's geometric mean: exp(mean ln max(v, 1e-5))."""
    vals = list(vals)
    return math.exp(sum(math.log(max(v, 1e-5)) for v in vals) / len(vals))


def test_item2_gm_map_in_preference_mode_is_a_geometric_mean():
    import json

    code, out, err = cli("eval", "-R", QRELS, "-m", "gm_map", "-m", "map", "-o", "pref", "--means", *RUNS)
    assert code == 0, err
    ap = _pytrec("map")
    rows = [json.loads(x) for x in out.splitlines()]
    means = {r["run"]: r for r in rows if "run" in r}
    pairs = {(r["runi"], r["runj"]): r for r in rows if "runi" in r}
    for name, vals in ap.items():
        assert means[name]["gm_map"] == pytest.approx(_gm(vals.values()), abs=1e-12)
        assert means[name]["map"] == pytest.approx(sum(vals.values()) / len(vals), abs=1e-12)
    gi, gj = _gm(ap["bm25.run"].values()), _gm(ap["dense.run"].values())
    assert pairs[("bm25.run", "dense.run")]["gm_map"] == pytest.approx(gi - gj, abs=1e-12)


def test_item2_gm_bpref_table_in_preference_mode():
    code, out, err = cli("eval", "-R", QRELS, "-m", "gm_bpref", "-m", "rpp", "-o", "tsv", *RUNS)
    assert code == 0, err
    bpref = _pytrec("bpref")
    got = {r.split("\t")[0]: float(r.split("\t")[4]) for r in out.splitlines()[1:]
           if r.split("\t")[3] == "gm_bpref" and r.split("\t")[1] == ""}
    for name, vals in bpref.items():
        assert got[name] == pytest.approx(_gm(vals.values()), abs=1e-12)


def test_item2_zelo_compare_refuses_a_summary_only_measure():
    code, out, err = cli("compare", "-R", QRELS, "-m", "gm_map", "-m", "map", *RUNS)
    assert code == 2 and out == ""
    assert err.startswith("zelo_compare: measure 'gm_map' is a summary over queries")


# 3 ------------------------------------------------------------------------------------------------

def test_item3_elo_scale_scores_evaluate_like_logit_scores(tmp_path):
    elo, logit = tmp_path / "elo.tsv", tmp_path / "logit.tsv"
    assert cli("fit", "-J", JUDGE, "--scale", "elo", "-o", elo)[0] == 0
    assert cli("fit", "-J", JUDGE, "-o", logit)[0] == 0
    code, out_elo, err = cli("eval", "-R", elo, *RUNS[:2])
    assert code == 0 and "Warning" not in err and "nan" not in out_elo
    code, out_logit, _ = cli("eval", "-R", logit, *RUNS[:2])
    assert out_elo == out_logit  # NDCG with gains exp(s) is unchanged by the elo offset


def test_item3_elo_scores_without_their_marker_are_refused(tmp_path):
    elo = tmp_path / "elo.tsv"
    assert cli("fit", "-J", JUDGE, "--scale", "elo", "-o", elo)[0] == 0
    cut = tmp_path / "cut.tsv"
    cut.write_text("".join("\t".join(x.split("\t")[:4]) + "\n" for x in elo.read_text().splitlines()))
    code, out, err = cli("eval", "-R", cut, RUNS[0])
    assert code == 2 and "not a natural-log zELO score" in err and "Traceback" not in err


# 4 ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, flag", [(["--grades", "0,1"], "--grades"), (["--bins", "fixed:0"], "--bins"),
                                        (["--elo-offset", "0"], "--elo-offset")])
def test_item4_options_without_their_partner_are_refused(tmp_path, args, flag):
    code, out, err = cli("fit", "-J", JUDGE, *args, "-o", tmp_path / "s.tsv")
    assert code == 2 and err.startswith(f"zelo_fit: {flag} applies only with")
    assert not (tmp_path / "s.tsv").exists()


# 5 ------------------------------------------------------------------------------------------------

CAST = ROOT.parent / "shared" / "data" / "claclark_preferences" / "TREC-CAsT-2019.qrels"


def _gzip(path: Path) -> Path:
    import gzip

    out = path.with_suffix(path.suffix + ".gz")
    out.write_bytes(gzip.compress(path.read_bytes()))
    return out


@pytest.mark.shared("data/claclark_preferences/TREC-CAsT-2019.qrels")
@pytest.mark.parametrize("gz", [False, True], ids=["fast-path", "tokenizer"])
def test_item5_cast_2019_decimal_grades_read_as_integers(tmp_path, gz):
    """The real CAsT 2019 qrels (grades 0.0 ... 50.0) evaluate as pytrec_eval on their integers."""
    import hashlib

    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in CAST.read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(float(g))
    run: dict[str, dict[str, float]] = {}
    lines = []
    for q, docs in qrels.items():  # a deterministic synthetic run over the judged documents
        ranked = sorted(docs, key=lambda d: hashlib.md5(d.encode()).hexdigest())[:50]
        for r, d in enumerate(ranked, 1):
            run.setdefault(q, {})[d] = 100.0 - r
            lines.append(f"{q} Q0 {d} {r} {100.0 - r} syn\n")
    run_path = tmp_path / "syn.run"
    run_path.write_text("".join(lines))
    qpath = CAST
    if gz:
        import gzip

        qpath = tmp_path / "cast.qrels.gz"
        qpath.write_bytes(gzip.compress(CAST.read_bytes()))
    code, out, err = cli("trec", "-q", "-m", "map", "-m", "ndcg", qpath, run_path)
    assert code == 0, err
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate(run)
    got = {(m.strip(), q): float(v) for m, q, v in (x.split("\t") for x in out.splitlines()) if q != "all"}
    for q, vals in ref.items():
        assert got[("map", q)] == pytest.approx(vals["map"], abs=5e-5)
        assert got[("ndcg", q)] == pytest.approx(vals["ndcg"], abs=5e-5)


def _sample_with_grades(tmp_path: Path, fmt: str) -> Path:
    p = tmp_path / "decimal.qrels"
    p.write_text("".join(f"{q} {i} {d} {fmt.format(int(g))}\n"
                         for q, i, d, g in (x.split() for x in QRELS.read_text().splitlines())))
    return p


@pytest.mark.parametrize("fmt", ["{}.0", "+00{}.000"])
@pytest.mark.parametrize("gz", [False, True], ids=["fast-path", "tokenizer"])
def test_item5_integral_decimal_grades_equal_integer_grades(tmp_path, fmt, gz):
    p = _sample_with_grades(tmp_path, fmt)
    if gz:
        p = _gzip(p)
    for cmd in ("trec", "eval"):
        args = ("-m", "map", "-m", "ndcg_cut.10")
        want = cli(cmd, *args, QRELS, RUNS[0]) if cmd == "trec" else cli(cmd, "-R", QRELS, *args, RUNS[0])
        got = cli(cmd, *args, p, RUNS[0]) if cmd == "trec" else cli(cmd, "-R", p, *args, RUNS[0])
        assert got == want


@pytest.mark.parametrize("tok, message", [
    ("0.5", "relevance grade '0.5' is not an integer"),
    ("0x10", "relevance grade '0x10' is not an integer"),
    ("1_0", "relevance grade '1_0' is not an integer"),
    ("1e2", "relevance grade '1e2' is not an integer"),
    ("99999999999999999999", "relevance grade '99999999999999999999' is out of range"),
])
@pytest.mark.parametrize("gz", [False, True], ids=["fast-path", "tokenizer"])
def test_item5_grade_grammar_refusals(tmp_path, tok, message, gz):
    p = tmp_path / "bad.qrels"
    p.write_text(f"1 0 a 1\n1 0 b {tok}\n1 0 c 0\n")
    if gz:
        p = _gzip(p)
    code, out, err = cli("trec", "-m", "map", p, RUNS[0])
    assert code == 2 and out == ""
    assert err == f"zelo_trec: {p}:2: {message}" + err[len(f"zelo_trec: {p}:2: {message}"):]
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("gz", [False, True], ids=["fast-path", "tokenizer"])
def test_item5_run_scores_no_hex_no_underscores(tmp_path, gz):
    for tok in ("0x10", "1_0"):
        p = tmp_path / "bad.run"
        p.write_text(f"1037798 Q0 a 1 {tok} t\n1037798 Q0 b 2 1 t\n")
        if gz:
            p = _gzip(p)
        code, _, err = cli("trec", "-m", "map", QRELS, p)
        assert code == 2 and err.startswith(f"zelo_trec: {p}:1: score '{tok}' is not a number"), err


# 6 ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_item6_orderings_read_zelo_eval_tables(tmp_path, fmt):
    """``zelo_compare --orderings`` reads zelo_eval's own tables (tau as scipy's on pytrec_eval's means)."""
    from scipy import stats

    a, b = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
    assert cli("eval", "-R", QRELS, "-m", "map", "-m", "P_500", "-o", fmt, "--output", a, *RUNS)[0] == 0
    assert cli("eval", "-R", QRELS, "-m", "rpp", "-m", "p@500", "-o", fmt, "--output", b, *RUNS)[0] == 0
    code, out, err = cli("compare", "--orderings", a, b, "--key-a", "map", "--key-b", "p@500")
    assert code == 0, err
    ap, p500 = _pytrec("map"), _pytrec("P_500")
    names = [p.name for p in RUNS]
    want = stats.kendalltau([sum(ap[n].values()) for n in names], [sum(p500[n].values()) for n in names])
    got = dict(line.split(None, 1) for line in out.splitlines() if line.strip() and not line.startswith(("A:", "B:")))
    assert float(got["kendall_tau_b"]) == pytest.approx(want.statistic, abs=5e-5)
    code, _, err = cli("compare", "--orderings", a, b)
    assert code == 2 and "holds several measures (map, P_500)" in err


# 7, 8 --------------------------------------------------------------------------------------------

def test_item7_qrels_are_not_read_as_carterette_preferences(tmp_path):
    code, out, err = cli("fit", "-J", QRELS, "-o", tmp_path / "s.tsv")
    assert code == 2 and not (tmp_path / "s.tsv").exists()
    assert err.startswith(f"zelo_fit: {QRELS.relative_to(ROOT)}:1: this looks like TREC qrels") or \
        "this looks like TREC qrels ('qid iter docno grade'), not pairwise judgments" in err


def test_item7_three_column_grades_are_ambiguous(tmp_path):
    p = tmp_path / "graded.txt"
    p.write_text("q1 d1 2\nq1 d2 0\nq1 d3 1\n")
    code, _, err = cli("fit", "-J", p)
    assert code == 2 and "ambiguous" in err and "--format clarke3" in err
    code, out, err = cli("fit", "-J", p, "--format", "clarke3")  # said explicitly: read as asked
    assert code == 0, err


def _tournament(tmp_path):
    state = tmp_path / "s.json"
    assert cli("pairs", "init", "--state", state, "--qrels", QRELS, "--k", "3")[0] == 0
    batch = tmp_path / "batch.txt"
    assert cli("pairs", "next", "--state", state, "-o", batch)[0] == 0
    return state, batch


def test_item8_request_file_is_not_judgments(tmp_path):
    state, batch = _tournament(tmp_path)
    before = state.read_text()
    code, out, err = cli("pairs", "add", "--state", state, "-J", batch)
    assert code == 2 and f"{batch}:1: this is a request file written by zelo_pairs" in err
    assert state.read_text() == before
    for fmt in ([], ["--format", "clarke3"]):
        code, _, err = cli("fit", "-J", batch, *fmt)
        assert code == 2 and "request file" in err


def test_item8_add_is_idempotent_and_says_what_it_ignored(tmp_path):
    state, batch = _tournament(tmp_path)
    lines = [x.split() for x in batch.read_text().splitlines() if not x.startswith("#")]
    judged = tmp_path / "judged.txt"
    judged.write_text("".join(f"{t} {a} {b} {min(a, b)}\n" for t, a, b in lines[:4]))
    assert cli("pairs", "add", "--state", state, "-J", judged)[0] == 0
    once = state.read_text()
    code, _, err = cli("pairs", "add", "--state", state, "-J", judged)
    assert code == 0 and "already added" in err and state.read_text() == once
    stray = tmp_path / "stray.txt"
    t, a, b = lines[0]
    stray.write_text(f"{t} {a} {b} {a}\n{t} nosuchdoc {b} {b}\n")
    code, _, err = cli("pairs", "add", "--state", state, "-J", stray)
    assert code == 0
    assert "ignored 1 judgments of pairs already judged in this stage and 1 of pairs not requested" in err
    assert "nosuchdoc" in err or "already judged" in err


def test_item8_cycles_tsv_requests_are_not_judgments(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    assert cli("pairs", "cycles", "--run", RUNS[0], "--depth", "5", "--output-format", "tsv",
               "-o", pairs, "-Q")[0] == 0
    code, _, err = cli("fit", "-J", pairs)
    assert code == 2 and "request file" in err


# 9 ------------------------------------------------------------------------------------------------

def _two_dirs(tmp_path):
    a, b = tmp_path / "exp1" / "run.txt", tmp_path / "exp2" / "run.txt"
    for p, src in ((a, RUNS[0]), (b, RUNS[1])):
        p.parent.mkdir()
        p.write_bytes(src.read_bytes())
    return a, b


def test_item9_one_run_id_rule_in_every_command(tmp_path):
    import json

    import pref_eval
    from pref_eval.plot.data import load_values

    a, b = _two_dirs(tmp_path)
    want = ["exp1/run.txt", "exp2/run.txt", "rerank.run"]
    files = [a, b, RUNS[2]]
    code, out, err = cli("eval", "-R", QRELS, "-m", "map", *files)
    assert code == 0, err and list(_blocks(out)) == want
    assert list(_blocks(out)) == want
    code, out, err = cli("eval", "-R", QRELS, "-m", "rpp", "-o", "jsonl", *files)
    assert code == 0 and [json.loads(x)["runi"] for x in out.splitlines()][:2] == want[:1] * 2
    df = pref_eval.evaluate(QRELS, [str(p) for p in files], ["map"])
    assert list(dict.fromkeys(df.run)) == want
    assert list(dict.fromkeys(pref_eval.evaluate(QRELS, [str(p) for p in RUNS], ["map"]).run)) == \
        ["bm25.run", "dense.run", "rerank.run"]
    code, out, err = cli("compare", "-R", QRELS, "-m", "map", "-o", "latex", *RUNS)
    assert code == 0 and "bm25.run" in out and "runs/" not in out
    df, _ = load_values(str(QRELS), [str(p) for p in files], None, "map")
    assert list(dict.fromkeys(df.run)) == want


def test_item9_run_tag_and_rename(tmp_path):
    code, out, err = cli("eval", "-R", QRELS, "-m", "map", "--run-id", "tag", *RUNS)
    assert code == 0 and list(_blocks(out)) == ["bm25", "dense", "rerank"]  # the files' 6th column
    code, out, err = cli("eval", "-R", QRELS, "-m", "map", "--name", "bm25.run=BM25", "--name", "runs/dense.run=DPR",
                         *RUNS)
    assert code == 0 and list(_blocks(out)) == ["BM25", "DPR", "rerank.run"]
    code, out, err = cli("compare", "-R", QRELS, "-m", "map", "--name", "rerank.run=monoT5", *RUNS)
    assert code == 0 and "monoT5" in out
    code, _, err = cli("eval", "-R", QRELS, "-m", "map", "--name", "nosuch=X", *RUNS)
    assert code == 2 and "'nosuch' is not one of the runs" in err
    code, _, err = cli("eval", "-R", QRELS, "-m", "map", "--name", "bm25.run=dense.run", *RUNS)
    assert code == 2 and "two runs would be called 'dense.run'" in err
    a = tmp_path / "x.run"
    a.write_bytes(RUNS[0].read_bytes())
    code, _, err = cli("eval", "-R", QRELS, "-m", "map", "--run-id", "tag", RUNS[0], a)
    assert code == 2 and "the same run tag 'bm25'" in err


# 10 -----------------------------------------------------------------------------------------------

def test_item10_list_measures_without_qrels_and_on_zelo_trec():
    code, out, err = cli("eval", "--list-measures")
    assert code == 0 and "preference measures: rpp" in out and " gm_map " in out
    code, out, err = cli("trec", "--list-measures")
    assert code == 0 and out.startswith("measure sets (-m): official") and " ndcg_cut " in out
    code, _, err = cli("eval", "-m", "map", RUNS[0])
    assert code == 2 and "missing -R QRELS" in err and "--list-measures" in err


def test_item10_trec_eval_9_on_zelo_eval_equals_pytrec_eval():
    code, out, err = cli("eval", "-R", QRELS, "--trec-eval-9", "-q", "-n", "-o", "tsv", "-m", "map", "-m", "P_10",
                         *RUNS)
    assert code == 0, err
    ap, p10 = _pytrec("map"), _pytrec("P_10")
    rows = [x.split("\t") for x in out.splitlines()[1:]]
    assert len(rows) == 2 * sum(len(v) for v in ap.values())
    for run, qid, measure, value in rows:
        ref = (ap if measure == "map" else p10)[run][qid]
        assert float(value) == pytest.approx(ref, abs=1e-12)
    code, _, err = cli("eval", "-R", QRELS, "--trec-eval-9", "-m", "rpp", *RUNS)
    assert code == 2 and "--trec-eval-9 applies to trec_eval measures" in err


# 14 -----------------------------------------------------------------------------------------------

def test_item14_pairs_status(tmp_path):
    state, batch = _tournament(tmp_path)
    requests = [x.split() for x in batch.read_text().splitlines() if not x.startswith("#")]
    code, out, err = cli("pairs", "status", "--state", state)
    assert code == 0, err
    rows = [x.split("\t") for x in out.splitlines()[1:-1]]
    assert out.splitlines()[0] == "topic\tstage\tpool\tjudged\tpairs\toutstanding\tstages_left"
    per_topic = {}
    for t, _, _ in requests:
        per_topic[t] = per_topic.get(t, 0) + 1
    assert {r[0]: int(r[5]) for r in rows} == per_topic  # outstanding = the pairs `next` requested
    assert all(r[6] == {"prune": "1", "final": "0"}[r[1]] for r in rows)  # a final round robin follows pruning
    assert {r[1] for r in rows} == {"prune", "final"}
    assert out.splitlines()[-1].startswith(f"# {len(rows)} topics, 0 done; {len(requests)} pairs outstanding")
    judged = tmp_path / "judged.txt"
    t0 = rows[0][0]
    judged.write_text("".join(f"{t} {a} {b} {min(a, b)}\n" for t, a, b in requests if t == t0))
    assert cli("pairs", "add", "--state", state, "-J", judged, "-Q")[0] == 0
    code, out, _ = cli("pairs", "status", "--state", state)
    first = out.splitlines()[1].split("\t")
    assert first[0] == t0 and first[1] != rows[0][1] and int(first[5]) == 0  # the stage moved on


# 13 -----------------------------------------------------------------------------------------------

def test_item13_pdf_output_and_pairs_ordered_by_score(tmp_path):
    pytest.importorskip("matplotlib")
    import pandas as pd

    from pref_eval.plot.pairs import pair_matrix

    out = tmp_path / "s.pdf"
    code, _, err = cli("plot", "systems", "-R", QRELS, "-m", "map", *RUNS, "-o", out, "-Q")
    assert code == 0, err
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and b"CreationDate" not in data
    code, _, _ = cli("plot", "systems", "-R", QRELS, "-m", "map", *RUNS, "-o", tmp_path / "t.pdf", "-Q")
    assert (tmp_path / "t.pdf").read_bytes() == data  # same input, same bytes
    rec = pd.DataFrame({"run_a": ["low", "low", "mid"], "run_b": ["mid", "top", "top"],
                        "mean_diff": [-0.1, -0.3, -0.2], "p_adjusted": [0.5, 0.01, 0.2]})
    runs, m = pair_matrix(rec, "p_adjusted")
    assert runs == ["top", "mid", "low"] and m[0, 2] == 0.01


def test_item13_letters_are_a_right_hand_axis_with_many_runs():
    """The letters stand right of the panel, one per row, in a smaller font when there are many runs
    (drawn by the own layer, pref_eval/plot/canvas.py, since session 6)."""
    pytest.importorskip("PIL")
    pytest.importorskip("matplotlib")  # its package data holds the fonts
    import numpy as np

    from pref_eval.plot.canvas import Rect, Text
    from pref_eval.plot.systems import draw_systems

    n = 16
    letters = ["abcdefgh"[: 1 + i % 8] for i in range(n)]
    canvas = draw_systems([f"run{i:02d}" for i in range(n)], np.linspace(0.2, 0.5, n), np.linspace(0.1, 0.4, n),
                          np.linspace(0.3, 0.6, n), letters, "map", 8, "legend", (7.0, 4.0))
    frame = next(it for it in canvas.items if isinstance(it, Rect) and it.role == "frame")
    shown = [it for it in canvas.items if isinstance(it, Text) and it.role == "letters"]
    assert sorted(t.text for t in shown) == sorted(letters) and all(t.size < 10 for t in shown)
    assert all(t.x > frame.x + frame.w for t in shown) and len({t.y for t in shown}) == n
    widest = max(canvas.text_width(t.text, t.size, t.face) for t in shown)
    assert max(t.x for t in shown) + widest <= canvas.width  # room made for the longest


# 16, 19 -------------------------------------------------------------------------------------------

def test_item16_sample_qrels_are_graded_and_levels_matter():
    """Graded 0-3 (the page says so); trec_eval's -l 2 equals pytrec_eval with relevance_level 2."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    grades = [int(x.split()[3]) for x in QRELS.read_text().splitlines()]
    counts = {g: grades.count(g) for g in set(grades)}
    assert sorted(counts) == [0, 1, 2, 3] and min(counts.values()) > 100
    page = (ROOT / "docs" / "getting-started.md").read_text()
    assert "graded 0–3 (" + ", ".join(f"{counts[g]} × {g}" for g in range(4)) + ")" in page
    assert "synthetic" in page and "tools/make_sample.py" in page
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for line in RUNS[2].read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=2).evaluate(run)
    code, out, err = cli("eval", "-R", QRELS, "-l", "2", "-q", "-n", "-o", "tsv", "-m", "map", RUNS[2])
    assert code == 0, err
    got = {r.split("\t")[1]: float(r.split("\t")[3]) for r in out.splitlines()[1:]}
    assert got == pytest.approx({q: v["map"] for q, v in ref.items()}, abs=1e-12)
    assert all(v > 0 for v in got.values())  # -l 2 finds relevant documents in every topic


def test_item19_getting_started_writes_only_into_scratch():
    """Every file a getting-started example writes (> FILE, -o/--output/--qrels FILE) is under scratch/."""
    import re
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from test_docs import shell_blocks

    page = (ROOT / "docs" / "getting-started.md").read_text()
    targets = []
    for _, code in shell_blocks(page):
        targets += re.findall(r"(?:>|\s-o|\s--output|\s--qrels)\s+(\S+)", code)
    targets = [t for t in targets if t not in ("tsv", "csv", "jsonl", "markdown", "trec", "pref", "text", "latex")]
    assert targets and all(t.startswith("scratch/") for t in targets), targets


# 17, 18 -------------------------------------------------------------------------------------------

DUELING = ROOT / ".." / "shared" / "data" / "duelingBandits"


@pytest.mark.slow  # fits 50 topics (about 10 s)
@pytest.mark.skipif(not (DUELING / "judgments.txt").exists(), reason="needs the duelingBandits data (../shared)")
def test_item17_zelo_page_table_is_what_the_script_prints():
    import importlib.util

    spec = importlib.util.spec_from_file_location("dl21", ROOT / "bench" / "dl2021_best_passage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    tab, _ = mod.table(DUELING)
    page = (ROOT / "docs" / "zelo.md").read_text(encoding="utf-8")
    a, b = page.index(mod.BEGIN) + len(mod.BEGIN), page.index(mod.END)
    assert page[a:b].strip("\n") == tab.strip("\n")
    assert "| BT, default prior 0.5 | 25/50 | 34/50 |" in tab  # the figure the issue found mis-copied
    # the figures of the prose under the table (the sets' sizes read "1–3 passages per topic": Set-III has 5)
    flat = " ".join(page.split())
    for phrase in mod.prose(DUELING):
        assert phrase in flat, phrase


def test_item18_docs_cite_public_sources_not_the_shared_folder():
    pages = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    bad = [(p.name, line) for p in pages for line in p.read_text(encoding="utf-8").splitlines()
           if "../shared/" in line or "shared notes" in line or "shared data" in line or "zelo_notes" in line]
    assert not bad, bad


# 11 -----------------------------------------------------------------------------------------------

def test_item11_wide_table_from_zelo_eval():
    """Runs × measures: means as pytrec_eval's, markers from scipy's paired t-test + statsmodels' Holm."""
    import csv
    import io as _io
    import itertools

    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    code, out, err = cli("eval", "-R", QRELS, "-m", "map", "-m", "P_10", "-o", "wide-csv", *RUNS)
    assert code == 0, err
    rows = list(csv.DictReader(_io.StringIO(out)))
    names = [p.name for p in RUNS]
    assert [r["run"] for r in rows] == names and [r["label"] for r in rows] == ["a", "b", "c"]
    for measure, key in (("map", "map"), ("P_10", "P_10")):
        ref = _pytrec(key)
        qids = sorted(ref[names[0]])
        pairs = list(itertools.combinations(range(3), 2))
        p = [stats.ttest_rel([ref[names[i]][q] for q in qids], [ref[names[j]][q] for q in qids]).pvalue
             for i, j in pairs]
        reject = multipletests(p, alpha=0.05, method="holm")[0]
        for k, r in enumerate(rows):
            vals = ref[names[k]]
            assert float(r[measure]) == pytest.approx(sum(vals.values()) / len(vals), abs=1e-12)
            mean_k = sum(vals.values())
            want = "".join("abc"[o] for (i, j), rej in zip(pairs, reject, strict=True) for o in (i, j)
                           if rej and k in (i, j) and o != k and mean_k > sum(ref[names[o]].values()))
            assert r[f"{measure} beats"] == "".join(sorted(want))
    for fmt, bold in (("markdown", "**0.9375**"), ("latex", "\\textbf{0.9375}"), ("text", "0.9375^ab")):
        code, out, err = cli("eval", "-R", QRELS, "-m", "map", "-m", "P_10", "-o", fmt, *RUNS)
        assert code == 0 and bold in out and "bm25.run" in out, (fmt, out)


# 12 -----------------------------------------------------------------------------------------------

def test_item12_aggregate_prints_stationary_probabilities_and_borda_points(tmp_path):
    """Oracle: the per-query rankings pref_aggregate prints, Borda and the damped MC4 chain by hand
    (Dwork et al. 2001: move from a to a random b when a majority ranks b above a; π solved with scipy)."""
    import json

    import numpy as np
    from scipy import linalg

    prefs = tmp_path / "p.jsonl"
    assert cli("eval", "-R", QRELS, "-q", "-M", "preferences", "--output", prefs, *RUNS)[0] == 0
    code, out, err = cli("aggregate", "-P", prefs, "-m", "rpp", "-q", "-o", "jsonl")
    assert code == 0, err
    rows = [json.loads(x) for x in out.splitlines()]
    per_q: dict[str, list[str]] = {}
    for r in rows:
        if r["qid"] != "all":
            per_q.setdefault(r["qid"], []).append(r["run"])
    rankings = list(per_q.values())
    names = sorted({x for r in rankings for x in r})
    n = len(rankings[0])
    borda = {x: sum(n - r.index(x) for r in rankings if x in r) for x in names}
    k = len(names)
    C = np.zeros((k, k))
    for r in rankings:
        for a in range(k):
            for b in range(k):
                if names[a] in r and names[b] in r and r.index(names[b]) < r.index(names[a]):
                    C[a, b] += 1  # b above a
                elif names[a] in r and names[b] in r and r.index(names[a]) < r.index(names[b]):
                    C[a, b] -= 1
    P = np.where(C > 0, 1.0 / k, 0.0)
    np.fill_diagonal(P, 0.0)
    P[np.diag_indices(k)] = 1.0 - P.sum(axis=1)
    G = 0.85 * P + 0.15 / k
    A = np.vstack([G.T - np.eye(k), np.ones(k)])
    pi = linalg.lstsq(A, np.r_[np.zeros(k), 1.0])[0]
    summ = {(r["method"], r["run"]): r["score"] for r in rows if r["qid"] == "all"}
    for i, x in enumerate(names):
        assert summ[("borda", x)] == borda[x]
        assert summ[("mc4", x)] == pytest.approx(pi[i], abs=1e-12)
    assert sum(summ[("mc4", x)] for x in names) == pytest.approx(1.0, abs=1e-12)


# 15 -----------------------------------------------------------------------------------------------

PREF_EVAL_MIRROR = Path("/work/.mirror/diazf+pref_eval/repo")  # `fetch github:diazf/pref_eval` (test-only)


@pytest.mark.skipif(not PREF_EVAL_MIRROR.exists(), reason="needs a local mirror of diazf/pref_eval (HEAD)")
def test_item15_pref_eval_head_switch_equals_head_live(tmp_path):
    """`--pref-eval-head` = diazf/pref_eval HEAD run live on the graded sample; without it, graded RPP."""
    import json
    import subprocess
    import sys

    ref = tmp_path / "ref"
    ref.mkdir()
    archive = subprocess.run(["git", "-C", str(PREF_EVAL_MIRROR), "archive", "HEAD"], capture_output=True, check=True)
    subprocess.run(["tar", "x", "-C", str(ref)], input=archive.stdout, check=True)
    args = ["-m", "rpp", "-m", "invrpp", "-m", "dcgrpp", "-m", "lexiprecision"]
    head = subprocess.run([sys.executable, "pref_eval.py", "-R", str(QRELS), *args, *map(str, RUNS)],
                          cwd=ref, capture_output=True, text=True, check=True).stdout
    code, ours, err = cli("eval", "-R", QRELS, *args, "--pref-eval-head", *RUNS)
    assert code == 0, err
    code, graded, _ = cli("eval", "-R", QRELS, *args, *RUNS)
    h = [json.loads(x) for x in head.splitlines()]
    o = [json.loads(x) for x in ours.splitlines()]
    g = [json.loads(x) for x in graded.splitlines()]
    assert len(h) == len(o) == 3
    for a, b, c in zip(h, o, g, strict=True):
        for m in ("rpp", "invrpp", "dcgrpp", "lexiprecision"):
            assert b[m] == pytest.approx(a[m], abs=1e-12)
        assert abs(c["rpp"] - a["rpp"]) > 1e-3  # the graded sample makes the defect visible
    readme = (ROOT / "README.md").read_text()
    assert "--pref-eval-head" in readme


# 20 -----------------------------------------------------------------------------------------------

def test_item20_api_page_covers_evaluate():
    """docs/api.md states evaluate()'s real signature (every keyword) and its run names."""
    import inspect

    from pref_eval import api

    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    sig = inspect.signature(api.evaluate)
    block = page[page.index("pref_eval.evaluate("):page.index("-> pandas.DataFrame")]
    for name, p in sig.parameters.items():
        assert name in block, name
        if p.default is not inspect.Parameter.empty:
            assert f"{name}={p.default!r}".replace("'", '"') in block.replace(" ", "").replace("\n", "") or \
                f"{name}={p.default!r}" in block.replace(" ", "").replace("\n", ""), name
    assert "run-ids.md" in page


def test_run_given_as_the_qrels_says_so(tmp_path):
    """A trec_eval user's first slip, the two files the other way round (`zelo_trec RUN QRELS`, `zelo_eval -R
    RUN ...`): the qrels reader's line named the 6 fields found but not why; it now says it read a run line and
    where the qrels go. A 6-field line that is no run line (text rank) keeps the plain message."""
    hint = ("(a run's line 'qid Q0 docno rank score tag': the qrels come first, `zelo_trec QRELS RUN`, or after -R "
            "or --qrels)")
    code, out, err = cli("trec", RUNS[0], QRELS)
    assert (code, out) == (2, "")
    assert err == f"zelo_trec: {RUNS[0]}:1: expected 4 fields 'qid iter docno rel', found 6 fields {hint}\n"
    code, out, err = cli("eval", "-R", RUNS[0], RUNS[1])
    assert code == 2 and err.endswith(f"found 6 fields {hint}\n") and err.count("\n") == 1
    odd = tmp_path / "odd.qrels"
    odd.write_text("1 0 d1 1\n1 0 d2 0 extra words\n")
    code, _, err = cli("trec", odd, RUNS[0])
    assert code == 2 and err == f"zelo_trec: {odd}:2: expected 4 fields 'qid iter docno rel', found 6 fields\n"


def test_judge_help_points_at_the_run_options():
    """`zelo_judge --help` (the group's) listed only -h and the two subcommands: the options of a run were in
    `zelo_judge run --help`, which nothing named."""
    code, out, _ = cli("judge", "--help")
    assert code == 0 and "zelo_judge run --help" in " ".join(out.split())
    code, out, _ = cli("judge", "run", "--help")
    assert code == 0 and "--both-orders" in out and "--concurrency" in out


@pytest.mark.parametrize("opt", [["--means"], ["--samples", "3"], ["--query_fraction", "0.5"],
                                 ["--label_fraction", "0.5"]])
@pytest.mark.parametrize("fmt", ["trec", "tsv", "markdown"])
def test_sampling_options_refused_in_metric_mode(opt, fmt):
    """zelo_eval's sampling options and --means belong to the preference mode (pref_eval.py's); in metric mode they
    were accepted and ignored: `-o tsv -m map --samples 3 --query_fraction 0.5` printed the full-data means, as if
    sampled. Refused there now, as -b, -f and --reference are (and as with a zELO score file)."""
    code, out, err = cli("eval", "-R", QRELS, "-o", fmt, "-m", "map", *opt, *RUNS[:2])
    assert (code, out) == (2, "")
    assert err == f"zelo_eval: {opt[0]} applies to preference measures (use -o pref, or -m rpp ... with -o tsv)\n"
    # the preference mode reads them (--means in -o pref: its per-run mean lines; -o tsv has them as rows already,
    # so --means is refused there since session 22, tests/test_options_honoured.py)
    pref_fmt = "pref" if opt == ["--means"] else "tsv"
    code, out, _ = cli("eval", "-R", QRELS, "-o", pref_fmt, "-m", "rpp", "-m", "map", *opt, *RUNS[:2])
    assert code == 0 and out


def test_level_and_complete_refused_in_preference_mode():
    """Two runs and no -m is preference mode, where -l and -c were accepted and ignored (pref_eval.py's grade > 0
    relevance and its query set, also for the registry measures computed there: `-m rpp -m map -l 2` printed
    the map of -l 1). Refused now, naming what preference mode offers; metric mode takes them as before."""
    code, out, err = cli("eval", "-R", QRELS, "-l", "2", *RUNS[:2])
    assert (code, out) == (2, "")
    assert err == ("zelo_eval: -l applies to metric mode (trec_eval measures); in preference mode -b G makes "
                   "grade >= G relevant\n")
    code, out, err = cli("eval", "-R", QRELS, "-o", "tsv", "-m", "rpp", "-m", "map", "-c", *RUNS[:2])
    assert (code, out) == (2, "") and err.startswith("zelo_eval: -c applies to metric mode (trec_eval measures);")
    code, out, _ = cli("eval", "-R", QRELS, "-c", "-l", "2", "-m", "map", *RUNS[:2])
    assert code == 0 and "map" in out


def test_damping_with_mc4_steps_refused(tmp_path):
    """pref_aggregate `--mc4-steps 10 --damping 0.3` printed the --mc4-steps 10 output: the power steps are of the
    undamped chain (pref_aggregate.py's), so --damping was ignored. Refused now; either alone runs."""
    prefs = tmp_path / "prefs.jsonl"
    code, out, _ = cli("eval", "-R", QRELS, "-q", "-M", "preferences", *RUNS)
    prefs.write_text(out)
    code, out, err = cli("aggregate", "-P", prefs, "--mc4-steps", "10", "--damping", "0.3")
    assert (code, out) == (2, "")
    assert err == ("pref_aggregate: --damping applies to the stationary MC4 (the default), not to --mc4-steps (the "
                   "power steps of pref_aggregate.py's undamped chain)\n")
    for opt in (["--mc4-steps", "10"], ["--damping", "0.3"]):
        code, out, _ = cli("aggregate", "-P", prefs, *opt)
        assert code == 0 and out
