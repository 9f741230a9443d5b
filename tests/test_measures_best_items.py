"""Best-item evaluation (-B): BestRR / BestSuccess@k against ir-measures' RR / Success@k on the best items as qrels.

Real data: the best-passage sets and crowdsourced judgments of Yan et al.
(SIGIR 2022; XinyiYan/duelingBandits, in ../shared); a best-item set read
from a qrels file (Set-I) and from the top of a zELO fit of the judgments
(zelo_fit, every document tied at the top is a best item). Skipped without
../shared.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pref_eval
from pref_eval.errors import UsageError

ir_measures = pytest.importorskip("ir_measures")
DB = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "duelingBandits"


def _run_from_judgments() -> dict:
    """A run per topic: passages in order of first appearance in judgments.txt, with ties every 7th."""
    run: dict = {}
    for line in (DB / "judgments.txt").read_text().split("\n"):
        if line.strip():
            t, a, b, _ = line.split()
            for d in (a, b):
                docs = run.setdefault(t, {})
                docs.setdefault(d, float(1000 - len(docs) // 7 * 7))
    return run


def _reference(best_qrels: list, run: dict, name: str) -> dict:
    qrels = [ir_measures.Qrel(q, d, 1) for q, d in best_qrels]
    # trec_eval's order: score descending, ties by docno descending
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], qrels, scored)}


def _compare(best_file, best_pairs, run):
    df = pref_eval.evaluate(str(DB / "Combined-I+II+III.qrels"), run, ["BestRR", "BestSuccess@1", "BestSuccess@10"],
                            best=str(best_file))
    got = {(m, q): v for m, q, v in zip(df.measure, df.qid, df.value, strict=True)}
    n = 0
    for ours_name, theirs in (("BestRR", "RR"), ("BestSuccess@1", "Success@1"), ("BestSuccess@10", "Success@10")):
        for q, v in _reference(best_pairs, run, theirs).items():
            assert got[(ours_name, q)] == pytest.approx(v, abs=1e-12), (ours_name, q)
            n += 1
    assert n == 150


def test_best_items_from_qrels():
    if not DB.exists():
        pytest.skip("../shared/data/duelingBandits not available")
    pairs = [tuple(line.split()[0:3:2]) for line in (DB / "Set-I.qrels").read_text().split("\n") if line.strip()]
    _compare(DB / "Set-I.qrels", pairs, _run_from_judgments())


def test_best_items_from_zelo_fit(tmp_path):
    if not DB.exists():
        pytest.skip("../shared/data/duelingBandits not available")
    scores = tmp_path / "scores.tsv"
    subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", str(DB / "judgments.txt"), "--format", "clarke4",
                    "--output", str(scores), "-Q"], check=True)
    table: dict = {}
    for line in scores.read_text().split("\n")[1:]:
        if line.strip():
            q, d, s = line.split("\t")[:3]
            table.setdefault(q, []).append((float(s), d))
    pairs = [(q, d) for q, rows in table.items() for s, d in rows if s == max(x for x, _ in rows)]
    _compare(scores, pairs, _run_from_judgments())


def test_best_items_hand_worked_and_refusals(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 2\n")
    (tmp_path / "best").write_text("1 Q0 b 1\n1 Q0 z 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 z 2 2 t\n1 Q0 b 3 1 t\n")
    df = pref_eval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["BestRR", "BestSuccess@2", "BestSuccess@3"],
                            best=str(tmp_path / "best"))
    assert list(df.value) == [1 / 3, 0.0, 1.0]
    with pytest.raises(UsageError, match="no requested measure uses it"):
        pref_eval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["RR"], best=str(tmp_path / "best"))
    with pytest.raises(UsageError, match="need a best-item set"):
        pref_eval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["BestRR"])
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", str(tmp_path / "q"), "-B",
                          str(tmp_path / "best"), "-m", "BestRR", str(tmp_path / "r")], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["BestRR", "all", "0.3333"], out.stderr
