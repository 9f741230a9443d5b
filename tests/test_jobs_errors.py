"""A bad input met by a ``--jobs`` worker: the same one stderr line and exit code as serial, no worker traceback,
no hang, no output file (the serial path's bytes and message are the oracle; serial is proven elsewhere)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from pref_eval.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUN = ROOT / "runs" / "bm25.run"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def test_input_error_survives_pickling():
    """A worker's InputError is pickled to the parent; rebuilt from its args it was a TypeError."""
    e = pickle.loads(pickle.dumps(InputError("r.run", 7, "expected 6 fields")))
    assert (type(e), e.path, e.line, e.message, str(e)) == (InputError, "r.run", 7, "expected 6 fields",
                                                            "r.run:7: expected 6 fields")


def zelo_eval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", *args], capture_output=True, timeout=60,
                          env=ENV)


@pytest.mark.parametrize("mode", [["-o", "tsv", "-m", "official"], []], ids=["metric", "preference"])
@pytest.mark.parametrize("bad", ["empty", "middle"])
def test_bad_run_in_a_worker_is_one_line(tmp_path, mode, bad):
    runs = tmp_path / "runs"
    runs.mkdir()
    lines = RUN.read_bytes().splitlines(keepends=True)
    (runs / "a.run").write_bytes(RUN.read_bytes())
    if bad == "empty":
        (runs / "b.run").write_bytes(b"")
    else:
        (runs / "b.run").write_bytes(b"".join(lines[:400] + [b"q1 Q0 d1\n"] + lines[400:]))
    args = ["-R", str(QRELS), "-q", *mode, str(runs / "a.run"), str(runs / "b.run")]
    serial = zelo_eval(*args)
    assert serial.returncode == 2 and serial.stderr.count(b"\n") == 1, serial.stderr
    assert (b"b.run:401:" if bad == "middle" else b"b.run: empty run file") in serial.stderr
    out = tmp_path / "out.tsv"
    jobs = zelo_eval(*args, "--jobs", "2", "--output", str(out))
    assert (jobs.returncode, jobs.stderr, jobs.stdout) == (serial.returncode, serial.stderr, b"")
    assert sorted(os.listdir(tmp_path)) == ["runs"]  # no output file, no temporary one
