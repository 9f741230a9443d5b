"""``zelo_pairs``: :func:`pairs` (random cycles) and a judging session kept in a state file:
:func:`pairs_init`, :func:`pairs_next`, :func:`pairs_add`, :func:`pairs_status`, :func:`pairs_result`
(the depth-N pool of ``zelo_pairs pool``, :func:`pairs_pool`, is in :mod:`pref_eval.api.pooling`).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..seeds import SEED_MAX
from ..errors import InputError, UsageError, command_running, option_name as _o, option_value, renamed_keywords, shown
from ._inputs import _input_options, _preflight

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


def pairs(queries: Iterable[tuple[str, Sequence[str]]] | None = None, cycles: int = 4, seed: int = 0, *,
          dedup: bool = False, limit: int | None = None, compat: str | None = None, dataset: str | None = None,
          run: str | Sequence[str] | None = None, depth: int | None = None, docs: str | None = None,
          output: str | None = None, output_format: str = "jsonl", log: Any = None,
          inputs: InputOptions | None = None) -> list[tuple[str, str, str]]:
    """Pairs to judge (``zelo_pairs cycles``): ``(qid, doc_a, doc_b)`` from random cycles per query.

    For each query with documents d_1..d_n, ``cycles`` random permutations π
    give the pairs (π_i, π_{i+1 mod n}) -- every document is compared twice
    per cycle, which keeps the Bradley–Terry comparison graph connected
    (zELO, Pipitone et al. 2025). ``dedup`` drops repeated pairs, ``limit``
    uses only the first ``limit`` documents of each query; same ``seed`` →
    same pairs; ``compat="zbench"`` shuffles with Python's ``random`` as zbench.
    ``queries`` yields ``(qid, [docno, ...])``; or exactly one of ``dataset``
    (zbench's QueryDocuments JSONL), ``run`` (a TREC run: the top ``depth`` by
    score; a list of runs pools their top ``depth``, see :func:`_candidates`) and ``docs``
    (``qid docno`` lines) gives them. With ``output``
    (``-`` = stdout) the pairs are written as ``zelo_pairs`` writes them
    (``output_format`` ``jsonl`` or ``tsv``, a request file).
    """
    from ._inputs import _check_choice, _check_flags, _check_int, _check_paths

    _check_flags(dedup=dedup)
    _check_choice("compat", compat, ("zbench",), optional=True)  # (another value ran as the default)
    _check_choice("output_format", output_format, ("jsonl", "tsv"))
    _check_paths("paths of files; for data: queries", dataset=dataset, docs=docs)
    if queries is not None:  # (the files were ignored beside the queries given)
        for name, v in (("dataset", dataset), ("run", run), ("docs", docs), ("depth", depth)):
            if v is not None:
                raise UsageError(f"{name} reads the candidates from files; the queries are given: drop one")
    _check_int("cycles", cycles, 1)
    _check_int("seed", seed, 0, SEED_MAX)  # None refused: unseeded pairs could not be had again
    _check_int("limit", limit, 1, optional=True)
    _check_int("depth", depth, 1, optional=True)
    from ..zelo.pairs import random_cycles

    runs = _runs(run)
    if depth is not None and not runs:
        raise UsageError(f"{_o('depth')} applies to {_o('run')}")
    own = _input_options(inputs, output=output, dataset=dataset, run=runs, docs=docs)
    _preflight(own, output)  # before the candidates are read
    given = _candidates(dataset, runs, depth, docs) if queries is None else _query_pools(queries)
    for topic, pool in given:  # a document twice would be paired with itself
        _check_pool(topic, pool, str(dataset or ", ".join(runs) or docs or "queries"), docs_file=bool(docs),
                    request_ids=False)
    got = random_cycles(given, cycles, seed, dedup=dedup, limit=limit, compat=compat)
    if output is not None:
        from ..output.atomic import command_output
        from ..output.pairs import write_cycle_pairs

        with command_output(output, own) as out:
            write_cycle_pairs(out, got, output_format)
    if log is not None:
        selfs = [g for g in got if g[1] == g[2]]
        if selfs:  # compat="zbench" on a one-document query: zbench's pairs, which zelo_judge refuses
            q, d, _ = selfs[0]
            log.warn(f"{len(selfs)} pair(s) of a document with itself (first: {q} {d} {d}), as zbench pairs the "
                     "document of a one-document query; they change no score and zelo_judge refuses them: "
                     "leave them out before judging")
        log.info(f"{len(got)} pairs for {len(given)} queries")
    return got


def _query_pools(queries: Any) -> list[tuple[str, list[str]]]:
    """``queries`` as ``(qid, [docno, ...])`` items, or a dict ``{qid: [docno, ...]}``; an item of another
    shape, or documents given as one string (whose characters would be the documents), raise UsageError."""
    from collections.abc import Mapping

    items = queries.items() if isinstance(queries, Mapping) else queries
    if isinstance(items, (str, bytes)) or hasattr(items, "columns") or not isinstance(items, Iterable):
        raise UsageError(f"queries: expected (qid, [docno, ...]) items or a dict {{qid: [docno, ...]}}, "
                         f"got {type(queries).__name__}")
    pools = []
    for i, item in enumerate(items, 1):
        if isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(item) != 2:
            raise UsageError(f"queries: item {i} is {item!r:.60}; expected (qid, [docno, ...])")
        qid, docs = item
        if isinstance(docs, (str, bytes)) or not isinstance(docs, Iterable):
            raise UsageError(f"queries: query {shown(qid)}: expected a list of docnos, got {type(docs).__name__} "
                             f"{docs!r:.60}")
        pools.append((_text(qid, f"query {i}'s qid"), [_text(d, f"query {shown(qid)}: document {j}")
                                                       for j, d in enumerate(docs, 1)]))
    return pools


def _text(x: Any, where: str) -> str:
    """An id given as data as the readers keep ids (:func:`pref_eval.io.frames.id_text`): a string as it is,
    an integer as its digits, ``bytes`` (a Latin-1 docno as a file holds it) as its surrogate escapes (written
    back as the same bytes in the TSV, ``\\udcNN`` in JSON lines). Docnos are strings everywhere else, and
    zbench's pairs hold strings (its ``document_id: str`` refuses the number 3): an integer was written as
    the JSON number 3. None, a float (``str(1.0)`` is "1.0") or an empty id is a UsageError naming ``where``."""
    from ..io.frames import id_text, not_an_id

    if not_an_id(x):
        raise UsageError(f"queries: {where} is {x!r:.60}; expected a string or an integer id")
    return id_text(x)


def _runs(run: Any) -> list[str]:
    """``run`` (``--run``, repeatable) as a list of paths: one path, or a list or tuple of them."""
    if run is None:
        return []
    if isinstance(run, (str, os.PathLike)):
        return [os.fspath(run)]
    if not isinstance(run, (list, tuple)) or not all(isinstance(x, (str, os.PathLike)) for x in run):
        raise UsageError(f"run: expected a run file or a list of run files, got {run!r:.60}")
    return [os.fspath(x) for x in run]


def _candidates(dataset: str | None, runs: list[str], depth: int | None,
                docs: str | None) -> list[tuple[str, list[str]]]:
    """The candidate documents per query of ``--dataset``, ``--run`` (top ``depth``) or ``--docs``.

    Several runs (``--run A --run B``: the systems to compare) are pooled: per query the top ``depth`` of the
    first run by score, then those of the next run not already in the pool, and so on (a query of any run is
    in the pool; queries in qid order, as for one run). One run gives exactly its top ``depth``."""
    given = [x for x in (dataset, runs, docs) if x]
    if len(given) != 1:
        raise UsageError(f"give exactly one of {_o('dataset')}, {_o('run')}, {_o('docs')}")
    if dataset:
        from ..io.judgments import read_zbench_dataset

        return read_zbench_dataset(dataset)
    from ..io.candidates import read_candidates, read_run_candidates

    if not runs:
        return read_candidates(str(docs))
    if len(set(runs)) != len(runs):
        twice = next(r for r in runs if runs.count(r) > 1)
        raise UsageError(f"{_o('run')} {twice} given twice")
    if len(runs) == 1:
        return read_run_candidates(runs[0], depth)
    pooled: dict[str, dict[str, None]] = {}
    for r in runs:
        for qid, top in read_run_candidates(r, depth):
            _check_pool(qid, top, r, request_ids=False)  # a run listing a document twice: named, not pooled away
            pooled.setdefault(qid, {}).update(dict.fromkeys(top))
    return [(qid, list(pooled[qid])) for qid in sorted(pooled, key=lambda q: q.encode("utf-8", "surrogateescape"))]


def pairs_init(state: str, qrels: str | None = None, *, strategy: str = "tournament", k: int | None = None,
               p: int | None = None, f: int | None = None, seed: int = 0, final_phase: bool | None = None,
               lead: float | None = None, max_per_pair: int | None = None, goal: str | None = None,
               cycles: int | None = None, batch: int | None = None, window: int | None = None,
               start: str | None = None, criterion: str | None = None, dataset: str | None = None,
               run: str | Sequence[str] | None = None, depth: int | None = None, docs: str | None = None,
               force: bool = False, inputs: InputOptions | None = None) -> Any:
    """Start a pair-selection state file (``zelo_pairs init``); returns the state object written.

    ``strategy="tournament"``: Clarke, Vtyurina & Smucker's pruning tournament
    (ICTIR 2021; top ``k`` (5), ``p`` (7) first-stage pairings, pooling
    threshold ``f`` (9); ``final_phase``: Yan et al.'s second round of the
    final pool). ``"adaptive"`` with ``goal="best"`` (the default): the double elimination of
    :mod:`pref_eval.zelo.adaptive_session` (a match ends at ``lead`` (2), at
    most ``max_per_pair`` (6) judgments of a pair); with ``goal="ranking"``: the whole-ranking
    rounds of :mod:`pref_eval.zelo.ranking_session` (a budget of ``cycles`` (4) × K pairs per topic,
    rounds of ``batch`` pairs (K/4), ``window`` (6), ``start`` (matching), ``criterion`` (discordance)).
    The documents per topic, for every strategy and goal, from exactly one of graded ``qrels`` (grade > 0;
    the tournament's candidates are its top ``k`` grades and ties), ``dataset``, ``run`` (top ``depth``;
    several runs pooled) or ``docs``, as ``zelo_pairs cycles`` (:func:`_init_pools`). Candidates enter the
    tournament and the best item as if all graded 1 (all of them; topics and documents sorted, so the line
    order does not matter); the whole ranking keeps a run's score order and sorts the documents of ``docs``
    and ``dataset`` (as if all graded 1: the line order does not matter). An option of another strategy or
    goal is refused; an existing ``state`` only with ``force``.
    """
    from ._inputs import _check_choice, _check_flags, _check_float, _check_int, _check_paths

    _check_flags(force=force, **({} if final_phase is None else {"final_phase": final_phase}))
    _check_positive(k=k, max_per_pair=max_per_pair, cycles=cycles, batch=batch, window=window, depth=depth)
    _check_int("p", p, 2, optional=True)  # p > k >= 1, f > p: as zelo_simulate tournament's --p, --f
    _check_int("f", f, 3, optional=True)
    _check_int("seed", seed, 0, SEED_MAX)
    _check_float("lead", lead, 0.5, optional=True)
    _check_choice("strategy", strategy, ("tournament", "adaptive"))  # (another value ran the tournament)
    _check_choice("goal", goal, ("best", "ranking"), optional=True)
    # numpy integers are integers; the state file (JSON) holds Python ints
    k, p, f, max_per_pair, cycles, batch, window, depth = (
        None if v is None else int(v) for v in (k, p, f, max_per_pair, cycles, batch, window, depth))
    seed = int(seed)
    runs = _runs(run)
    run = runs or None
    from ..zelo.tournament import Tournament

    if os.path.exists(state) and not force:
        raise UsageError(f"{state} exists (use {'--force' if command_running() else 'force=True'} to start over)")
    if goal is not None and strategy != "adaptive":
        raise UsageError(f"{_o('goal')} applies to {option_value('strategy', '--strategy', 'adaptive')}")
    kind = "ranking" if goal == "ranking" else strategy
    own: dict[str, dict[str, Any]] = {
        "tournament": {"k": k, "p": p, "f": f, "final_phase": final_phase},
        "adaptive": {"lead": lead, "max_per_pair": max_per_pair},
        "ranking": {"cycles": cycles, "batch": batch, "window": window, "start": start, "criterion": criterion}}

    def named(kind: str) -> str:  # a strategy as the caller wrote it
        ranking = "--goal ranking" if command_running() else "goal='ranking'"
        strategy = option_value("strategy", "--strategy", "adaptive" if kind == "ranking" else kind)
        return f"{strategy}{' ' if command_running() else ', '}{ranking}" if kind == "ranking" else strategy

    for other, opts in own.items():
        wrong = [name for name, v in opts.items() if v is not None]
        if other != kind and wrong:
            raise UsageError(f"{_o(wrong[0])} does not apply to {named(kind)} (it belongs to {named(other)})")
    t: Any
    if kind == "ranking":
        from ..zelo.ranking_session import PARAMS, RankingSession

        given = {"cycles": cycles, "batch": batch, "window": window, "start": start, "criterion": criterion}
        t = RankingSession(seed, {key: PARAMS[key] if v is None else v for key, v in given.items()})
    elif strategy == "adaptive":
        from ..zelo.adaptive_session import AdaptiveSession

        params = {"lead": 2.0 if lead is None else lead, "max_per_pair": 6 if max_per_pair is None else max_per_pair}
        t = AdaptiveSession(seed, params)
    else:
        t = Tournament(5 if k is None else k, p, f, seed, bool(final_phase))  # p, f None: 7, 9 or above k
    _check_paths("paths of files", state=state, qrels=qrels, dataset=dataset, docs=docs)  # (a number: os.fspath's
    files = _input_options(inputs, state=state, qrels=qrels, dataset=dataset, run=run, docs=docs)  # TypeError)
    _init_sources(qrels, dataset, runs, depth, docs)  # (usage errors first)
    _preflight(files, state)  # before the candidates are read
    pools = _init_pools(qrels, dataset, runs, depth, docs)
    if pools is None:
        from ..io.qrels import graded_documents

        # topics and documents in sorted order, not the file's: the seeded draws (the tournament's one stream
        # over the topics, the adaptive games' per-topic seeds, the order of equal grades) then do not depend
        # on the order of the qrels lines (a sorted file gives the pairs it gave before)
        for topic, grades in sorted(graded_documents(qrels or "").items()):
            t.add_topic(topic, dict(sorted(grades.items())))
    elif kind == "ranking":
        # a run's candidates in score order (the order breaks ties of the fitted scores when a round picks
        # pairs close in it: a prior); a 'qid docno' list or a dataset is a set: sorted, as the qrels path
        # sorts equal grades, so the order of its lines does not change the pairs (topics seeded by name)
        for topic, pool in pools:
            t.set_pool(topic, list(pool) if runs else sorted(pool))
    else:
        # the tournament and the best item: every candidate graded 1 (all of them enter, as ties of the top k),
        # topics and documents sorted as for qrels: the draws depend neither on the order of the lines nor on
        # that of the runs pooled
        for topic, pool in sorted(pools):
            t.add_topic(topic, dict.fromkeys(sorted(pool), 1.0))
    from ..zelo.state_lock import state_lock

    with state_lock(state):
        _save_state(state, t, files)
    return t


def _init_sources(qrels: str | None, dataset: str | None, runs: list[str], depth: int | None,
                  docs: str | None) -> None:
    """``zelo_pairs init``'s one source of documents: two or none, or ``depth`` without runs, UsageError."""
    named = [_o(name) for name, v in (("qrels", qrels is not None), ("dataset", dataset), ("run", runs),
                                      ("docs", docs)) if v]
    if len(named) != 1:
        got = f" (got {' and '.join(named)})" if named else ""
        raise UsageError(f"give exactly one of {_o('qrels')}, {_o('dataset')}, {_o('run')}, {_o('docs')}{got}")
    if depth is not None and not runs:
        raise UsageError(f"{_o('depth')} applies to {_o('run')}")


