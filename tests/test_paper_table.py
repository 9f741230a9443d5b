"""A paper's results table: runs whose names hold LaTeX / Markdown specials, ids that spreadsheet readers
mangle (001, 1e5, NaN), a baseline that is not the first run. Oracles outside the project: ir_measures
(per-query values), scipy.stats + statsmodels' multipletests (markers), markdown-it-py's GFM table parser,
a LaTeX text-mode reader written from the LaTeX font-encoding rules (pdflatex itself: tests/test_latex_compiles.py,
where it is installed),
pandas.read_csv / read_json with the calls docs/zelo_compare.md gives."""
from __future__ import annotations

import io
import itertools
import json
import random
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from cli_harness import run_module_inproc

# run names (file names) with every LaTeX special, Markdown markup, a pipe, non-ASCII letters
NAMES = ["bm25", "bm25_rm3", "T5-3B%", "a&b#$x$", "u{c}~^\\x", "pipe|x", "ünïcödé", "<b>*em*<i>", "[l](u)`c`",
         "_x_"]
TOPICS = ["001", "010", "1e5", "NaN", "nan", "inf", "null", "T1", "2", "03"]


def _main(module: str, *args) -> tuple[int, str, str]:
    res = run_module_inproc(module, args)
    return res.returncode, res.stdout, res.stderr


@pytest.fixture(scope="module")
def coll(tmp_path_factory):
    d = tmp_path_factory.mktemp("paper")
    rng = random.Random(3)
    docs = [f"D{i}" for i in range(30)]
    rel = {t: {x: rng.choice([0, 0, 1, 2]) for x in rng.sample(docs, 15)} for t in TOPICS}
    (d / "qrels").write_text("".join(f"{t} 0 {x} {g}\n" for t in TOPICS for x, g in rel[t].items()))
    runs = []
    for k, n in enumerate(NAMES):
        lines = []
        for t in TOPICS:
            score = {x: rng.random() + 0.15 * k * rel[t].get(x, 0) for x in docs}
            ranked = sorted(docs, key=lambda x: -score[x])[:20]
            lines += [f"{t} Q0 {x} {i + 1} {20 - i} tag\n" for i, x in enumerate(ranked)]
        (d / f"{n}.run").write_text("".join(lines))
        runs.append(d / f"{n}.run")
    rng.shuffle(runs)  # the baseline is not the first run
    assert runs[0].name != "bm25.run"
    return d, runs


# --- LaTeX -------------------------------------------------------------------------------------------

# text-mode commands of the LaTeX kernel (the LaTeX2e font-selection guide, fntguide, "text symbols")
TEXT_COMMANDS = {"textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^", "textbar": "|",
                 "textless": "<", "textgreater": ">", "textbf": ""}


def latex_text(s: str) -> list[str]:
    """The cells of one tabular row (or one caption) as typeset text; fails on what LaTeX would not print
    as written: an unbalanced brace or ``$``, an unescaped ``# _ ^ %`` (errors, a comment), ``~`` (a space),
    ``| < >`` in text mode (an em dash, ¡, ¿ in LaTeX's default OT1 encoding). A math group must be a
    marker ``$^{letters}$`` or ``$^{*}$``, shown as ``^letters``."""
    cells, cur, depth, i = [], [], 0, 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            m = re.match(r"\\([A-Za-z]+)|\\([&%$#_{}\\])", s[i:])
            assert m, f"bad escape at {s[i:]!r}"
            if m.group(2) == "\\":  # \\ ends the row
                assert s[i:].strip() == "\\\\", f"text after the row end: {s[i:]!r}"
                break
            if m.group(2):
                cur.append(m.group(2))
                i += 2
                continue
            assert m.group(1) in TEXT_COMMANDS, f"unknown command \\{m.group(1)}"
            cur.append(TEXT_COMMANDS[m.group(1)])
            i += len(m.group(0))
            if m.group(1) != "textbf" and s.startswith("{}", i):
                i += 2
            continue
        if c == "$":
            j = s.index("$", i + 1)
            assert re.fullmatch(r"\^\{([a-z]+|\*)\}", s[i + 1:j]), f"math group {s[i:j + 1]!r}"
            cur.append("^" + s[i + 3:j - 1])
            i = j + 1
            continue
        if c in "{}":
            depth += 1 if c == "{" else -1
            assert depth >= 0, s
        elif c == "&":
            assert depth == 0, s
            cells.append("".join(cur).strip())
            cur = []
        else:
            assert c not in "#_^%~|<>", f"unescaped {c!r} in {s!r}"
            cur.append(c)
        i += 1
    assert depth == 0, f"unbalanced braces in {s!r}"
    cells.append("".join(cur).strip())
    return cells


