"""Sending the questions: asyncio workers, rate limit, retries, budget.

``concurrency`` workers take questions in order. Before each attempt a
worker waits for the rate limiter (``rpm``: one start every 60/rpm s). A
:class:`~.judges.Transient` failure is retried up to ``retries`` times after
``max(Retry-After, backoff)`` where backoff = min(``backoff_max``,
``backoff_base`` · 2^attempt) · U(0.5, 1) ("equal jitter"; the jitter comes from
``random.Random(seed)``). After the last retry the question is stored as
failed with its reason (it counts ½ in the ensemble). Answers, usable or not,
are committed to the store before they are counted.

SIGINT (Ctrl-C) and SIGTERM stop the run the same way: no new question, no retry, and the
questions in flight are awaited (each at most ``timeout`` seconds) and stored -- an answer the
server has produced may have been paid for -- then the signal takes its usual course
(``KeyboardInterrupt``; exit 130 / 143 for the commands). A second signal stops at once.

A question every attempt of which found no connection to the server (refused, reset, a
name that does not resolve) is not stored -- nothing was answered -- and stays unasked for the
next run; max(8, ``concurrency``) such questions in a row stop the run (the server is down) the
way a budget does. So do max(8, ``concurrency``) questions of one judge in a row without an answer
of either kind: no connection, or every attempt failed otherwise (429, 5xx, timeouts, bodies that are
not completions: a server answering only malformed bodies was asked every question ``retries`` + 1
times). A question whose attempts all failed is held until its judge answers another question (then
it is stored as a failed vote, as before) or the run ends; those held when the rule stops the run are
not stored (``Stats.dropped``): the next run asks them (:class:`_NoAnswer`).

Budgets stop the run cleanly (no new question; the ones in flight finish):
``budget_requests`` caps the questions asked in this run; ``max_cost`` stops
once the spent cost plus the expected cost of the questions in flight (mean
cost so far, or an estimate from the prompt length before the first answer)
would pass it.
"""
from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from dataclasses import dataclass, field
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .judges import Transient
from ..errors import command_running, option_value, shown

if TYPE_CHECKING:
    from .store import Store


@dataclass
class Limits:
    concurrency: int = 8
    rpm: float | None = None
    retries: int = 4
    timeout: float = 60.0
    budget_requests: int | None = None
    max_cost: float | None = None
    prices: dict = field(default_factory=dict)  # price key -> (in, out) per 1k tokens
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    seed: int = 0


@dataclass
class Stats:
    sent: int = 0  # questions asked in this run (answered or failed)
    cached: int = 0  # questions served by the store
    cached_failed: int = 0  # of the cached: stored as failed or unparsable (asked again only with --retry-failed)
    failed: int = 0  # of the sent: no usable vote (transport failure or unparsable answer)
    attempts: int = 0
    retried: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    missing_text: int = 0
    unreached: int = 0  # questions every attempt of which got no answer: no connection, or it broke (not stored)
    unreached_reason: str | None = None
    dropped: int = 0  # questions every attempt of which failed, not stored: the stop rule found them in a row
    dropped_reason: str | None = None
    reasons: dict = field(default_factory=dict)  # failure reason (without the attempt count) -> failed votes
    retry_reasons: dict = field(default_factory=dict)  # why an attempt was retried (HTTP 429, a timeout) -> retries
    store_seconds: float = 0.0  # time spent committing answers (the store's overhead)
    stopped: str | None = None
    started: float = field(default_factory=time.monotonic)
    total: int = 0