def _init_pools(qrels: str | None, dataset: str | None, runs: list[str], depth: int | None,
                docs: str | None) -> list[tuple[str, list[str]]] | None:
    """The documents to judge of ``zelo_pairs init``, from exactly one source: None for ``qrels`` (each strategy
    takes its pool from the grades), else the candidates of :func:`_candidates` (``--dataset``, ``--run``
    pooled to ``depth``, ``--docs``), checked by :func:`_check_pool`. Two sources or none: UsageError."""
    _init_sources(qrels, dataset, runs, depth, docs)
    if qrels is not None:
        return None
    pools = _candidates(dataset, runs, depth, docs)
    for topic, pool in pools:
        _check_pool(topic, pool, str(dataset or ", ".join(runs) or docs), docs_file=bool(docs))
    return pools


def _check_positive(**values: int | None) -> None:
    """Options of ``zelo_pairs init`` declared ``IntRange(min=1)``: None (not given) or an integer >= 1."""
    from ._inputs import _check_int

    for name, v in values.items():
        _check_int(name, v, 1, optional=True)


def _check_pool(topic: str, pool: Sequence[str], source: str, docs_file: bool = False,
                request_ids: bool = True) -> None:
    """A topic's candidates must be distinct (a document twice would be paired with itself), and no id may
    hold white space when ``request_ids`` (a state's request lines are 'topic docA docB'): else an InputError
    naming ``source`` (and, for a ``qid docno`` file, the line that repeats the document)."""
    from collections import Counter

    for x in (topic, *pool) if request_ids else ():
        if x.split() != [x]:  # str.split: any Unicode white space (and the empty id)
            raise InputError(source, 0, f"topic {topic}: id {shown(x)} holds white space; zelo_pairs next writes "
                                        "'topic docA docB' lines, expected ids without spaces")
    if len(set(pool)) == len(pool):
        return
    counts = Counter(pool)
    twice = next(d for d in pool if counts[d] > 1)
    line = 0
    if docs_file:  # only on this error: find the repeat
        from ..io.candidates import repeat_line

        line = repeat_line(source, topic, twice)
    raise InputError(source, line, f"topic {topic}: document {shown(twice)} is listed twice among the candidates")


