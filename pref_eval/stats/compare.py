"""All-pairs (or vs-baseline) comparison of runs over per-query values.

:func:`compare` takes the long per-query table ``run, qid, measure, value``
(``pref_eval.evaluate(...)`` or :func:`pref_eval.io.perquery.read_per_query`)
and, for every measure, every pair of runs and every selected test, returns
one record with the keys ``measure, run_a, run_b, test, n_queries,
mean_diff (run_a - run_b), statistic, p_value, p_adjusted, correction,
ci_low, ci_high`` plus effect sizes (``d_z, wins, ties, losses``) and the
test's parameters.

Values must be finite numbers: NaN, None and inf are refused (UsageError naming the cell; a missing
value is a missing row). Queries: for each measure, those that have a value for every compared run, in id order (so
that no result depends on the order of the input lines, not even in the last bits);
with ``complete=True`` the union of the queries seen for that measure, a
missing value counting as 0 (trec_eval ``-c``; its other values for a topic a run lacks -- ``num_rel``,
``ideal_dcg``: the other runs' value; ``yaap``: refused -- in :mod:`pref_eval.stats.complete_fill`). The number used is
``n_queries``; the queries left out are listed in ``dropped_queries``.

Correction family: every pair compared for one measure and one test
(R(R-1)/2 pairs, or R-1 against a baseline). The ``tukey`` test (randomised
Tukey HSD, :mod:`pref_eval.stats.tukey`) is already family-wise over all
runs: its ``p_adjusted`` equals its ``p_value`` and ``correction`` is
``tukey-hsd``.

:func:`compare_differences` runs the same tests on a ready matrix of per-query
differences (rows = comparisons, e.g. the per-query values of a preference
measure for each pair of runs), each row tested against 0.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ..errors import UsageError, command_running, option_name, shown
from . import paired
from .correction import CORRECTIONS, adjust, unknown_correction
from .effect import effect_sizes
from . import CORRECTION_LABELS, EXTRA_KEYS, RECORD_KEYS, TEST_LABELS  # noqa: F401 - re-exported

if TYPE_CHECKING:
    import pandas as pd

    from ..io.coded import CodedTable

ALL_TESTS = (*paired.TESTS, "tukey")
DEFAULT_TESTS = ("t", "wilcoxon", "sign")


@dataclass
class LongTable:
    """Per-query values without pandas: parallel lists ``run, qid, measure, value``.

    What :func:`compare` reads from a DataFrame; ``zelo_compare -R`` builds it
    directly from the evaluation (no pandas import on that path, issue #13).
    Enough of a DataFrame's surface for the command's glue: ``columns``,
    ``empty`` and ``table[name]`` (the column as a list).
    """

    run: list
    qid: list
    measure: list
    value: list
    columns: tuple = ("run", "qid", "measure", "value")

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, str, float]]) -> LongTable:
        """From (run, qid, measure, value) tuples."""
        cols: tuple[list, list, list, list] = ([], [], [], [])
        for r in rows:
            for c, v in zip(cols, r, strict=True):
                c.append(v)
        return cls(*cols)

    @property
    def empty(self) -> bool:
        return not self.run

    def __getitem__(self, name: str) -> list:
        if name not in self.columns:
            raise KeyError(name)
        return getattr(self, name)


class Records:
    """The records of :func:`compare` as columns, before (or instead of) a pandas DataFrame.

    ``blocks``: per measure (or difference matrix), per test, a dict of
    columns (the keys of :data:`RECORD_KEYS` and :data:`EXTRA_KEYS`, plus the
    sort keys ``_pair`` and ``_test``). :meth:`columns_in_order` gives the
    columns in record order (measure, pair, test) as lists; :meth:`frame` the
    DataFrame (pandas imported there).
    """

    def __init__(self, blocks: list) -> None:
        self.blocks = blocks

    def _order(self) -> np.ndarray:
        """The record order over the frames' rows laid end to end: by block, pair, test (then frame, row)."""
        frames = [(bi, fi, f) for bi, fs in enumerate(self.blocks) for fi, f in enumerate(fs)]
        sizes = [len(f["_pair"]) for _, _, f in frames]
        if not frames:
            return np.zeros(0, np.intp)

        def laid(values: list) -> np.ndarray:
            return np.concatenate([np.asarray(v, np.int64).reshape(-1) for v in values])

        keys = (laid([np.arange(k) for k in sizes]),
                laid([np.full(k, fi) for (_, fi, _), k in zip(frames, sizes, strict=True)]),
                laid([f["_test"] for _, _, f in frames]), laid([f["_pair"] for _, _, f in frames]),
                laid([np.full(k, bi) for (bi, _, _), k in zip(frames, sizes, strict=True)]))
        return np.lexsort(keys)

    def columns_in_order(self) -> dict[str, list]:
        """{column: values in record order} (Python scalars: an array column's ``tolist()``); an empty result has
        the record keys and no rows."""
        names = [c for c in next((f for frames in self.blocks for f in frames), {}) if not c.startswith("_")]
        if not names:
            return {c: [] for c in (*RECORD_KEYS, *EXTRA_KEYS)}
        order = self._order().tolist()
        out = {}
        for c in names:
            laid = list(itertools.chain.from_iterable(
                f[c].tolist() if isinstance(f[c], np.ndarray) else f[c] for frames in self.blocks for f in frames))
            out[c] = list(map(laid.__getitem__, order))
        return out

    def __len__(self) -> int:
        return sum(len(f["_pair"]) for frames in self.blocks for f in frames)

    def frame(self) -> pd.DataFrame:
        """The records as a pandas DataFrame (one row per record, in record order)."""
        import pandas as pd

        from ..io.frames import frame

        if not any(frames for frames in self.blocks):
            return pd.DataFrame(columns=[*RECORD_KEYS, *EXTRA_KEYS])
        parts = []
        for bi, frames in enumerate(self.blocks):
            for f in frames:
                parts.append(frame(f).assign(_block=bi))  # (run ids not UTF-8: object columns)
        df = pd.concat(parts, ignore_index=True)
        order = np.lexsort((df["_test"].to_numpy(), df["_pair"].to_numpy(), df["_block"].to_numpy()))
        df = df.iloc[order].drop(columns=["_block", "_pair", "_test"])
        return df.reset_index(drop=True)


@dataclass
class ComparisonResult:
    """Output of :func:`compare`.

    ``records``: pandas DataFrame, one row per (measure, pair, test) in the
    order measure, pair, test (built on first access from ``record_table``,
    a :class:`Records`). ``means``: DataFrame runs x measures of the mean
    over the queries used (from ``mean_values``: measure -> array over
    ``runs``). ``n_queries`` / ``dropped_queries``: per measure. ``params``:
    the settings (tests, correction, alpha, seed, ...).
    """

    record_table: Records
    mean_values: dict[str, np.ndarray]
    runs: list[str]
    measures: list[str]
    n_queries: dict[str, int]
    dropped_queries: dict[str, list[str]]
    params: dict[str, Any] = field(default_factory=dict)
    _frames: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def records(self) -> pd.DataFrame:
        if "records" not in self._frames:
            self._frames["records"] = self.record_table.frame()
        return self._frames["records"]

    @property
    def means(self) -> pd.DataFrame:
        if "means" not in self._frames:
            import pandas as pd

            from ..io.frames import holds_bytes

            # a run id that was not UTF-8 (its surrogate escape): an object index, as io.frames.frame's columns
            index = pd.Index(self.runs, dtype=object) if holds_bytes(self.runs) else self.runs
            self._frames["means"] = pd.DataFrame(self.mean_values, index=index)
        return self._frames["means"]

    def query_warnings(self, complete_hint: bool = True) -> list[str]:
        """The warning lines of the commands (``zelo_compare``, ``zelo_eval -o text``): per measure the
        queries left out because some run lacks them, and a measure that no query has for every run.
        ``complete_hint=False``: without the pointer to ``-c`` (zbench's measures against a score file, where
        ``-c`` is refused)."""
        count = ("; -c counts" if command_running() else "; complete=True counts") + " them as 0"
        out = [f"{m}: {len(d)} quer(y/ies) missing for some run left out ({', '.join(d[:5])}"
               f"{', ...' if len(d) > 5 else ''}){count if complete_hint else ''}"
               for m, d in self.dropped_queries.items() if d]
        return out + [f"{m}: no query has a value for every run" for m, n in self.n_queries.items() if n == 0]

    def refuse_no_common_query(self, source: str | None = None, complete_flag: str | None = None) -> None:
        """UsageError (the commands' exit 2) when a measure has no query with a value for every run: its
        means and tests would be NaN (zelo_plot refused this already; zelo_eval's tables and zelo_compare
        warned and exited 0 with ``nan`` cells before session 23; :func:`pref_eval.api.compare` returned
        them before session 24). ``source``: the per-query file, named first; without it the runs are named.
        ``complete_flag``: how the message names the option counting a missing query as 0 (default ``-c`` while a
        command runs, the API's ``complete=True`` for a Python caller)."""
        empty = [m for m, n in self.n_queries.items() if n == 0]
        if empty:
            from ..io.textfile import display_name

            m, left = empty[0], len(self.dropped_queries.get(empty[0], []))
            where = f"{display_name(source)}: " if source else ""
            runs = "" if source else f"{', '.join(self.runs)}; "
            raise UsageError(f"{where}{m}: no query has a value for every run ({runs}{left} quer(y/ies), each lacking "
                             "for some run): nothing to average or test; "
                             + (complete_flag or option_name("complete=True", "-c"))
                             + " counts a query a run lacks as 0")


def parse_tests(spec: str | Sequence[str]) -> list[str]:
    """``"t,wilcoxon"`` -> ``["t", "wilcoxon"]``; aliases ``perm``/``permutation``/
    ``random`` = randomization, ``boot`` = bootstrap, ``student`` = t."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    alias = {"perm": "randomization", "permutation": "randomization", "random": "randomization",
             "fisher": "randomization", "boot": "bootstrap", "student": "t", "ttest": "t",
             "hsd": "tukey"}
    out: list[str] = []
    for it in items:
        name = alias.get(it.strip().lower(), it.strip().lower())
        if not name:
            continue
        if name not in ALL_TESTS:
            raise UsageError(f"unknown test {shown(it)}; expected some of {', '.join(ALL_TESTS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise UsageError("no test selected")
    return out


def _run_tests(D: np.ndarray, tests: Sequence[str], p: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    k = D.shape[0]
    nan = np.full(k, np.nan)
    for t in tests:
        if t == "t":
            r = paired.t_test(D, confidence=p["confidence"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": r["ci_low"],
                      "ci_high": r["ci_high"], "extra": {"df": r["df"]}}
        elif t == "wilcoxon":
            r = paired.wilcoxon_test(D, zero_method=p["zero_method"], method=p["wilcoxon_method"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": nan, "ci_high": nan,
                      "extra": {"zero_method": p["zero_method"], "method": r["method_used"],
                                "n_zero": r["n_zero"]}}
        elif t == "sign":
            r = paired.sign_test(D, min_diff=p["sign_min_diff"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": nan, "ci_high": nan,
                      "extra": {"n_nonzero": r["n_nonzero"], "min_diff": p["sign_min_diff"]}}
        elif t == "randomization":
            r = paired.randomization_test(D, resamples=p["resamples"], seed=p["seed"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": nan, "ci_high": nan,
                      "extra": {"resamples": r["resamples"], "exact": r["exact"], "seed": p["seed"]}}
        elif t == "bootstrap":
            r = paired.bootstrap_test(D, resamples=p["resamples"], seed=p["seed"],
                                      confidence=p["confidence"], ci_method=p["ci_method"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": r["ci_low"],
                      "ci_high": r["ci_high"], "extra": {"resamples": r["resamples"], "seed": p["seed"],
                                                         "ci_method": p["ci_method"]}}
    return out


def _params(tests, correction, alpha, resamples, seed, zero_method, wilcoxon_method,
            confidence, ci_method, sign_min_diff: float = 0.0) -> dict[str, Any]:
    if correction not in CORRECTIONS:
        raise unknown_correction(correction)
    if not 0 < alpha < 1:
        raise UsageError(f"{option_name('alpha')} must be in (0, 1), got {alpha}")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence level must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise UsageError(f"{option_name('resamples')} must be at least 1, got {resamples}")
    if zero_method not in ("wilcox", "pratt", "zsplit"):
        raise UsageError(f"unknown Wilcoxon zero method {shown(zero_method)}; expected wilcox, pratt or zsplit")
    if wilcoxon_method not in ("auto", "exact", "asymptotic"):
        raise UsageError(f"unknown Wilcoxon method {shown(wilcoxon_method)}; expected auto, exact or asymptotic")
    if ci_method.lower() not in ("bca", "percentile", "basic"):
        raise UsageError(f"unknown bootstrap interval {shown(ci_method)}; expected BCa, percentile or basic")
    if not sign_min_diff >= 0:
        raise UsageError(f"{option_name('sign_min_diff')} must be >= 0, got {sign_min_diff}")
    return {"sign_min_diff": float(sign_min_diff), "tests": parse_tests(tests), "correction": correction,
            "alpha": float(alpha), "resamples": int(resamples), "seed": _seed(seed), "zero_method": zero_method,
            "wilcoxon_method": wilcoxon_method, "confidence": float(confidence), "ci_method": ci_method}


def _seed(seed: Any) -> int:
    """The seed of the resampling tests: an integer 0 .. 2^64 - 1 (pref_eval.seeds), else UsageError; ``None``
    draws one from the operating system's entropy, and it is the seed every record then holds (``"seed"``), so
    that the run can be repeated (it was ``None`` in the records, and the draws could not be had again)."""
    import numbers

    from ..seeds import SEED_MAX

    if seed is None:
        import secrets

        return secrets.randbits(64)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) <= SEED_MAX:
        raise UsageError(f"seed: expected an integer 0..{SEED_MAX}, got {seed!r:.40}")
    return int(seed)


def _assemble(measure: str, a_names, b_names, n_q: int, D, results, tests, params, tukey_p=None):
    """The record columns of one measure (or one difference matrix): a dict per test."""
    k = D.shape[0]
    eff = effect_sizes(D)
    frames = []
    res: dict[str, Any]
    for ti, t in enumerate(tests):
        if t == "tukey":
            pv = tukey_p if tukey_p is not None else np.full(k, np.nan)
            res = {"statistic": eff["mean_diff"], "p_value": pv, "ci_low": np.full(k, np.nan),
                   "ci_high": np.full(k, np.nan),
                   "extra": {"resamples": params["resamples"], "seed": params["seed"]}}
            padj = np.asarray(pv, float)
            corr = "tukey-hsd"
        else:
            res = results[t]
            padj = adjust(res["p_value"], params["correction"])
            corr = params["correction"]
        cols = {
            "measure": [measure] * k, "run_a": list(a_names), "run_b": list(b_names), "test": [t] * k,
            "n_queries": np.full(k, n_q), "mean_diff": eff["mean_diff"],
            "statistic": np.asarray(res["statistic"], float), "p_value": np.asarray(res["p_value"], float),
            "p_adjusted": padj, "correction": [corr] * k,
            "ci_low": np.asarray(res["ci_low"], float), "ci_high": np.asarray(res["ci_high"], float),
            "significant": padj < params["alpha"], "d_z": eff["d_z"], "wins": eff["wins"],
            "ties": eff["ties"], "losses": eff["losses"],
        }
        for key in EXTRA_KEYS:
            val = res["extra"].get(key)
            if isinstance(val, np.ndarray):
                cols[key] = val
            else:
                cols[key] = [val] * k
        if t == "bootstrap" or t == "t":
            cols["confidence"] = [params["confidence"]] * k
        cols["_pair"] = np.arange(k)
        cols["_test"] = np.full(k, ti)
        frames.append(cols)
    return frames


def _frame(blocks: list) -> pd.DataFrame:
    """The records of ``blocks`` as a DataFrame."""
    return Records(blocks).frame()


def _codes(column: list) -> tuple[list, np.ndarray]:
    """The distinct values of ``column`` in order of first appearance and each row's index among them (a
    dict's C-level lookups: no Python loop per row; the values keep Python's equality, unlike a numpy string
    array, which drops trailing NULs)."""
    distinct = list(dict.fromkeys(column))
    return distinct, _code_of(distinct, column)


class _Cells:
    """The per-query values of the wanted runs as arrays: a row's run (its position in the runs compared),
    query (its code, ``qids[code]``), measure (its code, ``measures[code]``) and value; a second value for a
    (run, query, measure) cell, a value that is not a number or not finite are refused naming the first such
    row in the table's order, as the per-row loop before session 25 did.

    ``runs``, ``qids``, ``measures``: (distinct values, each row's code); ``value_col``: the values (a list, or
    a float array); ``row(i)``: row ``i``'s (run, qid, measure, value) for a message."""

    def __init__(self, runs: tuple[list, np.ndarray], qids: tuple[list, np.ndarray],
                 measures: tuple[list, np.ndarray], value_col: list | np.ndarray,
                 row: Callable[[int], tuple], run_list: list[str]) -> None:
        (run_names, run_code), (self.qids, qid_code), (self.measures, measure_code) = runs, qids, measures
        position = np.array([run_list.index(r) if r in run_list else -1 for r in run_names], dtype=np.intp)
        mask = position[run_code] >= 0
        wanted = np.flatnonzero(mask)
        self.run, self.qid, self.measure = position[run_code[wanted]], qid_code[wanted], measure_code[wanted]
        if isinstance(value_col, np.ndarray):
            self.value, bad = np.asarray(value_col[wanted], dtype=float), wanted.size
        else:
            self.value, bad = _floats(value_col if mask.all() else list(itertools.compress(value_col, mask.tolist())))
        key = (self.measure * len(run_list) + self.run) * max(len(self.qids), 1) + self.qid
        order = np.argsort(key, kind="stable")
        twice = order[1:][key[order][1:] == key[order][:-1]]  # the later rows of a cell (stable: table order)
        first_twice = int(twice.min()) if twice.size else len(key)
        nonfinite = np.flatnonzero(~np.isfinite(self.value))
        first_bad = min(bad, int(nonfinite[0]) if nonfinite.size else len(key))
        if min(first_twice, first_bad) < len(key):
            r, q, m, v = row(int(wanted[min(first_twice, first_bad)]))
            if first_twice <= first_bad:
                raise UsageError(f"measure {shown(m)}: two values for run {shown(r)} on query {shown(q)}")
            if first_bad == bad:
                raise UsageError(f"per-query table: value {shown(v)} of run {shown(r)}, query {shown(q)}, "
                                 f"measure {shown(m)} "
                                 "is not a number")
            # NaN was read as a missing value (silently 0 with complete=True), inf gave nan/inf differences
            # and meaningless p-values: refused, as the per-query file reader refuses them
            raise UsageError(f"per-query table: value {shown(v)} of run {shown(r)}, query {shown(q)}, "
                             f"measure {shown(m)} "
                             "is not a finite number; leave the row out for a missing value")

    @classmethod
    def of_columns(cls, run_col: list, qid_col: list, measure_col: list, value_col: list,
                   run_list: list[str]) -> _Cells:
        """From the columns as lists (coded here)."""
        return cls(_codes(run_col), _codes(qid_col), _codes(measure_col), value_col,
                   lambda i: (run_col[i], qid_col[i], measure_col[i], value_col[i]), run_list)

    @classmethod
    def of_coded(cls, table: CodedTable, run_list: list[str]) -> _Cells:
        """From a reader's :class:`~pref_eval.io.coded.CodedTable` (its codes as they are: no list of a row's
        strings is made)."""
        names, codes = table.names, table.codes
        return cls((names["run"], codes["run"]), (names["qid"], codes["qid"]), (names["measure"], codes["measure"]),
                   table.value,
                   lambda i: (*(names[c][int(codes[c][i])] for c in ("run", "qid", "measure")),
                              float(table.value[i])), run_list)

    def matrix(self, measure: str, runs: list[str], complete: bool):
        """(runs x queries) matrix of one measure, the queries used and those dropped.

        The queries are in id order (code points = UTF-8 byte order, trec_eval's): every sum, mean and
        resampling over queries then sees them in one canonical order, whatever the order of the input.
        """
        code = self.measures.index(measure) if measure in self.measures else -1
        rows = np.flatnonzero(self.measure == code)
        present_codes = np.flatnonzero(np.bincount(self.qid[rows], minlength=len(self.qids)))  # (np.unique: numpy.ma)
        qids_all = sorted(self.qids[c] for c in present_codes)
        column = np.zeros(len(self.qids), np.intp)
        column[_code_of(self.qids, qids_all)] = np.arange(len(qids_all))
        X = np.full((len(runs), len(qids_all)), np.nan)
        X[self.run[rows], column[self.qid[rows]]] = self.value[rows]
        present = ~np.isnan(X)
        if complete:
            from .complete_fill import fill_missing  # 0, or trec_eval -c's value where it is not 0 (num_rel)

            keep = np.ones(len(qids_all), bool)
            X = fill_missing(X, present, measure, qids_all, runs)
        else:
            keep = present.all(axis=0)
            X = X[:, keep]
        used = [q for q, k in zip(qids_all, keep, strict=False) if k]
        dropped = [q for q, k in zip(qids_all, keep, strict=False) if not k]
        return X, used, dropped


