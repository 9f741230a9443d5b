"""zelo_compare lists the measures in the ``-m`` order, with ``-R`` as with ``-P`` (session 27, t37; before, ``-R``
followed the evaluator's order -- trec_eval's, ``map`` before ``ndcg_cut_10`` -- and ``-P -m`` the ``-m`` order:
fuzz round 8, f36). Oracle: the order the user gave (ranx's ``compare(metrics=[...])`` lists its report's columns
so); a name's own columns in the evaluator's order; a file's order without ``-m``. docs/zelo_compare.md, "Measure
order"."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [str(ROOT / "runs" / f) for f in ("bm25.run", "dense.run", "rerank.run")]


def _measures(args: list[str], fmt: str = "jsonl") -> list[str]:
    out = run_module_inproc("compare", [*args, "--tests", "t", "-o", fmt, "-Q"], ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    if fmt == "jsonl":
        return list(dict.fromkeys(json.loads(line)["measure"] for line in out.stdout.splitlines()))
    return out.stdout.splitlines()[0].split()[2:]  # the text table's header: '#  run  M1  M2 ...'


@pytest.mark.parametrize("given, want", [
    (["ndcg_cut.10", "map"], ["ndcg_cut_10", "map"]),  # the evaluator (trec_eval) puts map first
    (["map", "ndcg_cut.10"], ["map", "ndcg_cut_10"]),
    (["P.5,10", "recip_rank", "nDCG@10"], ["P_5", "P_10", "recip_rank", "nDCG@10"]),  # a name's columns together
    (["P.10", "map", "P.5"], ["P_10", "map", "P_5"]),  # the first name asking for a column places it
    pytest.param(["rpp", "ndcg_cut.10", "map"], ["ndcg_cut_10", "map", "rpp"],  # metrics, then preference measures
                 marks=pytest.mark.slow),  # (the preference mode: ~8 s at load)
])
def test_R_follows_the_m_order(given, want):
    args = ["-R", str(QRELS), *[x for m in given for x in ("-m", m)], *RUNS]
    assert _measures(args) == want


def test_R_text_table_columns_follow_the_m_order():
    args = ["-R", str(QRELS), "-m", "ndcg_cut.10", "-m", "map", "-m", "P.10", *RUNS]
    assert _measures(args, "text") == ["ndcg_cut_10", "map", "P_10"]


def test_P_follows_the_m_order_and_the_file_without_it(tmp_path):
    per = tmp_path / "pq.tsv"
    lines = ["run\tqid\tmeasure\tvalue"]
    for r, off in (("A", 0.0), ("B", 0.1), ("C", 0.3)):
        for q in range(1, 6):
            for m in ("map", "P_10", "ndcg_cut_10"):  # the file's order
                lines.append(f"{r}\t{q}\t{m}\t{(q * 0.07 + off + len(m) / 50) % 1:.3f}")
    per.write_text("\n".join(lines) + "\n")
    assert _measures(["-P", str(per)]) == ["map", "P_10", "ndcg_cut_10"]
    assert _measures(["-P", str(per), "-m", "ndcg_cut_10", "-m", "map"]) == ["ndcg_cut_10", "map"]
    assert _measures(["-P", str(per), "-m", "ndcg_cut_10", "-m", "map", "-m", "P_10"], "text") == \
        ["ndcg_cut_10", "map", "P_10"]
