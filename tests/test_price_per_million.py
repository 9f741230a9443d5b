"""``--price`` is per 1,000 tokens; providers list per million (session 30, f40: u39's leftover -- a user typing
OpenAI's per-million figure got 1,000 times the estimate and a --max-cost stop 1,000 times too early, silently).
A price of 0.1 or more per 1,000 tokens (100 per million) is warned of, with the figure divided by 1,000; the
price is used as given; -Q silences it. Oracle: the rule docs/zelo_judge.md states, and the arithmetic of the
dry run's estimate (the given price, not the divided one)."""
from __future__ import annotations

import sys

import pytest

from cli_harness import run_module_inproc

JUDGE = f"cmd:{sys.executable} judge.py"


def _dry(ws, price: str, *extra: str):
    return run_module_inproc("judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                                       "--store", "new.sqlite", "--dry-run", "--price", f"{JUDGE}={price}", *extra],
                             cwd=ws)


def test_a_per_million_figure_is_warned_of(ws):
    res = _dry(ws, "2.5,10")
    assert res.returncode == 0, res.stderr
    assert res.stderr == (f"zelo_judge: warning: --price {JUDGE}=2.5,10: prices are per 1,000 tokens, and 10 per "
                          f"1,000 is 10,000 per million; a per-million figure (as providers list them) is "
                          f"{JUDGE}=0.0025,0.01 here\n")
    # used as given: the estimate is the printed tokens at the given prices (tokens_in/1000·IN + tokens_out/1000·OUT)
    import re

    tin, tout, cost = re.search(r"~(\d+) input tokens, ~(\d+) output tokens, ~\$([0-9.]+)", res.stdout).groups()
    assert float(cost) == pytest.approx(int(tin) / 1000 * 2.5 + int(tout) / 1000 * 10, abs=5e-5)
    assert _dry(ws, "0.0025,0.01").stderr == ""


@pytest.mark.parametrize("price, warned", [("0.0999,0.0999", False), ("0.1,0", True), ("0,0.1", True),
                                           ("0.00015,0.0006", False)])
def test_the_threshold(ws, price, warned):
    res = _dry(ws, price)
    assert res.returncode == 0 and ("per-million figure" in res.stderr) == warned, res.stderr


def test_quiet_silences_it(ws):
    res = _dry(ws, "2.5,10", "-Q")
    assert res.returncode == 0 and res.stderr == ""
