"""Rendering comparison results: a ranx-like report table and the records.

Formats:

* ``text`` / ``markdown`` / ``latex`` -- runs as rows (labelled a, b, c, ...),
  measures as columns, the mean over the queries used, and after each mean
  the labels of the runs that this run beats significantly (adjusted p <
  alpha and a positive mean difference) by the *first* selected test. A
  legend names the test, the correction, the family size, alpha and the
  queries used. The best mean of each column is bold in markdown and LaTeX.
* ``jsonl`` -- one JSON object per (measure, pair of runs, test), keys
  ``measure, run_a, run_b, test, n_queries, mean_diff, statistic, p_value,
  p_adjusted, correction`` (+ ``ci_low, ci_high`` for the tests that give an
  interval: t and bootstrap), then ``significant, alpha, d_z, wins, ties,
  losses`` and the test's parameters. nan is written ``null``; an infinite
  t statistic (constant non-zero differences) is written ``"inf"``/``"-inf"``.
* ``csv`` -- the same records, one row each, fixed columns; nan is empty.
"""
from __future__ import annotations

import csv
import io
import itertools
import math
import operator
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from .markup import display_width, latex_escape, ljust_display, markdown_escape
from ..stats import CORRECTION_LABELS, EXTRA_KEYS, RECORD_KEYS, TEST_LABELS
from .json_text import json_dumps, json_str

if TYPE_CHECKING:
    from ..stats.compare import ComparisonResult, Records
    from collections.abc import Callable

    import pandas as pd

FORMATS = ("text", "markdown", "latex", "csv", "jsonl")
INTERVAL_TESTS = ("t", "bootstrap")


def run_labels(n: int) -> list[str]:
    """a, b, ..., z, aa, ab, ... (spreadsheet-style column names, lower case)."""
    out = []
    for i in range(n):
        s = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            s = chr(97 + r) + s
        out.append(s)
    return out


