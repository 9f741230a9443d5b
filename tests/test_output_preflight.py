"""An output that cannot be written (its directory missing) is refused before the inputs are read or anything
is computed: status 1 naming the output, not the input's own error (status 2) that reading it would give, and
not after the work (before session 27 zelo_eval/zelo_compare/zelo_fit/zelo_agree/pref_aggregate read and
evaluated everything first). docs/exit-codes.md promises it."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT  # noqa: E402

QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUN = str(ROOT / "runs" / "bm25.run")


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bin" / argv[0]), *argv[1:]], capture_output=True, text=True,
                          cwd=ROOT)


CASES = {
    "zelo_eval": lambda bad, out: ("zelo_eval", "-R", QRELS, RUN, bad["run"], "--output", out),
    "zelo_eval_pref": lambda bad, out: ("zelo_eval", "-m", "rpp", "-R", QRELS, RUN, bad["run"], "--output", out),
    "zelo_compare_R": lambda bad, out: ("zelo_compare", "-R", QRELS, RUN, bad["run"], "--output", out),
    "zelo_compare_P": lambda bad, out: ("zelo_compare", "-P", bad["run"], "--output", out),
    "zelo_fit_o": lambda bad, out: ("zelo_fit", "-J", bad["jsonl"], "-o", out),
    "zelo_fit_qrels": lambda bad, out: ("zelo_fit", "-J", bad["jsonl"], "--qrels", out),
    "zelo_fit_diagnostics": lambda bad, out: ("zelo_fit", "-J", bad["jsonl"], "--diagnostics", out),
    "zelo_agree": lambda bad, out: ("zelo_agree", "-J", bad["jsonl"], "-J", bad["jsonl"], "--output", out),
    "pref_aggregate": lambda bad, out: ("pref_aggregate", "-P", bad["jsonl"], "--output", out),
}


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "bad.run").write_text("1 Q0 d 1 notascore r\n")
    (d / "bad.jsonl").write_text("garbage\n")
    return {"run": str(d / "bad.run"), "jsonl": str(d / "bad.jsonl")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_missing_directory_refused_before_reading(case, bad, tmp_path):
    out = tmp_path / "nodir" / "x.out"
    r = _run(*CASES[case](bad, str(out)))
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().endswith(f"{out}: cannot write: directory {out.parent} does not exist"), r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert not out.parent.exists()


def test_api_refuses_before_reading(bad, tmp_path):
    from pref_eval.api import compare_runs, evaluate_runs, fit
    from pref_eval.errors import OutputError

    out = str(tmp_path / "nodir" / "x")
    for call in (lambda: evaluate_runs(QRELS, [RUN, bad["run"]], output=out),
                 lambda: compare_runs(qrels=QRELS, runs=[RUN, bad["run"]], output=out),
                 lambda: fit(bad["jsonl"], output=out)):
        with pytest.raises(OutputError, match="does not exist"):
            call()
