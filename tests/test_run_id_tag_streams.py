"""``--run-id tag`` on a run read from a stream (u39, session 29): the tag was read from the run's last line
before the run itself, so standard input, a pipe or bash's ``<(...)`` (a FIFO under /dev/fd) was read twice and
the second reading found nothing: ``<stdin>: empty run file`` about a run that was not empty. Now refused, naming
the stream and the ``--name`` that labels it; a regular file read through ``/dev/stdin`` is not a stream."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
BM25, DENSE = ROOT / "runs" / "bm25.run", ROOT / "runs" / "dense.run"


def test_stdin_refused_under_run_id_tag():
    p = run_module_inproc("eval", ["-R", QRELS, "-m", "map", "--run-id", "tag", "-", DENSE],
                          stdin=BM25.read_text())
    assert p.returncode == 2 and not p.stdout
    assert p.stderr == ("zelo_eval: --run-id tag: - is a stream (standard input, a pipe, <(...)) and can be read "
                        "only once, for its run; name it with --name stdin=LABEL (--run-id path)\n")
    named = run_module_inproc("eval", ["-R", QRELS, "-m", "map", "--name", "stdin=bm25", "-", DENSE],
                              stdin=BM25.read_text())
    assert named.returncode == 0 and named.stdout.startswith("runid                 \tall\tbm25\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_fifo_refused_under_run_id_tag(tmp_path):
    fifo = tmp_path / "63"
    os.mkfifo(fifo)  # what bash's <(...) hands over: never opened here (the refusal comes before any read)
    p = run_module_inproc("compare", ["-R", QRELS, "-m", "map", "--run-id", "tag", fifo, DENSE])
    assert p.returncode == 2
    assert f"zelo_compare: --run-id tag: {fifo} is a stream" in p.stderr and "--name 63=LABEL" in p.stderr


def test_regular_files_keep_their_tags():
    """The tags are the 6th column of each file's last line (trec_eval's runid: ``tail -1``)."""
    tags = [BM25.read_text().splitlines()[-1].split()[5], DENSE.read_text().splitlines()[-1].split()[5]]
    p = run_module_inproc("eval", ["-R", QRELS, "-m", "map", "--run-id", "tag", BM25, DENSE])
    assert p.returncode == 0
    assert [ln.split("\t")[2] for ln in p.stdout.splitlines() if ln.startswith("runid")] == tags
