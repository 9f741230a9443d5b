"""Empty inputs decided per kind (session 30, f40; f39's leftover: an empty ``--dataset``, ``--docs`` or ``next``
file gave exit 0 with 0 pairs). docs/zelo_pairs.md and docs/zelo_judge.md state the rule:

* what the work starts from -- a zbench dataset or a ``qid docno`` list (``zelo_pairs cycles|init``, ``zelo_fit
  --dataset``), the texts (``zelo_judge --queries|--docs``) -- empty (0 bytes or blank lines) is refused, exit 2,
  ``FILE: empty ... file``, as an empty run or qrels file is (trec_eval: "Cannot read results file"; our readers'
  ``empty run file``); before, ``0 pairs for 0 queries`` (exit 0), ``init`` a state done at once, and
  zelo_judge's refusal of a PAIRS file none of whose pairs has its texts, naming the pairs file;
* a batch to judge (``zelo_judge PAIRS``) empty is what ``zelo_pairs next`` writes once its state is done: exit 0,
  no judge started, no store opened, an empty output, a warning (``-Q`` silences it), so a shell loop ends
  cleanly at the judge.
Oracle: the documented contract (docs/exit-codes.md: one line naming the file, status 2, nothing written) and
the state's own end (``zelo_pairs status``: every topic done)."""
from __future__ import annotations

import sys

import pytest

from cli_harness import check_contract, digest_tree, run_inproc

JUDGE = f"cmd:{sys.executable} judge.py"
DATASET = ("empty zbench dataset file (expected JSON lines "
           '{"query": {"id": ...}, "documents": [{"id": ...}, ...]}, a query a line)')
DOCS = "empty 'qid docno' file (expected lines 'qid docno')"


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"], ids=["empty", "blank"])
@pytest.mark.parametrize("script, argv, says", [
    ("zelo_pairs", ["cycles", "--dataset", "E", "-o", "out.jsonl"], DATASET),
    ("zelo_pairs", ["cycles", "--docs", "E", "-o", "out.jsonl"], DOCS),
    ("zelo_pairs", ["init", "--state", "new.json", "--dataset", "E"], DATASET),
    ("zelo_pairs", ["init", "--state", "new.json", "--docs", "E", "--strategy", "adaptive"], DOCS),
    ("zelo_pairs", ["init", "--state", "new.json", "--docs", "E", "--strategy", "adaptive", "--goal", "ranking"],
     DOCS),
    ("zelo_fit", ["-J", "j.jsonl", "--dataset", "E", "-o", "out.tsv"], DATASET),
    ("zelo_judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "E", "--judge", JUDGE, "--store", "new.sqlite",
                    "-o", "out.jsonl"], "empty documents file (expected 'docno<TAB>text' lines or JSON lines)"),
    ("zelo_judge", ["pairs.jsonl", "--queries", "E", "--docs", "jd.tsv", "--judge", JUDGE, "--store", "new.sqlite",
                    "-o", "out.jsonl"], "empty queries file (expected 'qid<TAB>text' lines or JSON lines)"),
], ids=["cycles-dataset", "cycles-docs", "init-dataset", "init-docs", "init-ranking", "fit-dataset", "judge-docs",
        "judge-queries"])
def test_an_empty_source_is_refused(ws, script, argv, says, content):
    (ws / "E").write_bytes(content)
    before = digest_tree(ws, ignore=())
    res = run_inproc(script, argv, ws)
    assert check_contract(res, script=script, expect={2}) == [], res.stderr
    assert res.stderr == f"{script}: E: {says}\n"
    assert digest_tree(ws, ignore=()) == before  # no output, no state, no store


@pytest.mark.parametrize("content", [b"", b"\n", b"# zelo_pairs requests (pairs to judge, not judgments): "
                                                  b"topic docA docB\n", b'{"pairs": []}'],
                         ids=["empty", "blank", "header", "zbench-pairs"])
def test_an_empty_batch_is_judged_as_nothing(ws, content):
    (ws / "batch.txt").write_bytes(content)
    res = run_inproc("zelo_judge", ["batch.txt", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                                    "--store", "new.sqlite", "-o", "out.jsonl"], ws)
    assert check_contract(res, script="zelo_judge", expect={0}) == [], res.stderr
    assert res.stderr.splitlines()[0] == ("zelo_judge: warning: batch.txt: no pair in it, nothing to judge (zelo_pairs "
                                          "next writes an empty file once its state is done); the output is empty")
    assert (ws / "out.jsonl").read_bytes() == b""
    assert not (ws / "new.sqlite").exists()  # no store created, no judge started
    quiet = run_inproc("zelo_judge", ["batch.txt", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                                      "--store", "new.sqlite", "-Q", "--dry-run"], ws)
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_a_shell_loop_ends_cleanly_at_the_judge(ws):
    """``next`` -> ``zelo_judge`` -> ``add`` run until ``next`` writes nothing; then the judge exits 0 on the empty
    batch, and the state is done (its own ``status``)."""
    for _ in range(30):
        nxt = run_inproc("zelo_pairs", ["next", "--state", "as.json", "-o", "batch.txt"], ws)
        assert nxt.returncode == 0, nxt.stderr
        res = run_inproc("zelo_judge", ["batch.txt", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                                        "--store", "judge.sqlite", "-o", "judged.jsonl", "-Q"], ws)
        assert res.returncode == 0, res.stderr
        if (ws / "batch.txt").read_bytes() == b"":
            break
        add = run_inproc("zelo_pairs", ["add", "--state", "as.json", "-J", "judged.jsonl", "-Q"], ws)
        assert add.returncode == 0, add.stderr
    else:
        pytest.fail("the state never finished")
    assert (ws / "judged.jsonl").read_bytes() == b""
    status = run_inproc("zelo_pairs", ["status", "--state", "as.json"], ws)
    assert "1 done; 0 pairs outstanding" in status.stdout.decode(), status.stdout