def _save_state(state: str, t: Any, inputs: InputOptions) -> None:
    from ..output.atomic import command_output

    with command_output(state, inputs) as out:
        out.write(t.to_json())


def pairs_next(state: str, *, output: str = "-", inputs: InputOptions | None = None) -> list[tuple[str, str, str]]:
    """The pairs still to judge (``zelo_pairs next``), written as a request file to ``output`` (nothing
    once the selection is over); the state is rewritten with them (the left/right draw advances the
    seeded stream; an adaptive state numbers the batch): both written, or neither."""
    from ..output.atomic import command_outputs
    from ..output.pairs import write_requests
    from ..zelo.pair_state import load_state, next_batch, repetitions

    from ..zelo.state_lock import state_lock

    # the lock file exists while held: an output there would be removed with it when the lock is released
    own = [*_input_options(inputs, state=state, output=output),
           (f"the lock file of {_o('state')}", [state + ".lock"])]
    _preflight(own, output)  # before the state is read
    with state_lock(state):  # read, change, write: one process at a time
        t = load_state(state)
        _preflight(own, state)  # readable (an unreadable state is bad input, status 2): may it be replaced?
        req = next_batch(t)
        with command_outputs([state, output], own) as (st, out):
            st.write(t.to_json())
            write_requests(out, req, repetitions(t, req))
    return req


