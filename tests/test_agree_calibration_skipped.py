"""``zelo_agree -l calibration`` with a judge whose pair scores are not graded (u39, session 29): ``--calibration
auto`` skips it (docs/zelo_agree.md: graded = a value other than 0, 1/2, 1), and the table was a header alone
with nothing on stderr. Now one warning per skipped judge naming ``--calibration always``; the default levels
stay silent (there the other levels fill the table)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]
CROWD = ROOT / "judgments" / "dl21-crowd-sample.txt"


def _judge(tmp_path, votes):
    """The crowd's pairs judged by an ensemble voting ``votes`` (their signs: B wins) on each."""
    out = tmp_path / f"j{len(votes)}.jsonl"
    with open(out, "w") as fh:
        for line in CROWD.read_text().splitlines()[:60]:
            q, a, b, _ = line.split()
            fh.write(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "votes": votes}) + "\n")
    return out


def test_skipped_judge_is_named(tmp_path):
    signs = _judge(tmp_path, [1.0])  # one judge: mu in {0, 1}, not graded
    p = run_module_inproc("agree", ["-J", CROWD, "-J", signs, "-n", "crowd", "-n", "signs", "-l", "calibration",
                                    "--resamples", 0])
    assert p.returncode == 0 and p.stdout.splitlines() == [p.stdout.splitlines()[0]]  # the header alone
    assert p.stderr == ("zelo_agree: warning: signs: no calibration records: its pair scores take only the values 0, "
                        "1/2 and 1 (not graded), which --calibration auto skips; --calibration always computes "
                        "them\n")
    always = run_module_inproc("agree", ["-J", CROWD, "-J", signs, "-l", "calibration", "--calibration", "always",
                                         "--resamples", 0])
    assert always.returncode == 0 and "ece" in always.stdout and not always.stderr


def test_graded_judge_stays_silent(tmp_path):
    graded = _judge(tmp_path, [0.8, 0.8, -0.8])  # three judges: mu 2/3, graded
    p = run_module_inproc("agree", ["-J", CROWD, "-J", graded, "-l", "calibration", "--resamples", 0])
    assert p.returncode == 0 and "ece" in p.stdout and not p.stderr


@pytest.mark.slow  # the default levels fit zELO scores per judge (document level): ~2.5 s at load
def test_default_levels_stay_silent(tmp_path):
    signs = _judge(tmp_path, [1.0])
    d = run_module_inproc("agree", ["-J", CROWD, "-J", signs, "--resamples", 0])
    assert d.returncode == 0 and "no calibration records" not in d.stderr