def _json_value(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return None
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    return v


def _columns(records: Records | pd.DataFrame) -> dict[str, list]:
    """{column: values in record order} of a :class:`~pref_eval.stats.compare.Records` or a DataFrame."""
    from ..stats.compare import Records  # (not at the top: the orderings' writer imports no tests)

    if isinstance(records, Records):
        return records.columns_in_order()
    return {c: records[c].tolist() for c in records.columns}


def record_dicts(records: Records | pd.DataFrame, alpha: float) -> list[dict[str, Any]]:
    """The records as ordered dicts (the jsonl lines)."""
    out = []
    table = _columns(records)
    cols = list(table)
    for row in zip(*table.values(), strict=True):
        r = dict(zip(cols, row, strict=False))
        d: dict[str, Any] = {}
        for key in ("measure", "run_a", "run_b", "test", "n_queries", "mean_diff", "statistic",
                    "p_value", "p_adjusted", "correction"):
            d[key] = _json_value(r[key])
        if r["test"] in INTERVAL_TESTS:
            d["ci_low"] = _json_value(r["ci_low"])
            d["ci_high"] = _json_value(r["ci_high"])
        d["significant"] = bool(r["significant"])
        d["alpha"] = alpha
        for key in ("d_z", "wins", "ties", "losses"):
            d[key] = _json_value(r[key])
        for key in EXTRA_KEYS:
            v = r.get(key)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            d[key] = _json_value(v)
        out.append(d)
    return out


def _json_texts(values: list, extra: bool = False) -> list[str | None]:
    """``json_dumps(_json_value(v))`` of every value, a column at a time: one C-level map per kind of value
    (a column holds a few types: floats, ints, bools, None, strings), no Python call per value. ``extra``: None
    for a value :func:`record_dicts` leaves out of the record (None, a float NaN)."""
    return _by_kind(values, lambda kind, part: _texts_of_kind(kind, part, extra))


def _by_kind(values: list, of_kind: Callable[[type, list], list]) -> list:
    """``of_kind(kind, values of that kind)`` for each type among ``values``, put back in their order: a column
    holds a few types (floats, ints, bools, None, strings), each formatted by one C-level map."""
    n = len(values)
    kinds = list(map(type, values))
    distinct = list(dict.fromkeys(kinds))
    if len(distinct) == 1:
        return of_kind(distinct[0], values)
    code_of = {k: i for i, k in enumerate(distinct)}
    code = np.fromiter(map(code_of.__getitem__, kinds), np.intp, n)
    out = np.empty(n, dtype=object)
    for i, kind in enumerate(distinct):
        rows = np.flatnonzero(code == i)
        part = np.empty(rows.size, dtype=object)
        part[:] = of_kind(kind, list(map(values.__getitem__, rows.tolist())))
        out[rows] = part
    return out.tolist()


def _texts_of_kind(kind: type, values: list, extra: bool) -> list[str | None]:
    """:func:`_json_texts` of values of one type, in :func:`_json_value`'s order of cases."""
    if kind is type(None):
        return [None if extra else "null"] * len(values)
    if issubclass(kind, (bool, np.bool_)):
        return list(map({True: "true", False: "false"}.__getitem__, map(bool, values)))
    if issubclass(kind, (int, np.integer)):
        return list(map(str, map(int, values)))
    if issubclass(kind, (float, np.floating)):
        x = list(map(float, values))
        a = np.array(x, dtype=float)
        out = np.array(list(map(float.__repr__, x)), dtype=object)  # (json.dumps writes a float's repr)
        out[np.isnan(a)] = None if extra and issubclass(kind, float) else "null"
        out[a == np.inf] = '"inf"'
        out[a == -np.inf] = '"-inf"'
        return out.tolist()
    if issubclass(kind, str):
        distinct = list(dict.fromkeys(values))
        text = dict(zip(distinct, map(json_str, distinct), strict=True))
        return list(map(text.__getitem__, values))
    return list(map(json_dumps, values))


def records_jsonl(records: Records | pd.DataFrame, alpha: float) -> str:
    """The records as JSON lines, the bytes of ``json.dumps`` of each :func:`record_dicts` dict, written a
    column at a time (one join per key, no Python call per record)."""
    table = _columns(records)
    n = len(table["measure"])
    if not n:
        return ""
    pieces: list[Any] = []

    def key(name: str, texts: list, first: bool = False) -> None:
        pieces.append(itertools.repeat(("{" if first else ", ") + json_dumps(name) + ": ", n))
        pieces.append(texts)

    for i, name in enumerate(("measure", "run_a", "run_b", "test", "n_queries", "mean_diff", "statistic",
                              "p_value", "p_adjusted", "correction")):
        key(name, _json_texts(table[name]), first=i == 0)
    interval = np.fromiter(map(INTERVAL_TESTS.__contains__, table["test"]), bool, n)
    for name in ("ci_low", "ci_high"):  # (an interval test's only)
        pieces.append(_optional(name, _json_texts(table[name]), interval))
    key("significant", list(map({True: "true", False: "false"}.__getitem__, map(bool, table["significant"]))))
    key("alpha", [json_dumps(alpha)] * n)
    for name in ("d_z", "wins", "ties", "losses"):
        key(name, _json_texts(table[name]))
    for name in EXTRA_KEYS:
        if name in table:
            texts = _json_texts(table[name], extra=True)
            present = (np.fromiter(map(operator.is_not, texts, itertools.repeat(None)), bool, n) if None in texts
                       else np.ones(n, bool))
            pieces.append(_optional(name, texts, present))
    pieces.append(itertools.repeat("}\n", n))
    return "".join(map("".join, zip(*pieces, strict=True)))


def _optional(name: str, texts: list, present: np.ndarray) -> list[str]:
    """``, "name": text`` where ``present``, '' elsewhere."""
    out = np.full(len(texts), "", dtype=object)
    rows = np.flatnonzero(present)
    head = ", " + json_dumps(name) + ": "
    part = np.empty(rows.size, dtype=object)
    part[:] = list(map(head.__add__, map(texts.__getitem__, rows.tolist())))
    out[rows] = part
    return out.tolist()


def records_csv(records: Records | pd.DataFrame, alpha: float) -> str:
    """The records as CSV, fixed columns (:data:`RECORD_KEYS`, :data:`EXTRA_KEYS`): the bytes ``csv.writer``
    writes of each :func:`record_dicts` dict (a key it lacks or a None value: an empty field), written a column
    at a time (one C-level map per kind of value, no Python call per record; session 27)."""
    keys = [*RECORD_KEYS, *EXTRA_KEYS]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(keys)
    table = _columns(records)
    n = len(table["measure"])
    if not n:
        return buf.getvalue()
    interval = np.fromiter(map(INTERVAL_TESTS.__contains__, table["test"]), bool, n)
    pieces: list[Any] = []
    for i, name in enumerate(keys):
        if i:
            pieces.append(itertools.repeat(",", n))
        if name not in table:
            pieces.append(itertools.repeat("", n))
            continue
        texts = _csv_texts(table[name])
        if name in ("ci_low", "ci_high"):  # (an interval test's only)
            texts = np.where(interval, np.array(texts, dtype=object), "").tolist()
        pieces.append(texts)
    pieces.append(itertools.repeat("\n", n))
    return buf.getvalue() + "".join(map("".join, zip(*pieces, strict=False)))


def _csv_texts(values: list) -> list[str]:
    """The CSV field of ``_json_value(v)`` of every value (None: empty), a C-level map per kind of value."""
    return _by_kind(values, _csv_of_kind)


def _csv_of_kind(kind: type, values: list) -> list[str]:
    """:func:`_csv_texts` of values of one type, in :func:`_json_value`'s order of cases."""
    if kind is type(None):
        return [""] * len(values)
    if issubclass(kind, (bool, np.bool_)):
        return list(map({True: "True", False: "False"}.__getitem__, map(bool, values)))
    if issubclass(kind, (int, np.integer)):
        return list(map(str, map(int, values)))
    if issubclass(kind, (float, np.floating)):
        x = list(map(float, values))
        a = np.array(x, dtype=float)
        out = np.array(list(map(float.__repr__, x)), dtype=object)  # (csv writes a float's repr)
        out[np.isnan(a)] = ""
        out[a == np.inf] = "inf"
        out[a == -np.inf] = "-inf"
        return out.tolist()
    try:  # strings (and any other kind): csv.writer's field of each distinct value
        distinct = list(dict.fromkeys(values))
    except TypeError:  # (a value that cannot be hashed: each on its own)
        return list(map(_csv_field, values))
    field = dict(zip(distinct, map(_csv_field, distinct), strict=True))
    return list(map(field.__getitem__, values))


def _csv_field(value: Any) -> str:
    """What ``csv.writer(lineterminator="\\n")`` writes for ``value`` as one field of a row (quoted as needed)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([value, ""])
    return buf.getvalue()[:-2]


def format_pref_table(records: Records | pd.DataFrame, fmt: str, test: str, alpha: float, correction: str,
                      digits: int = 4) -> str:
    """Preference measures: one row per pair of runs, one column per measure,
    the mean per-query preference of run_a over run_b, ``*`` when its
    adjusted p-value (``test``) is below alpha."""
    cols = _columns(records)
    kept = [t == test for t in cols["test"]]
    rec = {k: list(itertools.compress(cols[k], kept))
           for k in ("measure", "run_a", "run_b", "mean_diff", "significant", "n_queries")}
    measures = list(dict.fromkeys(rec["measure"]))
    pairs = list(dict.fromkeys(zip(rec["run_a"], rec["run_b"], strict=False)))
    cell = {}
    for m, a, b, v, sig in zip(rec["measure"], rec["run_a"], rec["run_b"], rec["mean_diff"], rec["significant"],
                               strict=False):
        num = "nan" if not np.isfinite(v) else f"{v:.{digits}f}"
        mark = ("<sup>*</sup>" if fmt == "markdown" else "$^{*}$" if fmt == "latex" else "*") if sig else ""
        cell[(m, a, b)] = num + mark
    header = ["run_a", "run_b", *measures]
    rows = [[a, b, *(cell.get((m, a, b), "") for m in measures)] for a, b in pairs]
    nq = sorted(set(int(x) for x in rec["n_queries"]))
    legend = (f"Preference measures: mean per-query preference of run_a over run_b; * = {TEST_LABELS[test]} "
              f"of the per-query preferences against 0, two-sided, {CORRECTION_LABELS[correction]} "
              f"correction over {len(pairs)} pair(s) per measure, alpha = {alpha:g}; queries: "
              + ", ".join(str(n) for n in nq) + ".")
    if fmt == "markdown":
        out = ["| " + " | ".join(markdown_escape(h) for h in header) + " |",
               "|" + "|".join(["---", "---"] + ["---:"] * len(measures)) + "|"]
        out += ["| " + " | ".join([markdown_escape(r[0]), markdown_escape(r[1]), *r[2:]]) + " |" for r in rows]
        return "\n".join(out) + "\n\n" + markdown_escape(legend) + "\n"
    if fmt == "latex":
        esc = latex_escape
        out = ["\\begin{table}", "\\centering", "\\begin{tabular}{ll" + "r" * len(measures) + "}", "\\toprule",
               " & ".join(esc(h) for h in header) + " \\\\", "\\midrule"]
        out += [" & ".join([esc(r[0]), esc(r[1]), *r[2:]]) + " \\\\" for r in rows]
        out += ["\\bottomrule", "\\end{tabular}", "\\caption{" + esc(legend) + "}", "\\end{table}"]
        return "\n".join(out) + "\n"
    widths = [max(map(display_width, [h, *(r[i] for r in rows)])) for i, h in enumerate(header)]
    lines = ["  ".join(ljust_display(h, w) for h, w in zip(header, widths, strict=False)).rstrip()]
    lines += ["  ".join(ljust_display(c, w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows]
    return "\n".join(lines) + "\n\n" + legend + "\n"


def _beats(result: ComparisonResult, test: str) -> dict[tuple[str, str], list[str]]:
    """(measure, run) -> runs it significantly beats under ``test``."""
    rec = _columns(result.record_table)
    out: dict[tuple[str, str], list[str]] = {}
    for m, a, b, diff, t, sig in zip(rec["measure"], rec["run_a"], rec["run_b"], rec["mean_diff"], rec["test"],
                                     rec["significant"], strict=True):
        if t != test or not bool(sig):
            continue
        if diff > 0:
            out.setdefault((m, a), []).append(b)
        elif diff < 0:
            out.setdefault((m, b), []).append(a)
    return out


def _legend(result: ComparisonResult, test: str) -> list[str]:
    p = result.params
    R = len(result.runs)
    fam = R - 1 if p.get("baseline") else R * (R - 1) // 2
    corr = "tukey-hsd" if test == "tukey" else p["correction"]
    lines = [
        f"Markers: labels of the runs this run beats significantly by the {TEST_LABELS[test]}, "
        "two-sided, "
        + (f"family-wise over {fam} comparison(s) per measure by construction (no further correction)"
           if corr == "tukey-hsd" else f"{CORRECTION_LABELS[corr]} correction over {fam} comparison(s) per measure"
           if corr != "none" else "no multiple-comparison correction")
        + f", alpha = {p['alpha']:g}."
    ]
    if p.get("baseline"):
        lines.append(f"Each run is compared with the baseline {p['baseline']} only.")
    if any(t in ("randomization", "bootstrap", "tukey") for t in p["tests"]):  # the seed, whichever test marks
        lines.append(f"Resampling: {p['resamples']} resamples, seed {p['seed']}.")
    if test == "wilcoxon":
        lines.append(f"Wilcoxon: zero_method={p['zero_method']}, method={p['wilcoxon_method']}.")
    nq = sorted(set(result.n_queries.values()))
    # one text for the command and the function (the same report bytes): neither -c nor complete=True alone
    how = ("missing values counted as 0, as trec_eval -c does" if p.get("complete") else
           "queries evaluated for every run")
    if len(nq) == 1:
        lines.append(f"Queries: {nq[0]} ({how}).")
    else:
        lines.append("Queries: " + ", ".join(f"{m} {n}" for m, n in result.n_queries.items()) + f" ({how}).")
    dropped = {m: len(d) for m, d in result.dropped_queries.items() if d}
    if dropped:
        lines.append("Left out (missing for some run): "
                     + ", ".join(f"{m} {n}" for m, n in dropped.items()) + " quer(y/ies).")
    others = [t for t in p["tests"] if t != test]
    if others:
        lines.append(f"Other tests computed ({', '.join(others)}): see the jsonl or csv output format.")
    return lines


def beaten_labels(result: ComparisonResult, test: str) -> dict[tuple[str, str], str]:
    """{(measure, run): the labels of the runs it beats significantly} (the table's markers)."""
    label_of = dict(zip(result.runs, run_labels(len(result.runs)), strict=True))
    return {k: "".join(sorted((label_of[b] for b in v), key=lambda s: (len(s), s)))
            for k, v in _beats(result, test).items()}


def format_table(result: ComparisonResult, fmt: str = "text", digits: int = 4, test: str | None = None) -> str:
    """The ranx-like report table in ``text``, ``markdown`` or ``latex``."""
    test = test or result.params["tests"][0]
    labels = run_labels(len(result.runs))
    label_of = dict(zip(result.runs, labels, strict=False))
    beats = _beats(result, test)
    means = result.mean_values
    row_of = {r: i for i, r in enumerate(result.runs)}
    best = {m: np.nanmax(means[m]) if np.isfinite(means[m]).any() else None
            for m in result.measures}

    def cell(run: str, m: str) -> tuple[str, str]:
        v = means[m][row_of[run]]
        num = "nan" if not np.isfinite(v) else f"{v:.{digits}f}"
        mk = "".join(sorted((label_of[b] for b in beats.get((m, run), [])), key=lambda s: (len(s), s)))
        is_best = best[m] is not None and np.isfinite(v) and f"{v:.{digits}f}" == f"{best[m]:.{digits}f}"
        if fmt == "markdown":
            num = f"**{num}**" if is_best else num
            return num, (f"<sup>{mk}</sup>" if mk else "")
        if fmt == "latex":
            num = f"\\textbf{{{num}}}" if is_best else num
            return num, (f"$^{{{mk}}}$" if mk else "")
        return num, (f"^{mk}" if mk else "")

    legend = _legend(result, test)
    rows = [[label_of[r], r] + ["".join(cell(r, m)) for m in result.measures] for r in result.runs]
    header = ["#", "run", *result.measures]
    if fmt == "markdown":
        out = ["| " + " | ".join(markdown_escape(h) for h in header) + " |",
               "|" + "|".join(["---", "---"] + ["---:"] * len(result.measures)) + "|"]
        out += ["| " + " | ".join([r[0], markdown_escape(r[1]), *r[2:]]) + " |" for r in rows]
        return "\n".join(out) + "\n\n" + "\n".join(markdown_escape(x) for x in legend) + "\n"
    if fmt == "latex":
        esc = latex_escape
        out = ["\\begin{table}", "\\centering",
               "\\begin{tabular}{ll" + "r" * len(result.measures) + "}", "\\toprule",
               " & ".join(["\\#", "Run", *(esc(m) for m in result.measures)]) + " \\\\", "\\midrule"]
        for r in rows:
            out.append(" & ".join([r[0], esc(r[1]), *r[2:]]) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}", "\\caption{" + esc(" ".join(legend)) + "}", "\\end{table}"]
        return "\n".join(out) + "\n"
    if fmt != "text":
        raise ValueError(f"unknown table format {fmt!r}")
    widths = [max(map(display_width, [h, *(r[i] for r in rows)])) for i, h in enumerate(header)]
    lines = ["  ".join(ljust_display(h, w) for h, w in zip(header, widths, strict=False)).rstrip()]
    for r in rows:
        lines.append("  ".join(ljust_display(c, w) for c, w in zip(r, widths, strict=False)).rstrip())
    return "\n".join(lines) + "\n\n" + "\n".join(legend) + "\n"


_RBO_TIES_LEGEND = {
    "a": " rbo_ext ties=a: expected RBO over random tie-breaking (Corsi & Urbano 2024).",
    "b": " rbo_ext ties=b: RBO^b, corrected for the ties (Corsi & Urbano 2024).",
    "w": " rbo_ext ties=w: tied systems share a rank (Webber et al. 2010; Corsi & Urbano 2024).",
    "name": " rbo_ext ties=name: ties broken by system name.",
}


def format_orderings(res: dict, fmt: str, name_a: str, name_b: str, digits: int = 4) -> str:
    """Text, markdown, jsonl or csv rendering of :func:`compare_orderings` output."""
    def f(v: float) -> str:
        return "nan" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"

    if fmt == "jsonl":
        d = {k: _json_value(v) if not isinstance(v, list) else v for k, v in res.items()}
        d["swapped"] = [list(p) for p in res["swapped"]]
        d = {"a": name_a, "b": name_b, **d}
        return json_dumps(d) + "\n"
    rows = [("systems", str(res["n_systems"])),
            ("kendall_tau_b", f(res["kendall_tau_b"])),
            ("kendall_tau_b_p", f"{res['kendall_p']:.3g}" if np.isfinite(res["kendall_p"]) else "nan"),
            ("tau_ap(B|A)", f(res["tau_ap_b_given_a"])),
            ("tau_ap(A|B)", f(res["tau_ap_a_given_b"])),
            ("tau_ap_b", f(res["tau_ap_sym"]))]
    if "rbo" in res and "rbo_min" in res:
        tag = f"(p={res['rbo_p']:g},ties={res['rbo_ties']},prefix)"
        rows += [(f"rbo_{form}{tag}", f(res["rbo" if form == "ext" else f"rbo_{form}"]))
                 for form in ("ext", "min", "max", "res")]
    elif "rbo_depth" in res:
        tag = f"(p={res['rbo_p']:g},ties={res['rbo_ties']},depth={res['rbo_depth']})"
        rows += [(f"rbo_ext{tag}", f(res["rbo"])), (f"rbo_sum{tag}", f(res["rbo_sum"]))]
    elif "rbo" in res:
        rows.append((f"rbo_ext(p={res['rbo_p']:g},ties={res['rbo_ties']})", f(res["rbo"])))
    rows.append(("swapped_pairs", f"{len(res['swapped'])} of {res['n_pairs']}"))
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["statistic", "value"])
        for k, v in rows:
            w.writerow([k, v])
        for s, t in res["swapped"]:
            w.writerow(["swapped", f"{s} > {t}"])
        return buf.getvalue()
    lines = [f"A: {name_a}", f"B: {name_b}"]
    if res["only_a"] or res["only_b"]:
        lines.append(f"left out: {len(res['only_a'])} system(s) only in A, {len(res['only_b'])} only in B")
    if fmt == "markdown":
        lines = [ln + "  " for ln in lines] + ["", "| statistic | value |", "|---|---:|"]
        lines += [f"| {k} | {v} |" for k, v in rows]
    else:
        width = max(display_width(k) for k, _ in rows)
        lines += [f"{ljust_display(k, width)}  {v}" for k, v in rows]
    if res["swapped"]:
        lines.append("")
        lines.append("swapped pairs (A orders the first above the second, B the reverse):")
        lines += [f"  {s} > {t}" for s, t in res["swapped"]]
    lines.append("")
    lines.append("tau_ap(B|A): B evaluated against A as the reference (Yilmaz et al. 2008); "
                 "ties: expected value over random tie-breaking; tau_ap_b: symmetric tie-aware "
                 "version (Urbano & Marrero 2017)."
                 + (_RBO_TIES_LEGEND.get(res.get("rbo_ties", ""), "")
                    if res["ties_a"] or res["ties_b"] or res.get("rbo_lists_tied") else "")
                 + (f" rbo prefix: the whole orderings (A {res['rbo_len_a']} systems, B {res['rbo_len_b']}) as the "
                    "tops of longer rankings (Webber et al. 2010, section 4): ext extrapolates their agreement, "
                    "min and max bound RBO, res = max - min." if "rbo_min" in res else ""))
    return "\n".join(lines) + "\n"


def write_wide_csv(out: TextIO, result: ComparisonResult, test: str = "t") -> None:
    """``zelo_eval -o wide-csv``: one row per run (label, run, then per measure its mean and the labels of
    the runs it beats by ``test``'s adjusted p-values), means as shortest round-trip floats."""
    import csv

    labels = run_labels(len(result.runs))
    beats = beaten_labels(result, test)
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["label", "run", *(c for m in result.measures for c in (m, f"{m} beats"))])
    for i, (lab, run) in enumerate(zip(labels, result.runs, strict=True)):
        w.writerow([lab, run, *(c for m in result.measures
                                for c in (repr(float(result.mean_values[m][i])), beats.get((m, run), "")))])
