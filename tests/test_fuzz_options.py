"""Option values over every command: each bad value is refused (exit 2, one clear
message naming the option), never a traceback, a hang, or silent acceptance.

Every case starts from a valid invocation (tests/fault_workspace.py) and adds
or replaces one option. ``BAD`` lists values that must be refused; ``GOOD``
edge values that must be accepted (so the ranges are not too tight).
"""
from __future__ import annotations


import pytest
from cli_harness import check_contract, digest_tree, run_inproc
from fault_workspace import JUDGE, PLOT, VALID, argv_with

NAN = ["nan", "inf", "-inf"]
BAD: dict[str, dict[str, list[str]]] = {
    # case -> option -> bad values
    "trec": {"-l": ["abc", "1.5x", ""], "-M": ["abc", "-1x"], "-N": ["abc"],
             "-m": ["no_such_measure", "P.abc", "P.0", "P.-5", "ndcg_cut.x", "rbp.p=1.5", "rbp.p=nan",
                    "rbp.p=-0.1", "rbp.p=abc", "utility.words", "zrecall@0", "map.5.x"]},
    "eval": {"-l": ["abc", "1.5"], "--depth": ["0", "-1", "x"], "-M": ["abc", "-1", "1.5"],
             "-m": ["no_such_measure", "rbp.p=1.5", "rbp.p=nan", "P@0", "p@-1", "utility.words"],
             "-o": ["xml"]},
    "eval-pref": {"-b": ["abc", "nan", "inf"], "-f": ["nan", "abc"], "--seed": ["-1", "abc", "1.5"],
                  "--query_fraction": ["0", "nan", "1.5", "-1", "abc"], "--label_fraction": ["0", "nan", "2"],
                  "--samples": ["0", "-1", "abc"], "--topk": ["0", "abc"]},
    "aggregate": {"--seed": ["-1", "abc"], "--query_fraction": ["nan", "0", "1.01"], "--num_samples": ["0"],
                  "--mc4-steps": ["0", "-3"], "--damping": ["0", "nan", "1.5"], "-o": ["xml"],
                  "-m": ["no_such_measure"]},
    "fit": {"--prior": ["-1", "nan", "inf", "abc"], "--weight-power": ["-1", "nan", "inf"],
            "--elo-offset": ["nan", "inf"], "--tol": ["0", "-1", "nan"], "--max-iter": ["0", "-1", "x"],
            "--format": ["nosuchformat"], "--ties": ["sometimes"], "--scale": ["log"],
            "--output-format": ["xml"]},
    "pairs-cycles": {"--cycles": ["0", "-1", "abc"], "--seed": ["-1", "abc"], "--depth": ["0", "-2"],
                     "--limit": ["0", "-1"], "--compat": ["x"], "--output-format": ["xml"]},
    "simulate-tournament": {"--reps": ["0", "-1"], "--k": ["0", "-1"], "--p": ["0", "-1", "1"],
                            "--f": ["0", "-1", "7"],  # p must exceed k, f must exceed p (p19: were raised silently)
                            "--seed": ["-1", "abc"]},
    "simulate-recovery": {"--K": ["0", "-1", "abc", "5,", "1.5"],
                          "--sigma": ["nan", "-1", "0", "inf", "x", "1e308", "1.5,2e6"],
                          "--cycles": ["0", "-1", "a"], "--trials": ["0", "-1"], "--seed": ["-1"],
                          "--strategy": ["random"],
                          # the adaptive strategy's parameters: bad values, and good ones with --strategy cycles
                          "--window": ["0", "-1", "x", "3"], "--batch": ["0", "1.5", "2"],
                          "--start": ["spiral", "cycle"], "--criterion": ["entropy", "discordance", "rowsum"]},
    "simulate-bandit": {"--reps": ["0", "-1"], "--T": ["0", "x"], "--seed": ["-1"], "--delta": ["0", "1", "nan"],
                        "--alpha": ["0.5"], "--algorithm": ["ucb"]},
    "simulate-adaptive": {"--reps": ["0"], "--lead": ["0", "nan"], "--batch": ["0"], "--max-per-pair": ["0"],
                          "--max-per-match": ["0"], "--lives": ["0"], "--final": ["0"], "--final-lead": ["nan"]},
    "simulate-figure3": {"--reps": ["0"], "--seed": ["-1"], "--algorithms": ["nosuch", ""]},
    "compare-R": {"-l": ["abc"], "-b": ["nan", "abc"], "--depth": ["0", "-1"], "--tests": ["nosuchtest", ""],
                  "--resamples": ["0", "-5"], "--seed": ["-1"], "--alpha": ["0", "1", "nan", "-0.1"],
                  "--sign-min-diff": ["-1", "nan"], "--confidence": ["0", "1", "nan"], "--digits": ["-1", "abc"],
                  "--correction": ["x"], "-m": ["no_such_measure", "rbp.p=1.5"]},
    "compare-P": {"--tests": ["x"], "--digits": ["-1"], "--alpha": ["nan"], "--marker-test": ["x"]},
    "compare-orderings": {"--rbo-p": ["1", "-0.5", "nan", "1.5"], "--digits": ["-1"], "-o": ["latex"],
                          "--rbo-ties": ["random", "A", ""], "--rbo-lists": ["top", "Prefix", ""],
                          "--rbo-depth": ["0", "-1", "x", "1.5", ""]},
    "judge": {"--concurrency": ["0", "-1", "abc", "5000"], "--rpm": ["0", "-1", "nan", "inf", "x"],
              "--retries": ["-1", "101", "x"], "--timeout": ["0", "-2", "nan", "inf"], "--backoff": ["-1", "nan"],
              "--budget-requests": ["-1", "x"], "--max-cost": ["-1", "nan", "inf"], "--seed": ["-1", "abc"],
              "--price": ["m0", "m0=1", "m0=-1,1", "m0=a,b", "=1,2", "m0=nan,1", "m0=1,inf",
                          f"{JUDGE}=1e400,1", f"{JUDGE}=1_0,1", f"{JUDGE}= 1,1", f"{JUDGE}=infinity,1",
                          "m0=1,1"],  # r26: the last: no judge has the price key m0 (it was never used)
              "--ties": ["sometimes"],
              "--missing-text": ["tie", "stop"],  # j21: for --state only (without it such pairs are left out)
              "--judge": ["gpt:x", "openai:", "openai:m@ftp://x", "openai:m,colour=red", "cmd:",
                          "openai:m,max_tokens=0", "openai:m,temperature=hot", "openai:m,temperature=nan"]},
    "judge-state": {"--ties": ["x", "HALF", ""], "--concurrency": ["0"], "--budget-requests": ["-1"],
                    "--missing-text": ["skip", "TIE", ""]},
    # p19: zelo_plot matrix took --prior nan/inf (zelo_fit refuses them)
    "plot-matrix": {"--prior": ["nan", "inf", "-1"]},
    # k33: a file that is not a run-types file (a qrels file: 4 fields a line), none,
    # a directory; --median still checked beside them
    "eval-topics-types": {"--run-types": ["q.qrels", "nofile.csv", "."], "--median": ["low"],
                          "--digits": ["2"]},
}
GOOD: dict[str, dict[str, list[str]]] = {
    # --seed here (no random draw) is refused since session 22 (tests/test_options_honoured.py); its range with a
    # draw: tests/test_seeds.py
    "eval-pref": {"--query_fraction": ["1", "0.5"], "-b": ["1", "2"]},
    "fit": {"--prior": ["0", "2.5"], "--max-iter": ["1"]},
    "pairs-cycles": {"--cycles": ["1"], "--seed": ["0", "99999999999"]},
    "compare-R": {"--digits": ["0", "10"], "--alpha": ["0.5"]},
    "compare-orderings": {"--rbo-p": ["0", "0.5"], "--rbo-ties": ["a", "b", "w", "name"],
                          "--rbo-lists": ["common", "prefix"], "--rbo-depth": ["1", "3", "1000"]},
    "simulate-recovery": {"--K": ["3"], "--sigma": ["0.5,1", "1e6"]},
    "simulate-tournament": {"--p": ["8"], "--f": ["10"]},
    "judge": {"--concurrency": ["1", "4096"], "--retries": ["0", "100"], "--budget-requests": ["0"],
              "--rpm": ["0.5"], "--seed": ["0", "99999999999"], "--price": [f"{JUDGE}=0,0", f"{JUDGE}=.5,1e3"]},
    "judge-state": {"--ties": ["zbench", "half"], "--budget-requests": ["0"], "--missing-text": ["tie", "stop"]},
    "eval-topics-types": {"--median": ["upper", "mean"]},
}


