"""tools/fuzz_ranx.py: ranx's ``compare()`` (its metrics, t-test and Fisher randomization on qrels and runs) against
``pref_eval.evaluate`` + ``pref_eval.compare`` and ``zelo_compare -R`` (session 26, f36)."""
from __future__ import annotations


import pytest

from conftest import import_tool

pytest.importorskip("ranx")
pytest.importorskip("statsmodels")


@pytest.fixture
def fz():
    return import_tool("fuzz_ranx")


def test_untied_breaks_ties_as_trec_eval(fz):
    """ranx is given the run's tied scores broken by docno descending (trec_eval's order, measures.md)."""
    assert fz.untied({"q": {"a": 1.0, "c": 1.0, "b": 2.0}}) == {"q": {"b": 3.0, "c": 2.0, "a": 1.0}}


@pytest.mark.slow
def test_one_case_agrees(fz, capsys):
    """ranx's numba code compiles on its first call in a process (~5-20 s): slow."""
    assert fz.main(["--case", "1:4"]) == 0, capsys.readouterr().out[:3000]
    err = capsys.readouterr().err
    assert "student_same 40" in err and "command_records_same 1" in err and "metric_values_same 20" in err


@pytest.mark.slow
def test_a_planted_normal_tail_for_t_is_reported(fz, monkeypatch, capsys):
    """Ours' t p-value from the normal tail instead of Student's t (df ignored) differs from ranx's ttest_rel."""
    import pref_eval.stats.paired as paired
    from pref_eval.stats.special import normal_two_sided

    orig = paired.t_test

    def normal_t(D, confidence=0.95):
        r = orig(D, confidence)
        r["p_value"] = r["p_value"].copy()
        for i, t in enumerate(r["statistic"]):
            r["p_value"][i] = normal_two_sided(float(t)) if t == t else r["p_value"][i]
        return r

    monkeypatch.setattr(paired, "t_test", normal_t)
    assert fz.main(["--case", "1:4", "--only", "student"]) == 1
    assert '"check": "student"' in capsys.readouterr().out


@pytest.mark.slow
def test_thirty_cases_agree(fz, capsys):
    assert fz.main(["--cases", "30", "--seed", "11"]) == 0, capsys.readouterr().out[:3000]
