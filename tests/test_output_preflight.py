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


# ---- every command and sub-command (session 28, c38): the fault suite's invocations -------------------------------
# Each output that cannot be written is refused before any input is read: every input of the invocation spoiled
# in turn (a NUL byte, which every reader refuses with status 2 naming the input), the output pointed at a missing
# directory or at one of the inputs -- the status must be the output's (1, or 2 naming the output as the same file
# as the input), never the spoiled input's. Before session 28 zelo_pairs (every sub-command), zelo_simulate
# tournament/bandit/adaptive (figure3 ran its simulations first), zelo_compare --orderings and zelo_judge export
# read their inputs first; a directory that takes no new file was found only after the work by every command.

import os  # noqa: E402
from pathlib import Path  # noqa: E402

from cli_harness import digest_tree, run_inproc  # noqa: E402
from fault_workspace import OUT, PLOT, VALID, argv_with  # noqa: E402

ALL = {**VALID, **PLOT}
STATES = ("--state", "--store")  # rewritten by the command: an output too
SPOIL = b"\x00 spoiled\n"
# zelo_pairs init and pool --contributions are not among the fault suite's invocations with an output
EXTRA = {
    "pairs-init": ("zelo_pairs", ["init", "--state", OUT, "--qrels", "q.qrels", "--force"]),
    "pairs-init-run": ("zelo_pairs", ["init", "--force", "--state", OUT, "--strategy", "adaptive", "--goal",
                                      "ranking", "--run", "bm25.run", "--depth", "4"]),
    "pairs-pool-report": ("zelo_pairs", ["pool", "--depth", "5", "--qrels", "q.qrels", "-Q", "--contributions", OUT,
                                         "bm25.run", "dense.run"]),
    "pairs-cycles-runs": ("zelo_pairs", ["cycles", "--run", "bm25.run", "--run", "dense.run", "--depth", "3", "-Q",
                                         "-o", OUT]),
}
CASES_OUT = {k: v for k, v in {**ALL, **EXTRA}.items() if OUT in v[1]}


def _ext(case: str) -> str:
    return ".png" if case.startswith("plot") else ".txt"


def _inputs(argv: list[str], ws: Path) -> list[str]:
    """The files an invocation reads (a state or a store too: it is read before it is rewritten)."""
    return [a for a in argv if a != OUT and (ws / a).is_file()]


def _spoiled(ws: Path, victim: str | None):
    """``victim`` spoiled, then its bytes back (each case's inputs in turn in one copy of the workspace)."""
    if victim is None:
        yield
        return
    kept = (ws / victim).read_bytes()
    (ws / victim).write_bytes(SPOIL)
    try:
        yield
    finally:
        (ws / victim).write_bytes(kept)


@pytest.mark.parametrize("case", sorted(CASES_OUT))
def test_a_missing_directory_is_found_before_any_input(ws, case):
    script, argv = CASES_OUT[case]
    for victim in _inputs(argv, ws) or [None]:
        for _ in _spoiled(ws, victim):
            before = digest_tree(ws, ignore=())
            out = "no/such/dir/out" + _ext(case)
            res = run_inproc(script, argv_with(argv, out), ws)
            assert res.returncode == 1, (victim, res.stderr)
            assert res.stderr.strip().endswith(f"{out}: cannot write: directory no/such/dir does not exist"), \
                res.stderr
            assert res.stderr.count("\n") == 1
            assert digest_tree(ws, ignore=()) == before, victim


LINKS = [pytest.param("name", marks=pytest.mark.slow), pytest.param("symlink", marks=pytest.mark.slow), "hardlink"]


@pytest.mark.parametrize("link", LINKS)
@pytest.mark.parametrize("case", sorted(CASES_OUT))
def test_an_output_that_is_an_input_is_found_before_reading(ws, case, link):
    """The output is one of the inputs (by its name, a symbolic link to it, a hard link to it), and that
    input is spoiled: refused as the same file (status 2, naming the output), not as a bad input."""
    script, argv = CASES_OUT[case]
    for victim in _inputs(argv, ws):
        if case == "judge-state" and victim == "judge.sqlite":
            continue  # the store is written in place by SQLite (its own tests refuse an output on it)
        for _ in _spoiled(ws, victim):
            out = victim
            if link != "name":
                out = "alias" + _ext(case)
                if link == "symlink":
                    os.symlink(victim, ws / out)
                else:
                    os.link(ws / victim, ws / out)
            before = digest_tree(ws, ignore=())
            res = run_inproc(script, argv_with(argv, out), ws)
            assert res.returncode == 2, (victim, res.stderr)
            said = "expected a .png, .svg or .pdf extension" if case.startswith("plot") and link == "name" else \
                "same file as"  # zelo_plot refuses the name first
            assert said in res.stderr and out in res.stderr, (victim, res.stderr)
            assert "NUL" not in res.stderr and res.stderr.count("\n") == 1, (victim, res.stderr)
            assert digest_tree(ws, ignore=()) == before, victim
            if link != "name":
                (ws / out).unlink()


def test_figure3_does_not_simulate_before_its_output_is_checked(monkeypatch, tmp_path):
    """zelo_simulate figure3 has no input: its output was found missing after every simulation had run."""
    import pref_eval.zelo.figure3 as f3
    from pref_eval.api import simulate_figure3
    from pref_eval.errors import OutputError

    ran = []
    monkeypatch.setattr(f3, "figure3", lambda *a, **k: ran.append(1) or [])
    with pytest.raises(OutputError, match="does not exist"):
        simulate_figure3(reps=1, output=str(tmp_path / "nodir" / "x.tsv"))
    assert ran == []
    simulate_figure3(reps=1, output=str(tmp_path / "x.tsv"))  # the patch is what runs: the check is not vacuous
    assert ran == [1]


FAST_NO_WRITE = {"pairs-next", "simulate-bandit", "compare-orderings", "judge-export", "eval"}


def _no_write_jobs(pristine: Path, cases: dict) -> list:
    from test_permission_faults import Job, _mkdir

    def setup(victim: str):
        def go(ws: Path) -> None:
            _mkdir(ws, "ro", 0o555)
            (ws / victim).write_bytes(SPOIL)
        return go

    jobs = []
    for case, (script, argv) in sorted(cases.items()):
        for victim in _inputs(argv, pristine):
            out = f"ro/out{_ext(case)}"
            jobs.append(Job(f"{case}:{victim}", script, argv_with(argv, out), {1}, names=(out,),
                            says="permission denied", setup=setup(victim)))
    return jobs


@pytest.mark.parametrize("which", ["few", pytest.param("all", marks=pytest.mark.slow)])
def test_a_directory_that_takes_no_new_file_is_found_before_the_work(pristine, which):
    """As a user who is not root (tests/test_permission_faults.py's driver: uid 65534 when the suite runs as
    root), an output in a directory without write permission, each input of the invocation spoiled in turn:
    status 1 naming the output, "Permission denied", nothing created, every file as it was (before session 28
    the spoiled input's status 2 -- the directory was found when the file was created, after the inputs were
    read and the work done -- by every command). The default run: a few commands; slow: every one."""
    from test_permission_faults import run_jobs

    cases = CASES_OUT if which == "all" else {k: v for k, v in CASES_OUT.items() if k in FAST_NO_WRITE}
    problems = run_jobs(_no_write_jobs(pristine, cases), pristine)
    assert not problems, "\n".join(problems)