@renamed_keywords(fmt="judgments_format")
def pairs_add(state: str, judgments: Sequence[str], *, judgments_format: str | None = None,
              log: Any = None, inputs: InputOptions | None = None) -> Any:
    """Add batches of judgments to a state file (``zelo_pairs add``); returns the state.

    Each file (any format ``zelo_fit`` reads, ``judgments_format`` as its ``--format``) is
    one batch: a batch already added (same content) changes nothing; judgments
    of pairs already judged in the stage or not requested are ignored (a
    warning on ``log`` says how many).
    """
    from ..log import Log
    from ..zelo.state_lock import state_lock

    log = log or Log("zelo_pairs", quiet=True)
    with state_lock(state):  # read, change, write: one process at a time (else one add would be lost)
        t = _add_files(state, judgments, judgments_format, log, inputs)
    log.info(f"{t.comparisons} judgments used; {len(t.outstanding())} pairs outstanding")
    return t


def _add_files(state: str, judgments: Sequence[str], fmt: str | None, log: Any, inputs: InputOptions | None) -> Any:
    """``pairs_add`` under the state's lock: load, add each file, write."""
    from ..io.judgments import read_judgment_batch
    from ..zelo.pair_state import add_batch, load_state

    t = load_state(state)
    own = _input_options(inputs, state=state, judgments=list(judgments))
    _preflight(own, state)  # the state readable (else bad input, status 2): may it be replaced? before the judgments
    for path in judgments:
        summary = add_batch(t, *read_judgment_batch(path), fmt)
        if summary is None:
            log.warn(f"{path}: this batch was already added (identical content); nothing changed")
            continue
        if not (summary["unrequested"] or summary["used"] or summary["duplicate"]):  # (was a batch of nothing added)
            from ..errors import InputError

            raise InputError(path, 0, f"no judgment in it: nothing was added, {state} is unchanged")
        if summary["unrequested"] and not summary["used"] and not summary["duplicate"]:
            from ..errors import InputError

            ex = f" (e.g. {t.last_ignored})" if t.last_ignored else ""
            raise InputError(path, 0, f"none of its {summary['unrequested']} judgments is of a pair {state} asked for"
                             f"{ex}: the answers to another state or an earlier stage? nothing was added, {state} "
                             "is unchanged")
        if summary["duplicate"] or summary["unrequested"]:
            ex = t.last_ignored
            log.warn(f"{path}: ignored {summary['duplicate']} judgments of pairs already judged in this stage and "
                     f"{summary['unrequested']} of pairs not requested in the current stage"
                     + (f" (e.g. {ex})" if ex else "") + f"; {summary['used']} used")
    _save_state(state, t, own)
    return t


