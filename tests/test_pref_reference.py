"""zelo_eval's preference mode against diazf/pref_eval's own outputs.

tests/data/pref_eval_ref/: inputs made by gen.py, outputs of pref_eval.py at
commit 60e3203 (graded RPP, before the 2024 vector cache), produced by
run_reference.sh with PYTHONHASHSEED=0 (commands in cases.txt).

Every line must have the same keys in the same order and the same JSON types
(ints for per-query lexi values). Values: bit-identical except graded
rpp/invrpp/dcgrpp, whose last bits depend on pref_eval.py's set iteration
order (they change with PYTHONHASHSEED in the reference itself) — those
agree to 1e-12. Runs with -b (one grade) and the binary case are byte-identical.

Summary lines (``"qid": "all"``): pref_eval.py sums the per-query values in qrels
order, so its summaries change in the last bits when the qrels lines are reordered;
zelo_eval sums in query-id order. Its summaries therefore equal pref_eval.py's on the
same qrels sorted by query id (``NAME.sorted-summary.jsonl``, run_reference.sh), with
the same rules, and do not change when the qrels lines are shuffled.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

DATA = Path(__file__).resolve().parent / "data" / "pref_eval_ref"
GRADED_RPP = {"rpp", "invrpp", "dcgrpp"}


def cases():
    for line in (DATA / "cases.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, case, opts = line.split("\t")
        yield pytest.param(name, case, opts.split(), id=f"{case}-{name}")


def run_zelo(case: str, opts: list[str]) -> subprocess.CompletedProcess:
    runs = sorted(str(p) for p in (DATA / case).glob("input.*"))
    # in process: the output compared with pref_eval.py's needs no process (zelo_eval's real processes:
    # test_docs.py, test_startup_imports.py)
    return run_module_inproc("eval", ["-R", str(DATA / case / "qrels"), *opts, *runs], ".")


def _is_summary(line: str) -> bool:
    return line.startswith('{"qid": "all"')


@pytest.mark.parametrize("name,case,opts", list(cases()))
def test_same_json_lines_as_pref_eval(name, case, opts):
    expected = (DATA / case / f"{name}.jsonl").read_text().splitlines()
    sorted_summary = (DATA / case / f"{name}.sorted-summary.jsonl").read_text().splitlines()
    got = run_zelo(case, opts)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert len(lines) == len(expected)
    assert [_is_summary(ln) for ln in lines] == [_is_summary(ln) for ln in expected]  # summaries last
    # per-query lines against pref_eval.py on the qrels as given, summaries against it on the sorted qrels
    expected = [ln for ln in expected if not _is_summary(ln)] + sorted_summary
    exact_all = "-b" in opts or case == "binary"
    for a, b in zip(lines, expected, strict=True):
        if exact_all:
            assert a == b
            continue
        ja, jb = json.loads(a), json.loads(b)
        assert list(ja) == list(jb)
        for k in jb:
            assert type(ja[k]) is type(jb[k]), (k, a, b)
            if k in GRADED_RPP:
                assert ja[k] == pytest.approx(jb[k], abs=1e-12), (k, a, b)
            else:
                assert ja[k] == jb[k], (k, a, b)


def test_graded_rpp_differs_from_binary():
    """The graded variant is really graded: -b 1 (binary) changes values on medium."""
    a = run_zelo("medium", ["-M", "preferences", "-n", "-q"]).stdout.splitlines()
    b = run_zelo("medium", ["-M", "preferences", "-n", "-q", "-b", "1"]).stdout.splitlines()
    diff = sum(json.loads(x)["rpp"] != json.loads(y)["rpp"] for x, y in zip(a, b, strict=False))
    assert diff > len(a) // 2
