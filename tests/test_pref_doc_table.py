"""The preference-mode measure table of docs/measures.md (issue 6) is generated from
``pref_eval.run_preferences.names.DEFINITIONS``; its claims are checked here.

The "trec_eval" / "ir-measures" columns claim equal per-query values: checked
live against ir-measures (pytrec_eval) on the shipped qrels and runs.
"""
from __future__ import annotations

import sys

import pytest

from cli_harness import run_module_inproc

from pref_eval.run_preferences.names import ALL_SET, DEFINITIONS, PREFERENCE_SET, PREFERENCES, parse_pref_measure

from conftest import ROOT  # noqa: E402
sys.path.insert(0, str(ROOT / "tools"))
from doc_table import render_preferences  # noqa: E402  (tools/: the docs generator)
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / n for n in ("bm25.run", "dense.run", "rerank.run")]


def _concrete(name: str) -> str:
    return name.replace("rbp@γ[,K]", "rbp@0.8,10").replace("K", "10")


def test_every_name_has_a_definition_with_formula_and_citation():
    names = {d.name for d in DEFINITIONS}
    assert set(PREFERENCE_SET) <= names
    aliases = {a for d in DEFINITIONS for a in d.aliases}
    assert set(PREFERENCES) == set(PREFERENCE_SET) | aliases
    bases = {"ap", "rbp", "rr", "ndcg", "rp", "p@K", "r@K", "ap@K", "ndcg@K", "rr@K", "rbp@γ[,K]"}
    assert bases <= names
    for m in ALL_SET:  # the defaults of -M all: every one is documented
        assert m in names or m.split("@")[0] + "@K" in names, m
    for d in DEFINITIONS:
        assert d.formula and d.citation and d.values and d.kind in ("preference", "metric"), d.name
        parsed = parse_pref_measure(_concrete(d.name))  # every documented name is understood
        assert [p.kind for p in parsed] == (["pref"] if d.kind == "preference" else ["metric"])
        for a in d.aliases:
            assert parse_pref_measure(a)[0].base == d.name


def test_rendered_rows_one_per_definition():
    text = render_preferences(DEFINITIONS)
    assert text.lstrip().startswith("## Preference measures (zelo_eval)")
    rows = [ln for ln in text.splitlines() if ln.startswith("| **")]
    assert len(rows) == len(DEFINITIONS)
    for ln, d in zip(rows, DEFINITIONS, strict=False):
        assert len(ln.replace("\\|", "").split("|")[1:-1]) == 8, ln
        assert ln.startswith(f"| **{d.name}** |")
    row = {ln.split("|")[1].strip(" *"): ln for ln in rows}
    assert "`LR`, `sgnLR`" in row["lexirecall"] and "arXiv 2302.11370" in row["lexirecall"]
    assert "SIGIR 2022" in row["rpp"] and "arXiv 2306.07908" in row["rrlexiprecision"]
    assert "| `P.K` | `P@K` |" in row["p@K"]


def test_page_has_the_section():
    page = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    assert page.endswith(render_preferences(DEFINITIONS))


def _ours(name: str, *extra: str) -> dict[tuple[str, str], float]:
    """{(run, qid): value} from zelo_eval -o tsv -q (preference-mode or metric-mode table)."""
    # in process (cli_harness.run_module_inproc): the values need no process
    p = run_module_inproc("eval", ["-R", str(QRELS), "-o", "tsv", "-q", "-n", *extra, "-m", name, *map(str, RUNS)],
                          ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    out = {}
    for ln in p.stdout.splitlines()[1:]:
        f = ln.split("\t")
        if len(f) == 4:  # metric mode: run qid measure value
            out[(f[0], f[1])] = float(f[3])
        elif not f[1]:  # preference mode, a per-run line: runi "" qid measure value
            out[(f[0], f[2])] = float(f[4])
    return out


@pytest.mark.parametrize("d", [d for d in DEFINITIONS if d.irm], ids=lambda d: d.name)
def test_equivalents_agree_with_ir_measures(d):
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pytrec_eval")
    ours = _ours(_concrete(d.name))
    measure = ir_measures.parse_measure(_concrete(d.irm))
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    theirs = {}
    for path in RUNS:
        run = list(ir_measures.read_trec_run(str(path)))
        for m in ir_measures.pytrec_eval.iter_calc([measure], qrels, run):
            theirs[(path.name, m.query_id)] = m.value
    common = ours.keys() & theirs.keys()
    assert len(common) >= 0.9 * len(ours) and len(common) > 20
    bad = [(k, ours[k], theirs[k]) for k in sorted(common) if abs(ours[k] - theirs[k]) > 1e-12]
    assert not bad, bad[:5]
    # the trec_eval name, with -c (a query the run lacks scores 0), gives every value of ours
    trec = _ours(_concrete(d.trec), "-c")
    assert ours.keys() <= trec.keys()
    bad = [(k, ours[k], trec[k]) for k in sorted(ours) if abs(ours[k] - trec[k]) > 1e-12]
    assert not bad, bad[:5]