def _code_of(distinct: list, wanted: list) -> np.ndarray:
    """The position in ``distinct`` (a list of distinct values) of each value of ``wanted``."""
    index = {k: i for i, k in enumerate(distinct)}
    return np.fromiter(map(index.__getitem__, wanted), np.intp, len(wanted))


def _floats(values: list) -> tuple[np.ndarray, int]:
    """``float(v)`` of every value (C-level ``map``) and the index of the first that is not a number (its
    length when all are): only on that error path are the values looked at one by one."""
    try:
        return np.fromiter(map(float, values), float, len(values)), len(values)
    except (TypeError, ValueError):
        pass
    out = np.empty(len(values))
    for i, v in enumerate(values):
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            return out, i
    return out, len(values)  # (not reached: map(float) failed on one of them)


def _table_rows(values: Any) -> tuple[list, list, Callable[[list[str]], _Cells]]:
    """The runs and measures of the per-query rows (order of first appearance) and the function giving their
    :class:`_Cells` for the runs compared: a reader's codes as they are, else the columns as lists, coded."""
    coded = _coded_rows(values)
    if coded is not None:  # (no list of strings per column, no second coding)
        return coded.distinct("run"), coded.distinct("measure"), lambda run_list: _Cells.of_coded(coded, run_list)
    cols = _long_columns(values)
    return (list(dict.fromkeys(cols[0])), list(dict.fromkeys(cols[2])),  # (C-level: no loop per row)
            lambda run_list: _Cells.of_columns(*cols, run_list))


