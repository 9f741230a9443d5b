"""``zelo_judge``: pairs (or a zelo_pairs state) → questions → stored answers → votes.

For each pair (qid, A, B) and judge, the question is A|B (and B|A with
``both_orders``). With one order, a stored answer in either order serves
(its vote negated when the documents were shown as B|A). Votes are
oriented to (A, B): positive = B better, as in zbench and ``zelo_fit``.

With ``--state`` the pairs come from a ``zelo_pairs`` state, batch after batch
(:mod:`pref_eval.zelo.pair_state`, the protocol ``zelo_pairs next``/``add`` run).
A question also carries its *repetition*: the number of judgments of the pair
the strategy already holds (:func:`~pref_eval.zelo.pair_state.repetitions`).
The k-th repetition of a pair is a distinct question in the store, so a pair
the adaptive strategy asks again gets a new answer from each judge (sampled
again from a stochastic judge; a deterministic one answers the same), never
the stored answer of an earlier repetition.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from ..errors import InputError, UsageError, command_running, option_name, option_value
from .prompt import DEFAULT_PROMPT, check_template, prompt_hash, render
from .scheduler import (OUT_TOKENS_ESTIMATE, Interrupt, Limits, Progress, Stats, cost_of, estimate_tokens,
                        send_all)
from .spec import parse_spec
import contextlib

if TYPE_CHECKING:
    from .store import Store

MAX_STALLED_STAGES = 5  # batches in a row that change nothing (a tournament pruning nobody) before giving up


@dataclass
class Result:
    qid: str
    doc_a: str
    doc_b: str
    votes: list
    judges: list
    orders: list
    rep: int = 0


@dataclass
class Setup:
    judges: list[str]
    store: str
    pairs: str | None = None
    state: str | None = None
    queries: str | None = None
    docs: str | None = None
    prompt: str | None = None
    both_orders: bool = False
    ties: str = "half"
    missing_text: str = "stop"  # under --state: a pair lacking a text stops the run (stop) or is a tie (tie)
    api_key_env: str = "OPENAI_API_KEY"
    retry_failed: bool = False
    dry_run: bool = False
    limits: Limits = field(default_factory=Limits)
    progress: bool = False
    warn: Callable[[str], None] | None = None  # for warnings
    detail: Callable[[str], None] | None = None  # -v: a line per request and per batch


def _merge_pair_texts(texts, pair_texts, setup: Setup) -> None:
    """The texts of the PAIRS file (zbench's) into ``texts``: what zbench's judges were shown, so ``--queries`` /
    ``--docs`` are not needed. Given too, a text that differs from the PAIRS file's is refused (one of them would be
    judged, silently); an equal one, or one only they hold (a pair without its texts), is fine."""
    from ..io.textfile import display_name

    texts.prefetch({d for pq in pair_texts.per_query.values() for d in pq})  # irds: documents are read lazily
    for qid, body in pair_texts.queries.items():
        old = texts.query(qid)
        if old is not None and old != body:
            raise InputError(display_name(setup.pairs or ""), 0,
                             f"query {qid}: its text differs from the one in "
                             + (option_value("queries", "--queries", setup.queries) if setup.queries else
                                option_value("docs", "--docs", setup.docs)) + "; "
                             + "expected the same text (zbench's pairs file carries the texts its judges were shown: "
                             f"leave {_texts_options()} out to judge those)")
        texts.queries[qid] = body
    for qid, pq in pair_texts.per_query.items():
        for d, body in pq.items():
            old = texts.doc(qid, d)
            if old is not None and old != body:
                raise InputError(display_name(setup.pairs or ""), 0,
                                 f"document {d} of query {qid}: its text differs from the one in "
                                 f"{option_value('docs', '--docs', setup.docs)}; "
                                 "expected the same text (zbench's pairs file carries the texts its judges were "
                                 f"shown: leave {_texts_options()} out to judge those)")
            texts.per_query.setdefault(qid, {})[d] = body


def read_template(path: str | None) -> str:
    if path is None:
        return DEFAULT_PROMPT
    from ..io.texts import read_prompt_template

    text = read_prompt_template(path)
    check_template(text)
    return text


class Session:
    """Everything one ``zelo_judge`` invocation shares across batches."""

    def __init__(self, setup: Setup) -> None:
        from ..io.texts import Texts, read_docs, read_pairs, read_queries

        self.setup = setup
        self.specs = [parse_spec(s) for s in setup.judges]
        # read (and refused when malformed) before the store is opened or anything is started
        pair_texts = Texts()  # the texts zbench's pairs.json / ai_scores.json carry (none in other PAIRS files)
        self.pair_reps: list[int] = []  # each pair's repetition (a next file's fourth column; else 0)
        self.pairs = read_pairs(setup.pairs, setup.warn, pair_texts, self.pair_reps) if setup.pairs is not None \
            else None
        names = [s.name for s in self.specs]
        if len(set(names)) != len(names):
            raise UsageError("two --judge options name the same judge (add name=LABEL to tell them apart)"
                             if command_running() else
                             "two judges name the same judge (add name=LABEL to tell them apart)")
        self.names = names
        self.template = read_template(setup.prompt)
        self.phash = prompt_hash(self.template)
        self.texts = Texts()
        if setup.docs:
            read_docs(setup.docs, self.texts, setup.warn)
        if setup.queries:
            read_queries(setup.queries, self.texts, setup.warn)
        if pair_texts.queries or pair_texts.per_query:
            _merge_pair_texts(self.texts, pair_texts, setup)
        self.stats = Stats()
        self.results: list[Result] = []
        self.missing: list[tuple[str, str, str, str]] = []
        self.store: Store | None = None
        self.judges: dict = {}
        self.would_send = 0
        self.would_tokens: dict[str, int] = {}
        self.would_count: dict[str, int] = {}
        self.pair_state = None  # the last zelo_pairs state seen (with --state)
        self.loaded_state = None  # the --state as read before the store is opened (run())
        self.warned_repeat = False
        self.earlier = 0  # under --state: judgments the state held before this run that the results do not list
        self.unlisted = 0  # under --state: judgments of the state without an answer of every judge in the store
        self.revoted = 0  # under --state: judgments whose votes in the store are not those the state took
        self.loop: asyncio.AbstractEventLoop | None = None  # the loop the session runs on (set by run())
        self.interrupt: Interrupt | None = None  # the scheduler's Interrupt while questions are sent
        self.stop_requested = False  # KeyboardInterrupt of an API caller whose session runs on a thread

    # ------------------------------------------------------------ questions
    def _request(self, q: tuple) -> dict:
        _, qid, d1, d2, rep = q
        query, t1, t2 = self.texts.query(qid), self.texts.doc(qid, d1), self.texts.doc(qid, d2)
        if query is None or t1 is None or t2 is None:  # pairs lacking a text are not asked
            raise RuntimeError(f"internal error: a text of query {qid} is missing")
        prompt = render(self.template, query=query, doc_a=t1, doc_b=t2, qid=qid, docno_a=d1, docno_b=d2)
        return {"qid": qid, "docno_a": d1, "docno_b": d2, "query": query, "doc_a": t1, "doc_b": t2, "prompt": prompt,
                "repeat": rep}

    def _lacks_text(self, qid: str, a: str, b: str) -> str | None:
        if self.texts.query(qid) is None:
            return "query text"
        for d in (a, b):
            if self.texts.doc(qid, d) is None:
                return f"text of document {d}"
        return None

    def _check_batch_texts(self, req: list[tuple[str, str, str]]) -> None:
        """Refuse a state's batch holding a pair without its texts (``--missing-text stop``): a strategy needs a
        judgment of every pair it asks for, and the judge cannot give one."""
        self.texts.prefetch({d for _, a, b in req for d in (a, b)})
        lacking = [(q, a, b, why) for q, a, b in req if (why := self._lacks_text(q, a, b))]
        if lacking:
            raise _batch_text_error(self.setup, lacking, len(req))

    async def judge_pairs(self, pairs: list[tuple[str, str, str]], reps: list[int] | None = None) -> list[Result]:
        """Judge ``pairs`` (repetition ``reps[i]`` of pair i, default 0); return the pairs that got every
        vote asked (stored or failed), in the order of ``pairs``."""
        reps = [0] * len(pairs) if reps is None else reps
        self.texts.prefetch({d for _, a, b in pairs for d in (a, b)})
        ok_pairs = []
        for (qid, a, b), rep in zip(pairs, reps, strict=True):
            why = "the same document twice" if a == b else self._lacks_text(qid, a, b)
            if why:
                self.missing.append((qid, a, b, why))
                self.stats.missing_text += 1
            else:
                ok_pairs.append((qid, a, b, rep))
        questions = self._questions(ok_pairs)
        self._warn_deterministic_repeats(questions)
        self.stats.total = self.stats.cached + len(questions) + self.stats.sent
        if self.setup.dry_run:
            self.would_send += len(questions)
            for q in questions:
                self.would_tokens[q[0]] = self.would_tokens.get(q[0], 0) + estimate_tokens(self._request(q)["prompt"])
                self.would_count[q[0]] = self.would_count.get(q[0], 0) + 1
            return []
        if self.store is None:  # opened by run() (only a dry run may have none, and it returned above)
            raise RuntimeError("internal error: no store")
        if self.setup.detail is not None:
            unsent = len(pairs) - len(ok_pairs)
            self.setup.detail(f"batch of {len(pairs)} pairs: {len(questions)} questions to ask"
                              + (f", {unsent} pairs not sent" if unsent else ""))
        await send_all(questions, self.judges, self._request, self.store, self.phash, self.setup.limits, self.stats,
                       warn=self.setup.warn, on_interrupt=self._attach_interrupt, detail=self.setup.detail)
        votes = self.store.votes(self.names, self.phash)
        out = []
        for qid, a, b, rep in ok_pairs:
            res = self._combine(votes, qid, a, b, rep)
            if res is not None:
                out.append(res)
        self.results.extend(out)
        return out

    def _attach_interrupt(self, interrupt: Interrupt | None) -> None:
        self.interrupt = interrupt
        if interrupt is not None and self.stop_requested:
            self._stop_now()

    def _stop_now(self) -> None:
        """On the session's loop: stop as a first Ctrl-C does (no new question; those in flight are stored)."""
        import signal

        self.stop_requested = True
        if self.interrupt is not None:
            self.interrupt.trigger(signal.SIGINT)

    def request_stop(self) -> None:
        """From another thread (the API's caller, interrupted while the session runs on a thread)."""
        self.stop_requested = True
        if self.loop is not None and not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the run is over
                self.loop.call_soon_threadsafe(self._stop_now)

    def _questions(self, ok_pairs: list[tuple[str, str, str, int]]) -> list[tuple[str, str, str, str, int]]:
        """The questions (judge, qid, a, b, repetition) still to send for ``ok_pairs``: each judge once per pair
        (both orders with ``both_orders``), none already stored (those count as cached), none twice."""
        have: dict[tuple, int] = (self.store.keys(self.names, self.phash, ok_only=self.setup.retry_failed)
                                  if self.store else {})
        questions: list[tuple[str, str, str, str, int]] = []
        seen: set = set()
        for qid, a, b, rep in ok_pairs:
            for j in self.names:
                if self.setup.both_orders:
                    wanted = [(j, qid, a, b, rep), (j, qid, b, a, rep)]
                    for k in wanted:
                        if k in seen:  # a pair listed twice: one question, counted once (sent or served)
                            continue
                        seen.add(k)
                        if k in have:
                            self._served(have[k])
                        else:
                            questions.append(k)
                else:
                    k, r = (j, qid, a, b, rep), (j, qid, b, a, rep)
                    if k in seen or r in seen:
                        continue
                    seen.add(k)
                    if k in have or r in have:
                        self._served(have[k] if k in have else have[r])
                    else:
                        questions.append(k)
        return questions

    def _served(self, ok: int) -> None:
        """A question the store serves: ``ok`` 1 for a usable vote, 0 for a failed one (counted apart: a re-run
        of a finished job should not read as all well when some of its votes failed)."""
        self.stats.cached += 1
        if not ok:
            self.stats.cached_failed += 1

    def _warn_deterministic_repeats(self, questions: list[tuple]) -> None:
        """Once: a pair asked again of judges that all sample at temperature 0 will likely get the same answer."""
        if self.warned_repeat or self.setup.warn is None or not any(q[4] > 0 for q in questions):
            return
        if all(sp.kind == "openai" and not sp.temperature for sp in self.specs):
            self.warned_repeat = True
            q = next(q for q in questions if q[4] > 0)
            self.setup.warn(f"pair {q[1]} {q[2]} {q[3]} is asked again (judgment {q[4] + 1} of the pair) of judges "
                            "at temperature 0: expect the same answer again, which the strategy counts as another "
                            "judgment; give the judges temperature=T > 0 (or more judges)")

    def _combine(self, votes: dict, qid: str, a: str, b: str, rep: int = 0) -> Result | None:
        vs, js, os_ = [], [], []
        for j in self.names:
            k, r = (j, qid, a, b, rep), (j, qid, b, a, rep)
            if self.setup.both_orders:
                if k not in votes or r not in votes:
                    return None
                v2 = votes[r]
                vs += [votes[k], None if v2 is None else -v2]
                js += [j, j]
                os_ += ["AB", "BA"]
            else:
                if k in votes:
                    vs.append(votes[k])
                    os_.append("AB")
                elif r in votes:
                    v2 = votes[r]
                    vs.append(None if v2 is None else -v2)
                    os_.append("BA")
                else:
                    return None
                js.append(j)
        return Result(qid, a, b, vs, js, os_, rep)

    # -------------------------------------------------------------- driving
    async def run(self) -> None:
        from .judges import make_judge
        from .store import Store

        s = self.setup
        self.loop = asyncio.get_running_loop()
        if not s.state and not self.pairs:  # an empty PAIRS file (`zelo_pairs next` of a finished state): nothing to
            return                          # ask; no judge started, no store opened (api/judging warns)
        if s.dry_run:
            import os

            self.store = Store(s.store, readonly=True) if os.path.exists(s.store) else None
        else:
            self.judges = {sp.name: make_judge(sp, default_key_env=s.api_key_env, timeout=s.limits.timeout,
                                             concurrency=s.limits.concurrency)
                           for sp in self.specs}
            for j in self.judges.values():  # a missing package or a bad key: refused before the store exists
                j.check()
            store = self.store = Store(s.store)
            store.lock()
            store.add_prompt(self.phash, self.template)
        if self.store is not None and s.warn is not None:
            former = self.store.former_names()
            for name in self.names:
                if former.get(name):
                    olds = former[name]
                    s.warn(f"judge {name}: the answers {s.store} holds under its former name {olds[0]}"
                           + (f" (and {len(olds) - 1} more)" if len(olds) > 1 else "")
                           + " are its own (a judge's name no longer holds its server's port) and are served")
        progress = Progress(self.stats, s.progress and not s.dry_run, bool(s.limits.prices))
        ptask = asyncio.ensure_future(progress.run())
        try:
            for j in self.judges.values():
                await j.start()
            if s.state:
                await self._drive_state(s.state)
            else:
                pairs = self.pairs or []
                await self.judge_pairs(pairs, self.pair_reps if pairs else None)
                if pairs and len(self.missing) == len(pairs) and not s.dry_run:
                    raise _textless_batch_error(s, len(pairs), self.missing[0])
        finally:
            ptask.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ptask
            for j in self.judges.values():
                await j.close()
            if self.store is not None:
                self.store.close()

    def state_inputs(self) -> dict[str, list[str]]:
        """The files the state must not be (it is rewritten after every batch)."""
        s = self.setup
        return {option_name(k): [v] for k, v in (("queries", s.queries), ("docs", s.docs), ("prompt", s.prompt),
                                                 ("store", s.store)) if v}

    async def _drive_state(self, path: str) -> None:
        """Batches of a zelo_pairs state until it is done (see :mod:`pref_eval.zelo.pair_state`).

        The state is written once per batch, after its judgments are added; a batch cut short (a budget,
        a kill) is not added, so the next run draws the same batch and the store serves what was answered.
        """
        from ..output.atomic import output_file
        from ..zelo.judgments import vote_score
        from ..zelo.pair_state import add_batch, judgment_batch, load_state, next_batch, repetitions

        stuck = 0
        # read by run() before the store was opened (then kept in memory: what is written is what a reload
        # would rebuild)
        t = self.loaded_state if self.loaded_state is not None else load_state(path)
        self.earlier = t.comparisons
        if self.setup.retry_failed and not self.setup.dry_run:
            await self._retry_taken(t)
            if self.stats.stopped is not None or self.stats.unreached or self.stats.dropped:
                self.pair_state = t
                self._state_results(t)
                return
        while True:
            self.pair_state = t
            if self.stop_requested:  # the API's caller was interrupted between two batches
                raise KeyboardInterrupt
            req = next_batch(t)
            if not req:
                break
            reps = repetitions(t, req)
            if self.setup.missing_text == "stop" and not self.setup.dry_run:
                self._check_batch_texts(req)  # before anything of the batch is asked
            n_missing, n_results = len(self.missing), len(self.results)
            res = await self.judge_pairs(req, reps)
            if self.setup.dry_run:
                return  # only the next batch is known before it is judged
            if self.stats.stopped is not None or self.stats.unreached or self.stats.dropped:
                del self.results[n_results:]  # a batch not whole is not added (nor listed: the next run asks it)
                break
            got = {(r.qid, r.doc_a, r.doc_b, r.rep): vote_score(r.votes, self.setup.ties) for r in res}
            no_text = {(q, a, b) for q, a, b, _ in self.missing[n_missing:]}  # cannot be judged: a tie
            rows = []
            for (q, a, b), rep in zip(req, reps, strict=True):
                if (q, a, b, rep) in got:
                    rows.append((q, a, b, got[(q, a, b, rep)]))
                elif (q, a, b) in no_text:
                    rows.append((q, a, b, 0.5))
            before = t.progress()
            summary = add_batch(t, judgment_batch(rows), f"{path} (a batch judged by zelo_judge)", "jsonl")
            with output_file(path, inputs=self.state_inputs()) as out:
                out.write(t.to_json())
            stuck = stuck + 1 if summary is None or not summary["used"] or t.progress() == before else 0
            if stuck >= MAX_STALLED_STAGES:
                from ..errors import EvaluationError

                raise EvaluationError(f"{path}: {stuck} batches in a row changed nothing (are all judgments "
                                      f"ties?); the {t.strategy} cannot finish")
        self._state_results(t)

    async def _retry_taken(self, t: object) -> None:
        """``--retry-failed`` under ``--state``: ask again the failed or unparsable questions of the judgments the
        state already took (they are in no later batch), each with its repetition; their new answers replace the
        old in the store, so ``-o`` lists them. The state's past is not rewritten: its choices were made with a
        failed vote counted as a tie (:meth:`_state_results` counts the judgments whose votes changed)."""
        from ..zelo.pair_state import history

        rows = history(t)
        if not rows or self.store is None:
            return
        ok = self.store.keys(self.names, self.phash, ok_only=True)
        stored = self.store.keys(self.names, self.phash)
        seen: dict[tuple[str, str, str], int] = {}
        req, reps = [], []
        for qid, a, b in rows:
            key = (qid, a, b) if a < b else (qid, b, a)
            rep = seen.get(key, 0)
            seen[key] = rep + 1
            failed = False
            for j in self.names:
                k, r = (j, qid, a, b, rep), (j, qid, b, a, rep)
                if self.setup.both_orders:
                    failed |= any(x in stored and x not in ok for x in (k, r))
                else:
                    failed |= (k in stored or r in stored) and k not in ok and r not in ok
            if failed:
                req.append((qid, a, b))
                reps.append(rep)
        if req:
            await self.judge_pairs(req, reps)

    def _state_results(self, t: object) -> None:
        """Under ``--state``: the results (``-o``, the agreement summary) become every judgment the state holds, in
        the order it took them, with the votes the store holds for them -- so that a run stopped and resumed writes
        what one uninterrupted run writes. A strategy that keeps no history (the tournament keeps only its current
        stage) keeps this run's results; ``earlier`` then counts the judgments the state held before (not listed)."""
        from ..zelo.pair_state import history

        rows = history(t)
        if rows is None or self.store is None:
            return
        from ..zelo.judgments import vote_score

        votes = self.store.votes(self.names, self.phash)
        taken = [float(x[3]) for group in getattr(t, "adds", []) for x in group]  # the state's score of each
        seen: dict[tuple[str, str, str], int] = {}
        out = []
        revoted = 0
        for n, (qid, a, b) in enumerate(rows):
            key = (qid, a, b) if a < b else (qid, b, a)
            rep = seen.get(key, 0)
            seen[key] = rep + 1
            res = self._combine(votes, qid, a, b, rep)
            if res is not None:  # else not asked of these judges (a missing-text tie, a zelo_pairs add by hand)
                out.append(res)
                if n < len(taken) and abs(vote_score(res.votes, self.setup.ties) - taken[n]) > 1e-9:
                    revoted += 1  # answered again (--retry-failed) since the state took it
        self.results = out
        self.earlier = 0
        self.unlisted = len(rows) - len(out)
        self.revoted = revoted


