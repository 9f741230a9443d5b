"""Measure-name parsing: trec_eval rules (checked against trec_eval's documented
behaviour in shared/specs/trec_eval.md §11) and the ir-measures syntax."""
import subprocess
import sys

import pytest

from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure, parse_trec_measures


def names(reqs):
    return [c for r in reqs for c in r.columns()]


def test_first_params_win_and_defaults_replaced():
    assert names(parse_trec_measures(["P.5", "P.10"])) == ["P_5"]
    assert "P_7" in names(parse_trec_measures(["all_trec", "P.7"]))
    assert "P_5" not in names(parse_trec_measures(["all_trec", "P.7"]))


def test_cutoffs_sorted_and_atol():
    assert names(parse_trec_measures(["P.5,7,3"])) == ["P_3", "P_5", "P_7"]
    assert names(parse_trec_measures(["P.2.5"])) == ["P_2"]


def test_print_order_is_table_order_not_argument_order():
    assert names(parse_trec_measures(["P.5", "map", "num_ret"])) == ["num_ret", "map", "P_5"]


def test_bad_cutoffs():
    with pytest.raises(UsageError, match="duplicate cutoffs"):
        parse_trec_measures(["P.5,5"])
    with pytest.raises(UsageError, match=r"parameter cutoff \(an integer ≥ 1.* got -5"):
        parse_trec_measures(["P.-5"])


def test_ir_measures_names_map_to_trec_specs():
    r = parse_measure("P(rel=2)@5")[0]
    assert (r.spec.name, r.params, r.level) == ("P", (5,), 2)
    r = parse_measure("AP@10")[0]
    assert (r.spec.name, r.params) == ("map_cut", (10,))
    assert parse_measure("AP")[0].spec.name == "map"
    assert parse_measure("P_10")[0].params == (10,)


def test_unknown_measure_lists_close_matches():
    with pytest.raises(UsageError, match="did you mean.*map"):
        parse_measure("mapp")


def test_cli_unknown_measure_exit_2(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 d1 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 d1 1 1.0 t\n")
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-m", "mapp", str(q), str(r)],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert "unknown measure 'mapp'" in p.stderr and "Traceback" not in p.stderr