def _coded_rows(values: Any) -> CodedTable | None:
    """``values`` when it is a reader's :class:`~pref_eval.io.coded.CodedTable` with no summary row ``all``
    (the readers leave them out), else None: :func:`_long_columns` takes it."""
    from ..io.coded import CodedTable

    if isinstance(values, CodedTable) and "all" not in values.names["qid"]:
        return values
    return None


def _long_columns(values) -> tuple[list[str], list[str], list[str], list]:
    """run, qid, measure (as str) and value of the per-query rows (``all`` rows left out). Without a ``run``
    column, ``name`` is the run's (PyTerrier's ``pt.Experiment(..., perquery=True)``: name, qid, measure, value)."""
    run_col = "name" if "run" not in values.columns and "name" in values.columns else "run"
    cols = (run_col, "qid", "measure", "value")
    missing_cols = [c for c in cols if c not in values.columns]
    if missing_cols:
        raise UsageError(f"per-query table lacks column(s) {', '.join(missing_cols)}")
    twice = [c for c in cols if list(values.columns).count(c) > 1]
    if twice:
        raise UsageError(f"per-query table has column(s) {', '.join(twice)} twice; expected each once")
    if isinstance(values, LongTable):
        run, qid, measure, value = values.run, values.qid, values.measure, values.value
    elif not hasattr(values, "iloc"):  # (a CodedTable: its columns decoded)
        run, qid, measure, value = (values[c] for c in cols)
    else:
        from ..io.frames import bytes_as_text

        values = bytes_as_text(values, cols[:3])  # bytes ids as the readers keep them, not str's "b'...'"
        for c in cols[:3]:  # a missing id (None, NaN, pd.NA) is no run, query or measure 'None' / 'nan'
            gone = np.flatnonzero(np.asarray(values[c].isna(), dtype=bool))
            if gone.size:
                raise UsageError(f"per-query table: column {shown(c)}, row {int(gone[0]) + 1}: missing id (expected "
                                 "a string or an integer)")
            if getattr(values[c].dtype, "kind", "O") == "b":  # (True would be the run, query or measure 'True')
                raise UsageError(f"per-query table: column {shown(c)} holds booleans (expected strings or integers)")
        run, qid, measure, value = (values[c].tolist() for c in cols)
    run, qid, measure = (list(map(str, c)) for c in (run, qid, measure))  # (C-level map: no loop per row)
    summary = np.fromiter(map("all".__eq__, qid), bool, len(qid))
    if not summary.any():
        return run, qid, measure, list(value)
    seen: set[tuple[str, str]] = set()  # one summary row 'all' per (run, measure); two: a topic named 'all'
    for i in np.flatnonzero(summary).tolist():  # (the summary rows only: a few per run and measure)
        cell = (run[i], measure[i])
        if cell in seen:
            raise UsageError(f"per-query table: two rows 'all' for run {shown(cell[0])}, measure {shown(cell[1])} "
                             "(a topic named 'all' besides the summary row?); 'all' rows are summaries "
                             "and left out: rename the topic")
        seen.add(cell)
    keep = (~summary).tolist()
    return (list(itertools.compress(run, keep)), list(itertools.compress(qid, keep)),
            list(itertools.compress(measure, keep)), list(itertools.compress(value, keep)))


