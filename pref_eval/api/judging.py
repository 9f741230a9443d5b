"""``zelo_judge``: :func:`judge` (LLM judging of pairs) and :func:`judge_export` (the store's judgments
as files).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..seeds import SEED_MAX
from ..errors import UsageError, command_running, option_name, option_value, shown
from ._inputs import _input_options, _preflight

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


def judge(
    pairs: str | None = None,
    *,
    judges: Sequence[str],
    store: str,
    state: str | None = None,
    queries: str | None = None,
    docs: str | None = None,
    output: str | None = None,
    prompt: str | None = None,
    both_orders: bool = False,
    ties: str | None = None,
    missing_text: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    concurrency: int = 8,
    rpm: float | None = None,
    retries: int = 4,
    timeout: float = 60.0,
    backoff: float = 1.0,
    budget_requests: int | None = None,
    max_cost: float | None = None,
    prices: Mapping[str, tuple[float, float]] | None = None,
    retry_failed: bool = False,
    dry_run: bool = False,
    seed: int = 0,
    log: Any = None,
) -> Any:
    """Judge pairs with an ensemble of judges (``zelo_judge``); returns the
    :class:`pref_eval.judge.run.Session` (``results``, ``stats``, ``missing``).

    ``pairs`` is a zelo_pairs output, or ``state`` a zelo_pairs state file
    (any strategy: tournament, adaptive), driven batch by batch to its end
    (the k-th judgment of a pair is a distinct question: see docs/zelo_judge.md). Every answer is committed
    to the SQLite ``store`` first; a re-run asks only what is missing.
    ``output`` (a file, or ``-`` for standard output; default none: the judgments are the session's
    ``results``) receives the canonical JSONL (``qid, doc_a, doc_b, votes,
    judges, orders``) of the pairs judged (under ``state``: of every judgment an
    adaptive state took, whichever run asked it; see docs/zelo_judge.md#output); ``log`` a
    :class:`pref_eval.log.Log` for the progress line, warnings and the
    summary (default silent; ``Log("zelo_judge", verbose=True)``: also a line per request and per batch,
    as ``zelo_judge -v``). See docs/zelo_judge.md for every option.
    """
    from ._inputs import _check_flags, _check_paths, _check_strings

    _check_flags(both_orders=both_orders, retry_failed=retry_failed, dry_run=dry_run)
    # (an int path was os.fspath's TypeError, an int name an AttributeError further on)
    _check_paths("paths of files", store=store, queries=queries, docs=docs, prompt=prompt)  # (pairs, state: below)
    _check_strings(ties=ties, missing_text=missing_text, api_key_env=api_key_env)
    _refuse_no_store_name(store)  # (empty: "cannot write: Is a directory", taken under --dry-run; '-': a file '-')
    import re

    from ..judge.spec import ENV_NAME

    if not re.match(ENV_NAME, api_key_env):  # also under dry_run, which starts no judge (it was accepted there)
        raise UsageError(f"{option_name('api_key_env')} must name an environment variable, not hold a key")
    from ..log import Log
    from ..judge.run import Setup, run, summary_lines, write_results

    log = log or Log("zelo_judge", quiet=True)
    judges = _checked_options(pairs, state, judges, concurrency=concurrency, retries=retries,
                              budget_requests=budget_requests, rpm=rpm, timeout=timeout, backoff=backoff,
                              max_cost=max_cost, seed=seed)
    _refuse_unused(state, ties=ties, missing_text=missing_text, retries=retries, backoff=backoff, seed=seed)
    from ..judge.scheduler import checked_prices
    from ..judge.spec import parse_spec

    keys = [sp.model if sp.kind == "openai" else sp.name for sp in (parse_spec(s) for s in judges)]
    prices = checked_prices(prices, keys)
    _per_million_warning(prices, log)
    if max_cost is not None:
        for key in keys:
            if key not in prices:
                price = "a --price" if command_running() else "an entry of prices"
                raise UsageError(f"{option_name('max_cost')} needs {price} for {shown(key)}")
    if output is not None and output != "-" and _store_file(output, store):
        raise UsageError(f"output file {output} is the same file as {option_name('store')} {store}; refusing to "
                         "overwrite it")
    from ..judge.scheduler import Limits

    limits = Limits(concurrency=concurrency, rpm=rpm, retries=retries, timeout=timeout, backoff_base=backoff,
                    budget_requests=budget_requests, max_cost=max_cost, prices=prices, seed=seed)
    setup = Setup(judges=list(judges), store=store, pairs=pairs, state=state, queries=queries, docs=docs,
                  prompt=prompt, both_orders=both_orders, ties=ties or "half", missing_text=missing_text or "stop",
                  api_key_env=api_key_env, retry_failed=retry_failed, dry_run=dry_run, limits=limits,
                  progress=log.interactive and not getattr(log, "verbose", False), warn=log.warn,
                  detail=log.detail if getattr(log, "verbose", False) else None)
    from ..judge.spec import command_files
    from ..output.atomic import preflight

    # named as the caller names them ("output file x is the same file as --queries x" / "... as queries x")
    inputs = {option_name(k, f): [v] for k, f, v in (("pairs", "PAIRS", pairs), ("state", None, state),
                                                      ("queries", None, queries), ("docs", None, docs),
                                                      ("prompt", None, prompt), ("store", None, store)) if v}
    if command_files(list(judges)):  # the judge program (cmd:python3 judge.py): -o judge.py would replace it
        inputs[option_name("judges", "--judge")] = command_files(list(judges))
    if dry_run:
        import sys

        if output is not None:  # checked as the same command without --dry-run would (it is not written)
            preflight(output, inputs)
        sess = run(setup)
        _empty_batch_warning(sess, pairs, state, None, log)
        for line in summary_lines(sess):
            sys.stdout.write(line + "\n")
        return sess
    from ..output.atomic import output_file

    # the store is written answer by answer: not one of the inputs, nor in a missing directory (exit 1 as for
    # any output, instead of "not a zelo_judge store (unable to open database file)", exit 2)
    # written in place by SQLite, never replaced: a store of another user in /tmp may be shared (Store refuses one
    # this user may not read or write); the state is checked by run.run
    preflight(store, {k: v for k, v in inputs.items() if k not in (option_name("store"), option_name("state"))},
              replaced=False)
    # the output is opened (and refused if unwritable or an input) before anything is asked;
    # it is committed after the run, while every answer is in the store as soon as it arrives
    if output is None:  # a Python caller's default: the results are in the session (the command passes "-")
        sess = run(setup)
    else:
        with output_file(output, inputs=inputs) as out:
            sess = run(setup)
            write_results(out, sess.results)
    for qid, a, b, why in sess.missing[:5]:
        log.warn(f"pair {qid} {a} {b} not sent: no {why}" if why.startswith(("query", "text")) else
                 f"pair {qid} {a} {b} not sent: {why}")
    if len(sess.missing) > 5:
        log.warn(f"... and {len(sess.missing) - 5} more pairs not sent")
    _state_warnings(sess, state, store, output, log)
    _next_file_warning(sess, pairs, log)
    _empty_batch_warning(sess, pairs, state, output, log)
    for line in summary_lines(sess):
        log.info(line)
    return sess


def _empty_batch_warning(sess: Any, pairs: Any, state: Any, output: str | None, log: Any) -> None:
    """A PAIRS file holding no pair (empty, blank or comment lines; ``{"pairs": []}``): the batch ``zelo_pairs next``
    writes once its state is done. Exit 0, nothing asked, no judge started, no store opened (a shell loop
    ``next`` -> ``zelo_judge`` ends cleanly), the output empty; said, as it is also what a wrong file gives."""
    if state is not None or sess.pairs:
        return
    from ..io.textfile import display_name

    log.warn(f"{display_name(pairs)}: no pair in it, nothing to judge (zelo_pairs next writes an empty file once "
             f"its state is done){'' if output is None else '; the output is empty'}")


#: a price per 1,000 tokens from which on it reads as a per-million figure (100 per million tokens and more)
_PER_MILLION_LOOK = 0.1


def _per_million_warning(prices: Mapping[str, tuple[float, float]], log: Any) -> None:
    """``--price`` is per 1,000 tokens; providers list prices per million (OpenAI's page): a figure of 0.1 or more
    per 1,000 (100 or more per million) is what a per-million price of nearly every model looks like here, and
    1,000 times the cost (and the ``--max-cost`` stop) that was meant. Warned (a dear model can cost it), once per
    price key."""
    for key, pair in prices.items():
        if max(pair) >= _PER_MILLION_LOOK:
            given = f"{key}={pair[0]:g},{pair[1]:g}"
            log.warn(f"{option_name('prices', '--price')} {given}: prices are per 1,000 tokens, and "
                     f"{max(pair):g} per 1,000 is {max(pair) * 1000:,g} per million; a per-million figure (as "
                     f"providers list them) is {key}={pair[0] / 1000:g},{pair[1] / 1000:g} here")


def _next_file_warning(sess: Any, pairs: Any, log: Any) -> None:
    """A ``zelo_pairs next`` request file without the ``repeat`` column some of whose questions the store answered:
    right for a batch judged again after an interruption, wrong for a file written before session 29, whose
    ``next`` wrote no repetition, so a pair an adaptive state asked again got its first answer again (silent
    before session 28: measured, every second batch of an adaptive shell loop came wholly from the store). Since
    session 29 ``next`` writes the column when the batch asks a pair again, and such a file is asked anew."""
    from ..io.judgments import REQUEST_MARK
    from ..io.textfile import display_name, first_line_of_file
    from ..output.pairs import request_header

    if pairs is None or not sess.stats.cached:
        return
    if first_line_of_file(pairs).rstrip("\r\n") != request_header("topic docA docB").rstrip("\n"):
        return
    log.warn(f"{display_name(pairs)}: {sess.stats.cached} of its requests were answered from the store (asked before): "
             "right for a batch judged again after an interruption; but a "
             f"{REQUEST_MARK.lstrip('# ')} file written before session 29 has no repeat column, so a pair that an "
             "adaptive state asked again got its first answer again: make such files with this version's zelo_pairs "
             "next, which writes the column, or drive the state with "
             f"{'zelo_judge --state' if command_running() else 'judge(state=...)'}")


def _refuse_unused(state: Any, *, ties: Any, missing_text: Any, retries: int, backoff: float, seed: int) -> None:
    """Options that would change nothing in this run are refused (UsageError), never ignored."""
    if backoff != 1.0 and retries == 0:  # the waits between retries: none without retries
        raise UsageError(f"{option_name('backoff')} sets the waits between retries: none with "
                         + option_value("retries", "--retries", 0))
    if seed != 0 and (retries == 0 or backoff == 0):  # the seed governs only the jitter of those waits
        zero = ("retries", "--retries", 0) if retries == 0 else ("backoff", "--backoff", 0)
        raise UsageError(f"{option_name('seed')} seeds the jitter of the waits between retries: none with "
                         + option_value(*zero))
    if ties is not None and state is None:
        fit = "zelo_fit applies its own --ties" if command_running() else "fit applies its own ties"
        raise UsageError(f"{option_name('ties')} applies with {option_name('state')} ({fit} to the votes written)")
    if missing_text is not None and state is None:
        raise UsageError(f"{option_name('missing_text')} applies with {option_name('state')} (without it a pair "
                         "lacking a text is left out of the output, and zelo_fit needs no judgment of every pair)")
    if missing_text not in (None, "stop", "tie"):
        raise UsageError(f"{option_name('missing_text')}: expected stop or tie, got {shown(missing_text)}")


def _store_file(path: str, store: str) -> bool:
    """``path`` names the store or one of its companion files (``-wal``, ``-shm``, ``-journal``, ``.lock``), also
    before they exist; a path no file can be written at (``nosub/../x``) is refused by the output layer instead."""
    from ..errors import OutputError
    from ..output.atomic import target

    def resolved(p: str) -> str | None:
        try:
            return target(p)
        except OutputError:
            return None

    out = resolved(path)
    return out is not None and out in {resolved(store + x) for x in ("", "-wal", "-shm", "-journal", ".lock")}


def _state_warnings(sess: Any, state: str | None, store: str, output: str | None, log: Any) -> None:
    """Under ``--state``: what ``-o`` does not list, or lists differently from what the state took."""
    if sess.unlisted:
        log.warn(f"{sess.unlisted} judgments the {state} state holds are not in "
                 f"{'standard output' if output in (None, '-') else output}: {store} holds no answer of every judge "
                 f"to them (judgments of other judges, added by {option_name('pairs_add', 'zelo_pairs add')}, or "
                 f"{option_name('missing_text=' + repr('ties'), '--missing-text ties')})")
    if sess.revoted:
        log.warn(f"{sess.revoted} judgments the {state} state took have other votes in {store} now (failed votes "
                 f"answered since, by {option_name('retry_failed=True', '--retry-failed')}): "
                 f"{'standard output' if output in (None, '-') else output} lists the new votes; the state's choices "
                 "were made with the earlier ones (a failed vote counts as a tie) and are not redone")
    if sess.earlier:
        log.warn(f"{'standard output' if output in (None, '-') else output} lists the judgments of this run only: the "
                 f"{state} state keeps no record of its {sess.earlier} earlier ones ("
                 f"{option_name(f'judge_export({store!r})', f'zelo_judge export --store {store}')} writes every "
                 "answer in the store)")


def _refuse_no_store_name(store: str) -> None:
    """An empty store name (an unset shell variable) or ``-`` (which read and wrote a file named '-')."""
    if store in ("", "-"):
        raise UsageError(f"{option_name('store')}: " + (
            "the file name is empty (an unset shell variable?)" if not store else
            "'-' names no file: standard input or output cannot hold an SQLite store (a file named '-': ./-)")
            + "; give the store's file name")


def judge_export(store: str, *, output: str | None = None, judges: Sequence[str] | None = None,
                 prompt: str | None = None, inputs: InputOptions | None = None, log: Any = None) -> int:
    """Write the store's answers as canonical JSONL (``zelo_judge export``); returns the number of pairs.

    ``output``: a file (written atomically; never one of ``inputs``, by default the store and the
    prompt) or stdout (``None`` or ``-``); ``judges``: only these (default every judge in the store).
    Only the answers asked with ``prompt`` (default: the default prompt) are written; ``log`` (a
    :class:`pref_eval.log.Log`) is warned when the store holds answers of other prompts as well.
    """
    from ..judge.export import export_lines
    from ..output.atomic import command_output
    from ..judge.prompt import prompt_hash
    from ..judge.run import read_template
    from ..judge.spec import parse_spec
    from ..judge.store import Store

    _refuse_no_store_name(store)
    if output is not None and output != "-" and _store_file(output, store):  # its lock file, say
        raise UsageError(f"output file {output} is the same file as {option_name('store')} {store}; refusing to "
                         "overwrite it")
    own = _input_options(inputs, output=output, store=store, prompt=prompt)
    _preflight(own, output)  # before the store and the prompt are read
    phash = prompt_hash(read_template(prompt))
    names = [parse_spec(s).name for s in judges] if judges else None
    st = Store(store, readonly=True)
    n = 0
    tally: dict[str, list[int]] | None = {} if getattr(log, "verbose", False) else None
    try:
        _check_export_selection(st, store, phash, names, prompt)
        with command_output(output, own) as out:
            for line in export_lines(st, phash, names, tally):
                out.write(line)
                n += 1
        others = st.db.execute("SELECT count(*), count(DISTINCT prompt) FROM answers WHERE prompt != ?",
                               (phash,)).fetchone()
    finally:
        st.close()
    if tally is not None:  # -v: what was written, per judge
        log.detail(f"prompt {phash[:12]} ({prompt or 'the default prompt'}): {n} lines")
        for name in sorted(tally):
            total, null = tally[name]
            log.detail(f"{name}: {total} votes written, {null} of them null (failed or unparsable)")
    if others[0] and log is not None:  # the same store used with another template: not exported, and said so
        log.warn(f"{store} also holds {others[0]} answers asked with {others[1]} other prompt(s), not exported: "
                 f"export them with {option_name('prompt=FILE', '--prompt FILE')} (the template they were asked with)")
    return n


def _check_export_selection(st: Any, store: str, phash: str, names: list[str] | None, prompt: str | None) -> None:
    """A ``--judge`` not in the store, or a ``--prompt`` none of whose answers is in a store that holds answers,
    is a mistake (a typo, the wrong template), not an empty export."""
    have = st.judges(phash)
    if not have and st.prompts():
        which = option_value("prompt", "--prompt", prompt) if prompt else "the default prompt"
        give = "the --prompt FILE" if command_running() else "the prompt file"
        raise UsageError(f"{store} holds no answer asked with {which} (it holds answers of {len(st.prompts())} "
                         f"other prompt(s): give {give} they were asked with)")
    missing = [x for x in (names or []) if x not in have]
    if missing:
        raise UsageError(f"{option_value('judges', '--judge', missing[0])}: no answer of this judge in {store} for "
                         "this prompt (judges there: "
                         f"{', '.join(have) or 'none'})")


def _checked_options(pairs: Any, state: Any, judges: Any, **values: Any) -> list[str]:
    """The options the command line checks by their types (``--concurrency 1..4096``, ``--timeout > 0``, ...),
    checked for a Python caller the same way (else UsageError, before anything is opened); ``judges`` as a
    list (one spec given as a string is one judge, not its characters)."""
    from ._inputs import _check_float, _check_int

    for name, v in (("pairs", pairs), ("state", state)):  # (a Python caller's keywords: the command passes paths)
        if v is not None and not isinstance(v, (str, os.PathLike)):
            raise UsageError(f"{name}: expected a path, got {type(v).__name__} (write the pairs to a file: "
                             "zelo_pairs cycles -o, or pref_eval.pairs(..., output=FILE))")
    judge_list = [judges] if isinstance(judges, str) else list(judges)
    for j in judge_list:
        if not isinstance(j, str):
            raise UsageError(f"judges: expected a spec string, got {type(j).__name__} {j!r:.40}")
    ints = {"concurrency": (1, 4096), "retries": (0, 100), "budget_requests": (0, None), "seed": (0, SEED_MAX)}
    floats = {"rpm": True, "timeout": True, "backoff": False, "max_cost": False}  # > 0 or >= 0
    for name, v in values.items():
        flag, optional = option_name(name), name in ("budget_requests", "rpm", "max_cost")
        if name in ints:
            _check_int(flag, v, *ints[name], optional=optional)
        else:
            _check_float(flag, v, 0, lo_open=floats[name], optional=optional)
    return judge_list
