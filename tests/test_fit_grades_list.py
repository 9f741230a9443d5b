"""``pref_eval.fit(..., grades=[0, 1, 2, 3])``: grades as numbers, as a Python user writes them, are ``--grades``'
text; before session 28 a list was refused (``grades: expected a string, got list``). Oracle: the bytes of
``zelo_fit --qrels FILE --grades G`` for the same grades as text."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT  # noqa: E402

JUDGE = str(ROOT / "judgments" / "dl19-sample.judge")


def _cli_qrels(tmp_path, text: str) -> bytes:
    from pref_eval.cli.fit import main

    out = tmp_path / f"cli-{text}.qrels"
    with pytest.raises(SystemExit) as exc:
        main(["-J", JUDGE, "-o", str(tmp_path / "s.tsv"), "--qrels", str(out), "--grades", text, "-Q"])
    assert exc.value.code == 0
    return out.read_bytes()


@pytest.mark.parametrize("grades, text", [([0, 1, 2, 3], "0,1,2,3"), ((0, 1, 2.5), "0,1,2.5"),
                                          (np.array([1, 2, 3]), "1,2,3"), ([np.int64(0), np.float64(0.5)], "0,0.5")])
def test_grades_as_numbers(tmp_path, grades, text):
    import pref_eval

    out = tmp_path / "api.qrels"
    pref_eval.fit(JUDGE, qrels_output=str(out), grades=grades)
    assert out.read_bytes() == _cli_qrels(tmp_path, text)


@pytest.mark.parametrize("grades, message", [([3, 1], "grades must be increasing, got '3,1'"),
                                             ([True, False], "grades: expected a string, got list"),
                                             ([0, float("nan")], "grades: expected a string, got list"),
                                             ([0], "grades needs at least two comma-separated grades, got '0'")])
def test_bad_grades_refused(tmp_path, grades, message):
    import pref_eval

    with pytest.raises(pref_eval.errors.UsageError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        pref_eval.fit(JUDGE, qrels_output=str(tmp_path / "x.qrels"), grades=grades)
    assert not (tmp_path / "x.qrels").exists()