def _measure_block(piece):
    """The tests of one measure (one process's share of ``compare(jobs=N)``)."""
    m, X, n_used, ia, ib, a_names, b_names, tests, params, by_name = piece
    D = paired.differences(X[ia], X[ib])
    results = _run_tests(D, [t for t in tests if t != "tukey"], params)
    tukey_p = None
    if "tukey" in tests:
        from .tukey import randomised_tukey_hsd

        # the permutations are drawn over the runs in the order of their names: the same seed gives a pair the
        # same p-value whatever the order the runs come in (the file's first appearance, the command line's; the
        # same within-query permutations applied to the runs in another order give other ranges)
        inv = np.argsort(by_name)
        P = randomised_tukey_hsd(X[by_name], resamples=params["resamples"], seed=params["seed"])[np.ix_(inv, inv)]
        tukey_p = P[ia, ib]
    return _assemble(m, a_names, b_names, n_used, D, results, tests, params, tukey_p)


def compare(values: pd.DataFrame | LongTable | CodedTable, *, tests: str | Sequence[str] = DEFAULT_TESTS,
            correction: str = "holm", alpha: float = 0.05, baseline: str | None = None, resamples: int = 10_000,
            seed: int | None = 0, zero_method: str = "wilcox", wilcoxon_method: str = "auto",
            confidence: float = 0.95, ci_method: str = "BCa", complete: bool = False,
            runs: Sequence[str] | None = None, measures: Sequence[str] | None = None,
            sign_min_diff: float = 0.0,
            progress: Callable[[int, int], None] | None = None, jobs: int = 1) -> ComparisonResult:
    """Compare every pair of runs (or each run with ``baseline``) on every measure.

    ``values``: DataFrame with columns run (or PyTerrier's name), qid, measure, value (per query), or a
    :class:`LongTable` of them (no pandas import until ``records``/``means`` are read), or a per-query file's
    :class:`~pref_eval.io.coded.CodedTable` (:func:`pref_eval.io.perquery.read_per_query_table`).
    ``runs`` / ``measures`` select and order them (default: order of first
    appearance). See the module docstring for the query set, the correction
    family and the record keys. ``sign_min_diff``: the sign test's delta
    (|d| < delta counts as a tie). ``progress(done, total)`` is called after
    each measure. ``jobs``: test the measures in that many processes (every
    measure's resampling has its own seeded stream, so the result is the same).
    ``seed``: 0 .. 2^64 - 1, or None for a seed drawn from the system's entropy (the records' ``seed``
    holds the one used, so the run can be repeated).
    """
    from ..api._inputs import _compare_options  # (a Python caller's types: UsageError naming the option)

    checked = _compare_options(dict(tests=tests, correction=correction, alpha=alpha, baseline=baseline,
                                    resamples=resamples, zero_method=zero_method, wilcoxon_method=wilcoxon_method,
                                    confidence=confidence, ci_method=ci_method, complete=complete, runs=runs,
                                    measures=measures, sign_min_diff=sign_min_diff, progress=progress, jobs=jobs))
    runs, measures = checked["runs"], checked["measures"]
    params = _params(checked["tests"], correction, alpha, resamples, seed, zero_method, wilcoxon_method,
                     confidence, ci_method, sign_min_diff)
    tests = params["tests"]
    all_runs, all_measures, cells_of = _table_rows(values)
    run_list = list(runs) if runs else all_runs
    measure_list = list(measures) if measures else all_measures
    for r in run_list:
        if r not in all_runs:
            raise UsageError(f"run {shown(r)} not in the per-query values (runs: {', '.join(all_runs)})")
    for m in measure_list:
        if m not in all_measures:
            raise UsageError(f"measure {shown(m)} not in the per-query values (measures: {', '.join(all_measures)})")
    if len(run_list) < 2:
        raise UsageError("need at least two runs to compare")
    if baseline is not None and baseline not in run_list:
        raise UsageError(f"baseline {shown(baseline)} is not one of the runs ({', '.join(run_list)})")
    cells = cells_of(run_list)
    R = len(run_list)
    if baseline is None:
        ia, ib = np.triu_indices(R, 1)
    else:
        bi = run_list.index(baseline)
        ia = np.array([i for i in range(R) if i != bi], dtype=int)
        ib = np.full(ia.size, bi, dtype=int)
    a_names = [run_list[i] for i in ia]
    b_names = [run_list[i] for i in ib]
    by_name = np.array(sorted(range(R), key=lambda i: run_list[i]), dtype=int)
    blocks = []
    means = {}
    n_queries: dict[str, int] = {}
    dropped: dict[str, list[str]] = {}
    pieces = []
    for m in measure_list:
        X, used, drop = cells.matrix(m, run_list, complete)
        if X.size and np.abs(X).max() > 8e307:  # x - y can overflow to inf only beyond half the largest float
            with np.errstate(over="ignore"):
                over = ~np.isfinite(X[ia] - X[ib])
            if over.any():
                ri, qi = (int(v[0]) for v in np.nonzero(over))
                raise UsageError(f"measure {shown(m)}: the difference of runs {shown(a_names[ri])} and "
                                 f"{shown(b_names[ri])} on "
                                 f"query {shown(used[qi])} overflows (values beyond +-8e307)")
        n_queries[m] = len(used)
        dropped[m] = drop
        with np.errstate(all="ignore"):
            means[m] = X.mean(axis=1) if X.shape[1] else np.full(R, np.nan)
        pieces.append((m, X, len(used), ia, ib, a_names, b_names, tests, params, by_name))
    if jobs > 1 and len(pieces) > 1:
        from ..parallel import ordered_map

        blocks = ordered_map(_measure_block, pieces, jobs=jobs)  # each measure has its own seeded streams
        if progress is not None:
            progress(len(blocks), len(measure_list))
    else:
        for piece in pieces:
            blocks.append(_measure_block(piece))
            if progress is not None:
                progress(len(blocks), len(measure_list))
    params.update({"baseline": baseline, "complete": complete})
    return ComparisonResult(record_table=Records(blocks), mean_values=means, runs=run_list, measures=measure_list,
                            n_queries=n_queries, dropped_queries=dropped, params=params)


