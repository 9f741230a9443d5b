"""zelo_fit --compat zbench equals zbench's own output byte for byte."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "zelo" / "zbench"


@pytest.mark.parametrize("kind", ["this", "no-avx512", "pre-haswell"])
@pytest.mark.parametrize("case", ["case_main", "case_soft", "case_small", "case_dl19"])
def test_compat_zbench_bytes(case, kind, tmp_path):
    import os

    from conftest import cpu_kinds

    d = DATA / case
    out = tmp_path / "ours.jsonl"
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", str(d / "ai_scores.json.gz"),
                        "--dataset", str(d / "dataset.jsonl"), "--compat", "zbench",
                        "--output-format", "zbench", "-o", str(out), "-Q"], capture_output=True, text=True,
                       env={**os.environ, **cpu_kinds()[kind]})
    assert r.returncode == 0, r.stderr
    # zbench's own output differs in the last bit of some scores between kinds of CPU: numpy's exp and log take
    # numpy's AVX-512 code where the CPU has it and glibc's otherwise, and glibc's differ with and without FMA
    # (README there). Every file is zbench's output, run live on (or, for no-fma, with glibc's setting for)
    # that kind of CPU; ours, computed as on another kind (``kind``), must be zbench's for that kind (zbench run
    # live on an AVX-512 machine gives the first file, and with numpy's AVX-512 code off the second: session 22);
    # where the settings' effect is not known (conftest.cpu_kind_code: None), zbench's for one of them.
    from conftest import cpu_kind_code

    files = sorted(d.glob("zbench_annotated*.jsonl"))
    assert len(files) == 3
    got = out.read_bytes()
    code = cpu_kind_code(kind)
    if code is None:
        assert [f.name for f in files if f.read_bytes() == got], kind
    else:
        want = ("zbench_annotated.jsonl" if code["avx512"] else
                "zbench_annotated.no-avx512.jsonl" if code["fma"] else "zbench_annotated.no-fma.jsonl")
        assert got == (d / want).read_bytes(), (kind, want)


def test_the_shipped_clarke3_judgments_are_zbenchs_votes(tmp_path):
    """case_dl19 is judgments/dl19-sample.judge (Clarke's ``topic winner loser``) as zbench's ai_scores.json (each
    line a pair, the three model scores its vote: -1 for document A, +1 for B, zbench's sign; A and B in both
    orders) and zbench's own step 4 on it (README there): zelo_fit --compat zbench on the clarke3 file itself gives
    zbench's bytes (the same W: a win in a clarke3 line is a unanimous vote)."""
    from conftest import cpu_kind_code

    d = DATA / "case_dl19"
    out = tmp_path / "ours.jsonl"
    judge = Path(__file__).resolve().parent.parent / "judgments" / "dl19-sample.judge"
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", str(judge), "--dataset",
                        str(d / "dataset.jsonl"), "--compat", "zbench", "--output-format", "zbench", "-o", str(out),
                        "-Q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    code = cpu_kind_code("this")
    want = [f for f in sorted(d.glob("zbench_annotated*.jsonl")) if code is None or f.name ==
            ("zbench_annotated.jsonl" if code["avx512"] else
             "zbench_annotated.no-avx512.jsonl" if code["fma"] else "zbench_annotated.no-fma.jsonl")]
    assert out.read_bytes() in [f.read_bytes() for f in want]


def test_default_fit_differs_from_zbench_where_it_should(tmp_path):
    # without --compat the tie rule is 1/2 and the fit is exact: scores differ
    d = DATA / "case_small"
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", str(d / "ai_scores.json.gz"),
                        "--dataset", str(d / "dataset.jsonl")], capture_output=True, text=True)
    assert r.returncode == 0
    rows = [line.split("\t") for line in r.stdout.splitlines()[1:]]
    assert [x[0] for x in rows].count("q_lim") == 15  # unjudged documents are listed too
