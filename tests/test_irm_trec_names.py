"""trec_eval's printed names as measure names, and long corner-case runs, live against ir-measures (u21).

1. Printed names. A user coming from ir-measures reads a trec_eval table back with
   ``ir_measures.parse_trec_measure("ndcg_cut_10")`` (→ nDCG@10); pref_eval takes the
   same printed names (``P_5``, ``ndcg_cut_10``, ``set_F_0.5``...) as measures. For every
   name ``zelo_trec -m all_trec`` prints that ir-measures can read back, the per-query
   values must be ir-measures' (its default providers), on the random corner-case
   collections of tests/test_irm_fuzz.py. One documented exception:
   ``iprec_at_recall_x`` keeps trec_eval 10's ``lround(x·R)`` where ir-measures'
   IPrec@x is pytrec_eval's trec_eval 9 rounding (docs/differences.md); the test
   checks that the two differ only where those roundings give different ranks.

2. Long runs. tests/test_irm_fuzz.py's generator with another collection shape:
   runs of 1–300 documents (cutoffs 299, 300, 301, 1000), grades up to 100, judged
   documents no run retrieves, whole runs of tied scores, topics whose only judgments
   are negative, and ``rel`` up to 100.
"""
from __future__ import annotations

import contextlib
import io
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

import test_irm_fuzz as F
from conftest import warns_missing_topics

import pref_eval

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pytrec_eval")

ROOT = Path(__file__).resolve().parents[1]


def printed_names() -> list[str]:
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-m", "all_trec",
                          str(ROOT / "qrels" / "dl19-sample.qrels"), str(ROOT / "runs" / "bm25.run")],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return [ln.split()[0] for ln in out.splitlines()]


def _lround(x: float) -> int:
    return int(math.floor(x + 0.5))


@pytest.mark.parametrize("seed", [3, 8, pytest.param(21, marks=pytest.mark.slow),
                                  pytest.param(34, marks=pytest.mark.slow)])
def test_printed_trec_names_equal_ir_measures_reading_of_them(seed):
    qrels, run = F.collection(seed)
    rd: dict = {}
    for r in run:
        rd.setdefault(r.query_id, {})[r.doc_id] = r.score
    names = printed_names()
    read = []
    for name in names:
        try:
            ms = ir_measures.parse_trec_measure(name)
        except Exception:  # noqa: BLE001 -- a trec_eval name ir-measures has no reading for
            continue
        if len(ms) == 1:
            read.append((name, ms[0]))
    assert len(read) >= 40, len(read)  # P_*, recall_*, ndcg_cut_*, iprec_at_recall_*, set_*, map, ...
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        theirs = {str(m): {} for _, m in read}
        for r in ir_measures.iter_calc([m for _, m in read], qrels, F.trec_order(run)):
            theirs[str(r.measure)][r.query_id] = float(r.value)
    with warns_missing_topics({q.query_id for q in qrels}, {"run": rd}):
        df = pref_eval.evaluate([(q.query_id, q.doc_id, q.relevance) for q in qrels], rd, [n for n, _ in read])
    ours: dict = {}
    for m, q, v in zip(df.measure, df.qid, df.value, strict=True):
        ours.setdefault(str(m), {})[str(q)] = float(v)
    nrel = {}
    for q in qrels:
        nrel[q.query_id] = nrel.get(q.query_id, 0) + (q.relevance >= 1)
    summary_only = {name for name, _ in read if name not in ours}
    assert summary_only <= {"num_q"}, summary_only  # trec_eval prints num_q as a summary only
    wrong, compared = [], 0
    for name, m in read:
        if name in summary_only:
            continue
        for q, x in theirs[str(m)].items():
            if q not in ours[name]:
                continue  # a qrels topic the run lacks: ir-measures 0, pref_eval leaves it out (documented)
            y = ours[name][q]
            compared += 1
            if math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(x) and math.isnan(y)):
                continue
            if name.startswith("iprec_at_recall_"):
                xr = float(name.rsplit("_", 1)[1]) * nrel[q]
                if _lround(xr) != int(xr + 0.9):  # trec_eval 10 vs 9 rank of the recall point
                    continue
            wrong.append((name, str(m), q, y, x))
    assert not wrong, wrong[:10]
    assert compared >= 40, compared


def long_collection(seed: int):
    """Runs up to 300 documents, grades up to 100, unretrieved judged documents, all-tied runs."""
    rng = random.Random(seed)
    gradeset = rng.choice([[0, 1, 2, 3, 50, 100], [-1, 0, 1], [-1, 1], [0, 2], [1], [0, 1, 2, 3]])
    qrels, run = [], []
    for qi in range(rng.randint(1, 6)):
        q = str(qi + 1)
        n = rng.choice([1, 2, 5, 50, 300])
        docs = [f"d{i}" for i in range(n)]
        judged = rng.sample(docs, rng.randint(0, len(docs)))
        grades = [rng.choice(gradeset) for _ in judged]
        extra = [(f"x{i}", rng.choice(gradeset)) for i in range(rng.choice([0, 0, 3, 20]))]
        if rng.random() < 0.9:
            qrels += [ir_measures.Qrel(q, d, g) for d, g in [*zip(judged, grades, strict=True), *extra]]
        if rng.random() < 0.9:
            m = rng.choice([1, n, rng.randint(1, n)])
            tiemode = rng.random()
            for d in rng.sample(docs, m):
                s = 1.0 if tiemode < 0.3 else float(rng.randint(0, 3)) if tiemode < 0.6 else rng.uniform(0, 1)
                run.append(ir_measures.ScoredDoc(q, d, s))
    if not run or not qrels or not ({q.query_id for q in qrels} & {r.query_id for r in run}):
        qrels.append(ir_measures.Qrel("1", "dfix", 1))
        run.append(ir_measures.ScoredDoc("1", "dfix", 1.0))
    return qrels, run


@pytest.mark.parametrize("seed", [4, 9] + [pytest.param(s, marks=pytest.mark.slow) for s in range(40, 52)])
def test_random_names_on_long_runs(seed, monkeypatch):
    monkeypatch.setattr(F, "collection", long_collection)
    monkeypatch.setitem(F.MENU, "rel", [0, 1, 2, 3, 50, 100, -1])
    monkeypatch.setitem(F.MENU, "cutoff", [1, 2, 3, 5, 10, 100, 1000, 299, 300, 301])
    counts, wrong = F.check_seed(seed, 60)
    assert not wrong, "\n".join(map(str, wrong[:20]))
    assert counts["equal"] >= 15, counts
