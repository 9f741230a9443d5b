"""What the judging API tells a Python caller names its keywords, never zelo_judge's flags (session 28, j38; a37's
leftover): the scheduler's stop reasons (``budget_requests=5 reached``), the API-key errors of ``judge/judges.py``
(a 401's hint, a 404's ``/v1`` hint, a key variable holding a key), the store in use (``judge/store.py``) and a
prompt lacking its placeholders. The command line says what it said before (byte-identical), its flags. Each
Python message held a flag before this change.
"""
from __future__ import annotations

import fcntl
import os

import pytest

import pref_eval.api as api
from pref_eval.errors import PrefEvalError
from test_api_refusals_named import flags_in
from test_zelo_judge import collection, zj

pytest.importorskip("openai")
pytest.importorskip("aiohttp")

KEY = "sk-test-NAMED-0123456789abcdef"


def _texts(tmp_path) -> dict:
    return {"queries": str(tmp_path / "queries.tsv"), "docs": str(tmp_path / "docs.tsv")}


def _cli(tmp_path) -> list:
    return ["--queries", tmp_path / "queries.tsv", "--docs", tmp_path / "docs.tsv"]


def _python_refusal(call) -> str:
    with pytest.raises(PrefEvalError) as err:
        call()
    return str(err.value)


def test_stop_reasons_name_the_keyword(tmp_path, server):
    """``budget_requests`` / ``max_cost``: the reason a Python caller reads in ``stats.stopped`` (and the summary
    logs) names the keyword; the command's summary line names the flag as before."""
    truth, pairs = collection(tmp_path, nq=2, nd=6)
    srv, url = server(truth=truth)
    sess = api.judge(str(tmp_path / "pairs.jsonl"), judges=[f"openai:m0@{url}"], store=str(tmp_path / "a.sqlite"),
                     budget_requests=5, **_texts(tmp_path))
    assert sess.stats.stopped == "budget_requests=5 reached"
    sess = api.judge(str(tmp_path / "pairs.jsonl"), judges=[f"openai:m0@{url}"], store=str(tmp_path / "b.sqlite"),
                     prices={"m0": (1.0, 2.0)}, max_cost=0.05, concurrency=1, **_texts(tmp_path))
    assert sess.stats.stopped == "max_cost=0.05 reached"
    p = zj(tmp_path / "pairs.jsonl", *_cli(tmp_path), f"--judge=openai:m0@{url}", "--store", tmp_path / "c.sqlite",
           "--budget-requests", 5)
    assert "zelo_judge: stopped: --budget-requests 5 reached; run the same command again to continue" in p.stderr
    p = zj(tmp_path / "pairs.jsonl", *_cli(tmp_path), f"--judge=openai:m0@{url}", "--store", tmp_path / "d.sqlite",
           "--price", "m0=1,2", "--max-cost", 0.05, "--concurrency", 1)
    assert "zelo_judge: stopped: --max-cost 0.05 reached; run the same command again to continue" in p.stderr