def checked_prices(prices: Any, keys: Sequence[str]) -> dict[str, tuple[float, float]]:
    """``prices`` (``--price``: price key → (IN, OUT), the prices of 1,000 input and output tokens) checked
    before anything is asked: a mapping whose keys are the judges' price keys ``keys`` (an ``openai:`` judge's
    model, a ``cmd:`` judge's name) and whose values are two finite numbers ≥ 0 (numpy scalars taken; a bool,
    text, NaN, an infinity, a negative price or a price for no judge raise one-line ``UsageError``)."""
    import math
    import numbers

    from ..errors import UsageError, option_name

    price = option_name("prices", "--price")
    if prices is None:
        return {}
    if not isinstance(prices, Mapping):
        raise UsageError(f"{price}: expected a mapping {{MODEL: (IN, OUT)}} of prices per 1,000 tokens, got "
                         f"{type(prices).__name__}")
    out = {}
    for key, value in prices.items():
        if not isinstance(key, str) or not key:
            raise UsageError(f"{price}: expected a judge's model or name as the key, got {key!r:.60}")
        pair = tuple(value) if isinstance(value, (tuple, list)) else None
        if pair is None or len(pair) != 2 or not all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x) and float(x) >= 0
                for x in pair):
            raise UsageError(f"{price} {key}: expected (IN, OUT), two finite prices >= 0 per 1,000 tokens, "
                             f"got {value!r:.60}")
        if key not in keys:
            raise UsageError(f"{price} {key}: no {option_name('judges', '--judge')} has this price key (an openai: "
                             "judge's model, a cmd: "
                             f"judge's name: {', '.join(map(shown, keys))})")
        out[key] = (float(pair[0]), float(pair[1]))
    return out


def cost_of(prices: dict, key: str, tin: int, tout: int) -> float:
    p = prices.get(key)
    if p is None:
        return 0.0
    return tin / 1000.0 * p[0] + tout / 1000.0 * p[1]


UNREACHED_STOP = 8  # questions in a row without a connection to the server (at least --concurrency) stop the run

OUT_TOKENS_ESTIMATE = 20  # output tokens per answer assumed before any answer is seen


