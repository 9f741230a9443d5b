"""Session 24's outside trial (u34): a track organizer, an LLM-judging team and an ir-measures / ranx user
start from the docs; each case is a defect they met, and each failed on the code before the fix.
"""
from __future__ import annotations

import pytest

from conftest import ROOT  # noqa: E402
from test_first_contact import cli

QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / n for n in ("bm25.run", "dense.run", "rerank.run")]


@pytest.mark.parametrize("module, args", [
    ("eval", ["-c"]), ("eval", ["-o", "text"]), ("eval", ["-o", "topics-markdown"]), ("eval", ["-l", "2"]),
    ("eval", ["-m", "map", "-o", "topics"]), ("eval", ["--trec-eval-9", "-o", "tsv"]),
    ("compare", ["-c"]), ("compare", ["-l", "2"]), ("compare", ["-m", "map", "-c"]),
])
def test_a_typo_in_a_measure_name_is_unknown_whatever_the_options(module: str, args: list[str]) -> None:
    """`ndcg_cut10` (trec_eval writes ndcg_cut.10) is no measure of either mode: it was taken for a preference
    measure, so `-c`, `-l`, `-o text|topics*` were refused for preference mode (zelo_compare -c called it one of
    "pref_eval.py's metrics (ndcg_cut10)"); without those options the same command said `unknown measure`."""
    code, out, err = cli(module, "-R", QRELS, "-m", "ndcg_cut10", *args, *RUNS)
    assert code == 2 and out == ""
    assert err.startswith(f"zelo_{module}: unknown measure 'ndcg_cut10'; did you mean ndcg_cut"), err
    assert err.count("\n") == 1


def test_preference_measures_keep_their_refusals() -> None:
    """The refusals for a real preference measure are unchanged (rpp with -c)."""
    code, _, err = cli("eval", "-R", QRELS, "-m", "rpp", "-c", *RUNS)
    assert code == 2 and "-c applies to metric mode" in err


def test_calc_aggregate_key_error_names_the_printed_columns() -> None:
    """`calc_aggregate(["recall"], ...)["recall"]`: trec_eval's recall is recall at cutoffs (keys recall_5 ...),
    ranx's is `ranx:recall`; the KeyError said only 'recall'. Oracle for the keys: trec_eval's printed names."""
    import pref_eval

    res = pref_eval.calc_aggregate(["recall", "P.5"], str(QRELS), str(RUNS[0]))
    with pytest.raises(KeyError) as exc:
        res["recall"]
    msg = str(exc.value)
    assert "the keys of 'recall' are recall_5, recall_10" in msg and "'ranx:recall'" in msg
    with pytest.raises(KeyError, match="the keys of 'P' are P_5"):
        res["P.5"]
    assert res.get("recall") is None and "recall" not in res and res["P_5"] == res.get("P_5")