def _texts_options() -> str:
    """``--queries and --docs`` / ``queries and docs``: the options that give the texts, as the caller names them."""
    return f"{option_name('queries')} and {option_name('docs')}"


def _text_source(setup: Setup, why: str) -> str:
    return str(setup.queries if why == "query text" and setup.queries else setup.docs or setup.queries or "--docs")


def _textless_batch_error(setup: Setup, n: int, first: tuple[str, str, str, str]) -> InputError:
    """A PAIRS file none of whose pairs has its texts: the wrong --docs or --queries, not an empty output."""
    qid, a, b, why = first
    return InputError(_text_source(setup, why), 0, f"none of the {n} pairs of {setup.pairs} has its texts "
                      f"(e.g. {qid} {a} {b}: no {why}); check {_texts_options()}")


def _batch_text_error(setup: Setup, lacking: list[tuple[str, str, str, str]], n: int) -> InputError:
    """Under ``--state`` (``--missing-text stop``): the next batch holds pairs that cannot be sent."""
    qid, a, b, why = lacking[0]
    some = ("the only pair" if n == 1 else f"all {n} pairs") if len(lacking) == n else \
        f"{len(lacking)} of the {n} pairs"
    verb = "lacks" if len(lacking) == 1 else "lack"
    return InputError(_text_source(setup, why), 0, f"{some} of the next batch of {setup.state} {verb} a text "
                      f"(first: {qid} {a} {b}: no {why}); nothing of the batch was asked and the state is left "
                      f"unchanged: add the texts and run the same command again, or give "
                      f"{option_value('missing_text', '--missing-text', 'tie')} to count such pairs as ties")


