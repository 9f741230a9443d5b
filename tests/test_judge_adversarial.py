"""zelo_judge against a hostile OpenAI-compatible stand-in (an outside user's trial, session 8).

The stand-in below is written for these tests: an aiohttp server on 127.0.0.1 whose behaviour is chosen
by the model name of the request (echo the API key in an error body or in the answer, absurd usage
figures, empty choices, a body cut short, ...). Every test checks what a user relies on: one clear line,
the documented exit code, no traceback, and the fake key in no output, message, store or log.
"""
from __future__ import annotations

import asyncio
import json
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

from cli_harness import judge_env  # noqa: E402
from conftest import server_factory  # noqa: E402
from test_zelo_judge import zj as zj_inproc  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-FAKE-j17-ZZtop-4242/+q"  # '/' is escaped by some JSON writers: the key may come back as 'sk-...\/+q'


def _answer(content: str) -> str:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


# model name -> (content type, body of a 200 answer); KEY is replaced by the request's key
ODD_BODIES = {
    "list": ("application/json", "[]"),
    "no-choices": ("application/json", '{"choices": []}'),
    "choices-string": ("application/json", '{"choices": "KEY"}'),
    "null-message": ("application/json", '{"choices": [{"message": null}]}'),
    "int-content": ("application/json", '{"choices": [{"message": {"content": 5}}]}'),
    "dict-content": ("application/json", '{"choices": [{"message": {"content": {"score": 0.5}}}]}'),
    "json-null": ("application/json", "null"),
    "html": ("text/html", "<html><body>proxy login for KEY</body></html>"),
    "nan-score": ("application/json", _answer('{"score": NaN}')),
    "string-score": ("application/json", _answer('{"score": "0.5"}')),
    "huge-score": ("application/json", _answer('{"score": 1e999}')),
    "prose": ("application/json", _answer("Document B, clearly. (key KEY)")),
    # plain-text errors (status third): vLLM's, one with control characters and a line break, a long one
    "text-400": ("text/plain", "The model `text-400` does not exist.\nTraceback (most recent call last): ...", 400),
    "text-400-ctrl": ("text/plain", "\n  bad \x1b[31mred\x1b[0m \u202eevil KEY\x07\rsecond line", 400),
    "text-422-long": ("text/plain", "why " * 1000, 422),
}

# Hostile.fail_after's kinds: (content type, body, status)
FAILURES = {
    "malformed": ("application/json", '{"choices": []}', 200),
    "html": ("text/html", "<html><body>a web UI, not the API</body></html>", 200),
    "502": ("text/html", "<html><head><title>502 Bad Gateway</title></head></html>", 502),
    "429": ("application/json", '{"error": {"message": "rate limited"}}', 429),
}
FAILURE_REASONS = {"malformed": "malformed response: no choices[0].message.content",
                   "html": "malformed response: no choices[0].message.content", "502": "HTTP 502", "429": "HTTP 429"}


def _b64(text: str, alt: bytes | None = None) -> str:
    import base64

    return base64.b64encode(text.encode(), alt).decode()


def _quote(text: str) -> str:
    import urllib.parse

    return urllib.parse.quote(text, safe="")


def _json_u(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)  # a JSON writer escaping every character


# how a server may echo the key (session 26): cut, or encoded as the web encodes text (stdlib encoders: the oracle)
ECHO_KINDS = {
    "first20": lambda k: k[:20],
    "last8": lambda k: k[-8:],
    "middle": lambda k: k[4:16],
    "percent": lambda k: __import__("urllib.parse").parse.quote(k, safe=""),
    "percent-lower": lambda k: "".join(c if c.isalnum() else f"%{ord(c):02x}" for c in k),
    "json-u": lambda k: "".join(f"\\u{ord(c):04x}" for c in k),  # a JSON writer escaping every character
    "json-slash": lambda k: k.replace("/", "\\/"),
    "base64": lambda k: _b64(k),
    "base64-basic": lambda k: _b64("user:" + k),  # HTTP Basic authentication's header value
    "base64-url": lambda k: _b64("x" + k, b"-_"),
    "html": lambda k: "".join(f"&#{ord(c)};" for c in k),
    # session 27: cut by separators into pieces shorter than 8, and escapes of escapes
    "wrap6": lambda k: "\n".join(k[i:i + 6] for i in range(0, len(k), 6)),  # a key printed in lines of 6
    "folded": lambda k: "\r\n ".join(k[i:i + 5] for i in range(0, len(k), 5)),  # a folded header (RFC 5322)
    "spaced": lambda k: " ".join(k),
    "zero-width": lambda k: "\u200b".join(k),  # a zero-width space between every two characters
    "base64-mime": lambda k: __import__("base64").encodebytes(b"x" * 50 + k.encode()).decode(),  # lines of 76
    "percent-percent": lambda k: _quote("".join(f"%{ord(c):02X}" for c in k)),  # %2573...
    "percent-json-u": lambda k: _quote(_json_u(k)),  # %5Cu0073...
    "json-json-u": lambda k: _json_u(k).replace("\\", "\\\\"),  # \\u0073: a JSON string written into JSON
    "html-amp": lambda k: __import__("html").escape("".join(f"&#{ord(c)};" for c in k)),  # &amp;#115;
    "base64-percent": lambda k: _b64("".join(f"%{ord(c):02x}" for c in k)),
    "base64-quote": lambda k: _b64("user:" + _quote(k)),
    "base64-json-u": lambda k: _b64(_json_u(k)),
    "base64-base64": lambda k: _b64("Basic " + _b64("user:" + k)),
    # session 28: hexadecimal (a dump, a debug log) and C's / Python's \xHH escapes
    "hex": lambda k: k.encode().hex(),
    "hex-upper": lambda k: k.encode().hex().upper(),
    "hex-spaced": lambda k: k.encode().hex(" "),  # bytes.hex's separator: '73 6b 2d ...'
    "hex-wrapped": lambda k: "\n".join(k.encode().hex()[i:i + 10] for i in range(0, 2 * len(k), 10)),
    "hex-escaped": lambda k: "".join(f"\\x{b:02x}" for b in k.encode()),  # repr of bytes, all escaped
    # session 29: hexadecimal bytes apart by visible separators (bytes.hex's sep, a C array), dumps, the key's
    # letters in another case, the key backwards
    "hex-colon": lambda k: k.encode().hex(":"),
    "hex-colon-2": lambda k: k.encode().hex(":", 2),  # '736b:2d46:...'
    "hex-dash-upper": lambda k: k.encode().hex("-").upper(),
    "hex-c-array": lambda k: "{" + ", ".join(f"0x{b:02x}" for b in k.encode()) + "}",
    "xxd": lambda k: xxd(b"Bearer " + k.encode()),
    "hexdump-c": lambda k: hexdump_c(b"key=" + k.encode()),
    "upper": lambda k: k.upper(),
    "lower": lambda k: k.lower(),
    "swapcase": lambda k: k.swapcase(),
    "backwards": lambda k: k[::-1],
}


def xxd(data: bytes) -> str:
    """``xxd``'s dump of ``data`` (test_judge_redaction checks it against xxd itself where installed)."""
    out = []
    for at in range(0, len(data), 16):
        row = data[at:at + 16]
        groups = " ".join(row[i:i + 2].hex() for i in range(0, len(row), 2))
        out.append(f"{at:08x}: {groups:<39}  " + "".join(chr(b) if 32 <= b < 127 else "." for b in row))
    return "\n".join(out) + "\n"


def hexdump_c(data: bytes) -> str:
    """``hexdump -C``'s dump of ``data`` (checked against hexdump itself where installed)."""
    out = []
    for at in range(0, len(data), 16):
        row = data[at:at + 16]
        left, right = " ".join(f"{b:02x}" for b in row[:8]), " ".join(f"{b:02x}" for b in row[8:])
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        out.append(f"{at:08x}  {left:<23}  {right:<23}  |{text}|")
    return "\n".join([*out, f"{len(data):08x}"]) + "\n"