def pairs_status(state: str, *, output: str = "-", verify: bool = False,
                 inputs: InputOptions | None = None) -> list[tuple]:
    """Per topic of a state file (``zelo_pairs status``): ``(topic, stage, pool, judged, pairs, outstanding,
    stages_left)``, written with a total line to ``output``. ``verify``: an adaptive state is also replayed
    from its judgments and refused (InputError) unless the replay gives the same state."""
    from ._inputs import _check_flags

    _check_flags(verify=verify)
    from ..output.atomic import command_output
    from ..output.pairs import write_status
    from ..zelo.pair_state import load_state

    own = _input_options(inputs, output=output, state=state)
    _preflight(own, output)  # before the state is read (and replayed)
    t = load_state(state, verify=verify)
    rows = t.status()
    with command_output(output, own) as out:
        write_status(out, rows, t.comparisons, t.ignored)
    return rows


def pairs_result(state: str, *, qrels: str | None = None, output: str = "-", verify: bool = True,
                 inputs: InputOptions | None = None) -> Any:
    """The result of a state file (``zelo_pairs result``): per finished topic its top set ``topic docno
    wins``, or with graded ``qrels`` prefj-style preference qrels; written to ``output``, the state returned.
    ``verify`` (default on, unlike :func:`pairs_status`): an adaptive state is replayed from its judgments
    first and refused unless the replay gives it byte for byte, so a result never comes from an edited state."""
    from ._inputs import _check_flags

    _check_flags(verify=verify)
    from ..io.qrels import graded_documents
    from ..output.atomic import command_output
    from ..output.pairs import write_prefs_qrels, write_result
    from ..zelo.pair_state import load_state

    own = _input_options(inputs, output=output, state=state, qrels=qrels)
    _preflight(own, output)  # before the state is read (and replayed)
    t = load_state(state, verify=verify)
    if qrels and t.strategy == "adaptive-ranking":
        t.prefs_qrels({})  # refused, before the qrels are read
    prefs = None
    if qrels:
        grades = graded_documents(qrels)
        _check_result_qrels(t.topics, grades, qrels)
        prefs = t.prefs_qrels(grades)
    with command_output(output, own) as out:
        if prefs is not None:
            write_prefs_qrels(out, prefs)
        else:
            write_result(out, t.topics)
    return t


def _check_result_qrels(topics: dict[str, Any], grades: dict[str, dict[str, float]], qrels: str) -> None:
    """``result --qrels`` must get the qrels the state was started from: every topic of the state is in them
    and every document of a top set is one of their candidates (grade > 0). Else an InputError naming
    ``qrels`` (the preference qrels would silently lose the topic or its top documents)."""
    for topic, st in topics.items():
        g = grades.get(topic)
        if g is None:
            raise InputError(qrels, 0, f"topic {topic} of the state is not in this file; give the qrels the "
                                       "state was started from")
        top = (st["result"] or {}) if st["phase"] == "done" else {}
        for d in top:
            if g.get(d, 0) <= 0:
                raise InputError(qrels, 0, f"topic {topic}: document {shown(d)} of the top set is not graded > 0 in "
                                           "this file; give the qrels the state was started from")