def compare_differences(D: np.ndarray, *, labels: Sequence[str] | None = None, measure: str = "",
                        run_a: Sequence[str] | None = None, run_b: Sequence[str] | None = None,
                     tests: str | Sequence[str] = DEFAULT_TESTS, correction: str = "holm",
                     alpha: float = 0.05, resamples: int = 10_000, seed: int | None = 0,
                     zero_method: str = "wilcox", wilcoxon_method: str = "auto",
                     confidence: float = 0.95, ci_method: str = "BCa",
                     sign_min_diff: float = 0.0) -> pd.DataFrame:
    """Test each row of a (comparisons x queries) difference matrix against 0.

    For preference measures, whose per-query value for a pair of runs is
    already a signed difference: row r = that pair's per-query values.
    ``labels`` name the rows (``"A:B"`` style names are split into run_a /
    run_b at the first ``:``; otherwise run_a = label, run_b = None), or
    give ``run_a`` and ``run_b`` lists directly.
    The differences are rounded to 12 decimals first, as :func:`compare`
    rounds ``x - y`` (a difference of 1e-17 is a tie); NaN and inf are refused.
    Correction family = all rows, per test. ``tukey`` is not available here
    (it needs the per-run values). Returns a DataFrame of records (same keys
    as :func:`compare`).
    """
    return _frame([_difference_block(D, labels, measure, run_a, run_b, dict(
        tests=tests, correction=correction, alpha=alpha, resamples=resamples, seed=seed, zero_method=zero_method,
        wilcoxon_method=wilcoxon_method, confidence=confidence, ci_method=ci_method, sign_min_diff=sign_min_diff))])