def test_latex_reader_refuses_the_old_escaping():
    """The checker itself: what the writers printed before session 20 fails it."""
    with pytest.raises(AssertionError):
        latex_text(r"b & a\&b\#$x$.run & 0.9960$^{c}$ \\")  # $ unescaped: math mode
    with pytest.raises(AssertionError):
        latex_text(r"f & u{c}~^\textbackslash{}x.run & 0.6960 \\")
    assert latex_text(r"f & u\{c\}\textasciitilde{}\textasciicircum{}\textbackslash{}x & \textbf{0.6}$^{ab}$ \\") \
        == ["f", "u{c}~^\\x", "0.6^ab"]


def test_latex_and_agree_escape_round_trip():
    from pref_eval.output.markup import latex_escape

    for n in NAMES + ["\\{}", "100% {x}", "a\\b{c}"]:  # old agree escaping: \ then { gave \textbackslash\{\}
        assert latex_text(latex_escape(n)) == [n]


def _oracle_markers(coll, measure_irm, measure_col, baseline, correction):
    """{run: labels it beats}: ir_measures per-query values, scipy's ttest_rel, statsmodels' correction over
    the (run, baseline) pairs of one measure."""
    ir_measures = pytest.importorskip("ir_measures")
    from statsmodels.stats.multitest import multipletests

    d, runs = coll
    qrels = list(ir_measures.read_trec_qrels(str(d / "qrels")))
    names = [r.name for r in runs]
    vals = {}
    for r in runs:
        got = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure_irm)], qrels,
                                                                   list(ir_measures.read_trec_run(str(r))))}
        assert set(got) == set(TOPICS)
        vals[r.name] = np.array([got[t] for t in sorted(TOPICS)])
    others = [n for n in names if n != baseline]
    p = [stats.ttest_rel(vals[n], vals[baseline]).pvalue for n in others]
    reject = multipletests(p, alpha=0.05, method=correction)[0]
    labels = dict(zip(names, "abcdefghij", strict=True))
    beats = {n: "" for n in names}
    for n, rej in zip(others, reject, strict=True):
        if rej:
            win, lose = (n, baseline) if vals[n].mean() > vals[baseline].mean() else (baseline, n)
            beats[win] += labels[lose]
    return {n: "".join(sorted(v)) for n, v in beats.items()}, {n: v.mean() for n, v in vals.items()}


@pytest.mark.parametrize("correction", ["bonferroni", "fdr_bh"])
def test_latex_table_cells_names_means_markers(coll, correction):
    d, runs = coll
    ours = {"fdr_bh": "bh"}.get(correction, correction)
    code, tex, err = _main("compare", "-R", d / "qrels", "-m", "ndcg_cut.10", "-o", "latex", "--tests", "t",
                           "--correction", ours, "--baseline", "bm25", "-Q", *runs)
    assert code == 0, err
    want, means = _oracle_markers(coll, "nDCG@10", "ndcg_cut_10", "bm25.run", correction)
    assert any(want.values()), "the oracle marks nothing: the check would be empty"
    lines = tex.splitlines()
    body = lines[lines.index("\\midrule") + 1:lines.index("\\bottomrule")]
    assert latex_text(lines[lines.index("\\toprule") + 1]) == ["#", "Run", "ndcg_cut_10"]
    best = max(means.values())
    for line, r, lab in zip(body, runs, "abcdefghij", strict=True):
        cells = latex_text(line)
        assert cells[:2] == [lab, r.name]
        assert cells[2] == f"{means[r.name]:.4f}" + (f"^{want[r.name]}" if want[r.name] else "")
        assert ("\\textbf{" in line) == (f"{means[r.name]:.4f}" == f"{best:.4f}")
    caption = next(x for x in lines if x.startswith("\\caption{"))
    assert "baseline bm25.run only" in latex_text(caption[len("\\caption{"):-1])[0]


# --- Markdown ----------------------------------------------------------------------------------------

