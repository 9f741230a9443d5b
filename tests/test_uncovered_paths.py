"""Computing paths no other test ran (m33, session 23: found by a coverage run of the whole suite).

Each test holds an outside oracle: a closed form, a package computed live, or a value worked by hand.
"""
from __future__ import annotations

import math

import pytest

from pref_eval.stats.special import betainc, t_quantile


@pytest.mark.parametrize("p", [1e-5, 1e-20, 1e-100, 1e-160, 1e-200, 1e-300, 1e-307, 1e-308, 3e-309, 1.8e-309])
def test_t_quantile_far_tails_equal_the_closed_forms(p):
    """Student's t quantile where Newton's density underflows (t^2 overflows: p < ~1e-150 at 1 degree of
    freedom raised ZeroDivisionError) and beyond the largest float. Oracle: the closed forms of the t
    distribution's quantile at 1 degree of freedom (Cauchy: tan(pi (p - 1/2)) = -1/tan(pi p)) and 2
    (t = (2p - 1) / sqrt(2 p (1 - p))); scipy.special.stdtrit is no oracle there (it returns 1.5e153 or
    +inf for p = 1e-300 at small degrees of freedom). Below 1e-308 the quantile at 1 degree of freedom lies
    between 2^1023 and the largest float: the bracket's midpoint must not overflow (it did, giving -inf)."""
    assert t_quantile(p, 1.0) == pytest.approx(-1.0 / math.tan(math.pi * p), rel=1e-12)
    assert t_quantile(p, 2.0) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-12)


def test_t_quantile_beyond_the_largest_float_is_infinite():
    """-1/(pi p) overflows for p = 1e-310 at 1 degree of freedom, and at 0.05 degrees of freedom the tail
    ~ C t^-0.05 puts the 1e-200 quantile near 1e4000: both -inf (+inf for 1 - p)."""
    assert t_quantile(1e-310, 1.0) == -math.inf
    assert t_quantile(1e-200, 0.05) == -math.inf
    assert t_quantile(1.0, 3.0) == math.inf and math.isnan(t_quantile(math.nan, 3.0))
    assert math.isnan(t_quantile(0.3, -1.0)) and math.isnan(t_quantile(1.5, 3.0))
    assert math.isnan(t_quantile(0.3, 0.0))  # no t distribution at 0 degrees of freedom: stdtrit(0, 0.3) is nan
    assert math.isnan(betainc(2.0, 3.0, math.nan))  # scipy.special.betainc(2, 3, nan) is nan too


# --- readers' error paths no test reached (each message as the API documents it: one line, source:record) ---

def _message(fn):
    from pref_eval.errors import InputError

    with pytest.raises(InputError) as info:
        fn()
    return str(info.value)


def test_in_memory_run_and_qrels_refusals_name_the_record():
    import numpy as np
    import pandas as pd

    from pref_eval.io.qrels import qrels_from_records
    from pref_eval.io.runs import run_from_records

    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["d", "e"], "score": [1.0, np.nan]})
    assert _message(lambda: run_from_records(frame, "frame")) == "frame:2: NaN score (expected a number)"
    assert _message(lambda: run_from_records(frame.drop(columns="score"), "frame")) == (
        "frame: DataFrame needs query_id/qid/q_id, doc_id/docno and score columns")
    assert _message(lambda: run_from_records([("1", "d", 1.0), ("1", "e")], "recs")) == (
        "recs:2: expected (qid, docno, score)")
    assert _message(lambda: run_from_records([("1", "d", 1.0), ("1", "e", float("nan"))], "recs")) == (
        "recs:2: NaN score (expected a number)")
    assert _message(lambda: qrels_from_records([("1", "d", 1), ("1", "0", "e", 1, 9)], "q")) == (
        "q:2: expected (qid, docno, rel) or (qid, iteration, docno, rel)")
    grades = pd.DataFrame({"qid": ["1", "1"], "docno": ["d", "e"], "relevance": [1.0, 2.5]})
    assert _message(lambda: qrels_from_records(grades, "qf")) == "qf:2: relevance grade 2.5 is not an integer"
    grades["relevance"] = [1.0, np.inf]
    assert _message(lambda: qrels_from_records(grades, "qf")) == "qf:2: relevance grade inf is not an integer"
    grades["relevance"] = [4.0, -1.0]  # integral floats are their integers (never truncated: 2.5 above)
    assert qrels_from_records(grades, "qf").rel.tolist() == [4, -1]


@pytest.mark.parametrize("data", [b"", b"\n\n", b"  \n"])
def test_empty_preference_files_refused(data):
    from pref_eval.io.prefs import prefs_from_bytes, qrels_jg_from_bytes, qrels_prefs_from_bytes

    assert _message(lambda: prefs_from_bytes(data, "p.txt")) == (
        "p.txt: empty file (expected lines 5 fields 'qid jg jsg docno rel_level')")
    assert _message(lambda: qrels_prefs_from_bytes(data, "p.txt")) == (
        "p.txt: empty file (expected lines 4 fields 'qid jg docno rel_level')")
    assert _message(lambda: qrels_jg_from_bytes(data, "p.txt")) == (
        "p.txt: empty file (expected lines 4 fields 'qid jg docno rel')")
