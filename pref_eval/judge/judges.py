"""The judges: an OpenAI-compatible server (official ``openai`` client) or a program.

A judge's :meth:`ask` returns an :class:`Answer` (a vote in -1..1 or a
failed vote with the reason, the raw text kept) or raises
:class:`Transient` (worth retrying: rate limit, server error, timeout,
connection or protocol failure) or :class:`Fatal` (stop the run: bad key,
unknown model or URL).

The API key is read from the environment when the judge starts and kept
only inside the client; messages pass through ``_redact`` (:mod:`.redact`: the key whole, cut, or
escaped) so that it never reaches the store, a log line or an exception.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import re
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError, command_running, option_name
from ..errors import shown as shown_value
from ..output.json_text import json_dumps
from .prompt import parse_answer
from .redact import MIN_RUN, Redactor
from .spec import ENV_NAME as _ENV_NAME
from .spec import JudgeSpec


@dataclass
class Answer:
    raw: str | None
    vote: float | None
    reason: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0


class Transient(Exception):
    """A failure worth retrying; ``retry_after`` in seconds when the server said so."""

    def __init__(self, reason: str, retry_after: float | None = None, *, unreached: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.unreached = unreached  # no connection, or it broke before an answer came: nothing to keep


class Fatal(UsageError):
    """A failure that no retry mends (authentication, unknown model or endpoint)."""


RETRY_AFTER_MAX = 600.0  # seconds: a longer Retry-After (or an infinite one) waits this long, then asks again


def _wait(seconds: float) -> float | None:
    """A server's wait clamped to [0, RETRY_AFTER_MAX]; NaN is no wait given."""
    if math.isnan(seconds):
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_MAX)


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (a number of seconds or an HTTP date), at most
    ``RETRY_AFTER_MAX`` (a server asking for an hour, or for ``inf``, must not stop the run for good)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            got = _wait(float(ms) / 1000.0)
        except ValueError:
            got = None
        if got is not None:
            return got
    v = headers.get("retry-after")
    if v is None:
        return None
    try:
        return _wait(float(v))
    except ValueError:
        import email.utils

        try:
            when = email.utils.parsedate_to_datetime(v)
        except (TypeError, ValueError, IndexError):
            return None
        try:
            return _wait(when.timestamp() - time.time())
        except (OverflowError, OSError, ValueError):
            return None




CLIENT_SLOTS = 8
STDERR_HELD = 1 << 20  # characters of a cmd: judge's unfinished stderr line held for its end (then shown)
SAYS_MAX = 200  # characters of a server's error message shown


