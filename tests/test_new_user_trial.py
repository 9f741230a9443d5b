"""Session 24's outside trial (u34): a track organizer, an LLM-judging team and an ir-measures / ranx user
start from the docs; each case is a defect they met, and each failed on the code before the fix.
"""
from __future__ import annotations

import pytest

from conftest import ROOT  # noqa: E402
from test_first_contact import cli

QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / n for n in ("bm25.run", "dense.run", "rerank.run")]


@pytest.mark.parametrize("module, args", [
    ("eval", ["-c"]), ("eval", ["-o", "text"]), ("eval", ["-o", "topics-markdown"]), ("eval", ["-l", "2"]),
    ("eval", ["-m", "map", "-o", "topics"]), ("eval", ["--trec-eval-9", "-o", "tsv"]),
    ("compare", ["-c"]), ("compare", ["-l", "2"]), ("compare", ["-m", "map", "-c"]),
])
def test_a_typo_in_a_measure_name_is_unknown_whatever_the_options(module: str, args: list[str]) -> None:
    """`ndcg_cut10` (trec_eval writes ndcg_cut.10) is no measure of either mode: it was taken for a preference
    measure, so `-c`, `-l`, `-o text|topics*` were refused for preference mode (zelo_compare -c called it one of
    "pref_eval.py's metrics (ndcg_cut10)"); without those options the same command said `unknown measure`."""
    code, out, err = cli(module, "-R", QRELS, "-m", "ndcg_cut10", *args, *RUNS)
    assert code == 2 and out == ""
    assert err.startswith(f"zelo_{module}: unknown measure 'ndcg_cut10'; did you mean ndcg_cut"), err
    assert err.count("\n") == 1


def test_preference_measures_keep_their_refusals() -> None:
    """The refusals for a real preference measure are unchanged (rpp with -c)."""
    code, _, err = cli("eval", "-R", QRELS, "-m", "rpp", "-c", *RUNS)
    assert code == 2 and "-c applies to metric mode" in err


def test_calc_aggregate_key_error_names_the_printed_columns() -> None:
    """`calc_aggregate(["recall"], ...)["recall"]`: trec_eval's recall is recall at cutoffs (keys recall_5 ...),
    ranx's is `ranx:recall`; the KeyError said only 'recall'. Oracle for the keys: trec_eval's printed names."""
    import pref_eval

    res = pref_eval.calc_aggregate(["recall", "P.5"], str(QRELS), str(RUNS[0]))
    with pytest.raises(KeyError) as exc:
        res["recall"]
    msg = str(exc.value)
    assert "the keys of 'recall' are recall_5, recall_10" in msg and "'ranx:recall'" in msg
    with pytest.raises(KeyError, match="the keys of 'P' are P_5"):
        res["P.5"]
    assert res.get("recall") is None and "recall" not in res and res["P_5"] == res.get("P_5")


def test_pool_contributions_level_hand_worked(tmp_path):
    """`zelo_pairs pool --contributions -l N` (new): relevant = grade >= N, as trec_eval's -l; a TREC DL organizer
    counts passages of grade >= 2. Depth 2 (test_track_day's files): pooled (1 d1) (1 d9) (1 d2) (2 e1) (2 e2)
    (3 x) (10 y); grades d9 0, e2 -1, d2 2, x 1. -l 2: d2 only (b.run's alone); -l 0: d9 (a.run's and c.run's,
    so unique to neither run but to group X), d2, x."""
    from test_track_day import _pool_ws, _report

    ws = _pool_ws(tmp_path)
    assert _report(ws, ["-l", "2"])[1:] == ["a.run\t3\t0\t0\t0", "b.run\t6\t4\t1\t1", "c.run\t3\t0\t0\t0",
                                             "all\t7\t4\t1\t1"]
    assert _report(ws, ["-l", "0"])[1:] == ["a.run\t3\t0\t1\t0", "b.run\t6\t4\t2\t2", "c.run\t3\t0\t1\t0",
                                             "all\t7\t4\t3\t2"]
    assert _report(ws, ["--level", "0", "--groups", "teams.txt"])[1:] == ["X\t2\t3\t1\t1\t1", "Y\t1\t6\t4\t2\t2",
                                                                          "all\t3\t7\t5\t3\t3"]
    assert _report(ws, ["-l", "1"]) == _report(ws, [])


@pytest.mark.parametrize("extra", [["--qrels", "q.txt"], ["--contributions", "c.tsv"], []])
@pytest.mark.parametrize("level", ["1", "2"])
def test_pool_level_refused_without_qrels_and_contributions(tmp_path, extra, level):
    """-l counts relevant documents of --contributions' report, which only --qrels grades: named without both it
    is refused, whatever its value (the default 1 too, as e32's rule)."""
    from cli_harness import run_inproc
    from test_track_day import _pool_ws

    ws = _pool_ws(tmp_path)
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "-Q", "-o", "p.txt", "-l", level, *extra,
                                    "a.run", "b.run"], ws)
    assert res.returncode == 2
    assert res.stderr == "zelo_pairs: -l applies to --contributions with --qrels (the relevant documents it counts)\n"
    assert not (ws / "p.txt").exists() and not (ws / "c.tsv").exists()


