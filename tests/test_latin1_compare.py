"""``zelo_compare -P`` and ``zelo_plot`` on per-query files and comparison records whose ids are not UTF-8
(session 27, b37): a Latin-1 collection (topics, docnos and run tags as bytes, as trec_eval keeps them) evaluated
by ``zelo_eval -q`` in every per-query format, then compared. Before, the per-query reader refused the file
(``byte 0xe9 is not UTF-8 text``; a ``\\udce9`` JSON escape: "pandas cannot hold"), and the preference comparison
and zelo_plot's paired table were pandas tracebacks (pyarrow strings hold UTF-8 only).

Oracles: an ASCII twin of the same files (each byte >= 0x80 written ``~xx``, which sorts where the byte does):
the outputs are the twin's with the ids' bytes back, so only the ids' bytes differ; and trec_eval 10 run live on
the Latin-1 files (its per-query values and topic bytes are the per-query file's, to its 4 decimals)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli_harness import run_module_inproc

DOCS = [b"d\xe9j\xe0", b"caf\xe9", b"na\xefve", b"plain", b"\xfcber", b"x1", b"x2"]
TOPICS = [b"t\xe9", b"q2", b"\xe0q3", b"q4", b"q5"]
TAGS = (b"r\xe9a", b"r\xe9b", b"rc")
RUNS = ("a.run", "b.run", "c.run")
TREC_EVAL = Path("/tmp/trec_eval/trec_eval")  # built from usnistgov/trec_eval v10.0 (not in CI)


def _write(d: Path, twin: bool) -> None:
    """The Latin-1 collection (``twin``: each byte >= 0x80 as ``~xx``), deterministic."""
    def put(name: str, data: bytes) -> None:
        (d / name).write_bytes(re.sub(rb"[\x80-\xff]", lambda m: b"~%02x" % m.group()[0], data) if twin else data)

    put("q.qrels", b"".join(t + b" 0 " + doc + b" %d\n" % ((3 * i + 5 * k) % 3)
                            for i, t in enumerate(TOPICS) for k, doc in enumerate(DOCS)))
    for r, (name, tag) in enumerate(zip(RUNS, TAGS, strict=True)):
        lines = []
        for i, t in enumerate(TOPICS):
            order = DOCS[(i + 2 * r) % 7:] + DOCS[:(i + 2 * r) % 7]
            if (i + r) % 2:
                order = order[::-1]
            lines += [t + b" Q0 " + doc + b" %d %d " % (k + 1, 20 - k) + tag + b"\n" for k, doc in enumerate(order)]
        put(name, b"".join(lines))


def _untwin(data: bytes, json_escape: bool) -> bytes:
    """The twin's output with its ``~xx`` back to the byte (JSON: the escape ``\\udcxx``, the writers' rule)."""
    return re.sub(rb"~([89a-f][0-9a-f])", (lambda m: b"\\udc" + m.group(1)) if json_escape
                  else (lambda m: bytes([int(m.group(1), 16)])), data)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory) -> tuple[Path, Path]:
    out = []
    for twin in (False, True):
        d = tmp_path_factory.mktemp("twin" if twin else "latin1")
        _write(d, twin)
        for fmt in ("tsv", "csv", "jsonl", "pref"):
            res = run_module_inproc("eval", ["-R", "q.qrels", "--run-id", "tag", "-q", "-o", fmt, "-m", "map",
                                             "-m", "ndcg_cut.5", "-m", "rpp", "--output", f"pq.{fmt}", *RUNS], d)
            assert res.returncode == 0, res.stderr
        res = run_module_inproc("eval", ["-R", "q.qrels", "--run-id", "tag", "-q", "-o", "jsonl", "-m", "map",
                                         "-m", "ndcg_cut.5", "--output", "metric.jsonl", *RUNS], d)
        assert res.returncode == 0, res.stderr
        out.append(d)
    return out[0], out[1]


def _run(d: Path, module: str, *args: str) -> bytes:
    res = run_module_inproc(module, list(args), d, text=False)
    assert res.returncode == 0 and not res.stderr, res.stderr
    return res.stdout


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl", "pref"])
@pytest.mark.parametrize("out", ["jsonl", "csv"])
def test_compare_per_query_of_latin1_ids_equals_its_ascii_twin(dirs, fmt, out):
    """Metric and preference rows (map, ndcg_cut.5, rpp: the pivot-table path) of each per-query format:
    ``zelo_compare -P -o jsonl|csv`` equals the twin's output with the bytes back (fails on the old code)."""
    latin1, twin = dirs
    ours = _run(latin1, "compare", "-P", f"pq.{fmt}", "-o", out)
    assert b'"rpp"' in ours or b"rpp," in ours
    assert ours == _untwin(_run(twin, "compare", "-P", f"pq.{fmt}", "-o", out), out == "jsonl")
    assert (b"r\\udce9a" if out == "jsonl" else b"r\xe9a") in ours


