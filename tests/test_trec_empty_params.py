"""``-m NAME.`` (an empty parameter list) is refused wherever it stands on the command line.

trec_eval 10 checks each ``-m`` as it reads it (``trec_eval.c``, ``add_meas_arg_info``:
``if (*param == '\\0')`` → "improper measure in parameter", then "illegal measure", exit 1), also
when an earlier ``-m`` already gave the parameters that win (``-m P.5 -m P.``). zelo_trec refused
``-m P.`` alone but, once ``P`` had parameters, skipped the later text unread and printed ``P_5``
(found by t26's differential fuzz against the trec_eval 10.0 binary).
"""
from __future__ import annotations

import pytest
from cli_harness import run_inproc


@pytest.mark.parametrize("ms", [["P."], ["P.5", "P."], ["P.5", "P", "P."], ["ndcg.1=2", "ndcg."],
                                ["utility.1,-1,0,0", "utility."], ["map", "map."]])
def test_empty_parameter_list_refused(tmp_path, ms):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    argv = [x for m in ms for x in ("-m", m)] + ["q", "r"]
    res = run_inproc("zelo_trec", argv, tmp_path)
    assert res.returncode == 2, res
    assert res.stdout == b""
    (line,) = res.stderr.splitlines()  # r26: the message also names the parameter that has no value
    assert line.startswith(f"zelo_trec: improper measure in parameter '{ms[-1][:-1]}' (empty parameter list: "), line


def test_later_parameters_are_not_read():
    """As trec_eval: the first -m with parameters wins and later parameter texts are never read
    (``-m P.5 -m P.x`` prints P_5), only an empty one is refused."""
    from pref_eval.measures.parse import parse_trec_measures

    (req,) = parse_trec_measures(["P.5", "P.x"])
    assert req.columns() == ["P_5"]