def _gfm_rows(md: str) -> list[list[str]]:
    """The table's cells as rendered text (markdown-it-py, CommonMark + GFM tables and strikethrough);
    markup other than **bold** and <sup> in a cell fails."""
    markdown_it = pytest.importorskip("markdown_it")
    toks = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(md)
    rows, row, in_table = [], None, False
    for t in toks:
        if t.type in ("table_open", "table_close"):
            in_table = t.type == "table_open"
        elif t.type == "tr_open" and in_table:
            row = []
        elif t.type == "tr_close" and in_table:
            rows.append(row)
        elif t.type == "inline" and in_table and row is not None:
            text = ""
            for c in t.children or []:
                if c.type == "text":
                    text += c.content
                elif c.type == "html_inline" and c.content in ("<sup>", "</sup>"):
                    text += "^" if c.content == "<sup>" else ""
                elif c.type in ("strong_open", "strong_close"):
                    text += "**"
                else:
                    raise AssertionError(f"{c.type} {c.content!r} in cell {t.content!r}")
            row.append(text)
    return rows


def test_markdown_table_renders_every_name(coll):
    d, runs = coll
    code, md, err = _main("compare", "-R", d / "qrels", "-m", "ndcg_cut.10", "-m", "P.10", "-o", "markdown",
                          "--tests", "t", "--baseline", "bm25", "-Q", *runs)
    assert code == 0, err
    rows = _gfm_rows(md)
    assert rows[0] == ["#", "run", "ndcg_cut_10", "P_10"]  # the -m order (zelo_compare.md, "Measure order")
    assert [r[1] for r in rows[1:]] == [r.name for r in runs]
    assert all(len(r) == 4 for r in rows)
    assert _gfm_paragraphs(md) == [md.split("\n\n", 1)[1].strip()]
    code, md, err = _main("compare", "-R", d / "qrels", "-m", "P.10", "-o", "markdown", "--tests", "t",
                          "--baseline", "<b>*em*<i>", "-Q", *runs)
    assert code == 0, err
    assert "baseline <b>*em*<i>.run only" in _gfm_paragraphs(md)[0]  # the legend shows the name, not HTML


def _gfm_paragraphs(md: str) -> list[str]:
    """The text of every paragraph after the table; inline markup fails."""
    markdown_it = pytest.importorskip("markdown_it")
    toks = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(md)
    out, in_par = [], False
    for t in toks:
        if t.type in ("paragraph_open", "paragraph_close"):
            in_par = t.type == "paragraph_open"
        elif t.type == "inline" and in_par:
            text = ""
            for c in t.children or []:
                assert c.type in ("text", "softbreak"), f"{c.type} {c.content!r} in {t.content!r}"
                text += c.content if c.type == "text" else "\n"
            out.append(text)
    return out


def test_preference_table_names_in_latex_and_markdown(coll):
    d, runs = coll
    args = ("compare", "-R", d / "qrels", "-m", "rpp", "--tests", "t", "--baseline", "bm25", "-Q", *runs)
    code, md, err = _main(*args, "-o", "markdown")
    assert code == 0, err
    others = [r.name for r in runs if r.name != "bm25.run"]
    rows = _gfm_rows(md)
    assert rows[0] == ["run_a", "run_b", "rpp"] and [r[:2] for r in rows[1:]] == [[o, "bm25.run"] for o in others]
    code, tex, err = _main(*args, "-o", "latex")
    lines = tex.splitlines()
    body = lines[lines.index("\\midrule") + 1:lines.index("\\bottomrule")]
    assert [latex_text(x)[:2] for x in body] == [[o, "bm25.run"] for o in others]


# --- ambiguous baseline ------------------------------------------------------------------------------

def test_baseline_matching_two_runs_is_refused_not_taken_by_file_order(tmp_path, coll):
    d, runs = coll
    for sub in ("x", "y"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "bm25.run").write_text((d / "bm25.run").read_text())
    code, out, err = _main("compare", "-R", d / "qrels", "-m", "map", "--baseline", "bm25",
                           tmp_path / "x" / "bm25.run", tmp_path / "y" / "bm25.run", runs[0])
    assert code == 2 and out == ""
    assert err.strip() == ("zelo_compare: baseline 'bm25' matches 2 runs (x/bm25.run, y/bm25.run): "
                           "give one of these names")


# --- pandas round trips ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def id_coll(coll, tmp_path_factory):
    """Runs named like numbers and missing values."""
    d, runs = coll
    e = tmp_path_factory.mktemp("ids")
    out = []
    for name, r in zip(["001", "NaN", "1e5", "null"], runs, strict=False):
        (e / name).write_text(r.read_text())
        out.append(e / name)
    return d / "qrels", out