def run(setup: Setup) -> Session:
    """Run one invocation; the returned session holds results, stats and missing pairs."""
    if (setup.pairs is None) == (setup.state is None):
        raise UsageError("give a PAIRS file or --state STATE.json (not both)" if command_running() else
                         "give pairs (a file) or state (a zelo_pairs state file), not both")
    if not setup.judges:
        raise UsageError("give at least one --judge" if command_running() else
                         "give at least one judge: judges=[SPEC, ...]")
    sess = Session(setup)
    if setup.state is not None and not setup.dry_run:
        from ..output.atomic import preflight

        preflight(setup.state, sess.state_inputs())  # rewritten after every batch: refused before anything is asked
    if not sess.texts.queries and not setup.dry_run and setup.queries is None:
        if setup.pairs is None:
            raise UsageError(f"no query texts: give {option_name('queries')} (or {option_name('docs')} as a zbench "
                             "dataset or irds:)")
        from ..io.textfile import display_name

        raise InputError(display_name(setup.pairs), 0, "no query texts in this pairs file (zbench's pairs.json and "
                         f"ai_scores.json carry them; others name ids only): give {option_name('queries')} (or "
                         f"{option_name('docs')} as a zbench dataset or irds:)")
    if setup.state is not None:
        from ..zelo.pair_state import load_state
        from ..zelo.state_lock import state_lock

        if setup.dry_run:
            sess.loaded_state = load_state(setup.state)
        else:
            with state_lock(setup.state, wait=0.0):  # rewritten batch by batch: no zelo_pairs add meanwhile
                # read before the store is opened: a missing or malformed state leaves no store behind
                sess.loaded_state = load_state(setup.state)
                _run_session(sess)
            return sess
    _run_session(sess)
    return sess