def estimate_tokens(prompt: str) -> int:
    """Rough token count of a prompt: characters / 4 (documented estimate)."""
    return max(1, len(prompt) // 4)


class Progress:
    """One updating line on stderr (a terminal only, never with ``-Q``)."""

    def __init__(self, stats: Stats, enabled: bool, show_cost: bool) -> None:
        self.stats, self.enabled, self.show_cost = stats, enabled, show_cost

    def line(self) -> str:
        s = self.stats
        done = s.sent + s.cached
        el = max(time.monotonic() - s.started, 1e-9)
        txt = f"zelo_judge: {done}/{s.total} requests, {s.sent / el:.1f}/s, {s.failed} failed"
        if self.show_cost:
            txt += f", ${s.cost:.4f}"
        return txt

    async def run(self) -> None:
        if not self.enabled:
            return
        try:
            while True:
                sys.stderr.write("\r" + self.line() + "\x1b[K")
                sys.stderr.flush()
                await asyncio.sleep(0.5)
        except asyncio.CancelledError:
            sys.stderr.write("\r" + self.line() + "\x1b[K\n")
            sys.stderr.flush()
            raise


class RateLimiter:
    def __init__(self, rpm: float | None) -> None:
        self.interval = 60.0 / rpm if rpm else 0.0
        self.next = 0.0

    async def wait(self) -> None:
        if not self.interval:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        t = max(now, self.next)
        self.next = t + self.interval
        if t > now:
            await asyncio.sleep(t - now)


class Interrupt:
    """SIGINT / SIGTERM while questions are sent: the first stops the run after the questions in flight
    (their answers are stored), a second one acts at once (the handler that was in place before)."""

    SIGNALS = ("SIGINT", "SIGTERM")

    def __init__(self, warn: Callable[[str], None] | None, inflight: Callable[[], int], timeout: float) -> None:
        self.signum: int | None = None
        self.wake = asyncio.Event()
        self.warn, self.inflight, self.timeout = warn, inflight, timeout
        self._old: dict = {}
        self._loop = asyncio.get_running_loop()

    def install(self) -> None:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set from the main thread (the API called from a worker thread)
        for name in self.SIGNALS:
            sig = getattr(signal, name)
            if signal.getsignal(sig) == signal.SIG_IGN:
                continue  # started ignoring it (a background job of a script, nohup-like wrappers): keep ignoring it
            self._old[sig] = signal.signal(sig, self._handle)

    def restore(self) -> None:
        import signal

        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old = {}

    def _handle(self, signum, frame) -> None:  # noqa: ARG002 - signal handler signature
        if self.signum is not None:  # the second signal: no more waiting
            self.restore()
            self.deliver(signum)
            return
        self.trigger(signum)

    def trigger(self, signum: int) -> None:
        """The first signal's stop (no new question, no retry; the ones in flight are awaited), also asked for
        from the loop's thread by a caller that is not the main thread's signal handler (the API run on a thread)."""
        if self.signum is not None:
            return
        self.signum = signum
        self._loop.call_soon_threadsafe(self.wake.set)
        if self.warn is not None:
            self.warn(f"stopping: waiting for the {self.inflight()} requests in flight (at most {self.timeout:g} s "
                      "each) so that their answers are stored; signal again to stop at once")

    def finish(self, stats: Stats) -> None:
        """After the workers stopped: deliver the signal received, if any."""
        if self.signum is not None:
            stats.stopped = "interrupted"
            if self.warn is not None:  # the summary is not printed: what was kept, and how to go on
                self.warn(f"{stats.sent} answers of this run are in the store; run the same command again to "
                          "continue (nothing stored is asked again)")
            self.deliver(self.signum)

    def deliver(self, signum: int) -> None:
        """Let the signal take its usual course now (after the answers in flight were stored)."""
        import os
        import signal

        old = self._old.get(signum, signal.getsignal(signum))
        if callable(old) and old is not signal.default_int_handler and signum != signal.SIGINT:
            old(signum, None)  # e.g. the commands' SIGTERM handler (exit 143, temporary files removed)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        if old == signal.SIG_IGN:
            return
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


async def _ask_with_retries(judge, req: dict, limits: Limits, limiter: RateLimiter, rng: random.Random,
                            stats: Stats, interrupt: Interrupt | None = None,
                            detail: Callable[[str], None] | None = None, label: str = ""):
    """``(answer or None, last failure reason, attempts, unreached)``; ``(None, None, attempts, False)`` when
    interrupted before an answer (nothing to store: the question stays unasked). ``unreached``: every attempt
    failed to connect to the server."""
    attempt = 0
    reason = None
    unreached = True
    while True:
        await limiter.wait()
        if interrupt is not None and interrupt.signum is not None:
            return None, None, attempt, False
        stats.attempts += 1
        t0 = time.monotonic()
        try:
            return await judge.ask(req), None, attempt + 1, False
        except Transient as err:
            reason = err.reason
            unreached = unreached and err.unreached
            if attempt >= limits.retries:
                return None, reason, attempt + 1, unreached
            delay = min(limits.backoff_max, limits.backoff_base * 2 ** attempt) * rng.uniform(0.5, 1.0)
            if err.retry_after is not None:
                delay = max(delay, err.retry_after)
            if detail is not None:
                detail(f"{label}: attempt {attempt + 1} failed after {time.monotonic() - t0:.2f} s ({reason}); "
                       f"retry in {delay:.2f} s")
            attempt += 1
            stats.retried += 1
            stats.retry_reasons[reason] = stats.retry_reasons.get(reason, 0) + 1
            if interrupt is None:
                await asyncio.sleep(delay)
            else:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(interrupt.wake.wait(), delay)


def _label(q: tuple) -> str:
    """A question as ``-v`` names it: judge, qid, the documents in the order shown, the judgment of the pair."""
    return f"{q[0]} {q[1]} {q[2]} {q[3]}" + (f" (judgment {q[4] + 1})" if len(q) > 4 and q[4] else "")


def _tell(detail: Callable[[str], None] | None, label: str, answer, reason: str | None, attempts: int,
          unreached: bool, signum: int | None, t0: float) -> None:
    """``-v``'s line of a request: its vote, why it has none, or why it was not stored, and its seconds."""
    if detail is None:
        return
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    if answer is not None:
        said = f"vote {answer.vote:g}{tries}" if answer.vote is not None else f"unparsable{tries}: {answer.reason}"
    elif signum is not None:
        said = "not asked: stopping (signal)"
    elif unreached:
        said = f"no answer{tries}, not stored ({reason})"
    else:
        said = f"failed{tries}: {reason}"
    detail(f"{label}: {said} ({time.monotonic() - t0:.2f} s)")


def _row(q: tuple, phash: str, answer, reason: str | None, attempts: int, latency: float, cost: float) -> dict:
    row = {"judge": q[0], "prompt": phash, "qid": q[1], "doc_1": q[2], "doc_2": q[3], "rep": q[4] if len(q) > 4 else 0,
           "latency": latency,
           "attempts": attempts}
    if answer is None:
        row.update(vote=None, status="failed", reason=f"{reason} (after {attempts} attempts)", raw=None,
                   tokens_in=0, tokens_out=0, cost=0.0)
    else:
        row.update(vote=answer.vote, status="ok" if answer.vote is not None else "unparsable",
                   reason=answer.reason, raw=answer.raw, tokens_in=answer.tokens_in,
                   tokens_out=answer.tokens_out, cost=cost)
    return row


def _commit(store, row: dict, stats: Stats) -> None:
    """Store one answer (committed before it is counted), then count it."""
    ts = time.perf_counter()
    store.put(row)
    stats.store_seconds += time.perf_counter() - ts
    stats.sent += 1
    stats.tokens_in += row["tokens_in"]
    stats.tokens_out += row["tokens_out"]
    stats.cost += row["cost"]
    if row["vote"] is None:
        stats.failed += 1
        why = (row["reason"] or "no reason").split(" (after ")[0]
        stats.reasons[why] = stats.reasons.get(why, 0) + 1


class _NoAnswer:
    """Questions without a usable answer, and the stop rule ``limit`` of them in a row make.

    A question that found no server (every attempt: no connection, or it broke before an answer) is counted and
    not stored. A question every attempt of which failed otherwise (a 429, a 5xx, a timeout, a body that is not a
    completion) is held until its judge answers another question, or the run ends, and then stored as failed.
    ``limit`` questions in a row that found no server, or ``limit`` questions of one judge in a row without an
    answer (either kind: a judge whose server answers only malformed bodies, a proxy's 502 in front of a dead
    server, a rate limit that never lifts), stop the run as a budget does; the failures then held are not stored
    (``stats.dropped``): the next run asks them again, as it asks the questions that found no server."""

    def __init__(self, stats: Stats, limit: int, commit: Callable[[tuple, dict], None]) -> None:
        self.stats, self.limit, self.commit = stats, limit, commit
        self.in_a_row = 0  # questions in a row (any judge) that found no server
        self.of_judge: dict[str, int] = {}  # questions of a judge in a row without an answer (either kind)
        self.held: dict[str, list[tuple[tuple, dict]]] = {}  # a judge's failures since its last answer (not stored)
        self.tripped = False

    def unreached(self, judge: str, reason: str | None) -> None:
        self.stats.unreached += 1
        self.stats.unreached_reason = reason
        self.in_a_row += 1
        if self.in_a_row >= self.limit:
            self._stop(f"{self.in_a_row} questions in a row got no answer from the server ({reason})")
        self._missed(judge, reason)

    def failed(self, q: tuple, row: dict, reason: str | None) -> None:
        self.in_a_row = 0  # the server answered something
        if self.tripped:
            self._drop(1, reason)
        else:
            self.held.setdefault(q[0], []).append((q, row))
        self._missed(q[0], reason)

    def settled(self, q: tuple, row: dict, reason: str | None) -> None:
        """A question answered (stored now, with the judge's failures held) or failed (held: stored once its
        judge answers again or the run ends)."""
        if row["status"] == "failed":
            self.failed(q, row, reason)
        else:
            self.answered(q[0])
            self.commit(q, row)

    def answered(self, judge: str) -> None:
        self.in_a_row = 0
        self.of_judge[judge] = 0
        for q, row in self.held.pop(judge, []):  # isolated failures: stored as failed votes
            self.commit(q, row)

    def holding(self) -> int:
        """Failures held, not yet stored."""
        return sum(map(len, self.held.values()))

    def flush(self, after_fault: bool = False) -> None:
        """The run ends: the failures held are stored. ``after_fault``: a fault stopped the workers (raised next,
        also when storing these fails again)."""
        held, self.held = self.held, {}
        try:
            for rows in held.values():
                for q, row in rows:
                    self.commit(q, row)
        except Exception:
            if not after_fault:
                raise

    def _missed(self, judge: str, reason: str | None) -> None:
        n = self.of_judge[judge] = self.of_judge.get(judge, 0) + 1
        if n >= self.limit:
            self._stop(f"judge {judge}: {n} questions in a row got no usable answer ({reason})")

    def _stop(self, why: str) -> None:
        if self.stats.stopped is None:
            self.stats.stopped = why
        if not self.tripped:
            self.tripped = True
            for rows in self.held.values():
                if rows:
                    self._drop(len(rows), rows[-1][1]["reason"].split(" (after ")[0])
            self.held = {}

    def _drop(self, n: int, reason: str | None) -> None:
        self.stats.dropped += n
        self.stats.dropped_reason = reason


def _over_budget(limits: Limits, stats: Stats, inflight: int, held: int,
                 expected_cost: Callable[[], float]) -> str | None:
    """Why no new question is asked (a budget reached, named as the caller names it), or None. ``held``: failed
    questions not yet stored (asked: ``budget_requests`` counts them; they cost nothing)."""
    if limits.budget_requests is not None and stats.sent + inflight + held >= limits.budget_requests:
        return f"{option_value('budget_requests', '--budget-requests', limits.budget_requests)} reached"
    if limits.max_cost is not None and stats.cost + (inflight + 1) * expected_cost() > limits.max_cost:
        cap = f"--max-cost {limits.max_cost:g}" if command_running() else f"max_cost={limits.max_cost:g}"
        return f"{cap} reached"
    return None


async def send_all(
    questions: list,
    judges: dict,
    build: Callable[[tuple], dict],
    store: Store,
    phash: str,
    limits: Limits,
    stats: Stats,
    on_answer: Callable[[tuple, float | None], None] | None = None,
    warn: Callable[[str], None] | None = None,
    on_interrupt: Callable[[Interrupt | None], None] = lambda _: None,
    detail: Callable[[str], None] | None = None,
) -> None:
    """Ask every question ``(judge name, qid, doc_1, doc_2, rep)``; store and count each answer.

    ``build(question)`` gives the request (texts and the rendered prompt).
    Raises the first :class:`~.judges.Fatal` after the workers stop; after a SIGINT / SIGTERM, once the
    answers in flight are stored, the signal's usual exception (``warn`` tells the user it waits).
    """
    rng = random.Random(limits.seed)
    limiter = RateLimiter(limits.rpm)
    pos = 0
    inflight = 0
    answered = 0
    fatal: list[BaseException] = []

    def expected_cost(q: tuple, req: dict) -> float:
        if answered:
            return stats.cost / answered
        judge = judges[q[0]]
        return cost_of(limits.prices, judge.price_key, estimate_tokens(req["prompt"]), OUT_TOKENS_ESTIMATE)

    async def one(q: tuple, req: dict) -> None:
        judge = judges[q[0]]
        t0 = time.monotonic()
        label = _label(q)
        answer, reason, attempts, unreached = await _ask_with_retries(judge, req, limits, limiter, rng, stats,
                                                                      interrupt, detail, label)
        _tell(detail, label, answer, reason, attempts, unreached, interrupt.signum, t0)
        if answer is None and interrupt.signum is not None:
            return  # cut short by the signal: not a failure to store, the question stays unasked
        if answer is None and unreached:
            no_answer.unreached(q[0], reason)  # nothing was answered: nothing to store, the question stays unasked
            return
        row = _row(q, phash, answer, reason, attempts, time.monotonic() - t0,
                   cost_of(limits.prices, judge.price_key, answer.tokens_in, answer.tokens_out) if answer else 0.0)
        no_answer.settled(q, row, reason)

    def store_row(q: tuple, row: dict) -> None:
        nonlocal answered
        _commit(store, row, stats)
        answered += 1
        if on_answer is not None:
            on_answer(q, row["vote"])

    no_answer = _NoAnswer(stats, max(UNREACHED_STOP, limits.concurrency), store_row)

    def over_budget(q: tuple, req: dict) -> str | None:
        return _over_budget(limits, stats, inflight, no_answer.holding(), lambda: expected_cost(q, req))

    async def worker() -> None:
        nonlocal pos, inflight
        while pos < len(questions) and not fatal and stats.stopped is None and interrupt.signum is None:
            q = questions[pos]
            req = build(q)
            stop = over_budget(q, req)
            if stop is not None:
                stats.stopped = stop
                return
            pos += 1
            inflight += 1
            try:
                await one(q, req)
            except Exception as err:  # Fatal and anything unexpected: stop every worker
                fatal.append(err)
                return
            finally:
                inflight -= 1

    n = max(1, min(limits.concurrency, len(questions)))
    interrupt = Interrupt(warn, lambda: inflight, limits.timeout)
    interrupt.install()
    on_interrupt(interrupt)  # the caller may stop the run through it (Session.request_stop)
    try:
        await asyncio.gather(*(worker() for _ in range(n)))
    finally:
        interrupt.restore()
        on_interrupt(None)
    no_answer.flush(bool(fatal))  # the failures held (fewer than the stop rule's in a row): stored as failed votes
    interrupt.finish(stats)
    if fatal:
        raise fatal[0]
