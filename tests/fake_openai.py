"""A local OpenAI-compatible chat-completions server for zelo_judge's tests and bench.

It answers from hidden true document scores: the prompt must contain the
markers ``QID=<qid>`` once and ``DOC=<docno>`` twice (the first shown document
first). Model ``m`` prefers the second document with probability
sigmoid((x_B - x_A) / temperature) (one Bernoulli draw seeded by
(seed, m, qid, first, second)) and answers ``{"score": 0.8}`` or
``{"score": -0.8}`` — zelo_simulate recovery's vote model. With
``resample=True`` the model samples afresh each time it is asked the same
question: the n-th usable answer to (m, qid, first, second) is the draw
seeded by (seed, m, qid, first, second, n) (n = 0 is the draw above) -- a
stochastic judge that ``zelo_judge --state`` asks again for a repeated pair.

Faults on demand: ``faults[(model, qid, first, second)]`` is a list of fault
names consumed one per request (``"429"`` with ``Retry-After``, ``"500"``,
``"timeout"`` (no answer for ``hang`` seconds), ``"malformed"`` (a 200 whose
body is not JSON), ``"empty"`` (empty content), ``"range"`` (score 3),
``"garbage"`` (prose)); ``fault_rate`` draws faults at random from
``fault_kinds`` for requests without a plan. ``gate``: stop answering after
that many served answers (requests then wait until the server stops).

Log: ``served`` lists the key of every 200 answer with a usable score,
``received`` every request. ``api_key``: when set, a request without
``Authorization: Bearer <key>`` gets 401 (its message echoes the header, as a careless proxy might).
``refuse_models``: models answered with OpenAI's 404 (``model_not_found``).

Run alone (bench, docs): ``python tests/fake_openai.py --port 0 [--qrels FILE]`` prints the port;
with ``--qrels`` the grades are the hidden true scores.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import re
import threading
import time

from aiohttp import web

_QID = re.compile(r"QID=(\S+)")
_DOC = re.compile(r"DOC=(\S+)")


def _draw(seed, model, qid, a, b, n=0) -> float:
    h = hashlib.sha256((f"{seed}|{model}|{qid}|{a}|{b}" + (f"|{n}" if n else "")).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2.0 ** 64


class FakeOpenAI:
    def __init__(self, truth: dict | None = None, *, seed: int = 0, temperature: float = 1.0,
                 faults: dict | None = None, fault_rate: float = 0.0, fault_kinds=("429", "500", "malformed"),
                 retry_after: str = "0", hang: float = 30.0, api_key: str | None = None, delay: float = 0.0,
                 log: bool = True, resample: bool = False, refuse_models: tuple = ()):
        self.truth = truth or {}
        self.seed, self.temperature = seed, temperature
        self.faults = {k: list(v) for k, v in (faults or {}).items()}
        self.fault_rate, self.fault_kinds = fault_rate, fault_kinds
        self.retry_after, self.hang, self.api_key, self.delay = retry_after, hang, api_key, delay
        self.served: list = []
        self.times: list = []
        self.received: list = []
        self.auth_seen: list = []
        self.gate: int | None = None
        self.count = 0
        self.log = log
        self.resample = resample
        self.refuse_models = tuple(refuse_models)
        self.answers: dict = {}  # key -> usable answers served (the draw index with resample)
        self._rng = random.Random(seed)
        self._stop = None
        self._release = None

    # ------------------------------------------------------------ answering
    def score(self, model, qid, a, b) -> float:
        xa = self.truth.get(qid, {}).get(a, 0.0)
        xb = self.truth.get(qid, {}).get(b, 0.0)
        p = 1.0 / (1.0 + math.exp(-(xb - xa) / self.temperature))
        n = self.answers.get((model, qid, a, b), 0) if self.resample else 0
        return 0.8 if _draw(self.seed, model, qid, a, b, n) < p else -0.8

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        model = body.get("model", "")
        refusal = self._refusal(request.headers.get("Authorization", ""), model)
        if refusal is not None:
            return refusal
        text = body["messages"][-1]["content"]
        qm, docs = _QID.search(text), _DOC.findall(text)
        key = (model, qm.group(1) if qm else "?", docs[0] if docs else "?", docs[1] if len(docs) > 1 else "?")
        if self.log:
            self.received.append(key)
            self.times.append(time.monotonic())
        plan = self.faults.get(key)
        fault = plan.pop(0) if plan else None
        if fault is None and self.fault_rate and self._rng.random() < self.fault_rate:
            fault = self._rng.choice(self.fault_kinds)
        if self.gate is not None and self.count >= self.gate:
            await self._release.wait()  # held: in flight when the client is killed
            return web.json_response({"error": {"message": "released"}}, status=503)
        if self.delay:
            await asyncio.sleep(self.delay)
        if fault == "429":
            return web.json_response({"error": {"message": "slow down"}}, status=429,
                                     headers={"Retry-After": self.retry_after})
        if fault == "500":
            return web.json_response({"error": {"message": "boom"}}, status=500)
        if fault == "timeout":
            await asyncio.sleep(self.hang)
        if fault == "malformed":
            return web.Response(status=200, text='{"choices": [', content_type="application/json")
        content = json.dumps({"score": self.score(*key)})
        if fault == "empty":
            content = ""
        elif fault == "range":
            content = json.dumps({"score": 3})
        elif fault == "garbage":
            content = "I think the second one, probably."
        else:
            self.answers[key] = self.answers.get(key, 0) + 1
            if self.log:
                self.served.append(key)
        self.count += 1
        return web.json_response({
            "id": "cmpl-1", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": 6,
                      "total_tokens": len(text) // 4 + 6}})

    def _refusal(self, auth: str, model: str) -> web.Response | None:
        """401 for a wrong key (its message echoes the header), 404 for a refused model, else None."""
        if self.api_key is not None:
            self.auth_seen.append(auth)
            if auth != f"Bearer {self.api_key}":
                return web.json_response({"error": {"message": f"bad key: {auth}"}}, status=401)
        if model not in self.refuse_models:
            return None
        return web.json_response({"error": {"message": f"The model `{model}` does not exist or you do not have "
                                            "access to it.", "type": "invalid_request_error", "param": None,
                                            "code": "model_not_found"}}, status=404)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=1 << 24)
        app.router.add_post("/v1/chat/completions", self.handle)
        return app

    # -------------------------------------------------------------- running
    def start(self) -> str:
        """Serve on 127.0.0.1 in a background thread; returns the base URL (…/v1)."""
        ready = threading.Event()
        box = {}

        def serve():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            runner = web.AppRunner(self.app(), access_log=None)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            box["port"] = site._server.sockets[0].getsockname()[1]
            self._stop = loop.create_future()
            self._release = asyncio.Event()
            box["loop"] = loop
            ready.set()
            loop.run_until_complete(self._stop)
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)
        self._loop = box["loop"]
        return f"http://127.0.0.1:{box['port']}/v1"

    def release(self) -> None:
        """Open the gate: held requests get a 503 (their client is gone), new ones are answered."""
        self.gate = None
        self._loop.call_soon_threadsafe(self._release.set)

    def stop(self) -> None:
        self.release()
        if self._stop is not None:
            self._loop.call_soon_threadsafe(lambda: self._stop.done() or self._stop.set_result(None))
            self._thread.join(10)


def main() -> None:  # pragma: no cover - used by bench/bench_judge.py
    import argparse
    import sys

    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--qrels", default=None, help="hidden true scores: the qrels grades (docs examples)")
    ap.add_argument("--resample", action="store_true", help="a new draw each time a question is asked again")
    args = ap.parse_args()
    truth: dict = {}
    if args.qrels:
        with open(args.qrels, encoding="utf-8") as fh:
            for line in fh:
                f = line.split()
                if len(f) == 4:
                    truth.setdefault(f[0], {})[f[2]] = float(f[3])
    srv = FakeOpenAI(truth, seed=args.seed, log=False, resample=args.resample)

    async def go():
        runner = web.AppRunner(srv.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", args.port)
        await site.start()
        sys.stdout.write(f"{site._server.sockets[0].getsockname()[1]}\n")
        sys.stdout.flush()
        await asyncio.Event().wait()

    asyncio.run(go())


if __name__ == "__main__":
    main()