def _run_session(sess: Session) -> None:
    """``asyncio.run(sess.run())``; called from a thread whose event loop is running (a Jupyter cell, an async
    application), where asyncio.run cannot start another loop, the session runs on its own loop in a thread, and a
    KeyboardInterrupt of the caller (the notebook's interrupt button) stops it as Ctrl-C stops the command: no new
    request, the answers in flight stored, then KeyboardInterrupt; a second one stops waiting at once."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(sess.run())
        return
    import threading

    failed: list[BaseException] = []
    done = threading.Event()  # waited on, not Thread.join: a join interrupted by KeyboardInterrupt marks a thread
    # that still runs as stopped (CPython's bpo-45274 handling), and the run would be left holding the store

    def target() -> None:
        try:
            asyncio.run(sess.run())
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread
            failed.append(err)
        finally:
            done.set()

    threading.Thread(target=target, name="zelo_judge", daemon=True).start()
    try:
        while not done.wait(0.1):
            pass
    except KeyboardInterrupt:
        sess.request_stop()
        with contextlib.suppress(KeyboardInterrupt):  # a second one: stop waiting
            while not done.wait(0.1):
                pass
        raise
    if failed:
        raise failed[0]


def agreement(results: list[Result], names: list[str]) -> list[tuple[str, float, int]]:
    """Per pair of judges (and per judge across orders): share of pairs whose votes have the same sign.

    Each question once: a pair a PAIRS file lists again (either way round) is served its one stored answer, so
    its copies are not more pairs (they were counted, and weighted, once per listed line before session 29);
    a repetition ``rep`` (a new question under ``--state``) is a pair of its own."""
    import numpy as np

    out: list[tuple[str, float, int]] = []
    if not results:
        return out
    cols: dict[tuple[str, str], list] = {}
    seen: set[tuple[str, str, str, int]] = set()
    for r in results:
        lo, hi = sorted((r.doc_a, r.doc_b))
        key = (r.qid, lo, hi, r.rep)
        if key in seen:
            continue
        seen.add(key)
        for v, j, o in zip(r.votes, r.judges, r.orders, strict=False):
            cols.setdefault((j, o if len(r.orders) > len(names) else "any"), []).append(np.nan if v is None else v)
    keys = list(cols)
    for i in range(len(keys)):
        for k in range(i + 1, len(keys)):
            x, y = np.asarray(cols[keys[i]]), np.asarray(cols[keys[k]])
            m = ~np.isnan(x) & ~np.isnan(y)
            if m.sum() == 0:
                continue
            same = float(np.mean(np.sign(x[m]) == np.sign(y[m])))
            la = keys[i][0] if keys[i][1] == "any" else f"{keys[i][0]} {keys[i][1]}"
            lb = keys[k][0] if keys[k][1] == "any" else f"{keys[k][0]} {keys[k][1]}"
            out.append((f"{la} ~ {lb}", same, int(m.sum())))
    return out


def unreached_line(sess: Session) -> str | None:
    """The error line when questions got no answer from the server, or failed every attempt when the run
    stopped on them (not stored: a new run asks them)."""
    s = sess.stats
    parts = []
    if s.unreached:
        parts.append(f"{s.unreached} questions got no answer from the server ({s.unreached_reason}) and were not "
                     "stored")
    if s.dropped:
        parts.append(f"{s.dropped} questions failed every attempt ({s.dropped_reason}) and were not stored")
    if not parts:
        return None
    return "; ".join(parts) + "; run the same command again when the server answers"


def summary_lines(sess: Session) -> list[str]:
    """The end-of-run summary (or the ``--dry-run`` estimate): one string per line."""
    import time

    s = sess.stats
    prices = sess.setup.limits.prices
    if sess.setup.dry_run:
        served_failed = f" ({s.cached_failed} of them failed votes)" if s.cached_failed else ""
        first = f"; first: {' '.join(sess.missing[0][:3])}: no {sess.missing[0][3]}" if sess.missing else ""
        lines = [f"{sess.would_send} requests would be sent ({s.cached} served from the store{served_failed}, "
                 f"{s.missing_text} pairs without text{first})"]
        if s.missing_text and not sess.setup.state and sess.pairs and s.missing_text == len(sess.pairs):
            lines.append(f"none of the pairs has its texts: without {option_name('dry_run', '--dry-run')} this run "
                         f"is refused; check {_texts_options()}")
        if s.missing_text and sess.setup.state and sess.setup.missing_text == "stop":
            # (before session 30 the estimate looked like a run that would go through; the run stops, exit 2)
            lines.append(f"{option_value('missing_text', '--missing-text', 'stop')}: without "
                         f"{option_name('dry_run', '--dry-run')} this run stops at this batch before asking any of "
                         f"it: add the texts, or give {option_value('missing_text', '--missing-text', 'tie')} to "
                         "count such pairs as ties")
        total = 0.0
        for sp in sess.specs:
            tin, n = sess.would_tokens.get(sp.name, 0), sess.would_count.get(sp.name, 0)
            key = sp.model if sp.kind == "openai" else sp.name
            c = cost_of(prices, key, tin, OUT_TOKENS_ESTIMATE * n)
            total += c
            lines.append(f"{sp.name}: {n} requests, ~{tin} input tokens, ~{OUT_TOKENS_ESTIMATE * n} output tokens, "
                         + (f"~${c:.4f}" if key in prices else f"no {option_name('prices', '--price')} given"))
        lines.append(f"estimated cost: ${total:.4f}")
        # (before session 22 the estimate ignored the run's own limits: the same numbers with and without them)
        lim = sess.setup.limits
        if lim.budget_requests is not None and sess.would_send > lim.budget_requests:
            budget = option_value("budget_requests", "--budget-requests", lim.budget_requests)
            lines.append(f"{budget}: this run stops after {lim.budget_requests} "
                         f"of the {sess.would_send}")
        if lim.max_cost is not None and total > lim.max_cost:
            cap = f"--max-cost {lim.max_cost:g}" if command_running() else f"max_cost={lim.max_cost:g}"
            lines.append(f"{cap}: this run stops before that, after about "
                         f"{int(sess.would_send * lim.max_cost / total)} of the {sess.would_send}")
        if sess.setup.state:
            strategy = sess.pair_state.strategy if sess.pair_state is not None else "state"
            lines.append(f"({strategy}: only the next batch is known before it is judged)")
        return lines
    el = time.monotonic() - s.started
    again = "--retry-failed" if command_running() else "retry_failed=True"
    served_failed = (f" ({s.cached_failed} of them failed votes; {again} asks them again)"
                     if s.cached_failed else "")
    lines = [f"{s.sent} requests sent ({s.sent / max(el, 1e-9):.1f}/s), {s.cached} served from the store"
             f"{served_failed}, {s.failed} failed, {s.retried} retries; tokens {s.tokens_in} in / {s.tokens_out} out; "
             + (f"cost ${s.cost:.4f}" if prices else f"cost not counted (no {option_name('prices', '--price')})")]
    if s.retry_reasons:  # why requests were asked again (a rate limit is the one the user can act on: --rpm)
        top = sorted(s.retry_reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        limited = any(why.startswith("HTTP 429") for why, _ in top)
        lines.append("retries: " + "; ".join(f"{n} x {why}" for why, n in top[:3])
                     + (f"; {len(top) - 3} other reasons" if len(top) > 3 else "")
                     + (f"; the server rate-limits: {'--rpm R' if command_running() else 'rpm=R'} keeps below its "
                        "limit" if limited else ""))
    if s.reasons:  # what went wrong, most frequent first (the store has each answer's reason)
        top = sorted(s.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append("failed votes: " + "; ".join(f"{n} x {why}" for why, n in top[:3])
                     + (f"; {len(top) - 3} other reasons" if len(top) > 3 else ""))
    if s.missing_text:
        lines.append(f"{s.missing_text} pairs not sent (missing text)")
    if s.stopped:
        lines.append(f"stopped: {s.stopped}; run the same command again to continue")
    if sess.pair_state is not None:
        t = sess.pair_state
        done = sum(1 for st in t.topics.values() if st["phase"] == "done")
        lines.append(f"{t.strategy}: {done} of {len(t.topics)} topics done, {t.comparisons} judgments used")
    for label, same, n in agreement(sess.results, sess.names):
        lines.append(f"agreement {label}: {same:.3f} ({n} pairs)")
    return lines


def write_results(out: IO[str], results: list[Result]) -> None:
    from ..output.judgments import judgment_line

    for r in results:
        out.write(judgment_line(r.qid, r.doc_a, r.doc_b, r.votes, r.judges, r.orders))

