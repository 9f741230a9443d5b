"""With a zELO score file, ``official`` is zbench's default set ``zndcg zndcg@10 zacc zrecall@10`` everywhere
(docs/api.md, docs/zelo_eval.md): ``pref_eval.evaluate``'s default and ``zelo_compare -R SCORES -m official`` took
it, ``zelo_eval -R SCORES -m official`` refused it ("unknown zELO measure 'official'") and ``official`` beside
another measure was refused by all three (session 29). A measure given twice is computed once, as trec_eval's
are (its rows were written twice). Oracle: the same command with the four measures named, whose values
tests/test_score_file_evaluate.py checks against zbench's benchmark.py."""
from __future__ import annotations

import pytest

import pref_eval
from cli_harness import run_module_inproc

CASE = "tests/data/zelo/zbench/case_dl19pool/"
GT = CASE + "zbench_annotated.jsonl"
RUNS = [CASE + "rerank_dense.jsonl", CASE + "rerank_rerank.jsonl"]
FOUR = ["-m", "zndcg", "-m", "zndcg@10", "-m", "zacc", "-m", "zrecall@10"]


def _out(module: str, args: list[str]) -> str:
    res = run_module_inproc(module, ["-R", GT, *args, *RUNS])
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.parametrize("fmt", ["trec", "tsv"])
def test_zelo_eval_official_is_zbench_s_default_set(fmt):
    want = _out("eval", [*FOUR, "-o", fmt])
    assert _out("eval", ["-m", "official", "-o", fmt]) == want == _out("eval", ["-o", fmt])


def test_official_beside_another_measure():
    order = ["-m", "zacc", "-m", "zndcg", "-m", "zndcg@10", "-m", "zrecall@10"]
    for module, more in (("eval", ["-o", "tsv"]), ("compare", [])):
        assert _out(module, ["-m", "zacc", "-m", "official", *more]) == _out(module, [*order, *more])
    got = pref_eval.evaluate(GT, RUNS, ["zacc", "official"])
    assert list(dict.fromkeys(got.measure)) == ["zacc", "zndcg", "zndcg@10", "zrecall@10"]


def test_zelo_compare_and_evaluate_agree():
    assert _out("compare", ["-m", "official"]) == _out("compare", FOUR)
    a, b = pref_eval.evaluate(GT, RUNS), pref_eval.evaluate(GT, RUNS, [x for x in FOUR if x != "-m"])
    assert a.equals(b)


def test_a_measure_given_twice_is_computed_once():
    assert _out("eval", ["-m", "zacc", "-m", "zacc", "-o", "tsv"]) == _out("eval", ["-m", "zacc", "-o", "tsv"])