def test_key_errors_name_the_keyword(tmp_path, server, monkeypatch):
    """A 401 with the key's variable unset says how to name the variable (``api_key_env='VAR'`` for Python,
    ``--api-key-env VAR`` on the command line); a 404 from a base URL without /v1 names the spec meant
    (``judges=['openai:m0@URL/v1']`` / ``--judge openai:m0@URL/v1``)."""
    truth, _ = collection(tmp_path, nq=1, nd=4)
    srv, url = server(truth=truth, api_key=KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    said = _python_refusal(lambda: api.judge(str(tmp_path / "pairs.jsonl"), judges=[f"openai:m0@{url}"],
                                             store=str(tmp_path / "a.sqlite"), **_texts(tmp_path)))
    assert said.endswith("OPENAI_API_KEY is not set, so a placeholder key was sent: export the key in OPENAI_API_KEY, "
                         "or name its variable with api_key_env='VAR' or key=VAR in the judges spec"), said
    assert flags_in(said) == [] and KEY not in said
    p = zj(tmp_path / "pairs.jsonl", *_cli(tmp_path), f"--judge=openai:m0@{url}", "--store", tmp_path / "b.sqlite",
           check=False, env={"PATH": os.environ.get("PATH", "")})
    assert p.returncode == 2 and p.stderr.rstrip().endswith(
        "name its variable with --api-key-env VAR or key=VAR in the --judge spec"), p.stderr
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    base = url.removesuffix("/v1")
    said = _python_refusal(lambda: api.judge(str(tmp_path / "pairs.jsonl"), judges=[f"openai:m0@{base}"],
                                             store=str(tmp_path / "c.sqlite"), **_texts(tmp_path)))
    assert said.endswith(f"serve it under /v1 (judges=['openai:m0@{base}/v1'])"), said
    assert flags_in(said) == []
    p = zj(tmp_path / "pairs.jsonl", *_cli(tmp_path), f"--judge=openai:m0@{base}", "--store", tmp_path / "d.sqlite",
           check=False, env={"OPENAI_API_KEY": KEY, "PATH": os.environ.get("PATH", "")})
    assert p.returncode == 2 and p.stderr.rstrip().endswith(f"serve it under /v1 (--judge openai:m0@{base}/v1)"), \
        p.stderr


def test_key_variable_holding_a_key_names_the_keyword():
    """judge/judges.py's own check (the API and the spec parser refuse such a variable name first; a judge made
    by hand reaches it): ``judges key= / api_key_env`` for Python."""
    from pref_eval.judge.judges import OpenAIJudge
    from pref_eval.judge.spec import parse_spec

    j = OpenAIJudge(parse_spec("openai:m@http://127.0.0.1:9/v1"), default_key_env="sk-abc", timeout=1)
    said = _python_refusal(j._key)
    assert said == "judges key= / api_key_env must name an environment variable, not hold a key"


def test_store_in_use_and_prompt_name_the_keyword(tmp_path):
    """A store locked by another zelo_judge: ``use another store`` (``--store`` on the command line); a prompt
    lacking ``{doc_a}``: ``prompt: the template lacks ...`` (``--prompt: ...``)."""
    collection(tmp_path, nq=1, nd=3)
    store = tmp_path / "s.sqlite"
    fd = os.open(str(store) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        said = _python_refusal(lambda: api.judge(str(tmp_path / "pairs.jsonl"), judges=["cmd:true"],
                                                 store=str(store), **_texts(tmp_path)))
        assert said == f"{store} is in use by another zelo_judge; wait for it or use another store", said
        p = zj(tmp_path / "pairs.jsonl", *_cli(tmp_path), "--judge=cmd:true", "--store", store, check=False)
        assert p.returncode == 2 and p.stderr == (f"zelo_judge: {store} is in use by another zelo_judge; wait for it "
                                                  "or use another --store\n"), p.stderr
    finally:
        os.close(fd)
    (tmp_path / "prompt.txt").write_text("{query} only\n")
    said = _python_refusal(lambda: api.judge(str(tmp_path / "pairs.jsonl"), judges=["cmd:true"],
                                             store=str(tmp_path / "t.sqlite"), prompt=str(tmp_path / "prompt.txt"),
                                             **_texts(tmp_path)))
    assert said == "prompt: the template lacks the placeholder(s) {doc_a}, {doc_b}", said
    p = zj(tmp_path / "pairs.jsonl", *_cli(tmp_path), "--judge=cmd:true", "--store", tmp_path / "u.sqlite",
           "--prompt", tmp_path / "prompt.txt", check=False)
    assert p.returncode == 2 and p.stderr == "zelo_judge: --prompt: the template lacks the placeholder(s) {doc_a}, " \
        "{doc_b}\n", p.stderr


@pytest.mark.parametrize("case, python_name, flag", [
    ("queries", "queries", "--queries"), ("docs", "docs", "--docs"), ("pairs", "pairs", "PAIRS"),
    ("state", "state", "--state"), ("judge", "judges", "--judge")])
def test_an_output_that_is_an_input_names_the_keyword(tmp_path, case, python_name, flag):
    """``output`` (or the state) the same file as an input: the input named by its keyword for Python (it named
    the flag: ``... the same file as --queries q.tsv``); the command's line as before."""
    collection(tmp_path, nq=1, nd=3)
    (tmp_path / "judge.py").write_text("")
    target = {"queries": "queries.tsv", "docs": "docs.tsv", "pairs": "pairs.jsonl", "state": "pairs.jsonl",
              "judge": "judge.py"}[case]
    kw = {**_texts(tmp_path), "judges": [f"cmd:python3 {tmp_path / 'judge.py'}"], "store": str(tmp_path / "s.sqlite"),
          "output": str(tmp_path / target)}
    pairs = str(tmp_path / "pairs.jsonl")
    if case == "state":
        kw["state"], pairs = pairs, None
    said = _python_refusal(lambda: api.judge(pairs, **kw))
    assert said == f"output file {tmp_path / target} is the same file as {python_name} {tmp_path / target}; " \
                   "refusing to overwrite it", said
    args = ["--state", kw["state"]] if case == "state" else [pairs]
    p = zj(*args, *_cli(tmp_path), f"--judge=cmd:python3 {tmp_path / 'judge.py'}", "--store", tmp_path / "s.sqlite",
           "-o", tmp_path / target, check=False)
    assert p.returncode == 2 and p.stderr == f"zelo_judge: output file {tmp_path / target} is the same file as " \
        f"{flag} {tmp_path / target}; refusing to overwrite it\n", p.stderr


@pytest.mark.parametrize("name", ["", "-"])
def test_a_store_named_nothing_or_dash_is_refused(tmp_path, name, monkeypatch):
    """``--store ''`` said "write - for standard output" (a store is a file), and ``--store -`` read and wrote a
    file named '-' in the working directory (session 28): both refused, status 2, by judge and export alike, the
    keyword named for Python; nothing written."""
    collection(tmp_path, nq=1, nd=3)
    monkeypatch.chdir(tmp_path)
    why = ("the file name is empty (an unset shell variable?)" if not name else
           "'-' names no file: standard input or output cannot hold an SQLite store (a file named '-': ./-)")
    before = sorted(os.listdir(tmp_path))
    for call in (lambda: api.judge("pairs.jsonl", judges=["cmd:true"], store=name, queries="queries.tsv",
                                   docs="docs.tsv"),
                 lambda: api.judge("pairs.jsonl", judges=["cmd:true"], store=name, queries="queries.tsv",
                                   docs="docs.tsv", dry_run=True),
                 lambda: api.judge_export(name)):
        assert _python_refusal(call) == f"store: {why}; give the store's file name"
    for args in (["pairs.jsonl", "--queries", "queries.tsv", "--docs", "docs.tsv", "--judge=cmd:true"],
                 ["pairs.jsonl", "--queries", "queries.tsv", "--docs", "docs.tsv", "--judge=cmd:true", "--dry-run"],
                 ["export"]):
        p = zj(*args, "--store", name, check=False, cwd=tmp_path)
        assert p.returncode == 2 and p.stderr == f"zelo_judge: --store: {why}; give the store's file name\n", p.stderr
    assert sorted(os.listdir(tmp_path)) == before