def _difference_block(D: np.ndarray, labels: Sequence[str] | None, measure: str, run_a: Sequence[str] | None,
                      run_b: Sequence[str] | None, settings: dict[str, Any]) -> list:
    """:func:`compare_differences`' records as a :class:`Records` block (a dict of columns per test)."""
    params = _params(**settings)
    tests = params["tests"]
    if "tukey" in tests:
        raise UsageError("the randomised Tukey HSD needs per-run values, not differences")
    D = np.asarray(D, dtype=float)
    if D.ndim == 1:
        D = D[None, :]
    if not np.isfinite(D).all():
        bad = D[~np.isfinite(D)][0]
        raise UsageError(f"the difference matrix contains {shown(float(bad))}; expected finite numbers")
    # rounded as compare() rounds run differences: float noise (1e-17) is a tie, not a sign or a rank; C-ordered,
    # so a row's sums (its mean, sd, t) are those of the row alone, whichever rows come with it (a pivot table's
    # matrix is Fortran-ordered)
    D = np.ascontiguousarray(np.round(D, 12))
    k = D.shape[0]
    labels = list(labels) if labels is not None else [str(i) for i in range(k)]
    if len(labels) != k:
        raise UsageError(f"{len(labels)} labels for {k} rows")
    a_names: list[str] = []
    b_names: list[str | None] = []  # None: a label without ``A:B``
    if run_a is not None and run_b is not None:
        a_names, b_names = list(run_a), list(run_b)
        if len(a_names) != k or len(b_names) != k:
            raise UsageError(f"run_a/run_b lengths differ from the {k} rows")
    else:
        for lab in labels:
            a, sep, b = str(lab).partition(":")
            a_names.append(a if sep else str(lab))
            b_names.append(b if sep else None)
    results = _run_tests(D, tests, params)
    return _assemble(measure, a_names, b_names, D.shape[1], D, results, tests, params)


