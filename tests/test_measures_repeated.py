"""One rule for repeated measures: zelo_trec keeps trec_eval's, the API and zelo_eval share the union rule.

trec_eval (``measures.c``): the first ``-m`` that gives parameters for a
measure wins (``-m ndcg_cut -m ndcg_cut.1,4`` → ``ndcg_cut_1, ndcg_cut_4``;
``-m P.5 -m P.10`` → ``P_5``). API and zelo_eval (docs/api.md): the union of
the requested columns, each once, in trec_eval's print order.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_harness import run_module_inproc

import pref_eval

DATA = Path(__file__).resolve().parent / "data" / "irm"
QRELS, RUN = DATA / "fixture.qrels", DATA / "fixture.run"
NDCG_DEFAULT = [5, 10, 15, 20, 30, 100, 200, 500, 1000]

CASES = [
    (["ndcg_cut", "ndcg_cut.1,4"], ["ndcg_cut_1", "ndcg_cut_4"],
     [f"ndcg_cut_{k}" for k in [1, 4, *NDCG_DEFAULT]]),
    (["ndcg_cut.1,4", "ndcg_cut"], ["ndcg_cut_1", "ndcg_cut_4"],
     [f"ndcg_cut_{k}" for k in [1, 4, *NDCG_DEFAULT]]),
    (["P.5", "P.10"], ["P_5"], ["P_5", "P_10"]),
    (["P.5", "P.5,10", "map", "map"], ["map", "P_5"], ["map", "P_5", "P_10"]),
    (["nDCG@10", "nDCG@10", "ndcg_cut.10"], ["ndcg_cut_10", "nDCG@10"], ["nDCG@10", "ndcg_cut_10"]),
]


def _names(mod: str, files: list[str], ms: list[str]) -> list[str]:
    args = [a for m in ms for a in ("-m", m)]
    # in process (cli_harness.run_module_inproc): the printed names need no process
    out = run_module_inproc(mod.rsplit(".", 1)[1], [*args, *files], ".")
    assert out.returncode == 0, out.stderr
    return [line.split("\t")[0].strip() for line in out.stdout.splitlines()]


@pytest.mark.parametrize("ms, trec_rule, union_rule", CASES)
def test_repeated_measures(ms, trec_rule, union_rule):
    assert _names("pref_eval.cli.trec", [str(QRELS), str(RUN)], ms) == trec_rule
    assert _names("pref_eval.cli.eval", ["-R", str(QRELS), str(RUN)], ms) == union_rule
    df = pref_eval.evaluate(QRELS, RUN, ms, summary=True)
    assert df[df.qid == "all"].measure.tolist() == union_rule
