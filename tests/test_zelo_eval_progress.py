"""Progress on stderr (issue 6): zelo_eval and pref_aggregate show it only on a terminal, never with -Q.

stderr is a real pseudo-terminal (``pty.openpty``) in the child process, so
``sys.stderr.isatty()`` is true there; stdout stays a pipe, and its bytes must
not change with or without the terminal.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import ROOT  # noqa: E402
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / n for n in ("bm25.run", "dense.run", "rerank.run")]

pty = pytest.importorskip("pty")


def _run(args: list[str], tty: bool) -> tuple[int, bytes, str]:
    """(exit code, stdout bytes, stderr text) of ``python -m args``; stderr a pty if ``tty``."""
    if not tty:
        p = subprocess.run([sys.executable, "-m", *args], capture_output=True, cwd=ROOT, timeout=120)
        return p.returncode, p.stdout, p.stderr.decode()
    master, slave = pty.openpty()
    # stdout to a file, not a pipe: a full pipe would block the child while we read stderr
    with tempfile.TemporaryFile() as out_file:
        try:
            p = subprocess.Popen([sys.executable, "-m", *args], stdout=out_file, stderr=slave, cwd=ROOT)
            os.close(slave)
            err = b""
            while True:  # read the terminal while the child runs (the child may block on a full pty)
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the child closed its end
                    break
                if not chunk:
                    break
                err += chunk
            p.wait(timeout=120)
            out_file.seek(0)
            out = out_file.read()
        finally:
            os.close(master)
    return p.returncode, out, err.decode().replace("\r\n", "\n")


@pytest.fixture()
def eight_runs(tmp_path):
    """Eight run files (copies of the shipped three under other names): MANY_RUNS stage lines apply."""
    paths = []
    for k in range(8):
        dst = tmp_path / f"r{k}.run"
        shutil.copy(RUNS[k % 3], dst)
        paths.append(str(dst))
    return paths


def test_eval_progress_on_a_terminal(eight_runs):
    args = ["pref_eval.cli.eval", "-R", str(QRELS), "-q", *eight_runs]
    code, out_tty, err = _run(args, tty=True)
    assert code == 0, err
    assert "\rzelo_eval: reading runs: 0/8" in err
    assert "\rzelo_eval: reading runs: 8/8\n" in err
    assert "zelo_eval: evaluating 15 measures on 28 pairs of runs\n" in err
    code, out_pipe, err_pipe = _run(args, tty=False)
    assert code == 0 and err_pipe == ""  # not a terminal: no progress
    assert out_tty == out_pipe and out_tty.count(b"\n") > 28


def test_eval_quiet_silences_progress_and_warnings(eight_runs):
    # -m with -M warns (pref_eval.py ignores -M then); -Q silences that and the progress
    args = ["pref_eval.cli.eval", "-R", str(QRELS), "-m", "rpp", "-M", "all", *eight_runs]
    code, _, err = _run(args, tty=True)
    assert code == 0 and "warning: -M all ignored" in err and "reading runs" in err
    code, out, err = _run(args + ["-Q"], tty=True)
    assert code == 0 and err == "" and out


def test_eval_progress_per_sample():
    args = ["pref_eval.cli.eval", "-R", str(QRELS), "-m", "rpp", "--samples", "3", "--query_fraction", "0.5",
            *map(str, RUNS)]
    code, _, err = _run(args, tty=True)
    assert code == 0, err
    assert "\rzelo_eval: samples: 1/3" in err and "\rzelo_eval: samples: 3/3\n" in err
    assert "evaluating" not in err  # three runs: no stage line
    assert _run(args + ["--quiet"], tty=True)[2] == ""


def test_eval_error_starts_its_own_line(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1\n")
    code, out, err = _run(["pref_eval.cli.eval", "-R", str(QRELS), str(RUNS[0]), str(bad)], tty=True)
    assert code == 2 and out == b""
    last = err.rstrip("\n").split("\n")[-1]
    assert last.startswith("zelo_eval: ") and "bad.run:1:" in last


def test_aggregate_progress_and_quiet(tmp_path):
    prefs = tmp_path / "p.jsonl"
    code, out, err = _run(["pref_eval.cli.eval", "-R", str(QRELS), "-q", "-m", "rpp", *map(str, RUNS)], tty=False)
    assert code == 0, err
    prefs.write_bytes(out)
    args = ["pref_eval.cli.aggregate", "-P", str(prefs), "--num_samples", "2"]
    code, out_tty, err = _run(args, tty=True)
    assert code == 0
    assert f"pref_aggregate: reading {prefs}\n" in err
    assert "\rpref_aggregate: samples: 2/2\n" in err
    # the warning comes after the completed progress line, on a line of its own
    assert err.endswith("\npref_aggregate: warning: sample 1 is not in " + str(prefs) + "; skipped\n")
    code, out_q, err_q = _run(args + ["-Q"], tty=True)
    assert code == 0 and err_q == "" and out_q == out_tty
    code, out_p, err_p = _run(args, tty=False)
    assert err_p == f"pref_aggregate: warning: sample 1 is not in {prefs}; skipped\n" and out_p == out_tty


def test_metric_mode_progress_counts_the_runs_evaluated(eight_runs):
    """Metric mode reads, ranks and evaluates one run at a time: one progress line `evaluating runs: k/N`."""
    args = ["pref_eval.cli.eval", "-R", str(QRELS), "-o", "tsv", "-m", "map", *eight_runs]
    code, out_tty, err = _run(args, tty=True)
    assert code == 0, err
    assert "\rzelo_eval: evaluating runs: 0/8" in err and "\rzelo_eval: evaluating runs: 8/8\n" in err
    assert "reading runs" not in err
    code, out_pipe, err_pipe = _run(args, tty=False)
    assert code == 0 and err_pipe == "" and out_tty == out_pipe


def test_metric_mode_error_ends_the_progress_line(eight_runs, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 nan-ish r\n")
    code, _, err = _run(["pref_eval.cli.eval", "-R", str(QRELS), "-o", "tsv", "-m", "map", *eight_runs[:3],
                         str(bad)], tty=True)
    assert code == 2
    last = err.rstrip("\n").split("\n")[-1]
    assert last.startswith("zelo_eval: ") and "bad.run:1:" in last, err