def _with(argv: list[str], opt: str, value: str) -> list[str]:
    """``argv`` with ``opt value`` (replacing an existing ``opt``), before any positional argument."""
    out = list(argv)
    if opt in out:
        i = out.index(opt)
        out[i + 1] = value
        return out
    if out and out[0] in ("cycles", "tournament", "recovery", "next", "init", "add", "scores", "matrix", "bandit",
                          "adaptive", "figure3"):
        return [out[0], opt, value, *out[1:]]
    return [opt, value, *out]


# trec_eval-syntax measure parameters are range-checked by the declared per-measure
# parameters of issue #12; until that lands for rbp.p these may still pass silently
PENDING_12: set[str] = set()  # was {"rbp.p=1.5", "rbp.p=nan", "rbp.p=-0.1"}: now refused (measures/rbp.py)


def _cases(table):
    for case, opts in sorted(table.items()):
        for opt, values in opts.items():
            for v in values:
                marks = [pytest.mark.xfail(reason="measure parameter ranges: issue #12", strict=False)] \
                    if v in PENDING_12 else []
                yield pytest.param(case, opt, v, id=f"{case}:{opt}={v}", marks=marks)


BAD_CASES = list(_cases(BAD))


@pytest.mark.parametrize("case,opt,value", BAD_CASES)
def test_bad_option_value_refused(ws, case, opt, value):
    if case.startswith("plot"):
        pytest.importorskip("PIL")
    script, argv = {**VALID, **PLOT}[case]
    argv = _with(argv_with(argv, "out.svg" if case.startswith("plot") else "out.txt"), opt, value)
    before = digest_tree(ws)
    res = run_inproc(script, argv, ws, timeout=30)
    assert check_contract(res, script=script, expect={2}) == [], argv
    assert digest_tree(ws) == before


