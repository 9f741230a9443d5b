"""Malformed and unusual inputs through the CLI: one test per case.

Each bad input must give exactly one line ``zelo_trec: <file>:<line>: <what>``
on stderr (``<file>: <what>`` when the file as a whole is at fault), exit
code 2 and nothing that looks like a traceback. The accepted variants (CRLF,
BOM, gzip, stdin) must print the same bytes as the clean file.
"""
from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

QRELS = (
    "q1 0 d1 1\n"
    "q1 0 d2 0\n"
    "q1 0 d3 2\n"
    "q2 0 d1 1\n"
    "q2 0 d4 -1\n"
    "q2 0 d5 1\n"
)
RUN = (
    "q1 Q0 d1 1 3.0 tagA\n"
    "q1 Q0 d2 2 2.5 tagA\n"
    "q1 Q0 d9 3 2.5 tagA\n"
    "q1 Q0 d3 4 1 tagA\n"
    "q2 Q0 d5 1 0.5 tagA\n"
    "q2 Q0 d4 2 0.25 tagA\n"
    "q2 Q0 d1 3 -1e-1 tagA\n"
)
MEASURES = ["-q", "-m", "num_ret", "-m", "map", "-m", "P.5"]


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """``python -m pref_eval.cli.trec ARGS`` in process (exit status and the stderr line need no process; the
    ir_datasets tests below and test_trec_eval_conformance.py's quicktest commands start real ones)."""
    return run_module_inproc("trec", args, ".", stdin=stdin, text=False)


def write(path: Path, text: str | bytes) -> str:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def assert_input_error(proc: subprocess.CompletedProcess, where: str, message: str) -> None:
    """One stderr line 'zelo_trec: <where>: <message...>', exit 2, no traceback."""
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"zelo_trec: {where}: "), err
    assert message in lines[0], err


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    return write(tmp_path / "qrels", QRELS), write(tmp_path / "run", RUN)


@pytest.fixture
def clean_output(files) -> bytes:
    proc = cli(*MEASURES, *files)
    assert proc.returncode == 0, proc.stderr
    # sanity: the hand-computed values (q1: d1 rel@1, d3 rel@4 -> AP = (1 + 2/4)/2)
    assert b"map                   \tq1\t0.7500\n" in proc.stdout
    return proc.stdout


# --- wrong field counts -------------------------------------------------------

def test_qrels_three_fields(tmp_path, files):
    q = write(tmp_path / "q3", "q1 0 d1 1\nq1 0 d2\n")
    assert_input_error(cli("-m", "map", q, files[1]), f"{q}:2",
                       "expected 4 fields 'qid iter docno rel', found 3 fields")


def test_qrels_five_fields(tmp_path, files):
    q = write(tmp_path / "q5", "# comment line\nq1 0 d1 1\n\nq1 0 d2 1 extra\n")
    assert_input_error(cli("-m", "map", q, files[1]), f"{q}:4",
                       "expected 4 fields 'qid iter docno rel', found 5 fields")


def test_run_five_fields(tmp_path, files):
    r = write(tmp_path / "r5", "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d3 3 1.0\n")
    assert_input_error(cli("-m", "map", files[0], r), f"{r}:3",
                       "expected at least 6 fields 'qid iter docno rank score tag', found 5 fields")


def test_run_one_field(tmp_path, files):
    r = write(tmp_path / "r1", "q1 Q0 d1 1 3.0 t\n  junk\t\n")
    assert_input_error(cli("-m", "map", files[0], r), f"{r}:2", "found 1 field")


# --- values ---------------------------------------------------------------------