def _refuse_missing_pair(measure: str, pairs: list[tuple[str, str]], qids: list[str], present: np.ndarray) -> None:
    """``complete`` on preference rows: a (pair, query) the table lacks has no value to fill (session 23).

    trec_eval ``-c`` scores a topic a run lacks on an empty ranking, and so do pref_eval.py and zelo_eval's
    preference mode (every qrels query with a relevant document, for every pair: their files lack none); the
    preference of an empty ranking over the other run's is not 0 (pref_eval.py on a run lacking a topic:
    rpp 0.1667 against one run, 0 against another), and which run lacked the query, and the other's ranking,
    are not in the table. Before session 23 the cell was 0 (a tie)."""
    i, j = (int(v[0]) for v in np.nonzero(~present))
    how = "compare with -R QRELS, or without -c" if command_running() else \
        "compare with qrels and runs, or without complete=True"
    raise UsageError(f"{option_name('complete', '-c')}: pair {shown(pairs[i][0])} / {shown(pairs[i][1])} lacks query "
                     f"{shown(qids[j])} of measure {shown(measure)}; "
                     "a preference on a topic a run lacks is scored on its empty ranking (pref_eval.py, trec_eval "
                     f"-c), a value the table does not hold: {how} (the queries every pair has)")


def _not_all(qid: pd.Series) -> np.ndarray:
    """The rows whose qid is not the summary row ``all`` (an integer qid never is): compared as Python objects,
    as pandas' ``astype(str)`` cannot hold an id that was not UTF-8 (a surrogate escape of a Latin-1 topic)."""
    return np.asarray(qid.to_numpy(dtype=object) != "all", dtype=bool)


