"""zelo_judge against a hostile OpenAI-compatible stand-in (an outside user's trial, session 8).

The stand-in below is written for these tests: an aiohttp server on 127.0.0.1 whose behaviour is chosen
by the model name of the request (echo the API key in an error body or in the answer, absurd usage
figures, empty choices, a body cut short, ...). Every test checks what a user relies on: one clear line,
the documented exit code, no traceback, and the fake key in no output, message, store or log.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("openai")
web = pytest.importorskip("aiohttp.web")

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-FAKE-j17-ZZtop-4242/+q"  # '/' is escaped by some JSON writers: the key may come back as 'sk-...\/+q'


class Hostile:
    """The stand-in; ``served`` counts the 200 answers per model, ``delay`` seconds before each answer."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.served: dict[str, int] = {}
        self.received: dict[str, int] = {}

    async def handle(self, req):
        body = await req.json()
        m = body["model"]
        auth = req.headers.get("Authorization", "")[7:]
        self.received[m] = self.received.get(m, 0) + 1
        if self.delay:
            await asyncio.sleep(self.delay)
        content = '{"score": 0.5}'
        usage: dict = {"prompt_tokens": 10, "completion_tokens": 3}
        if m == "echo400":
            return web.json_response({"error": {"message": f"invalid request with key {auth}"}}, status=400)
        if m == "echo400escaped":
            return web.Response(status=400, text='{"error": {"message": "key %s"}}' % auth.replace("/", "\\/"),
                                content_type="application/json")
        if m == "echo-answer":
            content = f"I cannot judge this; your key is {auth}"
        elif m == "echo-answer-ok":
            content = json.dumps({"score": 0.5, "note": f"billed to {auth}"})
        elif m == "usage-huge":
            usage = {"prompt_tokens": 10 ** 30, "completion_tokens": 1e300}
        elif m == "usage-odd":
            usage = {"prompt_tokens": "many", "completion_tokens": -5}
        self.served[m] = self.served.get(m, 0) + 1
        return web.json_response({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                                  "usage": usage})

    def start(self) -> str:
        ready = threading.Event()
        box: dict = {}

        def serve():
            loop = asyncio.new_event_loop()
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self.handle)
            runner = web.AppRunner(app, access_log=None)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            box["port"] = site._server.sockets[0].getsockname()[1]
            box["loop"], box["stop"] = loop, loop.create_future()
            ready.set()
            loop.run_until_complete(box["stop"])
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)
        self._box = box
        return f"http://127.0.0.1:{box['port']}/v1"

    def stop(self) -> None:
        loop, fut = self._box["loop"], self._box["stop"]
        loop.call_soon_threadsafe(lambda: fut.done() or fut.set_result(None))
        self._thread.join(10)


@pytest.fixture
def hostile():
    made = []

    def make(**kw):
        h = Hostile(**kw)
        url = h.start()
        made.append(h)
        return h, url

    yield make
    for h in made:
        h.stop()


def env(**extra):
    e = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    e.update(PYTHONPATH=str(ROOT), OPENAI_API_KEY=KEY, **extra)
    return e


def texts(tmp_path, nq=2, nd=3):
    (tmp_path / "q.tsv").write_text("".join(f"q{i}\tquery {i}\n" for i in range(nq)))
    (tmp_path / "d.tsv").write_text("".join(f"d{j}\ttext of d{j}\n" for j in range(nd)))
    with open(tmp_path / "p.jsonl", "w") as fh:
        for i in range(nq):
            for a in range(nd):
                for b in range(a + 1, nd):
                    fh.write(json.dumps({"qid": f"q{i}", "doc_a": f"d{a}", "doc_b": f"d{b}"}) + "\n")
    return ["--queries", tmp_path / "q.tsv", "--docs", tmp_path / "d.tsv"]


def zj(*args, timeout=60, **kw):
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.judge", *map(str, args)], capture_output=True,
                       text=True, env=kw.pop("env", env()), timeout=timeout, **kw)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def no_key_anywhere(tmp_path, *blobs):
    forms = (KEY, KEY.replace("/", "\\/"))
    for b in blobs:
        assert not any(f in b for f in forms), b
    for f in tmp_path.iterdir():
        data = f.read_bytes()
        assert not any(x.encode() in data for x in forms), f


def stored(store):
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT status, vote, raw, reason, tokens_in, tokens_out FROM answers").fetchall()
    finally:
        db.close()


def test_key_echoed_in_error_bodies_and_answers_is_never_stored(tmp_path, hostile):
    """A server that echoes the key (plain or JSON-escaped) in an error body or in the answer itself:
    the store, the output and the messages hold '***' instead (the answer was stored raw before)."""
    srv, url = hostile()
    inputs = texts(tmp_path)
    blobs = []
    for model in ("echo400", "echo400escaped", "echo-answer", "echo-answer-ok"):
        p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / f"{model}.sqlite", "--retries", 0,
               "--judge", f"openai:{model}@{url}", "-o", tmp_path / f"{model}.jsonl")
        assert p.returncode == 0, p.stderr
        blobs += [p.stdout, p.stderr]
        rows = stored(tmp_path / f"{model}.sqlite")
        assert len(rows) == 6
        if model == "echo-answer-ok":  # the vote survives the redaction
            assert all(r[0] == "ok" and r[1] == 0.5 and "***" in r[2] for r in rows), rows
        else:
            assert all(r[0] in ("failed", "unparsable") and "***" in (r[2] or r[3]) for r in rows), rows
    exp = zj("export", "--store", tmp_path / "echo-answer-ok.sqlite")
    no_key_anywhere(tmp_path, *blobs, exp.stdout, exp.stderr)


def test_absurd_token_counts_are_not_a_traceback(tmp_path, hostile):
    """usage.prompt_tokens = 10**30 made the store's INSERT overflow (a traceback, exit 1)."""
    srv, url = hostile()
    inputs = texts(tmp_path)
    for model in ("usage-huge", "usage-odd"):
        p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / f"{model}.sqlite",
               "--judge", f"openai:{model}@{url}", "--price", f"{model}=1,1", "-o", tmp_path / f"{model}.jsonl")
        assert p.returncode == 0, p.stderr
        rows = stored(tmp_path / f"{model}.sqlite")
        assert [(r[0], r[1], r[4], r[5]) for r in rows] == [("ok", 0.5, 0, 0)] * 6  # not counts: 0
        assert "cost $0.0000" in p.stderr