def test_judge_404_without_v1_says_where_the_request_went(tmp_path, server):
    """`--judge openai:m@http://HOST:PORT` (no /v1: the server's root) gets the stand-in's 404 as any OpenAI-compatible
    server (vLLM, Ollama) answers there; the message said "unknown model or endpoint" alone. Oracle: the URL the
    openai client posts to (base URL + /chat/completions), logged by nothing but the 404 itself."""
    pytest.importorskip("openai")
    pytest.importorskip("aiohttp")
    from test_zelo_judge import collection, common, zj

    truth, _ = collection(tmp_path, nq=1, nd=3)
    _, url = server(truth=truth)
    root = url.rsplit("/v1", 1)[0]
    res = zj(tmp_path / "pairs.jsonl", *common(tmp_path), f"--judge=openai:m0@{root}/", check=False)
    assert res.returncode == 2, res.stderr
    said = (f"; the request went to {root}/chat/completions: vLLM, Ollama, llama.cpp's server and OpenAI serve it "
            f"under /v1 (--judge openai:m0@{root}/v1)")
    assert res.stderr.strip().endswith(said), res.stderr
    prefixed = zj(tmp_path / "pairs.jsonl", *common(tmp_path), f"--judge=openai:m0@{root}/proxy", check=False)
    assert prefixed.stderr.strip().endswith(f"(HTTP 404: 404: Not Found); the request went to "
                                            f"{root}/proxy/chat/completions"), prefixed.stderr


def test_agree_one_format_for_every_file_says_what_the_other_looks_like(tmp_path):
    """`zelo_agree -J crowd.txt -J llm.jsonl --format jsonl` (the LLM file's format given, the crowd's clarke4 lines
    read as JSON): the error was the JSON parser's alone. Oracle for the formats: the files as written here."""
    (tmp_path / "crowd.txt").write_text("q1 a b a\nq1 b c c\n")
    (tmp_path / "llm.jsonl").write_text('{"qid": "q1", "doc_a": "a", "doc_b": "b", "score": 0.0}\n'
                                        '{"qid": "q1", "doc_a": "b", "doc_b": "c", "score": 1.0}\n')
    code, out, err = cli("agree", "-J", tmp_path / "crowd.txt", "-J", tmp_path / "llm.jsonl", "--format", "jsonl")
    assert code == 2 and out == ""
    assert err.endswith("(--format jsonl reads every -J file, and this one looks like clarke4: give one format per "
                        "file, --format clarke4,jsonl, or no --format)\n"), err
    code, out, _ = cli("agree", "-J", tmp_path / "crowd.txt", "-J", tmp_path / "llm.jsonl", "--format",
                       "clarke4,jsonl", "-l", "pair", "--resamples", "0")
    assert code == 0 and "agreement" in out
    (tmp_path / "bad.jsonl").write_text('{"qid": "q1"}\n')  # a file of the format given: its own error, no hint
    code, _, err = cli("agree", "-J", tmp_path / "llm.jsonl", "-J", tmp_path / "bad.jsonl", "--format", "jsonl")
    assert code == 2 and "--format jsonl reads every" not in err


def test_fit_one_format_for_every_file_says_what_the_other_looks_like(tmp_path):
    """`zelo_fit -J llm.jsonl -J crowd.txt --format jsonl`: as zelo_agree (zelo_fit takes one format for all)."""
    (tmp_path / "crowd.txt").write_text("q1 a b a\nq1 b c c\n")
    (tmp_path / "llm.jsonl").write_text('{"qid": "q1", "doc_a": "a", "doc_b": "b", "score": 0.0}\n')
    code, out, err = cli("fit", "-J", tmp_path / "llm.jsonl", "-J", tmp_path / "crowd.txt", "--format", "jsonl")
    assert code == 2 and out == ""
    assert err.endswith("crowd.txt:1: expected a JSON object per line (Expecting value) (--format jsonl reads every "
                        "-J file, and this one looks like clarke4: leave --format out to detect each file's "
                        "format)\n"), err
    code, out, _ = cli("fit", "-J", tmp_path / "llm.jsonl", "-J", tmp_path / "crowd.txt", "-Q")
    assert code == 0 and out.startswith("qid\tdocno\tscore\tse\n")


@pytest.mark.parametrize("module, args", [
    ("trec", [QRELS, QRELS]), ("eval", ["-R", QRELS, "-m", "map", QRELS]),
    ("pairs", ["pool", "--depth", "5", QRELS]),
])
def test_qrels_given_as_a_run_says_so(module: str, args: list) -> None:
    """The qrels where a run goes (`zelo_pairs pool QRELS`, `zelo_trec QRELS QRELS`): the run reader named the 4
    fields found, not why (the run given as the qrels said so since session 21: test_first_contact)."""
    code, out, err = cli(module, *args)
    assert (code, out) == (2, "")
    assert err.endswith(f"{QRELS}:1: expected at least 6 fields 'qid iter docno rank score tag', found 4 fields (a "
                        "qrels line 'qid iter docno rel': a run goes here; the qrels come first, `zelo_trec QRELS "
                        "RUN`, or after -R or --qrels)\n"), err


def test_four_fields_that_are_no_qrels_line_keep_the_plain_message(tmp_path) -> None:
    odd = tmp_path / "odd.run"
    odd.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 two\n")
    code, _, err = cli("trec", QRELS, odd)
    assert code == 2 and err == (f"zelo_trec: {odd}:2: expected at least 6 fields 'qid iter docno rank score tag', "
                                 "found 4 fields\n")


def test_missing_ordering_file_reads_as_english(tmp_path) -> None:
    """`zelo_compare --orderings A nofile` said "expected a ordering of systems"."""
    a = tmp_path / "a.txt"
    a.write_text("s1 1\ns2 2\n")
    code, _, err = cli("compare", "--orderings", a, tmp_path / "nofile")
    assert code == 2 and err.endswith("nofile: no such file (expected an ordering of systems)\n"), err
    code, _, err = cli("compare", "--orderings", a, tmp_path)
    assert code == 2 and err.endswith(": is a directory, expected an ordering of systems\n"), err
    code, _, err = cli("eval", "-R", tmp_path / "nofile", a)
    assert code == 2 and err.endswith("nofile: no such file (expected a qrels file)\n"), err