def shown(text: str, limit: int) -> str:
    """``text`` as one line a terminal shows as it is: control and other unprintable characters escaped
    (``\\x1b``, ``\\u202e``), at most ``limit`` characters (then ``...``)."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= limit else text[:limit - 3] + "..."

# finish_reason values that explain an empty or cut answer, and what to do
FINISH_HINTS = {"length": "the answer was cut at max_tokens; raise max_tokens= (a reasoning model needs room)",
                "content_filter": "the server's content filter withheld the answer"}


class OpenAIJudge:
    """Chat completions on any OpenAI-compatible server."""

    def __init__(self, spec: JudgeSpec, *, default_key_env: str, timeout: float, concurrency: int = 8) -> None:
        self.spec = spec
        # one client per CLIENT_SLOTS requests in flight: the HTTP connection pool scans all its
        # connections for every request, so many small pools cost less CPU than one large pool
        self.n_clients = max(1, -(-concurrency // CLIENT_SLOTS))
        self._clients: list = []
        self._turn = 0
        self.name = spec.name
        self.price_key = spec.model
        self.timeout = timeout
        self.key_env = spec.key_env or default_key_env
        self._secret = ""
        self._redactor: Redactor | None = None

    def _redact(self, text: str) -> str:
        """``text`` with the API key replaced by ``***``: whole, cut, escaped or in base64 (:mod:`.redact`; a
        server may echo the key inside an error body, a JSON body or the answer itself)."""
        return text if self._redactor is None else self._redactor(text)

    def _key(self) -> str:
        env = self.key_env
        if not re.match(_ENV_NAME, env):
            raise UsageError(f"{option_name('judges', '--judge')} key= / {option_name('api_key_env')} must name an "
                             "environment variable, not hold a key")
        key = os.environ.get(env)
        if key:
            if key != self._secret:
                self._secret, self._redactor = key, Redactor(key)
            if not all("!" <= ch <= "~" for ch in key):  # what an HTTP header can carry; the key is not shown
                raise UsageError(f"judge {self.name}: the API key in {env} holds a character an HTTP header cannot "
                                 "carry (a space, a line break, a control or non-ASCII character; e.g. a Windows "
                                 "line end read from a key file): fix the variable")
            return key
        if self.spec.key_env or env != "OPENAI_API_KEY":  # named explicitly: it must exist
            raise UsageError(f"judge {self.name}: environment variable {env} is not set")
        if not self.spec.base_url and not os.environ.get("OPENAI_BASE_URL"):
            # the openai client's default server then: OpenAI's API, which refuses the placeholder (session 30: the
            # run asked every question, each answered 401 -- or, offline, no answer -- before it stopped)
            url = "openai:MODEL@URL" if command_running() else "'openai:MODEL@URL'"
            raise UsageError(f"judge {self.name}: {env} is not set and the judge names no server ({url}, or "
                             "OPENAI_BASE_URL), so it would send OpenAI's API a placeholder key: export the key "
                             f"in {env}, or give the local server's URL")
        return "unused"  # local servers (vLLM, Ollama, llama.cpp) ignore the key

    def _key_source(self) -> str:
        """Where the refused key came from, for the 401/403 error: the variable read, or that none was set
        (then a placeholder was sent: the usual case of a key exported under another name, or not exported)."""
        if self._secret:
            return f"the key was read from {self.key_env}"
        how = ("--api-key-env VAR or key=VAR in the --judge spec" if command_running() else
               "api_key_env='VAR' or key=VAR in the judges spec")
        return f"{self.key_env} is not set, so a placeholder key was sent: export the key in {self.key_env}, or " \
               f"name its variable with {how}"

    def _server_says(self, err: Any) -> str:
        """``: <the server's error message>`` (redacted, one line, control characters escaped, at most
        ``SAYS_MAX`` characters), or nothing: a JSON body's ``message``, or the first line of a text body (a
        proxy's or vLLM's plain-text error; the openai client's own message is only "Error code: 400")."""
        msg = getattr(err, "body", None)
        if isinstance(msg, str):  # redacted whole, before its first line is taken: a key wrapped over lines
            msg = self._redact(msg)
        if isinstance(msg, dict):
            msg = msg.get("message") if isinstance(msg.get("message"), str) else msg.get("error", msg)
            if isinstance(msg, dict):
                msg = msg.get("message")
            if isinstance(msg, str):
                msg = " ".join(self._redact(msg).split())
        elif isinstance(msg, str):
            msg = next((ln.strip() for ln in msg.splitlines() if ln.strip()), "")
        if not isinstance(msg, str) or not msg.strip():
            return ""
        return ": " + shown(self._redact(msg), SAYS_MAX)

    def _no_v1(self) -> str:
        """A 404 from a base URL without ``/v1`` (``@http://localhost:8000``, which vLLM, Ollama, llama.cpp's
        server and OpenAI serve under ``/v1``): the URL asked, and the one meant (session 24: the 404 alone)."""
        from urllib.parse import urlsplit

        base = str(self.spec.base_url or "").rstrip("/")
        if not base or "/v1" in urlsplit(base).path:
            return ""
        said = f"; the request went to {base}/chat/completions"
        if urlsplit(base).path:  # a path of its own (a proxy's prefix): no guess
            return said
        meant = f"openai:{self.spec.model}@{base}/v1"
        return (f"{said}: vLLM, Ollama, llama.cpp's server and OpenAI serve it under /v1 ("
                + (f"--judge {meant}" if command_running() else f"judges=[{meant!r}]") + ")")

    def check(self) -> None:
        """Refuse what would stop the run before anything is written (the store is opened after this): the
        openai package missing, the key's variable unset or holding what an HTTP header cannot carry."""
        try:
            import openai  # noqa: F401
        except ImportError:
            raise UsageError("openai: judges need the openai package: pip install 'pref_eval[judge]'") from None
        self._key()

    async def start(self) -> None:
        self.check()
        import openai

        self._openai = openai
        key = self._key()
        self._clients = [openai.AsyncOpenAI(api_key=key, base_url=self.spec.base_url, max_retries=0,
                                            timeout=self.timeout) for _ in range(self.n_clients)]

    async def close(self) -> None:
        for client in self._clients:
            with contextlib.suppress(Exception):  # closing is best effort
                await client.close()

    async def ask(self, request: dict) -> Answer:
        openai = self._openai
        kwargs: dict = {"model": self.spec.model, "messages": [{"role": "user", "content": request["prompt"]}]}
        if self.spec.temperature is not None:
            kwargs["temperature"] = self.spec.temperature
        if self.spec.max_tokens is not None:
            kwargs["max_tokens"] = self.spec.max_tokens
        try:
            # the client's low-level POST: same authentication, timeouts and error mapping as
            # chat.completions.create, without its per-request parameter and response model
            # transformations (most of its CPU time; see bench/RESULTS-judge.md)
            self._turn += 1
            client = self._clients[self._turn % self.n_clients]
            # the client's timeout bounds each read of the socket, not the answer: a body that trickles in
            # (a proxy's keep-alive bytes, a slow link) would take any time; --timeout is per attempt
            resp = await asyncio.wait_for(client.post("/chat/completions", cast_to=object, body=kwargs,
                                                      options={"timeout": self.timeout}), self.timeout)
        except (openai.APITimeoutError, asyncio.TimeoutError):
            raise Transient(f"timeout after {self.timeout:g} s") from None
        except openai.APIConnectionError as err:
            cause = err.__cause__ or err.__context__
            detail = f" ({type(cause).__name__})" if cause is not None else ""
            raise Transient(self._redact(f"connection error: {err}{detail}")[:300], unreached=True) from None
        except openai.APIStatusError as err:
            code = err.status_code
            if code in (401, 403):
                raise Fatal(f"judge {self.name}: the server refused the API key (HTTP {code}"
                            f"{self._server_says(err)}); {self._key_source()}") from None
            if code == 404:
                why = self._server_says(err)
                raise Fatal(f"judge {self.name}: unknown model or endpoint (HTTP 404{why}){self._no_v1()}") from None
            if code == 429 or code >= 500 or code in (408, 409):
                raise Transient(f"HTTP {code}", retry_after_seconds(err.response.headers)) from None
            said = self._server_says(err)  # the body's message or first line ("Error code: 400" said nothing)
            raise Transient(f"HTTP {code}{said}" if said else self._redact(f"HTTP {code}: {err.message}")[:300]) \
                from None
        except openai.APIError as err:  # e.g. a body that is not JSON
            raise Transient(self._redact(f"{type(err).__name__}: {err}")[:300]) from None
        except (ValueError, TypeError, RecursionError) as err:  # a body the client could not decode (or too deep)
            raise Transient(self._redact(f"malformed response: {err}")[:300]) from None
        try:
            content = resp["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise Transient("malformed response: no choices[0].message.content") from None
        if content is not None and not isinstance(content, str):
            raise Transient("malformed response: choices[0].message.content is not a string")
        usage = resp.get("usage") if isinstance(resp.get("usage"), dict) else {}
        tin, tout = _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
        if content is not None:
            content = self._redact(content)  # the raw answer goes to the store: never with the key in it
        vote, reason = parse_answer(content)
        finish = resp["choices"][0].get("finish_reason") if isinstance(resp["choices"][0], dict) else None
        if vote is None and finish in FINISH_HINTS:  # say why the model stopped: the usual cause of a bad answer
            reason = f"{reason} (finish_reason {finish}: {FINISH_HINTS[finish]})"
        return Answer(raw=content, vote=vote, reason=reason, tokens_in=tin, tokens_out=tout)


class CmdJudge:
    """A program reading one JSON request per line and answering one line each.

    Request: ``{"id", "qid", "docno_a", "docno_b", "query", "doc_a", "doc_b",
    "prompt", "repeat"}`` (``repeat``: 0 for the first judgment of the pair, k
    for its (k+1)-th, asked by ``zelo_judge --state``; a program that samples
    should draw again for each ``repeat``). Answer: ``{"score": S}`` (S in -1..1), or ``{"text": T}``
    parsed like a model's answer, or a bare line parsed the same way;
    optional ``"tokens_in"`` / ``"tokens_out"``. One request at a time; a
    program that exits, hangs past the timeout or answers another ``id`` is
    restarted for the next attempt, and so is one whose bare line holds no vote
    (a banner or log line would put every later answer one request off).
    """

    def __init__(self, spec: JudgeSpec, *, timeout: float, key_env: str = "OPENAI_API_KEY") -> None:
        self.spec = spec
        self.name = spec.name
        # the program inherits the environment (it may call an API itself); should it echo the key in an
        # answer, the stored answer holds *** instead
        key = os.environ.get(key_env, "") if re.match(_ENV_NAME, key_env) else ""
        self._secret = key if len(key) >= MIN_RUN else ""
        self._redactor = Redactor(key) if self._secret else None
        self.price_key = spec.name
        self.timeout = timeout
        self._proc: asyncio.subprocess.Process | None = None
        self._relay: asyncio.Future | None = None
        self._lock = asyncio.Lock()
        self._next_id = 0

    def check(self) -> None:
        """Nothing to check before the store is opened (the program is started at the first request)."""
        return None

    async def start(self) -> None:
        return None

    async def _spawn(self) -> asyncio.subprocess.Process:
        if self._proc is None or self._proc.returncode is not None:
            try:
                self._proc = await asyncio.create_subprocess_shell(
                    self.spec.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE, start_new_session=True, limit=1 << 26)
            except OSError as err:
                raise Fatal(f"judge {self.name}: cannot start the command ({err.strerror or err})") from None
            self._relay = asyncio.ensure_future(self._relay_stderr(self._proc.stderr))
        return self._proc

    async def _relay_stderr(self, stream) -> None:
        """The program's standard error to ours, line by line as it reads -- with the key of ``--api-key-env``
        (which the program inherits) replaced by ``***``, as in a stored answer. Whatever arrives is redacted
        after the stream's tail (:class:`.redact.StreamRedactor`), so a key cut over lines or writes is a run
        however long apart the pieces come (no timing); an unfinished last line waits for its end."""
        import codecs
        import sys

        from .redact import StreamRedactor

        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        redact = StreamRedactor(self._redactor) if self._redactor is not None else None
        held = ""
        while True:
            try:
                data = await stream.read(1 << 16)
            except (OSError, asyncio.CancelledError):
                data = b""
            held += decoder.decode(data, final=not data)
            cut = len(held) if not data or len(held) > STDERR_HELD else held.rfind("\n") + 1
            text, held = held[:cut], held[cut:]
            if text:
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.write(text if redact is None else redact(text))
                    sys.stderr.flush()
            if not data:
                return

    async def _kill(self) -> None:
        p = self._proc
        self._proc = None
        if p is None or p.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(p.wait(), 5)

    async def close(self) -> None:
        p = self._proc
        if p is not None and p.returncode is None:
            try:
                if p.stdin is not None:  # always (spawned with stdin=PIPE)
                    p.stdin.close()
                await asyncio.wait_for(p.wait(), 2)
            except (asyncio.TimeoutError, OSError, BrokenPipeError, ConnectionResetError):
                pass
        await self._kill()
        relay, self._relay = self._relay, None
        if relay is not None:  # the program is gone: its stderr ends (a grandchild holding it open is not awaited)
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(relay, 2)

    async def ask(self, request: dict) -> Answer:
        # one request at a time, from writing it to reading its answer and deciding whether the program is still
        # in step (a program killed here is never written to by the next request)
        async with self._lock:
            proc = await self._spawn()
            if proc.stdin is None or proc.stdout is None:  # spawned with PIPEs
                raise RuntimeError("internal error: a judge program without pipes")
            self._next_id += 1
            rid = self._next_id
            msg = {"id": rid, **{k: request[k] for k in ("qid", "docno_a", "docno_b", "query", "doc_a", "doc_b",
                                                         "prompt")}, "repeat": request.get("repeat", 0)}
            data = (json_dumps(msg, ensure_ascii=False) + "\n").encode("utf-8")  # an id not UTF-8 as \\udcNN

            stdin, stdout = proc.stdin, proc.stdout

            async def exchange() -> bytes:
                stdin.write(data)
                await stdin.drain()  # a program that reads nothing blocks here once the pipe is full
                return await stdout.readline()

            try:  # --timeout bounds the whole exchange: writing the request too (a long one to a hung program)
                line = await asyncio.wait_for(exchange(), self.timeout)
            except asyncio.TimeoutError:
                await self._kill()
                raise Transient(f"timeout after {self.timeout:g} s (judge program restarted)") from None
            except (BrokenPipeError, ConnectionResetError, OSError):
                line = b""
            except ValueError:  # a line longer than the stream limit
                await self._kill()
                raise Transient("answer line too long") from None
            if not line:
                code = proc.returncode
                await self._kill()
                raise Transient("judge program exited" + (f" with status {code}" if code is not None else ""))
            return await self._answer(line, rid)

    async def _answer(self, line: bytes, rid: int) -> Answer:
        """The answer of request ``rid`` from the program's line (called holding the lock)."""
        raw = line.decode("utf-8", errors="replace").rstrip("\r\n")
        if self._redactor is not None:
            raw = self._redactor(raw)
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict):
            if "id" in obj and obj["id"] != rid:
                await self._kill()
                raise Transient(f"answer for id {shown_value(obj['id'])} where {rid} was asked "
                                "(judge program restarted)")
            tin, tout = _int(obj.get("tokens_in")), _int(obj.get("tokens_out"))
            if "score" in obj:
                vote, reason = parse_answer(json.dumps({"score": obj["score"]}))
            elif isinstance(obj.get("text"), str):
                vote, reason = parse_answer(obj["text"])
            else:
                vote, reason = None, 'unparsable answer (expected {"score": number in -1..1})'
            return Answer(raw=raw, vote=vote, reason=reason, tokens_in=tin, tokens_out=tout)
        vote, reason = parse_answer(raw)
        if vote is None:
            # a bare line without a vote may be no answer at all -- a banner ("loading model..."), a log line, the
            # first line of a longer text -- and the answer still to come would be read as the next request's:
            # every later vote one request off. The program is restarted (what it has not written yet is dropped).
            await self._kill()
            reason = f"{reason}; judge program restarted (a line that is no answer puts the next ones out of step: " \
                     "write logs to stderr)"
        return Answer(raw=raw, vote=vote, reason=reason)


MAX_TOKENS_COUNT = 2 ** 53  # a token count at or above this is not a count (and would not fit the store's INTEGER)


def _int(v) -> int:
    """A token count reported by the server, or 0 for anything else (a string, a negative or non-finite
    number, a bool, a number too large to be a count)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < MAX_TOKENS_COUNT:
        return 0  # NaN fails the comparison too
    return int(v)


def make_judge(spec: JudgeSpec, *, default_key_env: str, timeout: float,
               concurrency: int = 8) -> OpenAIJudge | CmdJudge:
    if spec.kind == "openai":
        return OpenAIJudge(spec, default_key_env=default_key_env, timeout=timeout, concurrency=concurrency)
    return CmdJudge(spec, timeout=timeout, key_env=default_key_env)
