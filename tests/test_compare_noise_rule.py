"""Preference rows (``zelo_eval -q -o tsv`` of a preference measure) through ``stats.compare._measure_compared``
(session 29, c39: found by its mutants). docs/differences-stats.md item 3: differences are rounded to 12 decimals
before every test, so 4e-13 is a tie and 4e-12 a win; the sign test's p is scipy's ``binomtest`` on the wins among
the non-zero differences. ``complete`` refuses a (pair, query) the table lacks (session 23's rule).
"""
from __future__ import annotations

import json

import pytest
from scipy.stats import binomtest

import pref_eval
from pref_eval.errors import UsageError


def _table(tmp_path, rows) -> str:
    path = tmp_path / "pq.tsv"
    path.write_text("runi\trunj\tqid\tmeasure\tvalue\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows),
                    encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("tiny, wins, ties", [(4e-13, 2, 1), (4e-12, 3, 0)])
def test_a_difference_below_the_12th_decimal_is_a_tie(tmp_path, tiny, wins, ties):
    """Mutants ``np.round(X, 12)`` -> 11 (4e-12 a tie) and -> 13 (4e-13 a win)."""
    rows = [("a", "b", "q1", "rpp", 0.1), ("a", "b", "q2", "rpp", 0.2), ("a", "b", "q3", "rpp", tiny),
            ("a", "b", "q4", "rpp", -0.05)]
    out = pref_eval.compare_runs(per_query_file=_table(tmp_path, rows), tests="sign", output_format="jsonl")
    rec = json.loads(out.splitlines()[0])
    assert (rec["wins"], rec["ties"], rec["losses"]) == (wins, ties, 1)
    assert rec["p_value"] == pytest.approx(binomtest(wins, wins + 1).pvalue, rel=1e-12)


def test_complete_refuses_a_pair_lacking_one_of_its_queries(tmp_path):
    """Pair a / c has q1 but not q2: refused with ``complete`` (mutant ``present.all()`` -> ``.any()`` refused only
    a pair with no query at all)."""
    rows = [("a", "b", "q1", "rpp", 0.1), ("a", "b", "q2", "rpp", 0.2), ("a", "c", "q1", "rpp", 0.3)]
    with pytest.raises(UsageError) as err:
        pref_eval.compare_runs(per_query_file=_table(tmp_path, rows), tests="sign", complete=True)
    assert str(err.value) == ("complete: pair 'a' / 'c' lacks query 'q2' of measure 'rpp'; a preference on a topic a "
                              "run lacks is scored on its empty ranking (pref_eval.py, trec_eval -c), a value the "
                              "table does not hold: compare with qrels and runs, or without complete=True (the "
                              "queries every pair has)")