def test_per_query_csv_round_trips_through_pandas(id_coll):
    qrels, runs = id_coll
    code, out, err = _main("eval", "-R", qrels, "-q", "-o", "csv", "-m", "map", "-m", "P.10", *runs)
    assert code == 0, err
    df = pd.read_csv(io.StringIO(out), dtype={"run": str, "qid": str, "measure": str}, keep_default_na=False,
                     na_values={"value": ["nan"]})  # the call docs/zelo_compare.md gives
    import csv

    raw = list(csv.DictReader(io.StringIO(out)))
    assert df["run"].tolist() == [r["run"] for r in raw] and set(df["run"]) == {"001", "NaN", "1e5", "null"}
    assert df["qid"].tolist() == [r["qid"] for r in raw] and set(TOPICS) <= set(df["qid"])
    assert df["value"].dtype == np.float64 and df["value"].tolist() == [float(r["value"]) for r in raw]


def test_wide_csv_and_jsonl_round_trip_through_pandas(id_coll):
    qrels, runs = id_coll
    code, out, err = _main("eval", "-R", qrels, "-o", "wide-csv", "-m", "map", "-m", "P.10", *runs)
    assert code == 0, err
    df = pd.read_csv(io.StringIO(out), dtype=str, keep_default_na=False)  # docs/zelo_compare.md
    assert df["run"].tolist() == ["001", "NaN", "1e5", "null"]
    import csv

    raw = list(csv.DictReader(io.StringIO(out)))
    assert df["map"].astype(float).tolist() == [float(r["map"]) for r in raw]
    assert df["P_10 beats"].tolist() == [r["P_10 beats"] for r in raw]
    code, out, err = _main("compare", "-R", qrels, "-m", "map", "--tests", "t", "-o", "jsonl", *runs)
    assert code == 0, err
    recs = pd.read_json(io.StringIO(out), lines=True, dtype={"measure": str, "run_a": str, "run_b": str},
                        precise_float=True)  # pandas' default JSON float parser loses the last digits
    raw = [json.loads(x) for x in out.splitlines()]
    assert recs["run_a"].tolist() == [r["run_a"] for r in raw] and recs["run_b"].tolist() == [r["run_b"] for r in raw]
    assert recs["p_value"].tolist() == [r["p_value"] for r in raw]
    assert {*recs["run_a"], *recs["run_b"]} == {"001", "NaN", "1e5", "null"}
    assert list(itertools.combinations(["001", "NaN", "1e5", "null"], 2))  # four runs, six pairs
    assert len(recs) == 6


# --- preference measures from a per-query file, against a baseline ----------------------------------

def test_per_query_file_preferences_against_the_baseline_family(coll, tmp_path):
    """-P with every pair in the file and --baseline: the pairs (other, baseline), corrected over those R - 1
    (was: every pair of the file, Holm over R(R-1)/2, as the warning said). Oracle: the per-query preferences
    zelo_eval --reference prints, scipy's one-sample t-test, statsmodels' Holm."""
    from statsmodels.stats.multitest import multipletests

    d, runs = coll
    pq = tmp_path / "pq.tsv"
    assert _main("eval", "-R", d / "qrels", "-m", "rpp", "-q", "-o", "tsv", "--output", pq, *runs)[0] == 0
    code, out, err = _main("compare", "-P", pq, "--baseline", "bm25", "--tests", "t", "-o", "jsonl")
    assert code == 0, err
    recs = [json.loads(x) for x in out.splitlines() if json.loads(x)["measure"] == "rpp"]
    others = [r.name for r in runs if r.name != "bm25.run"]
    assert [(r["run_a"], r["run_b"]) for r in recs] == [(o, "bm25.run") for o in others]
    code, ref, err = _main("eval", "-R", d / "qrels", "-m", "rpp", "-q", "-o", "tsv", "--reference", "bm25.run",
                           *runs)
    t = pd.read_csv(io.StringIO(ref), sep="\t", dtype={"runi": str, "runj": str, "qid": str},
                    keep_default_na=False)
    t = t[(t["qid"] != "all") & (t["measure"] == "rpp")]
    p, means = [], []
    for o in others:
        v = t[(t["runi"] == "bm25.run") & (t["runj"] == o)].sort_values("qid")["value"].astype(float).to_numpy()
        assert len(v) == len(TOPICS)
        p.append(stats.ttest_1samp(v, 0).pvalue)
        means.append(-v.mean())  # the records are (other, baseline): minus --reference's (baseline, other)
    adj = multipletests(p, method="holm")[1]
    for r, pv, pa, mean in zip(recs, p, adj, means, strict=True):
        assert r["p_value"] == pytest.approx(pv, rel=1e-9) and r["p_adjusted"] == pytest.approx(pa, rel=1e-9)
        assert r["mean_diff"] == pytest.approx(mean, rel=1e-12, abs=1e-15)