def _pair_matrix(sub: pd.DataFrame) -> tuple[list[tuple[Any, Any]], list[Any], np.ndarray]:
    """``(pairs, qids, X)`` of one measure's rows: the pairs (run, run_b) in first-row order, the qids sorted
    (canonical order, as in _matrix), X[pair, qid] the pair's first value on that query (NaN: none), C-ordered.
    Without pandas' pivot table, whose index cannot hold an id that was not UTF-8 (a Latin-1 run tag or topic
    kept as its surrogate escape, ``zelo_compare -P`` of a Latin-1 collection's per-query file)."""
    import pandas as pd

    ra, rb, qq = (sub[c].to_numpy(dtype=object) for c in ("run", "run_b", "qid"))
    pair_code, pair_first = pd.factorize(np.fromiter(zip(ra.tolist(), rb.tolist(), strict=True), object, len(ra)))
    pairs = [tuple(p) for p in pair_first.tolist()]
    q_code, q_first = pd.factorize(qq)
    qids = sorted(q_first.tolist())
    rank = np.empty(len(qids), np.int64)
    rank[sorted(range(len(qids)), key=q_first.__getitem__)] = np.arange(len(qids))
    key = pair_code.astype(np.int64) * max(len(qids), 1) + rank[q_code]
    _, first = np.unique(key, return_index=True)  # each (pair, qid)'s first row
    X = np.full((len(pairs), len(qids)), np.nan)
    X[pair_code[first], rank[q_code[first]]] = pd.to_numeric(sub["value"], errors="coerce").to_numpy(float)[first]
    return pairs, qids, X


def compare_preferences(values: pd.DataFrame | CodedTable, *, complete: bool = False,
                        measures: Sequence[str] | None = None, runs: Sequence[str] | None = None,
                        **kwargs: Any) -> tuple[pd.DataFrame | None, dict[str, int], dict[str, list[str]]]:
    """Test per-query preference values against 0, per measure.

    ``values``: DataFrame (or a reader's :class:`~pref_eval.io.coded.CodedTable`) with columns run (= run_a),
    run_b, qid, measure, value (the runi/runj layout of ``zelo_eval -q -o tsv``), value = the
    preference of run over run_b on that query. Queries: those present for
    every pair of that measure (``complete``: every query must be there for every pair, else UsageError:
    a preference on a topic a run lacks is not 0, :func:`_refuse_missing_pair`).
    ``runs`` keeps the pairs whose two runs are both listed. Other keyword
    arguments as :func:`compare_differences`. Returns (records DataFrame,
    {measure: n_queries}, {measure: dropped qids}).
    """
    records, nq, dropped = preference_records(values, complete=complete, measures=measures, runs=runs, **kwargs)
    if isinstance(records, Records):  # (as the frames of each measure's records were put together)
        import pandas as pd

        records = pd.concat([_frame([block]) for block in records.blocks], ignore_index=True)
    return records, nq, dropped


def preference_records(values: pd.DataFrame | CodedTable, *, complete: bool = False,
                       measures: Sequence[str] | None = None, runs: Sequence[str] | None = None,
                       **kwargs: Any) -> tuple[Records | pd.DataFrame | None, dict[str, int], dict[str, list[str]]]:
    """:func:`compare_preferences` with the records of a reader's codes as a :class:`Records` (session 29:
    ``zelo_compare -P`` on the pair layout imports no pandas); a DataFrame ``values`` gives a DataFrame."""
    coded = _coded_rows(values)
    if coded is not None:  # a reader's codes (session 28: no DataFrame)
        from .compare_coded import compare_coded_preferences

        return compare_coded_preferences(coded, complete, measures, runs, kwargs)
    import pandas as pd

    frame = cast("pd.DataFrame", values.frame() if hasattr(values, "codes") else values)  # (codes with a row 'all')
    df = frame[_not_all(frame["qid"])]
    if runs:
        df = df[df["run"].isin(list(runs)) & df["run_b"].isin(list(runs))]
    vals = pd.to_numeric(df["value"], errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(vals).all():  # NaN would be read as a missing query (0 with complete), inf as a difference
        i = int(np.flatnonzero(~np.isfinite(vals))[0])
        row = df.iloc[i]
        raise UsageError(f"preference table: value {shown(row['value'])} of pair {shown(row['run'])} / "
                         f"{shown(row['run_b'])}, "
                         f"query {shown(row['qid'])}, measure {shown(row['measure'])} is not a finite number; "
                         "leave the row out for a missing value")
    all_measures = list(dict.fromkeys(df["measure"]))
    measure_list = [m for m in (measures or all_measures) if m in all_measures]
    frames: list = []
    nq: dict[str, int] = {}
    dropped: dict[str, list] = {}
    for m in measure_list:
        pairs, qids, X = _pair_matrix(df[df["measure"] == m])
        frames.append(_frame([_measure_compared(m, pairs, qids, X, complete, nq, dropped, kwargs)]))
    records = pd.concat(frames, ignore_index=True) if frames else None
    return records, nq, dropped


def _measure_compared(m: str, pairs: list[tuple[str, str]], qids: list[str], X: np.ndarray, complete: bool,
                      nq: dict[str, int], dropped: dict[str, list], kwargs: dict) -> list:
    """One measure's pair rows ``X`` (pairs x queries, NaN where a pair has no value) compared: a missing value
    refused with ``complete``, else its query left out (``nq[m]`` the queries kept, ``dropped[m]`` those left
    out); differences rounded to 12 decimals (the paired tests' noise rule)."""
    present = ~np.isnan(X)
    if complete and not present.all():
        _refuse_missing_pair(m, pairs, qids, present)
    keep = np.ones(len(qids), bool) if complete else present.all(axis=0)
    nq[m] = int(keep.sum())
    dropped[m] = [q for q, k in zip(qids, keep, strict=False) if not k]
    import inspect

    settings = {k: p.default for k, p in inspect.signature(compare_differences).parameters.items()
                if p.kind is p.KEYWORD_ONLY and k not in ("labels", "measure", "run_a", "run_b")}
    settings.update(kwargs)  # (the defaults compare_differences gives the settings not given)
    return _difference_block(np.round(X[:, keep], 12), None, m, [p[0] for p in pairs], [p[1] for p in pairs],
                             settings)