def test_non_numeric_grade(tmp_path, files):
    q = write(tmp_path / "qg", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 high\n")
    assert_input_error(cli("-m", "map", q, files[1]), f"{q}:3",
                       "relevance grade 'high' is not an integer")


def test_fractional_grade(tmp_path, files):
    q = write(tmp_path / "qf", "q1 0 d1 2.5\n")
    assert_input_error(cli("-m", "map", q, files[1]), f"{q}:1",
                       "relevance grade '2.5' is not an integer")


def test_non_numeric_score(tmp_path, files):
    r = write(tmp_path / "rs", "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 abc t\n")
    assert_input_error(cli("-m", "map", files[0], r), f"{r}:2", "score 'abc' is not a number")


@pytest.mark.parametrize("token", ["nan", "NaN", "-nan"])
def test_nan_score(tmp_path, files, token):
    r = write(tmp_path / "rn", f"q1 Q0 d1 1 3.0 t\n\nq1 Q0 d2 2 {token} t\n")
    assert_input_error(cli("-m", "map", files[0], r), f"{r}:3", f"score '{token}' is NaN")


def test_inf_score_accepted(tmp_path, files):
    r = write(tmp_path / "ri", "q1 Q0 d2 1 inf t\nq1 Q0 d1 2 -inf t\n")
    proc = cli("-q", "-m", "map", files[0], r)
    assert proc.returncode == 0, proc.stderr
    # d2 (grade 0) first, d1 (grade 1) second; d3 not retrieved: AP = (1/2)/2
    assert b"map                   \tq1\t0.2500\n" in proc.stdout


# --- empty files ----------------------------------------------------------------

@pytest.mark.parametrize("content", ["", "\n\n", "# only a comment\n"])
def test_empty_run(tmp_path, files, content):
    r = write(tmp_path / "empty_run", content)
    assert_input_error(cli("-m", "map", files[0], r), r, "empty run file")


@pytest.mark.parametrize("content", ["", "# only a comment\n"])
def test_empty_qrels(tmp_path, files, content):
    q = write(tmp_path / "empty_qrels", content)
    assert_input_error(cli("-m", "map", q, files[1]), q, "empty qrels file")


# --- duplicates -------------------------------------------------------------------

def test_duplicate_doc_in_run(tmp_path, files):
    r = write(tmp_path / "rd", "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d1 3 1.0 t\n")
    assert_input_error(cli("-m", "map", files[0], r), f"{r}:3",
                       "duplicate document d1 for query q1 (first at line 1)")


def test_duplicate_doc_in_run_below_depth_accepted(tmp_path, files):
    # d7 appears twice but both copies rank below the top 2 (trec_eval checks after -M)
    r = write(tmp_path / "rdm", "q1 Q0 d7 1 0.1 t\nq1 Q0 d1 2 3.0 t\nq1 Q0 d3 3 2.0 t\nq1 Q0 d7 4 0.2 t\n")
    proc = cli("-q", "-M", "2", "-m", "num_ret", "-m", "map", files[0], r)
    assert proc.returncode == 0, proc.stderr
    assert b"num_ret               \tq1\t2\n" in proc.stdout
    assert b"map                   \tq1\t1.0000\n" in proc.stdout  # d1, d3 relevant; R = 2
    proc = cli("-q", "-M", "4", "-m", "map", files[0], r)
    assert_input_error(proc, f"{r}:4", "duplicate document d7 for query q1 (first at line 1)")


def test_duplicate_judgment_in_qrels(tmp_path, files):
    q = write(tmp_path / "qd", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq1 0 d1 1\n")
    assert_input_error(cli("-m", "map", q, files[1]), f"{q}:4",
                       "duplicate judgment for query q1 document d1 (first at line 1)")


# --- accepted variants: CRLF, BOM, tabs, gzip, stdin, comments ---------------------

def test_crlf_same_output(tmp_path, files, clean_output):
    q = write(tmp_path / "q_crlf", QRELS.replace("\n", "\r\n"))
    r = write(tmp_path / "r_crlf", RUN.replace("\n", "\r\n"))
    proc = cli(*MEASURES, q, r)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == clean_output


def test_bom_same_output(tmp_path, files, clean_output):
    q = write(tmp_path / "q_bom", b"\xef\xbb\xbf" + QRELS.encode())
    r = write(tmp_path / "r_bom", b"\xef\xbb\xbf" + RUN.encode())
    proc = cli(*MEASURES, q, r)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == clean_output


def test_irregular_whitespace_same_output(tmp_path, files, clean_output):
    r = write(tmp_path / "r_ws", RUN.replace(" ", " \t ").replace("tagA", "tagA extra  junk"))
    q = write(tmp_path / "q_ws", "# judged by hand\n" + QRELS.replace(" ", "\t"))
    proc = cli(*MEASURES, q, r)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == clean_output


def test_hash_inside_docno_is_data(tmp_path, files):
    q = write(tmp_path / "qh", "q1 0 doc#1 1\n#q1 0 d2 1\n")
    r = write(tmp_path / "rh", "# a comment\nq1 Q0 doc#1 1 1.0 t\n")
    proc = cli("-q", "-m", "num_rel", "-m", "map", q, r)
    assert proc.returncode == 0, proc.stderr
    assert b"num_rel               \tq1\t1\n" in proc.stdout
    assert b"map                   \tq1\t1.0000\n" in proc.stdout


def test_gzip_same_output(tmp_path, files, clean_output):
    # name without .gz: detection is by magic bytes
    q = write(tmp_path / "q_gz", gzip.compress(QRELS.encode()))
    r = write(tmp_path / "r_gz.txt", gzip.compress(RUN.encode()))
    proc = cli(*MEASURES, q, r)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == clean_output


def test_truncated_gzip(tmp_path, files):
    blob = gzip.compress(RUN.encode() * 50)
    r = write(tmp_path / "r_trunc.gz", blob[: len(blob) // 2])
    assert_input_error(cli("-m", "map", files[0], r), r, "truncated or corrupt gzip data")


def test_stdin_run(files, clean_output):
    proc = cli(*MEASURES, files[0], "-", stdin=RUN.encode())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == clean_output


def test_stdin_error_names_stdin(files):
    proc = cli("-m", "map", files[0], "-", stdin=b"q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 x t\n")
    assert_input_error(proc, "<stdin>:2", "score 'x' is not a number")


# --- files that cannot be read --------------------------------------------------------

def test_missing_file(tmp_path, files):
    r = str(tmp_path / "does_not_exist")
    assert_input_error(cli("-m", "map", files[0], r), r, "no such file")


def test_missing_qrels(tmp_path, files):
    q = str(tmp_path / "no_qrels")
    assert_input_error(cli("-m", "map", q, files[1]), q, "no such file (expected a qrels file)")


def test_directory_as_file(tmp_path, files):
    d = tmp_path / "adir"
    d.mkdir()
    assert_input_error(cli("-m", "map", files[0], str(d)), str(d), "is a directory")


def test_unreadable_file(tmp_path, files):
    r = Path(write(tmp_path / "locked", RUN))
    r.chmod(0)
    try:
        if os.access(r, os.R_OK):
            pytest.skip("running as root: chmod 000 does not stop reading")
        assert_input_error(cli("-m", "map", files[0], str(r)), str(r), "permission denied")
    finally:
        r.chmod(0o644)


# --- irds: through a locally registered ir_datasets dataset ----------------------------

IRDS_SCRIPT = """
import sys
import ir_datasets
from ir_datasets.formats import TrecQrels
from ir_datasets.util import LocalDownload
ir_datasets.registry.register(
    "pref-eval-test/local",
    ir_datasets.Dataset(TrecQrels(LocalDownload(sys.argv[1]), {0: "no", 1: "yes", 2: "very"})))
from pref_eval.cli.trec import main
main(sys.argv[2:])
"""


def test_irds_local_dataset(tmp_path, files, clean_output):
    pytest.importorskip("ir_datasets")
    env = dict(os.environ, IR_DATASETS_HOME=str(tmp_path / "irds_home"))
    proc = subprocess.run([sys.executable, "-c", IRDS_SCRIPT, files[0], *MEASURES,
                           "irds:pref-eval-test/local", files[1]],
                          capture_output=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == clean_output


def test_irds_unknown_dataset(tmp_path, files):
    pytest.importorskip("ir_datasets")
    env = dict(os.environ, IR_DATASETS_HOME=str(tmp_path / "irds_home"))
    proc = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-m", "map",
                           "irds:pref-eval-test/not-registered", files[1]],
                          capture_output=True, timeout=60, env=env)
    assert_input_error(proc, "irds:pref-eval-test/not-registered", "unknown ir_datasets id")
