"""Inputs several commands take: qrels and runs in every shape the Python API accepts (paths,
DataFrames, dicts, records, ranx objects), and the input paths an output must not overwrite.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UsageError, option_name, shown

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


def _is_number(x: Any) -> bool:
    """A real number, numpy scalars included (``np.float32(0.5)``), not a bool."""
    import numbers

    return isinstance(x, numbers.Real) and not isinstance(x, bool)


#: ``per_query`` is a flag (evaluate_runs, preferences); the file of per-query values compare_runs and PlotValues
#: read is ``per_query_file`` (``per_query`` there before session 27, deprecated): a wrong type names the other
_PER_QUERY_FLAG = (" (here per_query asks for per-query values in the output, as zelo_eval -q does; a file of "
                   "per-query values is read by compare_runs(per_query_file=FILE) and PlotValues(per_query_file=FILE))")
_PER_QUERY_FILE = ("here per_query_file is a file of per-query values, as zelo_compare -P reads it; per_query=True, "
                   "per-query values in the output, is evaluate_runs' and preferences'")


def _keep_going() -> str:
    """The option that left runs out, as the caller gave it: ``--keep-going`` / ``keep_going=True``."""
    from ..errors import command_running

    return "--keep-going" if command_running() else "keep_going=True"


def _check_flags(**flags: Any) -> None:
    """The True/False options of a public function: a bool (or numpy bool) each, else UsageError.

    A flag given as ``"yes"``, ``1`` or ``None`` is refused rather than read by its truth value
    (the guide's rule: a parameter is honoured or refused, never ignored or guessed)."""
    import numpy as np

    for name, v in flags.items():
        if isinstance(v, (bool, np.bool_)):
            continue
        tail = _PER_QUERY_FLAG if name == "per_query" and isinstance(v, (str, os.PathLike)) else ""
        raise UsageError(f"{name}: expected True or False, got {shown(v)}{tail}")


def _check_jobs(jobs: Any, scheduler: str | None) -> None:
    """``jobs`` >= 1, and not above 1 beside a ``scheduler`` (one of the two would be unused: UsageError)."""
    _check_int("jobs", jobs, 1)
    if scheduler is not None:  # (pref_eval.parallel is not imported by a serial run)
        from ..parallel import check_jobs_or_scheduler

        check_jobs_or_scheduler(jobs, scheduler)


def _check_int(name: str, v: Any, lo: int | None = None, hi: int | None = None, *, optional: bool = False) -> None:
    """An integer option of a public function in ``lo..hi`` (the command line's ``click.IntRange`` for the
    same flag; numpy integers too), else UsageError naming it; ``optional``: None is "not given".
    A bool is not an integer, nor is ``2.0`` or ``"3"`` (click refuses them on the command line too)."""
    import numbers

    if v is None and optional:
        return
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and (lo is None or int(v) >= lo) \
            and (hi is None or int(v) <= hi):
        return
    rng = f" {lo}..{hi}" if lo is not None and hi is not None else f" >= {lo}" if lo is not None else \
        f" <= {hi}" if hi is not None else ""
    raise UsageError(f"{name}: expected an integer{rng}, got {shown(v)}")


def _check_float(name: str, v: Any, lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
                 hi_open: bool = False, optional: bool = False) -> None:
    """A finite real option of a public function in its range (the command line's ``Finite`` range for the
    same flag; ints and numpy scalars too), else UsageError naming it; NaN and infinities are refused,
    as is a bool; ``optional``: None is "not given"."""
    import math

    if v is None and optional:
        return
    if _is_number(v) and math.isfinite(v) and (lo is None or (v > lo if lo_open else v >= lo)) \
            and (hi is None or (v < hi if hi_open else v <= hi)):
        return
    if lo is not None and hi is not None:
        rng = f" in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    elif lo is not None:
        rng = f" {'>' if lo_open else '>='} {lo:g}"
    elif hi is not None:
        rng = f" {'<' if hi_open else '<='} {hi:g}"
    else:
        rng = ""
    raise UsageError(f"{name}: expected a finite number{rng}, got {shown(v)}")


def _check_choice(name: str, v: Any, choices: Sequence[str], *, optional: bool = False) -> None:
    """A string option of a public function among ``choices`` (the command line's ``click.Choice`` for the
    same flag), else UsageError naming it; ``optional``: None is "not given". (``fit(compat="zbnech")``,
    ``evaluate_runs(output_format="textt")``, ``pairs_init(strategy=5)`` ran as with the default.)"""
    if (v is None and optional) or (isinstance(v, str) and v in choices):
        return
    raise UsageError(f"{name}: expected one of {', '.join(choices)}{' (or None)' if optional else ''}, got {v!r:.60}")


def _check_strings(**named: Any) -> None:
    """The text options of a public function (names, lists in one string, specifications): a string or None
    each, else UsageError naming it (an int or a list reached ``.strip()`` / ``.lower()``: AttributeError)."""
    for name, v in named.items():
        if v is not None and not isinstance(v, str):
            raise UsageError(f"{name}: expected a string, got {type(v).__name__} {v!r:.60}")


def _string_list(name: str, v: Any, *, split: bool = False) -> list[str]:
    """A list option of strings (``measures``, ``names``, ``levels``): a list or tuple of strings; one string is
    one item (``split``: names separated by spaces outside brackets, as ``measures="map P_10"`` and
    ``"RBP(p=0.8, rel=1)"``, which ``str.split`` cut in two); anything else a UsageError naming the option (an int
    was Python's "object is not iterable", a dict its keys)."""
    if isinstance(v, str):
        if not split:
            return [v]
        if not any(c.isspace() for c in v):
            return [v] if v else []  # (str.split's answers, which this was)
        from ..measures.parse import split_names  # (only then: the measures package, ~6 modules at start-up)

        return split_names(v)
    if hasattr(v, "columns") or isinstance(v, (Mapping, bytes)) or not isinstance(v, Iterable):
        raise UsageError(f"{name}: expected a list of strings, got {type(v).__name__} {v!r:.60}")
    items = list(v)
    bad = next((x for x in items if not isinstance(x, str)), None)
    if bad is not None or any(not isinstance(x, str) for x in items):
        raise UsageError(f"{name}: expected a list of strings, got a list holding {type(bad).__name__} {bad!r:.60}")
    return items


def _flat_list(measures: Iterable) -> list:
    """``measures`` (an iterable: read once) as a list; one of its items a list, tuple or set -- ``[ir_measures.
    parse_trec_measure("P.5,10"), AP]``, that function returning a list -- is a UsageError saying to flatten (it
    was "unknown measure '[P@5, P@10]'", the list's str; ir-measures fails on it too)."""
    names = list(measures)
    nested = next((m for m in names if isinstance(m, Iterable) and not isinstance(m, (str, bytes, Mapping))), None)
    if nested is not None:
        items = [str(x) for x in list(nested)[:4]]
        raise UsageError(f"measures: got a {type(nested).__name__} ({', '.join(items[:3])}"
                         f"{', ...' if len(items) > 3 else ''}) as one of the measure names; give the names in one "
                         "flat list (ir_measures.parse_trec_measure returns a list: [*parse_trec_measure('P.5,10'), "
                         "AP])")
    return names


def _measure_list(v: Any) -> list[str]:
    """``measures`` of the commands that read qrels: :func:`_string_list` (one string is names separated by
    spaces), and each item of a list split the same way, as ``parse_measures`` reads them (``zelo_eval -m
    "ndcg@10 map"`` with two runs was one pref_eval.py name, ``ndcg@10 map``, whose cut-off was not a number)."""
    names = _string_list("measures", v, split=True)
    if not any(c.isspace() for m in names for c in m):
        return names
    from ..measures.parse import split_names  # (only then: preference mode does not import the measures)

    return [p for m in names for p in (split_names(m) or [m])]


_PYTERRIER_VALUES = {
    "baseline": " (a run's name, as in the run column; PyTerrier's baseline is a position in its list of systems)",
    "correction": " (PyTerrier's correction=None is 'none' here; the default is holm)",
}
"""What a refusal of a ``pt.Experiment`` value adds: PyTerrier's ``baseline=0``, ``correction=None``."""


def _tests_option(v: Any) -> Any:
    """``tests`` with a function given as a test (PyTerrier's ``test=scipy.stats.ttest_rel``; alone or in the list)
    as our name ('t', 'wilcoxon': :func:`pref_eval.peer_names.scipy_test`, which refuses any other function);
    anything else as given."""
    if isinstance(v, str) or v is None:
        return v
    if callable(v):
        v = [v]
    elif not (isinstance(v, Iterable) and not isinstance(v, (Mapping, bytes)) and not hasattr(v, "columns")):
        return v
    from ..peer_names import scipy_test

    return [scipy_test(x) if callable(x) else x for x in v]


def _compare_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options of :func:`pref_eval.api.compare` / :func:`pref_eval.stats.compare`, each of its type and range
    (``zelo_compare``'s ranges) or a UsageError naming it (``complete="no"``, ``resamples=1.5``, ``jobs=0`` were
    taken; ``alpha="0.05"`` a TypeError); ``measures`` as one string is names separated by spaces (as
    :func:`~pref_eval.api.compare_runs`), ``runs`` one run. Returns the options with those lists."""
    out = dict(options)
    if "complete" in out:
        _check_flags(complete=out["complete"])
    for name, lo in (("resamples", 1), ("jobs", 1)):
        if name in out:
            _check_int(name, out[name], lo)
    for name in ("alpha", "confidence"):
        if name in out:
            _check_float(name, out[name], 0, 1, lo_open=True, hi_open=True)
    if "sign_min_diff" in out:
        _check_float("sign_min_diff", out["sign_min_diff"], 0)
    for name in ("correction", "zero_method", "wilcoxon_method", "ci_method", "baseline"):
        v = out.get(name)
        if v is not None and not isinstance(v, str) or name in out and v is None and name != "baseline":
            raise UsageError(f"{name}: expected a string, got {v!r:.60}" + _PYTERRIER_VALUES.get(name, ""))
    if out.get("tests") is not None:
        out["tests"] = _tests_option(out["tests"])
    for name, one in (("measures", str.split), ("runs", lambda s: [s]), ("tests", lambda s: s)):
        v = out.get(name)
        if v is not None:
            out[name] = one(v) if isinstance(v, str) else _string_list(name, v)
    if out.get("progress") is not None and not callable(out["progress"]):
        raise UsageError(f"progress: expected None or a function progress(done, total), got {out['progress']!r:.60}")
    return out


def _ranx_object(x: Any) -> bool:
    """A ``ranx.Qrels`` / ``ranx.Run`` (taken through its ``to_dict()``; ranx is not imported here)."""
    return type(x).__module__.startswith("ranx.") and hasattr(x, "to_dict")


def _irds_object(x: Any, where: str) -> str:
    """What a refusal adds for an ir_datasets object (a dataset from ``ir_datasets.load``, a qrels handler):
    the iterator to pass, or ``irds:ID`` (which names a failure in one line)."""
    if not type(x).__module__.startswith("ir_datasets"):
        return ""
    if where == "qrels":
        return " (an ir_datasets object: pass 'irds:ID' or ds.qrels_iter())"
    return " (an ir_datasets object: pass 'irds:ID' or ds.scoreddocs_iter() as the run)"


_ORDER = "the order is evaluate(qrels, runs, measures), calc_aggregate(measures, qrels, run)"


def _ranx_swapped(x: Any, where: str) -> None:
    """A ``ranx.Run`` where the qrels go (``where="qrels"``) or a ``ranx.Qrels`` where a run goes: a UsageError
    (read through ``to_dict()`` either would be taken, the scores as grades: wrong numbers, no error)."""
    kind = type(x).__name__
    if where == "qrels" and kind == "Run" or where == "run" and kind == "Qrels":
        what, goes = ("a run", "the qrels go") if kind == "Run" else ("qrels", "a run goes")
        raise UsageError(f"{where}: got a ranx.{kind} ({what}) where {goes}; {_ORDER}")


def _refuse_bytes(what: str, x: Any) -> None:
    """A path written as bytes (``b"qrels.txt"``) is no path here, nor data: it was read as records of its byte
    values ("expected (qid, docno, rel) ..., got int 113")."""
    if isinstance(x, (bytes, bytearray, memoryview)):
        raise UsageError(f"{what}: got bytes {shown(bytes(x)[:60])}; a path is a str or a pathlib.Path "
                         "(os.fsdecode turns bytes into one)")


def _load_qrels(qrels: Any, subtopics: bool = False):
    from ..io.qrels import Qrels, qrels_from_records, read_qrels, with_subtopics

    if _ranx_object(qrels):
        _ranx_swapped(qrels, "qrels")
        qrels = dict(qrels.to_dict())
    if isinstance(qrels, Qrels):
        return with_subtopics(qrels) if subtopics and qrels.subtopics is None else qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels, subtopics=subtopics)
    _refuse_bytes("qrels", qrels)
    if not isinstance(qrels, Iterable) and not hasattr(qrels, "columns"):
        raise UsageError(f"qrels: expected a path, a DataFrame, a dict {{qid: {{docno: grade}}}} or Qrel records, "
                         f"got {type(qrels).__name__}{_irds_object(qrels, 'qrels')}")
    q = qrels_from_records(qrels, subtopics=subtopics)
    if len(q.docno) == 0:
        raise InputError(q.source, 0, "empty qrels (expected (qid, docno, relevance) records)")
    return q


def _is_record(x: Any) -> bool:
    """One run line: a ScoredDoc-like namedtuple or a (qid, docno, score) tuple (a DataFrame with
    ``query_id`` and ``doc_id`` columns has those attributes too: it is a run, not a line)."""
    if hasattr(x, "columns"):
        return False
    if hasattr(x, "query_id") and hasattr(x, "doc_id"):
        return True
    return isinstance(x, tuple) and len(x) == 3 and _score_like(x[2]) and not isinstance(x[0], (os.PathLike,))


def _score_like(x: Any) -> bool:
    """What a record's third field can be for the reader to judge it: any number (a bool, a Decimal, a complex
    too: the reader says why it is no score), numbers as text. ``[("1", "d1", Decimal("0.5")), ...]`` was taken
    for a list of runs ("run1:1: expected (qid, docno, score), got str '1'")."""
    import numbers

    import numpy as np

    return isinstance(x, (numbers.Number, np.bool_, np.number, str))


def _is_run_dict(x: Any) -> bool:
    """``{qid: {docno: score}}`` (an empty dict is an empty run)."""
    if not isinstance(x, Mapping):
        return False
    vals = list(x.values())
    if not vals:
        return True
    inner = list(vals[0].values()) if isinstance(vals[0], Mapping) else None
    # {qid: {doc: score}}: the inner values are scores (checked by the reader), not runs
    return inner is not None and not any(isinstance(v, Mapping) for v in inner[:1])


_RUN_NAME_COLUMNS = ("name", "run", "run_id", "runid", "system", "tag")
"""Columns that name the run of each row (PyTerrier's ``name``, a TREC run's ``tag``)."""


def _run_from_data(x: Any, name: str) -> Any:
    """A run given as data (DataFrame, dict, records) → Run; an empty one is refused as an empty run file."""
    from ..io.runs import run_from_records

    _refuse_bytes("run", x)
    col = next((c for c in getattr(x, "columns", ()) if str(c).lower() in _RUN_NAME_COLUMNS and len(x)
                and bool((x[c] != x[c].iloc[0]).any())), None)
    if col is not None:  # several runs stacked in one DataFrame (PyTerrier's name column): each query's
        keys = [c for c in x.columns if str(c).lower() in ("query_id", "qid", "q_id", "doc_id", "docno")]
        if keys and bool(x.duplicated(keys).any()):  # documents come back, so these are runs
            raise InputError(name, 0, f"a DataFrame of {x[col].nunique()} runs (column {shown(col)}; documents repeat "
                             "within a query): pass them to pref_eval.evaluate as {name: run}, "
                             f"dict(tuple(df.groupby({shown(col)})))")
    r = run_from_records(x, name=name)
    if len(r.docno) == 0:
        raise InputError(name, 0, "empty run (expected (qid, docno, score) records)")
    return r


def _load_runs(runs: Any) -> list:
    """Runs in every shape ir-measures takes, or several of them.

    One run: a path, a :class:`~pref_eval.io.runs.Run`, a DataFrame
    (``query_id, doc_id, score``), a dict ``{qid: {doc: score}}`` (numpy
    scalars allowed), a list or generator of ``ScoredDoc`` namedtuples or
    ``(qid, doc, score)`` tuples (what ``ir_measures.read_trec_run`` yields).
    Several runs: a mapping ``{name: run}`` or a list of paths/Runs/DataFrames/dicts. A ``ranx.Qrels`` /
    ``ranx.Run`` is taken through its ``to_dict()`` (a ranx.Run keeps its name).
    An empty run is refused as the command lines refuse an empty run file.
    """
    from ..io.runs import Run, read_run

    def one(x: Any, name: str | None = None) -> Run:
        if isinstance(x, Run):
            return x
        if _ranx_object(x):  # a ranx.Run: its name unless one is given
            _ranx_swapped(x, "run")
            name, x = name or getattr(x, "name", None) or None, dict(x.to_dict())
        if isinstance(x, (str, os.PathLike)):
            return read_run(x, name=name)
        _refuse_bytes(f"run {shown(name or 'run')}", x)
        if not isinstance(x, Iterable) and not hasattr(x, "columns"):
            raise UsageError(f"run {shown(name or 'run')}: expected a path, a DataFrame, a dict "
                             f"{{qid: {{docno: score}}}} "
                             f"or (qid, docno, score) records, got {type(x).__name__}{_irds_object(x, 'run')}")
        return _run_from_data(x, name or "run")

    if isinstance(runs, (str, os.PathLike)):
        from ..io.run_ids import run_ids

        return [one(runs, run_ids([os.fspath(runs)])[0])]
    _refuse_bytes("runs", runs)
    if isinstance(runs, Run) or hasattr(runs, "columns") or _ranx_object(runs):
        return [one(runs)]
    if isinstance(runs, Mapping):
        if _is_run_dict(runs):
            return [one(runs)]  # a single {qid: {doc: score}}
        return [one(v, str(k)) for k, v in runs.items()]
    if isinstance(runs, Iterator) or not isinstance(runs, Sequence):
        if not isinstance(runs, Iterable):
            raise UsageError(f"runs: expected a path, a DataFrame, a dict or a list of those, "
                             f"got {type(runs).__name__}{_irds_object(runs, 'run')}")
        runs = list(runs)  # a generator of ScoredDoc records is one run
    if not runs or _is_record(runs[0]):
        return [one(runs)]
    from ..io.run_ids import shortest_unique_suffixes

    paths = [i for i, x in enumerate(runs) if isinstance(x, (str, os.PathLike))]
    ids = dict(zip(paths, shortest_unique_suffixes([os.fspath(runs[i]) for i in paths]), strict=True))
    return [one(x, ids.get(i, _numbered_name(x, i, len(runs)))) for i, x in enumerate(runs)]


def _numbered_name(x: Any, i: int, n: int) -> str | None:
    """The name of the ``i``-th of ``n`` runs given as data in a list: run1, run2, ... by position when there are
    several; None (its own) for a Run, and for a ranx.Run that has a name (ranx.Run's default name is None)."""
    from ..io.runs import Run

    if n < 2 or isinstance(x, Run) or (_ranx_object(x) and getattr(x, "name", None)):
        return None
    return f"run{i + 1}"


def _path_list(value: Any, what: str, hint: str = "") -> list:
    """One path or several: a ``str`` is one path (never its characters); a DataFrame, a dict or records
    (data where files are expected) raise :class:`UsageError` naming ``what`` (and ``hint``, the function
    that takes data)."""
    tail = f" ({hint})" if hint else ""
    if isinstance(value, (str, os.PathLike)):
        return [value]
    if hasattr(value, "columns") or isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise UsageError(f"{what}: expected a path or a list of paths, got {type(value).__name__}{tail}")
    paths = list(value)
    for x in paths:
        if not isinstance(x, (str, os.PathLike)):
            text = repr(x)
            raise UsageError(f"{what}: expected a path or a list of paths, got a list holding {type(x).__name__} "
                             f"{text if len(text) <= 60 else text[:57] + '...'}{tail}")
    return paths


def _check_paths(hint: str, **named: Any) -> None:
    """The file options of a command function (``qrels``, ``per_query_file``, ``judgments``, ...): a path or None
    each, else UsageError naming the option, with ``hint`` (the function that takes data), before any input
    is read -- a ``ranx.Qrels``, a DataFrame or a dict would otherwise be opened as a file name."""
    for name, v in named.items():
        if v is not None and not isinstance(v, (str, os.PathLike)):
            what = f" {v!r}" if name == "per_query_file" and isinstance(v, bool) else ""
            raise UsageError(f"{name}: expected a path, got {type(v).__name__}{what} ("
                             f"{_PER_QUERY_FILE + '; ' if what else ''}{hint})")


def _input_options(inputs: InputOptions | None, **named: Any) -> InputOptions:
    """``inputs`` when the caller gave them (a command line: every option it was given), else the function's
    own paths by parameter name, outputs first -- the files an output must not overwrite (each output is
    left out of its own entry by :func:`~pref_eval.output.atomic.inputs_besides`)."""
    if inputs is not None:
        return inputs
    found = []
    for name, v in named.items():
        vals = v if isinstance(v, (list, tuple)) else [v]
        # (a value that is not a path names no file to keep: its own check, or its reader, refuses it)
        found.append((name, [os.fspath(x) for x in vals if _is_path(x)]))
    return found


_STDIN_NAMES = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
_STDIN_FLAGS = {"qrels": "-R", "runs": "RUN", "judgments": "-J", "best": "-B", "run_types": "--run-types"}


def _refuse_stdin_twice(**named: Any) -> None:
    """Standard input named by two inputs (``zelo_eval -R - -``, ``-R /dev/stdin RUN -``): the second read found
    it empty ("<stdin>: empty run file") -- refused naming both (flags on the command line, keywords in Python)."""
    seen = []
    for key, v in named.items():
        for x in v if isinstance(v, (list, tuple)) else [v]:
            if isinstance(x, (str, os.PathLike)) and os.fspath(x) in _STDIN_NAMES:
                seen.append(f"{option_name(key, _STDIN_FLAGS.get(key))} {os.fspath(x)}")
    if len(seen) > 1:
        raise UsageError(f"standard input is given twice ({seen[0]} and {seen[1]}): it can be read once; give one "
                         "of them as a file")


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, bytes, os.PathLike))


def _preflight(own: InputOptions, *outputs: Any) -> None:
    """Each output (None, ``""`` and ``-`` pass) refused before any input is read or anything computed, as
    writing it would refuse it after the work: a missing directory, a directory that takes no new file, one of
    the inputs ``own``, a file this process may not replace (:func:`~pref_eval.output.atomic.preflight`)."""
    from ..output.atomic import inputs_besides, preflight

    for path in outputs:
        if path is not None and path != "":
            preflight(os.fspath(path), inputs_besides(os.fspath(path), own))