def test_compare_text_and_baseline_show_the_bytes(dirs):
    """The text report with a baseline given by its Latin-1 tag (as bytes on the command line) and a run
    selection: the run ids printed as their bytes."""
    latin1, _ = dirs
    tag = os.fsdecode(TAGS[0])
    ours = _run(latin1, "compare", "-P", "pq.tsv", "--baseline", tag, "-m", "rpp", tag, "rc")
    assert b"r\xe9a" in ours and b"rc" in ours and b"r\xe9b" not in ours


def test_plot_of_latin1_ids(dirs):
    """zelo_plot systems/pairs from -P (a paired table: was a pandas traceback) and pairs from -C (zelo_compare's
    records: refused before) write their figure; the SVG's labels are the ids as Latin-1 text."""
    pytest.importorskip("matplotlib")
    latin1, _ = dirs
    (latin1 / "cmp.jsonl").write_bytes(_run(latin1, "compare", "-P", "pq.tsv", "-o", "jsonl"))
    for argv in (("systems", "-P", "metric.jsonl", "-m", "map"), ("pairs", "-P", "metric.jsonl", "-m", "ndcg_cut.5"),
                 ("pairs", "-C", "cmp.jsonl", "-m", "rpp")):
        res = run_module_inproc("plot", [*argv, "-o", "f.svg", "-Q"], latin1, text=False)
        assert res.returncode == 0, res.stderr
        assert "réa".encode() in (latin1 / "f.svg").read_bytes(), argv


def test_per_query_values_are_trec_evals(dirs):
    """Oracle trec_eval 10 live on the Latin-1 files: zelo_trec -q is byte-identical to it, and the per-query
    file zelo_compare -P reads holds trec_eval's topics (as bytes) and values (to trec_eval's 4 decimals)."""
    if not os.access(TREC_EVAL, os.X_OK):
        pytest.skip("trec_eval 10 is not built under /tmp/trec_eval")
    latin1, _ = dirs
    rows = [line.split(b"\t") for line in (latin1 / "pq.tsv").read_bytes().splitlines()[1:]]
    for run, tag in zip(RUNS, TAGS, strict=True):
        te = subprocess.run([str(TREC_EVAL), "-q", "-m", "map", "q.qrels", run], cwd=latin1, capture_output=True,
                            check=True).stdout
        assert _run(latin1, "trec", "-q", "-m", "map", "q.qrels", run) == te
        want = {f[1]: f[2] for f in (line.split(b"\t") for line in te.splitlines()) if f[1] != b"all"}
        got = {f[2]: b"%.4f" % float(f[4]) for f in rows if f[0] == tag and f[1] == b"" and f[3] == b"map"
               and f[2] != b"all"}
        assert got == want and TOPICS[0] in got


@pytest.mark.parametrize("out", ["jsonl", "csv"])
def test_compare_evaluating_preference_measures_of_latin1_ids(dirs, out):
    """``zelo_compare -R`` with a preference measure beside a trec_eval one (the preference table, then the
    pivot-free matrix): was refused ("the preference measures' comparison cannot hold the id"); now the twin's
    records with the bytes back."""
    latin1, twin = dirs
    argv = ["compare", "-R", "q.qrels", "-m", "rpp", "-m", "map", "--run-id", "tag", "-o", out, *RUNS]
    ours = _run(latin1, *argv)
    assert b"rpp" in ours and ours == _untwin(_run(twin, *argv), out == "jsonl")


def test_result_means_keep_a_latin1_run_id(tmp_path):
    """ComparisonResult.means on a run id that was not UTF-8: pandas' default string index (pyarrow) could not
    hold its surrogate escape (UnicodeEncodeError, s37's finding); the index is the ids as read, the means are
    the file's values averaged by hand."""
    import pref_eval

    f = tmp_path / "pq.tsv"
    f.write_bytes(b"run\tqid\tmeasure\tvalue\nr\xe9a\t1\tmap\t0.1\nr\xe9a\t2\tmap\t0.3\n"
                  b"b\t1\tmap\t0.2\nb\t2\tmap\t0.5\n")
    means = pref_eval.compare(str(f)).means
    assert list(means.index) == ["r\udce9a", "b"]
    assert means["map"].tolist() == [(0.1 + 0.3) / 2, (0.2 + 0.5) / 2]