class Hostile:
    """The stand-in; ``served`` counts the 200 answers per model, ``delay`` seconds before each answer;
    ``dead_after``: that many answers, then every connection is dropped without a response."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.served: dict[str, int] = {}
        self.received: dict[str, int] = {}
        self.dead_after: int | None = None  # answers served before every connection is dropped unanswered
        # (answers served, kind): then every request is answered by FAILURES[kind] (a 200 that is no completion,
        # a proxy's 502, a 429 without Retry-After), the model's name ignored
        self.fail_after: tuple[int, str] | None = None
        self.inflight = self.max_inflight = 0

    async def handle(self, req):
        body = await req.json()
        m = body["model"]
        auth = req.headers.get("Authorization", "")[7:]
        self.received[m] = self.received.get(m, 0) + 1
        down = self.down(req, m)
        if down is not None:
            return down
        if m == "cut" or (m == "cut-once" and self.received[m] % 2 == 1) or m == "trickle":
            return await self.streamed(req, m)
        if self.delay:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
            await asyncio.sleep(self.delay)
            self.inflight -= 1
        content = '{"score": 0.5}'
        usage: dict = {"prompt_tokens": 10, "completion_tokens": 3}
        if m == "echo400" or m.startswith(("echo-headers", "echo-v-")):
            return self.echo_variant(auth, m) if m.startswith("echo-v-") else self.echo_headers(req, m)
        if m == "echo400escaped":
            escaped = auth.replace("/", "\\/")  # as PHP's or Java's JSON writers do
            return web.Response(status=400, text='{"error": {"message": "key ' + escaped + '"}}',
                                content_type="application/json")
        if m == "retry-inf" and self.received[m] == 1:
            return web.json_response({"error": {"message": "later"}}, status=429, headers={"Retry-After": "inf"})
        odd = ODD_BODIES.get(m)
        if odd is not None:  # a 200 whose body is not a completion, or whose answer is not a vote
            ctype, text, *status = odd
            return web.Response(status=status[0] if status else 200, text=text.replace("KEY", auth), content_type=ctype)
        if m == "deep":  # a 200 whose JSON body is nested 100,000 deep (json raises RecursionError)
            return web.Response(status=200, text="[" * 100000 + "]" * 100000, content_type="application/json")
        if m == "deep-answer":  # an answer text nested 100,000 deep
            content = '{"score": ' + "[" * 100000 + "]" * 100000 + "}"
            return web.json_response({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
        if m == "reasoning":  # a reasoning model given too few tokens: no content, finish_reason length
            return web.json_response({"choices": [{"index": 0, "finish_reason": "length",
                                                   "message": {"role": "assistant", "content": None}}]})
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

    def down(self, req, m: str):
        """The response of a server gone (``dead_after``) or failing (``fail_after``; model ``good`` answered),
        or None."""
        if self.dead_after is not None and sum(self.served.values()) >= self.dead_after:
            req.transport.close()  # no response at all: the client sees the connection end
            return web.Response(status=500)
        if self.fail_after is not None and sum(self.served.values()) >= self.fail_after[0] and m != "good":
            ctype, text, status = FAILURES[self.fail_after[1]]
            return web.Response(status=status, text=text, content_type=ctype)
        return None

    @staticmethod
    def echo_headers(req, m: str):
        """``echo400``: the key in a 400's message; ``echo-headers[-json]-CODE``: a debugging proxy's error CODE
        whose body echoes every request header, 'Authorization: Bearer KEY' among them, as text or as JSON (in
        the message and as an object)."""
        if m == "echo400":
            auth = req.headers.get("Authorization", "")[7:]
            return web.json_response({"error": {"message": f"invalid request with key {auth}"}}, status=400)
        code = int(m.rsplit("-", 1)[1])
        if m.startswith("echo-headers-json"):
            return web.json_response({"error": {"message": f"bad request; headers: {dict(req.headers)}",
                                                "headers": dict(req.headers)}}, status=code)
        lines = "".join(f"{k}: {v}\n" for k, v in req.headers.items())
        return web.Response(status=code, text=f"Request rejected.\n{lines}", content_type="text/plain")

    @staticmethod
    def echo_variant(auth: str, m: str):
        """``echo-v-KIND-PLACE``: the key as ``ECHO_KINDS[KIND]`` makes it (cut, percent-encoded, base64, ...) in an
        answer that is still a vote (``answer``), a plain-text 400 / 401 (``400text``, ``401text``: the variant on
        the first line) or a JSON 400 / 401 message (``400json``, ``401json``)."""
        kind, place = m[len("echo-v-"):].rsplit("-", 1)
        said = ECHO_KINDS[kind](auth)
        if place == "answer":
            said = said if said.isprintable() else json.dumps(said)[1:-1]  # line breaks escaped inside the JSON
            return web.json_response({"choices": [{"index": 0, "message": {
                "role": "assistant", "content": '{"score": 0.5, "billed_to": "' + said + '"}'}}]})
        code = int(place[:3])
        if place.endswith("text"):
            return web.Response(status=code, text=f"rejected: key {said} is not valid here\nsecond line",
                                content_type="text/plain")
        return web.json_response({"error": {"message": f"rejected: key {said}"}}, status=code)

    @staticmethod
    async def streamed(req, m: str):
        """``cut``: a 200 whose body stops half way (a proxy or server killed mid-answer: headers promise more);
        ``trickle``: a valid answer sent one byte at a time, 0.25 s apart (3 s in all: a proxy's keep-alive
        bytes)."""
        if m != "trickle":
            resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json",
                                                           "Content-Length": "400"})
            await resp.prepare(req)
            await resp.write(b'{"choices": [{"index": 0, "message": {"role": "assis')
            req.transport.close()
            return resp
        resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        await resp.prepare(req)
        try:
            for _ in range(12):
                await resp.write(b" ")
                await asyncio.sleep(0.25)
            await resp.write(_answer('{"score": 0.5}').encode())
            await resp.write_eof()
        except ConnectionError:  # the client gave up (its --timeout)
            pass
        return resp

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
    """``make(**kw) -> (Hostile, url)``, stopped after the test."""
    yield from server_factory(Hostile)


def env(**extra):
    return judge_env(OPENAI_API_KEY=KEY, **extra)


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
    """test_zelo_judge's in-process ``zelo_judge ARGS`` with this file's ``env`` (the key set), any exit status."""
    return zj_inproc(*args, check=False, timeout=timeout, env=kw.pop("env", env()), **kw)


def zj_process(*args, timeout=60):
    """``python -m pref_eval.cli.judge ARGS`` as a real process: for what the process's end decides (SQLite's
    -wal / -shm files are removed when the last connection closes, at the latest when the process ends)."""
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.judge", *map(str, args)], capture_output=True,
                       text=True, env=env(), timeout=timeout)
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


@pytest.mark.parametrize("model", ["echo-headers-400", "echo-headers-422", "echo-headers-500", "echo-headers-401",
                                   "echo-headers-404", "echo-headers-json-400", "echo-headers-json-500",
                                   "echo-headers-json-401", "echo-headers-json-403"])
def test_authorization_header_echoed_in_an_error_body_leaks_nowhere(tmp_path, hostile, model):
    """A server (a debugging proxy) that echoes the request's headers, 'Authorization: Bearer KEY' among them, in
    the body of a 4xx/5xx error (as text or JSON): the key is in no message, output, store (its bytes and its
    -wal file's), export or --dry-run's output, also once the store holds the failures."""
    srv, url = hostile()
    inputs = texts(tmp_path)
    args = [tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--retries", 0,
            "--judge", f"openai:{model}@{url}", "-o", tmp_path / "o.jsonl"]
    p = zj(*args)
    assert p.returncode in (0, 2) and "Traceback" not in p.stderr, p.stderr
    assert srv.received.get(model), p.stderr
    dry = zj(*args, "--dry-run")
    exp = zj("export", "--store", tmp_path / "s.sqlite")
    files = [f.read_bytes().decode("latin-1") for f in tmp_path.iterdir() if f.suffix != ".tsv"]
    no_key_anywhere(tmp_path, p.stdout, p.stderr, dry.stdout, dry.stderr, exp.stdout, exp.stderr, *files)
    if model.endswith(("401", "403")):  # the key refused: the server's words, redacted, in the one line
        said = "***" if "json" in model else "(HTTP 401: Request rejected.)"  # a text body: its first line
        assert "the server refused the API key" in p.stderr and said in p.stderr, p.stderr
    elif model.endswith(("400", "422")):  # stored as failed; the server's words (a JSON body's message) redacted
        rows = stored(tmp_path / "s.sqlite")
        assert rows and all(r[0] == "failed" and ("***" in r[3]) == ("json" in model) for r in rows), rows


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


def ctrl_c_works():
    """``preexec_fn`` of a zelo_judge the test sends SIGINT: its default disposition, as in a terminal (a test
    run started in the background, `pytest ... &`, has SIGINT ignored, and zelo_judge keeps an ignored SIGINT
    ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_rows(store, n, proc, timeout=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if store.exists():
            try:
                db = sqlite3.connect(store)
                got = db.execute("SELECT count(*) FROM answers").fetchone()[0]
                db.close()
            except sqlite3.Error:
                got = 0
            if got >= n:
                return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError("no answers stored in time")


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_mid_run_keeps_every_answer_in_flight_and_resumes_exactly(tmp_path, server, sig, code):
    """Ctrl-C / SIGTERM while requests are in flight: those answers (the server produced them: paid) are
    awaited and stored before the exit (they were dropped before: served 381, stored 379); the run resumed
    from the store asks nothing twice and writes the bytes of an uninterrupted run."""
    import random

    rng = random.Random(0)
    truth = {"q0": {f"q0d{j}": rng.gauss(0, 1) for j in range(6)}}  # 15 pairs, 30 questions
    (tmp_path / "q.tsv").write_text("".join(f"{q}\tQID={q} x\n" for q in truth))
    (tmp_path / "d.tsv").write_text("".join(f"{d}\tDOC={d} y\n" for q in truth for d in truth[q]))
    with open(tmp_path / "p.jsonl", "w") as fh:
        for q in truth:
            for a in truth[q]:
                for b in truth[q]:
                    if a < b:
                        fh.write(json.dumps({"qid": q, "doc_a": a, "doc_b": b}) + "\n")
    srv, url = server(truth=truth, delay=0.2)
    args = [sys.executable, "-m", "pref_eval.cli.judge", tmp_path / "p.jsonl", "--queries", tmp_path / "q.tsv",
            "--docs", tmp_path / "d.tsv", f"--judge=openai:m0@{url}", f"--judge=openai:m1@{url}", "--concurrency", 4]
    proc = subprocess.Popen([str(a) for a in [*args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl"]],
                            env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctrl_c_works)
    wait_rows(tmp_path / "s.sqlite", 5, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    n_stored = len(stored(tmp_path / "s.sqlite"))
    assert 5 <= n_stored == len(srv.served) < 30, err  # every answer the server gave is in the store
    assert "Traceback" not in err and "requests in flight" in err, err
    assert (f"zelo_judge: warning: {n_stored} answers of this run are in the store; run the same command again to "
            "continue") in err, err
    word = "interrupted" if sig == signal.SIGINT else "terminated"  # one line, not click's "Aborted!"
    assert err.splitlines()[-1] == f"zelo_judge: {word}", err
    assert not (tmp_path / "o.jsonl").exists()  # the output is written by a finished run only
    p = zj(*args[3:], "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl", "-Q")
    assert p.returncode == 0, p.stderr
    assert len(srv.served) == len(set(srv.served)) == 30  # nothing asked twice
    q = zj(*args[3:], "--store", tmp_path / "ref.sqlite", "-o", tmp_path / "ref.jsonl", "-Q")
    assert q.returncode == 0, q.stderr
    assert (tmp_path / "o.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


# ``python -c FINALIZATION_PROBE ARGS`` runs zelo_judge as its console script does (a process, ``argv`` None) beside
# an object whose ``__del__`` writes a line: the interpreter's finalization (Py_FinalizeEx clears ``__main__`` and
# collects) prints it, ``os._exit`` does not -- an event that tells "the process ended at once" without a clock.
FINALIZATION_PROBE = """
import os, sys
class _Finalized:
    def __del__(self):
        os.write(2, b"probe: finalized\\n")
_probe = _Finalized()
sys.argv[0] = "zelo_judge"
from pref_eval.cli.judge import main
main()
"""


def judge_process(*args):
    """``zelo_judge ARGS`` as a process under :data:`FINALIZATION_PROBE`, SIGINT at its default (a terminal's)."""
    return subprocess.Popen([sys.executable, "-c", FINALIZATION_PROBE, *map(str, args)], env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_works)


def test_the_finalization_probe_sees_a_normal_end(tmp_path):
    """The probe's line appears when the process ends through the interpreter's finalization (a usage error
    of zelo_judge takes sys.exit): the probe can tell the two ends apart."""
    proc = judge_process("--bogus")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and err.splitlines()[-1] == "probe: finalized", err


def test_second_signal_stops_at_once(tmp_path, server):
    """A server that hangs: the first Ctrl-C waits for the requests in flight (up to --timeout), a second
    one ends the run at once, exit 130, nothing stored, the store closed whole.

    "At once" is told by events, not by the clock: the server answers after 3 s, so a run that waited for its
    requests in flight would store their answers; and the process ends without the interpreter's finalization
    (the probe's line), which took 7.0-12.2 s of wall time at load 22 on 2 cores after the message (session 24,
    fl34: 6 runs; the former 10 s bound failed once) -- the probe's line was printed before session 25. The wait
    for the exit is a hang guard only."""
    srv, url = server(faults={}, fault_rate=1.0, fault_kinds=("timeout",), hang=3)
    inputs = texts(tmp_path)
    proc = judge_process(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--timeout", "50",
                         f"--judge=openai:m0@{url}")
    t0 = time.monotonic()
    while not srv.received and time.monotonic() - t0 < 30:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert proc.poll() is None  # waiting for the requests in flight
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err and err.splitlines()[-1] == "zelo_judge: interrupted", err
    assert "probe: finalized" not in err
    assert stored(tmp_path / "s.sqlite") == []
    assert not (tmp_path / "s.sqlite-wal").exists()  # the store was closed on the way out
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.slow  # three processes and a served batch: 10.7 s of wall time at load 25
def test_second_signal_under_state_keeps_the_last_batch(tmp_path, server):
    """--state: the first batch answered and written, the second held by the server; two Ctrl-Cs end the run at
    once (exit 130, no finalization) with the state file as the first batch left it (byte for byte, read back by
    zelo_pairs) and the store holding the first batch's answers, whole."""
    n, k = 16, 3
    (tmp_path / "g.qrels").write_text("".join(f"q0 0 d{j} 3\n" for j in range(n)))  # one grade: 16 candidates
    (tmp_path / "q.tsv").write_text("q0\tQID=q0\n")
    (tmp_path / "d.tsv").write_text("".join(f"d{j}\tDOC=d{j}\n" for j in range(n)))
    state = tmp_path / "s.json"
    subprocess.run([sys.executable, "-m", "pref_eval.cli.pairs", "init", "--state", state, "--qrels",
                    tmp_path / "g.qrels", "--k", str(k), "--seed", "1"], check=True, env=env())
    first = subprocess.run([sys.executable, "-m", "pref_eval.cli.pairs", "next", "--state", state],
                           capture_output=True, text=True, check=True, env=env()).stdout.splitlines()
    srv, url = server(truth={"q0": {f"d{j}": float(j) for j in range(n)}})
    srv.gate = len(first)  # the first batch is answered; the next batch's requests are held
    before = state.read_bytes()
    proc = judge_process("--state", state, "--queries", tmp_path / "q.tsv", "--docs", tmp_path / "d.tsv",
                         "--store", tmp_path / "s.sqlite", f"--judge=openai:m0@{url}", "--timeout", "50")
    t0 = time.monotonic()
    while len(srv.received) <= len(first) and time.monotonic() - t0 < 60:  # the second batch is being asked
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    after_first = state.read_bytes()
    assert after_first != before
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert proc.poll() is None  # waiting for the requests in flight
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err and err.splitlines()[-1] == "zelo_judge: interrupted", err
    assert "probe: finalized" not in err
    assert state.read_bytes() == after_first and not list(tmp_path.glob("*.tmp*"))
    nxt = subprocess.run([sys.executable, "-m", "pref_eval.cli.pairs", "next", "--state", state],
                         capture_output=True, text=True, env=env())
    assert nxt.returncode == 0 and nxt.stdout, nxt.stderr  # the state reads back and goes on
    assert len(stored(tmp_path / "s.sqlite")) == len(first)
    assert not (tmp_path / "s.sqlite-wal").exists()
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_an_ignored_sigint_stays_ignored(tmp_path, server):
    """Started with SIGINT ignored (a background job of a shell script: `zelo_judge ... &`), the run ignores it
    throughout, as Python does: it took the signal while requests were out (exit 130, half the pairs) and
    ignored it between batches."""
    truth = {"q0": {f"q0d{j}": float(j) for j in range(6)}}  # 15 pairs, one judge: 15 questions
    (tmp_path / "q.tsv").write_text("q0\tQID=q0 x\n")
    (tmp_path / "d.tsv").write_text("".join(f"{d}\tDOC={d} y\n" for d in truth["q0"]))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"qid": "q0", "doc_a": f"q0d{a}", "doc_b": f"q0d{b}"}) + "\n"
                                              for a in range(6) for b in range(a + 1, 6)))
    srv, url = server(truth=truth, delay=0.1)
    args = [sys.executable, "-m", "pref_eval.cli.judge", tmp_path / "p.jsonl", "--queries", tmp_path / "q.tsv",
            "--docs", tmp_path / "d.tsv", f"--judge=openai:m0@{url}", "--concurrency", 2,
            "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl"]
    proc = subprocess.Popen([str(a) for a in args], env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    wait_rows(tmp_path / "s.sqlite", 3, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err and "stopping" not in err, err
    assert len(stored(tmp_path / "s.sqlite")) == len(srv.served) == 15
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 15


OUT_OF_STEP = """
import json, sys
if sys.argv[1] == "banner":
    print("loading model...", flush=True)  # on stdout, before any request
for n, line in enumerate(sys.stdin):
    r = json.loads(line)
    print(1 if r["docno_b"] > r["docno_a"] else -1, flush=True)  # the later docno wins
    if sys.argv[1] == "chatty" and n % 3 == 1:
        print("done", n, flush=True)  # a log line after some answers
"""


@pytest.mark.parametrize("kind", ["banner", "chatty"])
def test_a_judge_program_writing_a_line_that_is_no_answer_gives_no_wrong_vote(tmp_path, kind):
    """A bare-line judge program that writes a line that answers nothing (a banner, a log line on stdout): every
    later answer was read as the next request's, silently (3 of 3 usable votes of the banner case wrong). Now the
    program is restarted after a bare line without a vote, so every vote is the program's answer to its own
    request (the oracle: its rule, the later docno wins), and a line that answers nothing is a failed vote."""
    (tmp_path / "judge.py").write_text(OUT_OF_STEP)
    (tmp_path / "q.tsv").write_text("q1\tquery\n")
    (tmp_path / "d.tsv").write_text("".join(f"d{i}\ttext {i}\n" for i in range(1, 6)))
    pairs = [("d1", "d2"), ("d4", "d3"), ("d1", "d4"), ("d3", "d2"), ("d5", "d1"), ("d2", "d5"), ("d4", "d5")]
    (tmp_path / "p.tsv").write_text("".join(f"q1\t{a}\t{b}\n" for a, b in pairs))
    p = zj(tmp_path / "p.tsv", "--queries", tmp_path / "q.tsv", "--docs", tmp_path / "d.tsv",
           "--store", tmp_path / "s.sqlite", f"--judge=cmd:{sys.executable} {tmp_path / 'judge.py'} {kind}",
           "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        db.row_factory = sqlite3.Row
        rows = [dict(r) for r in db.execute("SELECT doc_1, doc_2, vote, raw FROM answers")]
    assert len(rows) == len(pairs)
    votes = [r for r in rows if r["vote"] is not None]
    assert all(r["vote"] == (1.0 if r["doc_2"] > r["doc_1"] else -1.0) for r in votes), rows
    if kind == "banner":  # the program writes its banner first, every time it is started: no vote at all
        assert not votes and all(r["raw"] == "loading model..." for r in rows)
        assert "judge program restarted" in p.stderr
    else:  # a log line costs the request it is read for (a failed vote), and the program is restarted
        assert 0 < len(votes) < len(pairs)
        assert all(r["raw"].startswith("done") for r in rows if r["vote"] is None)


# ------------------------------------------------------------------ odd input files
SCORER = "import sys, json\nfor line in sys.stdin:\n    print(json.dumps({'score': 0.5}), flush=True)\n"


@pytest.mark.parametrize("case, files, message", [
    ("duplicate docno, other text", {"d.tsv": b"d0\tA\nd1\tB\nd2\tC\nd0\tanother A\n"},
     "d.tsv:4: document d0 again with another text (first on line 1); expected each document once"),
    ("duplicate qid, other text", {"q.tsv": b"q0\tquery\nq0\tother\n"},
     "q.tsv:2: query q0 again with another text (first on line 1)"),
    ("duplicate docno in JSON lines", {"d.tsv": b'{"docno": "d0", "text": "A"}\n{"doc_id": "d0", "text": "B"}\n'},
     "d.tsv:2: document d0 again with another text"),
    ("zbench document twice in a query",
     {"d.tsv": b'{"query": {"id": "q0", "query": "x"}, "documents": [{"id": "d0", "content": "A"}]}\n'
               b'{"query": {"id": "q0", "query": "x"}, "documents": [{"id": "d0", "content": "Z"}]}\n'},
     "d.tsv:2: document d0 of query q0 again with another text (first on line 1)"),
    ("a self-pair", {"p.jsonl": b'{"qid": "q0", "doc_a": "d0", "doc_b": "d1"}\n{"qid": "q0", "doc_a": "d2", '
                                b'"doc_b": "d2"}\n'},
     "p.jsonl:2: pair of document d2 with itself (expected two different documents; zbench's self-pair"),
    ("a self-pair, zelo_pairs next format", {"p.jsonl": b"q0 d0 d1\r\nq0 d1 d1\r\n"}, "p.jsonl:2: pair of document d1"),
    ("no pair has its texts (the wrong --docs)", {"p.jsonl": b"q0 x1 x2\nq1 x2 x3\n"},
     "d.tsv: none of the 2 pairs of"),
])
def test_bad_text_and_pair_files_name_file_and_line(tmp_path, case, files, message):
    """Each bad input: one line 'zelo_judge: FILE:LINE: ...', exit 2, nothing asked, no output written.
    Before: duplicates were taken silently (the last text judged), a self-pair was skipped with a warning,
    a PAIRS file without any text gave an empty output and exit 0. (A byte that is not UTF-8 was refused
    here until session 27: now read as Windows-1252 in a text, kept in an id; tests/test_judge_latin1.py.)"""
    inputs = texts(tmp_path)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "judge.py").write_text(SCORER + f"open({str(tmp_path / 'asked')!r}, 'a').write('x')\n")
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl",
           f"--judge=cmd:{sys.executable} {tmp_path / 'judge.py'}", cwd=tmp_path)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("zelo_judge: "), p.stderr
    assert message in lines[0], lines[0]
    assert not (tmp_path / "asked").exists() and not (tmp_path / "o.jsonl").exists()


def test_odd_but_valid_text_files(tmp_path):
    """A BOM, CRLF or CR-only line ends, tabs inside a text, a duplicate with the same text: accepted, and
    the judge sees the texts as written (tabs kept, no CR, no BOM)."""
    texts(tmp_path, nq=1, nd=3)
    (tmp_path / "q.tsv").write_bytes(b"\xef\xbb\xbfq0\tthe\tquery\r\n")
    (tmp_path / "d.tsv").write_bytes(b"d0\tA\ttab\rd1\tB\rd2\tC\rd1\tB\r")
    (tmp_path / "judge.py").write_text(
        "import sys, json\nlog = open('seen.jsonl', 'a')\nfor line in sys.stdin:\n    log.write(line)\n"
        "    log.flush()\n    print(json.dumps({'score': 0.5}), flush=True)\n")
    p = zj(tmp_path / "p.jsonl", "--queries", tmp_path / "q.tsv", "--docs", tmp_path / "d.tsv", "--store",
           tmp_path / "s.sqlite", f"--judge=cmd:{sys.executable} {tmp_path / 'judge.py'}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    seen = [json.loads(x) for x in (tmp_path / "seen.jsonl").read_text().splitlines()]
    assert [(r["query"], r["doc_a"], r["doc_b"]) for r in seen] == [
        ("the\tquery", "A\ttab", "B"), ("the\tquery", "A\ttab", "C"), ("the\tquery", "B", "C")]


# ------------------------------------------------------------------ a server that goes away
def test_server_gone_mid_run_stops_stores_no_failures_and_resumes(tmp_path, hostile):
    """The server drops every connection after 5 answers (as a crashed vLLM would): the run stops after
    8 questions in a row without an answer -- it used to store every remaining question as a failed vote
    (counted as a tie, never asked again without --retry-failed), retrying each one -- exits 1 with one line,
    writes the pairs judged, and stores no failure; run again once the server is back, it asks only the
    rest, nothing twice, and writes the bytes of an uninterrupted run."""
    srv, url = hostile()
    srv.dead_after = 5
    inputs = texts(tmp_path, nq=3, nd=4)  # 18 pairs
    args = [tmp_path / "p.jsonl", *inputs, f"--judge=openai:m@{url},name=m", "--concurrency", 1, "--retries", 1,
            "--backoff", 0]
    p = zj(*args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl", "-Q")
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("zelo_judge: 8 questions got no answer from the server (connection error"), p.stderr
    assert p.stderr.count("\n") == 1
    assert [r[0] for r in stored(tmp_path / "s.sqlite")] == ["ok"] * 5 and srv.served["m"] == 5
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 5
    srv.dead_after = None
    p = zj(*args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl", "-Q")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert srv.served["m"] == 18  # 5 + 13: nothing asked twice
    p = zj(*args, "--store", tmp_path / "ref.sqlite", "-o", tmp_path / "ref.jsonl", "-Q")
    assert (tmp_path / "o.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


def test_body_cut_short_is_retried_then_not_stored(tmp_path, hostile):
    """A 200 whose body stops half way is no answer: retried in the run (--retries) like a dropped
    connection; a retry that is answered is stored as that answer. A server that always cuts its bodies
    leaves every question unanswered: nothing is stored (a cut body is not a failed vote), exit 1 with
    one line, and the rerun asks them again."""
    srv, url = hostile()
    inputs = texts(tmp_path)  # 6 pairs
    p = zj(tmp_path / "p.jsonl", *inputs, f"--judge=openai:cut-once@{url},name=m", "--concurrency", 1,
           "--retries", 2, "--backoff", 0, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl", "-Q")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert [r[:2] for r in stored(tmp_path / "s.sqlite")] == [("ok", 0.5)] * 6
    assert srv.received["cut-once"] == 12 and srv.served["cut-once"] == 6
    p = zj(tmp_path / "p.jsonl", *inputs, f"--judge=openai:cut@{url},name=m", "--concurrency", 1,
           "--retries", 1, "--backoff", 0, "--store", tmp_path / "c.sqlite", "-o", tmp_path / "c.jsonl")
    assert p.returncode == 1, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("zelo_judge: 6 questions got no answer from the server") and "not stored" in last, last
    assert stored(tmp_path / "c.sqlite") == [] and srv.received["cut"] == 12
    assert (tmp_path / "c.jsonl").read_text() == ""


def test_no_server_at_all_stops_at_once(tmp_path):
    """Nothing listens on the port: exit 1 after max(8, --concurrency) questions, nothing stored."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: connections are refused
    inputs = texts(tmp_path, nq=4, nd=5)  # 40 pairs
    t0 = time.monotonic()
    p = zj(tmp_path / "p.jsonl", *inputs, f"--judge=openai:m@http://127.0.0.1:{port}/v1", "--retries", 2,
           "--backoff", 0.01, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 1 and "stopped: 8 questions in a row got no answer" in p.stderr, p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith("zelo_judge: ") and "were not stored" in p.stderr
    assert stored(tmp_path / "s.sqlite") == [] and (tmp_path / "o.jsonl").read_text() == ""
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_server_answering_only_failures_stops_keeps_the_answers_and_resumes(tmp_path, hostile, kind):
    """After 5 answers the server answers every request with a failure -- a 200 that is no completion (JSON
    without choices, a web UI's HTML page), a proxy's 502, a 429 without Retry-After: it used to be asked every
    question --retries + 1 times, each stored as a failed vote (a tie, not asked again without --retry-failed),
    exit 0 (session 27's leftover). Now max(8, --concurrency) questions of a judge in a row without an answer
    stop the run as the server-gone rule does: the 5 answers kept, the 8 failures not stored, one line, exit 1;
    the same command once the server answers asks exactly the rest and writes an uninterrupted run's bytes."""
    srv, url = hostile()
    srv.fail_after = (5, kind)
    inputs = texts(tmp_path, nq=3, nd=4)  # 18 pairs
    args = [tmp_path / "p.jsonl", *inputs, f"--judge=openai:m@{url},name=m", "--concurrency", 1, "--retries", 1,
            "--backoff", 0]
    p = zj(*args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl", "-Q")
    assert p.returncode == 1, p.stderr
    assert p.stderr == (f"zelo_judge: 8 questions failed every attempt ({FAILURE_REASONS[kind]}) and were not "
                        "stored; run the same command again when the server answers\n"), p.stderr
    assert [r[0] for r in stored(tmp_path / "s.sqlite")] == ["ok"] * 5
    assert srv.received["m"] == 5 + 8 * 2  # 8 questions, 2 attempts each, then no new question
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 5
    srv.fail_after = None
    p = zj(*args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0 and "13 requests sent" in p.stderr, p.stderr
    assert srv.served["m"] == 18 and srv.received["m"] == 21 + 13  # the rest, nothing twice
    p = zj(*args, "--store", tmp_path / "ref.sqlite", "-o", tmp_path / "ref.jsonl", "-Q")
    assert (tmp_path / "o.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


def test_one_judge_answering_only_failures_stops_the_run_beside_a_good_one(tmp_path, hostile):
    """Two judges on one server, one of which (``good``) is answered and the other gets only malformed bodies:
    the good judge's answers do not hide the other's failures (the rule counts a judge's questions in a row).
    The summary says which judge; the good judge's votes are stored, the other's failures are not, the pairs
    lacking a vote are not written; the rerun asks only the failed judge's questions and the rest."""
    srv, url = hostile()
    srv.fail_after = (0, "malformed")
    inputs = texts(tmp_path, nq=3, nd=4)  # 18 pairs, 36 questions
    args = [tmp_path / "p.jsonl", *inputs, f"--judge=openai:good@{url},name=good", f"--judge=openai:m@{url},name=m",
            "--concurrency", 1, "--retries", 0]
    p = zj(*args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 1, p.stderr
    lines = p.stderr.splitlines()
    assert ("zelo_judge: stopped: judge m: 8 questions in a row got no usable answer (malformed response: no "
            "choices[0].message.content); run the same command again to continue") in lines, p.stderr
    assert lines[-1].startswith("zelo_judge: 8 questions failed every attempt (malformed"), p.stderr
    assert srv.served == {"good": 8} and srv.received["m"] == 8
    assert [r[0] for r in stored(tmp_path / "s.sqlite")] == ["ok"] * 8
    assert (tmp_path / "o.jsonl").read_text() == ""
    srv.fail_after = None
    p = zj(*args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl", "-Q")
    assert p.returncode == 0, p.stderr
    assert srv.served == {"good": 18, "m": 18} and srv.received["m"] == 8 + 18
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 18


def test_failures_fewer_than_the_stop_rule_are_stored_as_before(tmp_path, hostile):
    """Failures that are not max(8, --concurrency) in a row for a judge are stored as failed votes (held until
    the judge answers again or the run ends): 6 pairs, the server failing after 3 answers -- 3 failures, the end
    of the run; exit 0, 3 failed votes stored and written, as before the stop rule."""
    srv, url = hostile()
    srv.fail_after = (3, "502")
    inputs = texts(tmp_path)  # 6 pairs
    p = zj(tmp_path / "p.jsonl", *inputs, f"--judge=openai:m@{url},name=m", "--concurrency", 1, "--retries", 1,
           "--backoff", 0, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    assert "3 failed" in p.stderr and "failed votes: 3 x HTTP 502" in p.stderr, p.stderr
    assert sorted(r[0] for r in stored(tmp_path / "s.sqlite")) == ["failed"] * 3 + ["ok"] * 3
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 6
    # failures held (not yet stored) count for --budget-requests: 2 answers and 3 failures make 5 questions
    srv.fail_after = (srv.served["m"] + 2, "502")
    p = zj(tmp_path / "p.jsonl", *inputs, f"--judge=openai:m@{url},name=m", "--concurrency", 1, "--retries", 0,
           "--store", tmp_path / "b.sqlite", "--budget-requests", 5, "-o", tmp_path / "b.jsonl")
    assert p.returncode == 0 and "stopped: --budget-requests 5 reached" in p.stderr, p.stderr
    assert sorted(r[0] for r in stored(tmp_path / "b.sqlite")) == ["failed"] * 3 + ["ok"] * 2
    assert srv.received["m"] == 9 + 5  # the first run: 3 answers, 3 failures asked twice


@pytest.mark.slow  # three state runs of several batches: 5-17 s at load 12
def test_failures_stop_a_state_run_without_adding_the_batch(tmp_path, hostile):
    """Under --state: the stop rule ends the run before the batch is whole; the batch is not added (the state file
    as after the last whole batch), the failures not stored, exit 1; the rerun, the server answering, ends the
    state with the votes of an uninterrupted run."""
    from click.testing import CliRunner

    from pref_eval.cli.pairs import command

    srv, url = hostile()
    texts(tmp_path, nq=2, nd=6)
    (tmp_path / "g.qrels").write_text("".join(f"q{i} 0 d{j} {j % 3}\n" for i in range(2) for j in range(6)))
    for name in ("st.json", "ref.json"):
        res = CliRunner().invoke(command, ["init", "--state", str(tmp_path / name), "--qrels",
                                           str(tmp_path / "g.qrels"), "--seed", "1"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
    args = ["--queries", tmp_path / "q.tsv", "--docs", tmp_path / "d.tsv", f"--judge=openai:m@{url},name=m",
            "--concurrency", 1, "--retries", 0]
    srv.fail_after = (3, "502")
    before = (tmp_path / "st.json").read_bytes()
    p = zj("--state", tmp_path / "st.json", *args, "--store", tmp_path / "s.sqlite")
    assert p.returncode == 1, p.stderr
    assert p.stderr.splitlines()[-1].startswith("zelo_judge: 8 questions failed every attempt (HTTP 502)"), p.stderr
    assert [r[0] for r in stored(tmp_path / "s.sqlite")] == ["ok"] * 3
    assert (tmp_path / "st.json").read_bytes() == before  # the first batch (more than 3 pairs) was not added
    srv.fail_after = None
    p = zj("--state", tmp_path / "st.json", *args, "--store", tmp_path / "s.sqlite", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    p = zj("--state", tmp_path / "ref.json", *args, "--store", tmp_path / "r.sqlite", "-o", tmp_path / "r.jsonl")
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "st.json").read_text()) == json.loads((tmp_path / "ref.json").read_text())
    assert (tmp_path / "o.jsonl").read_bytes() == (tmp_path / "r.jsonl").read_bytes()

# ------------------------------------------------------------------ Retry-After, keys pasted into a spec
def test_retry_after_is_clamped():
    """'Retry-After: inf' (or 1e12, or an HTTP date in year 9999) made the run sleep for ever; NaN and junk
    are no wait given."""
    from pref_eval.judge.judges import RETRY_AFTER_MAX, retry_after_seconds

    for v in ("inf", "Infinity", "1e12", "1e400", "Fri, 31 Dec 9999 23:59:59 GMT"):
        assert retry_after_seconds({"retry-after": v}) == RETRY_AFTER_MAX == 600, v
    assert retry_after_seconds({"retry-after-ms": "inf"}) == RETRY_AFTER_MAX
    assert retry_after_seconds({"retry-after": "nan"}) is None and retry_after_seconds({"retry-after": "x"}) is None
    assert retry_after_seconds({"retry-after-ms": "nan", "retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after": "-5"}) == 0.0 and retry_after_seconds({"retry-after": "2"}) == 2.0


@pytest.mark.timeout(60)
def test_infinite_retry_after_does_not_stop_the_run(tmp_path, hostile, monkeypatch):
    from pref_eval.api import judge
    from pref_eval.judge import judges

    monkeypatch.setattr(judges, "RETRY_AFTER_MAX", 0.2)  # the real cap is 600 s
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    srv, url = hostile()
    inputs = texts(tmp_path, nq=1, nd=2)
    sess = judge(str(tmp_path / "p.jsonl"), queries=str(inputs[1]), docs=str(inputs[3]), store=str(tmp_path / "s"),
                 judges=[f"openai:retry-inf@{url}"], backoff=0.0, output=str(tmp_path / "o.jsonl"))
    assert sess.stats.retried == 1 and srv.served["retry-inf"] == 1 and len(sess.results) == 1


@pytest.mark.parametrize("spec, secret", [
    ("openai:m@http://127.0.0.1:9/v1,key=sk-PASTED-123,temperature=x", "sk-PASTED-123"),
    ("openai:m@http://127.0.0.1:9/v1,api_key=sk-PASTED-123", "sk-PASTED-123"),
    ("openai:m@http://127.0.0.1:9/v1,sk-PASTED-123", "sk-PASTED-123"),
    ("openai:m@ftp://user:sk-PASTED-123@host/v1", "sk-PASTED-123"),
    ("openai:m@http://user:sk-PASTED-123@127.0.0.1:9/v1", "sk-PASTED-123"),
    ("openai:m@http://user:sk-PASTED/123@127.0.0.1:9/v1", "sk-PASTED"),  # a '/' ends the authority
    ("openai:m@http://127.0.0.1:9/v1,key=sk-PASTED-123", "sk-PASTED-123"),
])
@pytest.mark.parametrize("dry", [False, True])
def test_a_key_pasted_into_a_spec_is_never_echoed(tmp_path, spec, secret, dry):
    """A key pasted into --judge by mistake was printed back in the error (and a URL with USER:PASSWORD@
    was accepted: the password became part of the judge's name, in the store and the output). Session 25: a
    password holding '/' passed the check (the judge's name, with it, printed by --dry-run; a traceback of the
    HTTP client naming a part of it otherwise), and --dry-run took key=KEY (it starts no judge)."""
    inputs = texts(tmp_path, nq=1, nd=2)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--judge", spec,
           *(["--dry-run"] if dry else []))
    assert p.returncode == 2 and p.stderr.startswith("zelo_judge: --judge: ") and p.stderr.count("\n") == 1
    assert secret not in p.stderr and secret not in p.stdout
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize("url, why", [
    ("http://127.0.0.1:abc/v1", "Port could not be cast to integer value as 'abc'"),
    ("http://127.0.0.1:99999999/v1", "Port out of range 0-65535"),
    ("http://[::1/v1", "Invalid IPv6 URL"),
    ("http://:8000/v1", "no host in the base URL"),
])
def test_a_base_url_the_client_cannot_take_is_refused_before_the_store(tmp_path, url, why):
    """A port that is no number or out of range, an unclosed '[': a traceback of the HTTP client (httpx's
    InvalidURL, an OverflowError in an exception group) once the run had started and created the store."""
    inputs = texts(tmp_path, nq=1, nd=2)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--judge", f"openai:m@{url}")
    assert p.returncode == 2 and p.stderr.startswith("zelo_judge: --judge: ") and why in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1 and not (tmp_path / "s.sqlite").exists()


def test_api_key_env_holding_a_key_is_refused_under_dry_run(tmp_path):
    """--api-key-env KEY (the key itself, not its variable's name) was refused by a run but taken by --dry-run."""
    inputs = texts(tmp_path, nq=1, nd=2)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--judge", "openai:m@http://127.0.0.1:9/v1",
           "--api-key-env", KEY, "--dry-run")
    assert p.returncode == 2 and "--api-key-env must name an environment variable, not hold a key" in p.stderr
    no_key_anywhere(tmp_path, p.stdout, p.stderr)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrency_is_a_limit_over_all_judges(tmp_path, hostile, concurrency):
    """--concurrency N: never more than N requests in flight at the server, whatever the number of judges,
    and N are reached (12 slow questions of 2 judges)."""
    srv, url = hostile(delay=0.15)
    inputs = texts(tmp_path, nq=1, nd=4)  # 6 pairs x 2 judges
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--concurrency", concurrency, "-Q",
           f"--judge=openai:a@{url}", f"--judge=openai:b@{url}")
    assert p.returncode == 0, p.stderr
    assert sum(srv.served.values()) == 12 and srv.max_inflight == concurrency


def test_timeout_bounds_the_whole_answer_not_each_read(tmp_path, hostile):
    """--timeout is seconds per attempt: an answer trickling in a byte every 0.25 s (3 s in all) is cut at 0.5 s
    (the client's own timeout bounds each read, so it was stored as a vote after 3 s)."""
    _, url = hostile()
    p = zj(tmp_path / "p.jsonl", *texts(tmp_path, nq=1, nd=2), "--store", tmp_path / "s.sqlite",
           f"--judge=openai:trickle@{url}", "--timeout", 0.5, "--retries", 1, "--backoff", 0, "-Q")
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        (status, reason, latency, attempts), = db.execute("SELECT status, reason, latency, attempts FROM answers")
    assert (status, reason, attempts) == ("failed", "timeout after 0.5 s (after 2 attempts)", 2)
    assert 1.0 <= latency < 2.5, latency


def test_store_is_never_an_input_nor_in_a_missing_directory(tmp_path):
    """--store naming an input file: an empty PAIRS file was turned into an SQLite database (an output over
    an input), a text file was reported as 'not a zelo_judge store' (exit 2 for the wrong reason); a store in
    a missing directory was 'not a zelo_judge store (unable to open database file)', exit 2 -- it is an
    output that cannot be written: exit 1."""
    inputs = texts(tmp_path)
    judge = f"--judge=cmd:{sys.executable} -c 'print(0)'"
    (tmp_path / "empty.txt").write_bytes(b"")
    p = zj(tmp_path / "empty.txt", *inputs, "--store", tmp_path / "empty.txt", judge)
    assert p.returncode == 2 and "is the same file as PAIRS" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert (tmp_path / "empty.txt").read_bytes() == b""
    before = (tmp_path / "d.tsv").read_bytes()
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "d.tsv", judge)
    assert p.returncode == 2 and "is the same file as --docs" in p.stderr, p.stderr
    assert (tmp_path / "d.tsv").read_bytes() == before
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "no" / "s.sqlite", judge)
    assert p.returncode == 1 and p.stderr == f"zelo_judge: {tmp_path / 'no' / 's.sqlite'}: cannot write: directory " \
        f"{tmp_path / 'no'} does not exist\n", p.stderr


def _other_program(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO notes VALUES (1, 'a user keeps their notes here')")
    db.commit()
    db.close()


def _a_store(path, tmp_path, edit):
    """A real store (one pair judged), then ``edit`` run on it with plain sqlite3."""
    inputs = texts(tmp_path)
    (tmp_path / "one.jsonl").write_text('{"qid": "q0", "doc_a": "d0", "doc_b": "d1"}\n')
    p = zj(tmp_path / "one.jsonl", *inputs, "--store", path, f"--judge=cmd:{sys.executable} {tmp_path / 's.py'}")
    assert p.returncode == 0 and (tmp_path / "asked").exists(), p.stderr  # the judge's trace works
    db = sqlite3.connect(path)
    db.execute(edit)
    db.commit()
    db.close()


@pytest.mark.parametrize("case, make, message", [
    ("another program's database", lambda p, t: _other_program(p),
     "not a zelo_judge store: an SQLite database of other tables (notes); give a new file or a store zelo_judge "
     "wrote"),
    ("a store of a newer pref_eval", lambda p, t: _a_store(p, t, "UPDATE meta SET value = '3' WHERE key = 'schema'"),
     "written by a newer pref_eval (store schema 3; this version reads up to 2)"),
    ("a schema no version wrote", lambda p, t: _a_store(p, t, "UPDATE meta SET value = 'x' WHERE key = 'schema'"),
     "store schema 'x' is not one zelo_judge wrote (expected 1 or 2)"),
    ("a damaged store", lambda p, t: _a_store(p, t, "DROP TABLE answers"),
     "not a zelo_judge store: its schema is marked but the answers or prompts table is missing (a damaged store)"),
    ("a text file", lambda p, t: p.write_text("qid\tdoc\n"), "not a zelo_judge store (file is not a database)"),
])
def test_a_store_that_is_not_ours_is_refused_untouched(tmp_path, case, make, message):
    """--store naming an SQLite database of another program was accepted and zelo_judge's tables were written
    into it (and its journal switched to WAL); a store of a newer schema said 'store schema 3 is not 2' only
    after the journal mode was changed; a store whose answers table was gone gave a traceback-free but
    misleading error later. Now each is refused before anything is written or asked, by the run and by
    export: one line naming the file, exit 2, its bytes unchanged, no -wal/-shm left."""
    (tmp_path / "s.py").write_text(SCORER + f"open({str(tmp_path / 'asked')!r}, 'a').write('x')\n")
    store = tmp_path / "x.sqlite"
    make(store, tmp_path)
    (tmp_path / "asked").unlink(missing_ok=True)
    before = store.read_bytes()
    inputs = texts(tmp_path)
    for args in ([tmp_path / "p.jsonl", *inputs, "--store", store, f"--judge=cmd:{sys.executable} {tmp_path / 's.py'}",
                  "-o", tmp_path / "o.jsonl"],
                 ["export", "--store", store, "-o", tmp_path / "o.jsonl"]):
        p = zj(*args)  # in process: the refused store's connection is closed at once (it was left to the process's
        # end, so -wal/-shm stayed behind in a long-lived caller such as the API)
        assert p.returncode == 2 and p.stderr == f"zelo_judge: {store}: {message}\n", (case, p.stderr)
        assert store.read_bytes() == before and not (tmp_path / "asked").exists()
        assert not (tmp_path / "o.jsonl").exists()
        assert not list(tmp_path.glob("x.sqlite-*"))  # no -wal, -shm or -journal


def test_full_disk_while_storing_is_one_line_exit_1(tmp_path, monkeypatch, capsys):
    """The store's disk fills up mid-run (SQLite's own limit, PRAGMA max_page_count, stands for the disk):
    it was a traceback (sqlite3.OperationalError); now 'cannot write', exit 1, and the answers committed
    before are kept."""
    import sqlite3 as real

    from pref_eval.cli.common import _invoke
    from pref_eval.cli.judge import command
    from pref_eval.judge import store as store_module

    class SmallDisk:
        """sqlite3 as the store module sees it, each connection capped at 12 pages. Only the store's name is
        patched: the process's sqlite3.connect capped coverage's own data file too (a coverage run lost a worker's
        data, NOTES m33/m35; tools/coverage_run.py)."""

        def __getattr__(self, name: str):
            return getattr(real, name)

        @staticmethod
        def connect(*a, **kw):
            db = real.connect(*a, **kw)
            db.execute("PRAGMA max_page_count = 12")
            return db

    monkeypatch.setattr(store_module, "sqlite3", SmallDisk())
    inputs = texts(tmp_path, nq=1, nd=30)  # 435 pairs
    judge = f"cmd:{sys.executable} -c \"import sys\nfor l in sys.stdin: print('0.5 ' + 'x' * 900, flush=True)\""
    import click

    code = _invoke(command, "zelo_judge", [str(tmp_path / "p.jsonl"), *map(str, inputs), "--store",
                                           str(tmp_path / "s.sqlite"), "--judge", judge, "-Q", "-o",
                                           str(tmp_path / "o.jsonl")], click)
    err = capsys.readouterr().err
    assert code == 1 and err.startswith(f"zelo_judge: {tmp_path / 's.sqlite'}: cannot write: database or disk is full")
    assert err.count("\n") == 1
    kept = stored(tmp_path / "s.sqlite")
    assert 0 < len(kept) < 435 and not (tmp_path / "o.jsonl").exists()


def test_empty_answers_cut_at_max_tokens_say_why(tmp_path, hostile):
    """A reasoning model given max_tokens=5 answers nothing (finish_reason length): every vote failed with
    'empty answer' and nothing said why; now the stored reason and the summary name max_tokens."""
    srv, url = hostile()
    inputs = texts(tmp_path, nq=1, nd=3)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite",
           f"--judge=openai:reasoning@{url},max_tokens=5")
    assert p.returncode == 0, p.stderr
    assert {r[3] for r in stored(tmp_path / "s.sqlite")} == {
        "empty answer (finish_reason length: the answer was cut at max_tokens; raise max_tokens= (a reasoning model "
        "needs room))"}
    assert "failed votes: 3 x empty answer (finish_reason length: the answer was cut at max_tokens" in p.stderr


def test_json_nested_too_deeply_is_a_failed_vote_not_a_traceback(tmp_path, hostile):
    """A body, an answer, or a judge program's line holding JSON nested 100,000 deep: Python's json raises
    RecursionError (not ValueError), and zelo_judge stopped with a traceback (session 12, j21). Now a body
    the client cannot decode is a failed vote ('malformed response', retried like any), an answer that
    cannot be parsed is unparsable, and the run goes on: exit 0, the key nowhere."""
    srv, url = hostile()
    inputs = texts(tmp_path, nq=1, nd=2)
    (tmp_path / "deep.py").write_text("import sys\nfor line in sys.stdin:\n    print('{\"score\": ' + '[' * 100000 + "
                                      "']' * 100000 + '}', flush=True)\n")
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--retries", "1", "--backoff", "0",
           f"--judge=openai:deep@{url}", f"--judge=openai:deep-answer@{url}",
           f"--judge=cmd:{sys.executable} {tmp_path / 'deep.py'}", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    rows = sorted((r[0], r[3].split(":")[0].split(" (")[0]) for r in stored(tmp_path / "s.sqlite"))
    assert rows == [("failed", "malformed response"), ("unparsable", "unparsable answer"),
                    ("unparsable", "unparsable answer")], rows
    assert json.loads((tmp_path / "o.jsonl").read_text())["votes"] == [None, None, None]
    no_key_anywhere(tmp_path, p.stdout, p.stderr)


@pytest.mark.parametrize("bad", [KEY + "\r", KEY + "\n", " " + KEY, "sk-caf\u00e9-" + KEY[3:],
                                 KEY[:5] + "\x07" + KEY[5:]])
def test_a_key_an_http_header_cannot_carry_is_refused_at_start(tmp_path, hostile, bad):
    """A key read from a file with a Windows line end (``$(cat key.txt)`` keeps the CR), with a space or a
    non-ASCII character: before, every request failed -- a CR or LF as 'no answer from the server' (exit 1,
    'run again when the server answers'), a non-ASCII one stored as N failed votes ('ascii' codec) that
    only --retry-failed asks again. Now one line at the start, exit 2, nothing asked or stored, the key
    nowhere (session 12, j21)."""
    srv, url = hostile()
    inputs = texts(tmp_path, nq=1, nd=2)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", f"--judge=openai:m@{url},key=MYKEY",
           env=env(MYKEY=bad))
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "the API key in MYKEY holds a character an HTTP header cannot carry" in p.stderr
    assert srv.received == {} and not (tmp_path / "s.sqlite").exists()  # refused before the store is created
    for blob in (p.stdout, p.stderr, *(f.read_bytes().decode("utf-8", "replace") for f in tmp_path.iterdir())):
        assert bad.strip() not in blob and KEY[6:] not in blob


def test_export_of_a_judge_or_prompt_the_store_lacks_is_refused(tmp_path):
    """``export --judge`` naming a judge with no answer in the store (a typo) and ``--prompt`` a template none of
    whose answers is there printed nothing and exited 0; now exit 2, one line naming what the store holds."""
    inputs = texts(tmp_path, nq=1, nd=3)
    judge = f"cmd:{sys.executable} {tmp_path / 's.py'}"
    (tmp_path / "s.py").write_text(SCORER)
    assert zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", f"--judge={judge}").returncode == 0
    p = zj("export", "--store", tmp_path / "s.sqlite", f"--judge={judge}x")
    assert p.returncode == 2 and p.stderr == (f"zelo_judge: --judge {judge}x: no answer of this judge in "
                                              f"{tmp_path / 's.sqlite'} for this prompt (judges there: {judge})\n")
    (tmp_path / "other.txt").write_text("Q {query} A {doc_a} B {doc_b}")
    p = zj("export", "--store", tmp_path / "s.sqlite", "--prompt", tmp_path / "other.txt")
    assert p.returncode == 2 and "holds no answer asked with --prompt" in p.stderr and p.stderr.count("\n") == 1
    p = zj("export", "--store", tmp_path / "s.sqlite", f"--judge={judge}")
    assert p.returncode == 0 and p.stdout.count("\n") == 3


ODD_EXPECTED = {
    "list": ("failed", "malformed response: no choices[0].message.content (after 2 attempts)"),
    "no-choices": ("failed", "malformed response: no choices[0].message.content (after 2 attempts)"),
    "choices-string": ("failed", "malformed response: no choices[0].message.content (after 2 attempts)"),
    "null-message": ("failed", "malformed response: no choices[0].message.content (after 2 attempts)"),
    "int-content": ("failed", "malformed response: choices[0].message.content is not a string (after 2 attempts)"),
    "dict-content": ("failed", "malformed response: choices[0].message.content is not a string (after 2 attempts)"),
    "json-null": ("failed", "malformed response: no choices[0].message.content (after 2 attempts)"),
    "html": ("failed", "malformed response: no choices[0].message.content (after 2 attempts)"),
    "nan-score": ("unparsable", "score nan outside -1..1"),
    "string-score": ("unparsable", 'unparsable answer (expected {"score": number in -1..1})'),
    "huge-score": ("unparsable", "score inf outside -1..1"),
    "prose": ("unparsable", 'unparsable answer (expected {"score": number in -1..1})'),
}


def test_a_200_that_is_not_a_completion_or_not_a_vote(tmp_path, hostile):
    """Answers with status 200 that are not completions (a list, no choices, content not a string, an HTML
    login page of a proxy, JSON null) are retried and then stored as failed with the reason; completions
    whose answer is no vote (NaN, a string, 1e999, prose) are unparsable. Exit 0, the key (echoed by some of
    them) nowhere (session 12, j21). One judge per kind of answer, in one run."""
    srv, url = hostile()
    inputs = texts(tmp_path, nq=1, nd=2)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--retries", "1", "--backoff", "0",
           *(f"--judge=openai:{m}@{url}" for m in ODD_EXPECTED), "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    db = sqlite3.connect(tmp_path / "s.sqlite")
    rows = db.execute("SELECT judge, status, vote, reason FROM answers").fetchall()
    db.close()
    assert {r[0].split(":")[1].split("@")[0]: (r[1], r[3]) for r in rows if r[2] is None} == ODD_EXPECTED
    assert len(rows) == len(ODD_EXPECTED)
    assert json.loads((tmp_path / "o.jsonl").read_text())["votes"] == [None] * len(ODD_EXPECTED)
    no_key_anywhere(tmp_path, p.stdout, p.stderr)


def test_a_judge_program_echoing_the_key_does_not_put_it_in_the_store(tmp_path):
    """A cmd: judge inherits the environment (it may call an API itself); one that echoes the key in its
    answer had it stored raw."""
    inputs = texts(tmp_path, nq=1, nd=3)
    (tmp_path / "echo.py").write_text("import json, os, sys\nfor line in sys.stdin:\n"
                                      "    print(json.dumps({'score': 0.5, 'why': os.environ['OPENAI_API_KEY']}), "
                                      "flush=True)\n")
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", f"--judge=cmd:{sys.executable} echo.py",
           "-o", tmp_path / "o.jsonl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert [(r[0], r[1]) for r in stored(tmp_path / "s.sqlite")] == [("ok", 0.5)] * 3
    no_key_anywhere(tmp_path, p.stdout, p.stderr)


def test_a_judge_program_printing_the_key_on_its_stderr(tmp_path):
    """A cmd: judge's standard error went straight to ours, so a program logging its environment (or an API
    client's debug line) put the key on the terminal and into any log of the run. Its lines are now relayed
    with the key as *** (session 12, j21); a program that crashes after saying so is still reported."""
    inputs = texts(tmp_path, nq=1, nd=3)
    (tmp_path / "talk.py").write_text(
        "import json, os, sys\nfor n, line in enumerate(sys.stdin):\n"
        "    print('debug: key', os.environ['OPENAI_API_KEY'], json.dumps(os.environ['OPENAI_API_KEY']), "
        "file=sys.stderr, flush=True)\n"
        "    if n == 1:\n        sys.exit(3)\n"
        "    print(json.dumps({'score': 0.5}), flush=True)\n")
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", f"--judge=cmd:{sys.executable} talk.py",
           "--retries", "0", "-o", tmp_path / "o.jsonl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("debug: key *** \"***\"\n") == 3, p.stderr
    assert sorted(r[0] for r in stored(tmp_path / "s.sqlite")) == ["failed", "ok", "ok"]
    no_key_anywhere(tmp_path, p.stdout, p.stderr)


def test_an_unset_key_variable_creates_no_store(tmp_path, hostile):
    """``key=NOPE`` naming an unset variable is refused before the store file is created (session 12: the
    refusal came after ``--store`` had been created, leaving an empty database behind)."""
    srv, url = hostile()
    inputs = texts(tmp_path, nq=1, nd=2)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", f"--judge=openai:m@{url},key=NOPE",
           env=env())
    assert p.returncode == 2 and "NOPE is not set" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert srv.received == {} and not (tmp_path / "s.sqlite").exists()