@pytest.mark.parametrize("case,opt,value", list(_cases(GOOD)))
def test_edge_option_value_accepted(ws, case, opt, value):
    script, argv = VALID[case]
    argv = _with(argv_with(argv, "out.txt"), opt, value)
    res = run_inproc(script, argv, ws, timeout=60)
    assert res.returncode == 0, (argv, res.stderr)


def test_case_count():
    """The summary figure of this file (reported in the issue): every listed value is a case."""
    assert len(BAD_CASES) >= 150


ADAPTIVE = ["recovery", "--strategy", "adaptive", "--sigma", "1", "--trials", "2", "-Q", "-o", "out.txt"]


@pytest.mark.parametrize("k,cycles", [("2", "1"), ("3", "2"), ("4", "2"), ("8", "3,4")])
def test_adaptive_budget_beyond_all_pairs_refused(ws, k, cycles):
    """``--strategy adaptive`` judges each of the K(K-1)/2 pairs at most once: a budget of
    cycles*K pairs beyond that is a usage error naming the cell (was a traceback, ValueError)."""
    before = digest_tree(ws)
    res = run_inproc("zelo_simulate", [*ADAPTIVE, "--K", k, "--cycles", cycles], ws, timeout=30)
    assert check_contract(res, script="zelo_simulate", expect={2}) == []
    assert "--cycles" in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert digest_tree(ws) == before


def test_adaptive_budget_of_all_pairs_accepted(ws):
    """K = 5, 2 cycles: a budget of 10 pairs = every pair of 5 documents, each judged once."""
    res = run_inproc("zelo_simulate", [*ADAPTIVE, "--K", "5", "--cycles", "2"], ws, timeout=60)
    assert res.returncode == 0, res.stderr
