"""Every numeric option of every public API function is checked as the command line checks the same flag:
its type (a bool is not an integer, ``"3"`` is not a number, ``2.5`` is not an integer), its range (the
click ``IntRange`` / ``Finite`` range of the flag in ``pref_eval/cli/*.py``), NaN and infinities refused --
a :class:`UsageError` naming the option, raised before any output is written. The options are found from
the signatures (annotation ``int``, ``int | None``, ``float``, ``float | None``), so a new one fails
:func:`test_every_numeric_option_has_its_range` until its range is written here; the ranges themselves are
compared with the command lines' click options in :func:`test_the_ranges_are_the_command_lines`."""
from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pref_eval.api as api
from conftest import ROOT
from pref_eval.errors import UsageError

NUMERIC = {"int": int, "int | None": int, "float": float, "float | None": float}


def _numeric() -> list[tuple[str, str]]:
    out = []
    for name in api.__all__:
        f = getattr(api, name)
        if inspect.isfunction(f):
            out += [(name, p.name) for p in inspect.signature(f).parameters.values()
                    if str(p.annotation).strip("'") in NUMERIC]
    return out


FOUND = _numeric()

# (lo, hi, lo_open, hi_open) of each option: the range of the command line's flag (None: unbounded)
GE0, GE1, ANY = (0, None, False, False), (1, None, False, False), (None, None, False, False)
SEED = (0, 2**64 - 1, False, False)  # pref_eval.seeds.SEED_MAX
PROB = (0, 1, True, True)           # (0, 1): confidence, alpha, delta
FRACTION = (0, 1, True, False)      # (0, 1]: query_fraction, damping
DIGITS = (0, 17, False, False)
RANGES: dict[tuple[str, str], tuple] = {
    ("evaluate", "level"): ANY, ("evaluate", "depth"): GE1, ("evaluate", "jobs"): GE1,
    ("evaluate_runs", "binary"): ANY, ("evaluate_runs", "floor"): ANY, ("evaluate_runs", "level"): ANY,
    ("evaluate_runs", "depth"): GE1, ("evaluate_runs", "topk"): GE1, ("evaluate_runs", "query_fraction"): FRACTION,
    ("evaluate_runs", "label_fraction"): FRACTION, ("evaluate_runs", "samples"): GE1,
    ("evaluate_runs", "seed"): SEED, ("evaluate_runs", "jobs"): GE1, ("evaluate_runs", "digits"): DIGITS,
    ("preferences", "binary"): ANY, ("preferences", "floor"): ANY,
    ("compare_runs", "level"): ANY, ("compare_runs", "binary"): ANY, ("compare_runs", "floor"): ANY,
    ("compare_runs", "depth"): GE1, ("compare_runs", "resamples"): GE1, ("compare_runs", "seed"): SEED,
    ("compare_runs", "alpha"): PROB, ("compare_runs", "sign_min_diff"): GE0, ("compare_runs", "confidence"): PROB,
    ("compare_runs", "digits"): DIGITS, ("compare_runs", "jobs"): GE1,
    ("compare_orderings", "rbo_p"): (0, 1, False, True), ("compare_orderings", "digits"): DIGITS,
    ("compare_orderings", "rbo_depth"): GE1,
    ("aggregate", "query_fraction"): FRACTION, ("aggregate", "num_samples"): GE1, ("aggregate", "seed"): SEED,
    ("aggregate", "mc4_steps"): GE1, ("aggregate", "damping"): FRACTION,
    ("fit", "prior"): GE0, ("fit", "weight_power"): GE0, ("fit", "tol"): (0, None, True, False),
    ("fit", "max_iter"): GE1, ("fit", "elo_offset"): ANY, ("fit", "jobs"): GE1,
    ("pairs", "cycles"): GE1, ("pairs", "seed"): SEED, ("pairs", "limit"): GE1, ("pairs", "depth"): GE1,
    **{("pairs_init", n): GE1 for n in ("k", "max_per_pair", "cycles", "batch", "window", "depth")},
    ("pairs_pool", "depth"): GE1, ("pairs_pool", "level"): ANY,
    ("pairs_init", "p"): (2, None, False, False), ("pairs_init", "f"): (3, None, False, False),
    ("pairs_init", "seed"): SEED, ("pairs_init", "lead"): (0.5, None, False, False),
    ("simulate", "reps"): GE1, ("simulate", "k"): GE1, ("simulate", "p"): (2, None, False, False),
    ("simulate", "f"): (3, None, False, False), ("simulate", "seed"): SEED,
    ("simulate_recovery", "trials"): GE1, ("simulate_recovery", "seed"): SEED,
    ("simulate_recovery", "window"): GE1, ("simulate_recovery", "batch"): GE1,
    ("simulate_bandit", "reps"): GE1, ("simulate_bandit", "budget"): GE1, ("simulate_bandit", "seed"): SEED,
    ("simulate_bandit", "alpha"): (0, None, True, False), ("simulate_bandit", "batch"): (2, None, False, False),
    ("simulate_bandit", "c"): GE0, ("simulate_bandit", "delta"): PROB,
    ("simulate_adaptive", "reps"): GE1, ("simulate_adaptive", "seed"): SEED,
    ("simulate_adaptive", "lead"): (0.5, None, False, False), ("simulate_adaptive", "batch"): GE1,
    ("simulate_adaptive", "max_per_pair"): GE1, ("simulate_adaptive", "max_per_match"): GE1,
    ("simulate_adaptive", "lives"): GE1, ("simulate_adaptive", "final"): GE1,
    ("simulate_adaptive", "final_lead"): (0.5, None, False, False),
    ("simulate_figure3", "reps"): GE1, ("simulate_figure3", "seed"): SEED,
    ("plot_matrix", "prior"): GE0,
    ("plot_scores", "max_queries"): GE1, ("plot_scores", "top"): GE1, ("plot_scores", "confidence"): PROB,
    ("plot_systems", "confidence"): PROB,
    ("judge", "concurrency"): (1, 4096, False, False), ("judge", "rpm"): (0, None, True, False),
    ("judge", "retries"): (0, 100, False, False), ("judge", "timeout"): (0, None, True, False),
    ("judge", "backoff"): GE0, ("judge", "budget_requests"): GE0, ("judge", "max_cost"): GE0,
    ("judge", "seed"): SEED,
    ("agree", "resamples"): GE0, ("agree", "seed"): SEED, ("agree", "confidence"): PROB, ("agree", "buckets"): GE1,
    ("agree", "consensus_min"): GE1, ("agree", "prior"): (0, None, True, False), ("agree", "top_k"): GE1,
    ("agree", "alpha"): PROB, ("agree", "digits"): DIGITS, ("agree", "judged_depth"): GE1,
}

# the command line's flag of an option, where its click parameter is named differently or lives elsewhere:
# (script, subcommand or None, click parameter name); every other option: the function's command, same name
COMMANDS = {
    "evaluate": ("zelo_eval", None), "evaluate_runs": ("zelo_eval", None), "preferences": ("zelo_eval", None),
    "compare_runs": ("zelo_compare", None), "compare_orderings": ("zelo_compare", None),
    "aggregate": ("pref_aggregate", None), "fit": ("zelo_fit", None), "pairs": ("zelo_pairs", "cycles"),
    "pairs_init": ("zelo_pairs", "init"), "pairs_pool": ("zelo_pairs", "pool"),
    "simulate": ("zelo_simulate", "tournament"),
    "simulate_recovery": ("zelo_simulate", "recovery"), "simulate_bandit": ("zelo_simulate", "bandit"),
    "simulate_adaptive": ("zelo_simulate", "adaptive"), "simulate_figure3": ("zelo_simulate", "figure3"),
    "plot_matrix": ("zelo_plot", "matrix"), "plot_scores": ("zelo_plot", "scores"),
    "plot_systems": ("zelo_plot", "systems"), "judge": ("zelo_judge", "run"), "agree": ("zelo_agree", None),
}


def test_the_options_are_found() -> None:
    assert len(FOUND) > 90
    assert {("fit", "prior"), ("pairs", "cycles"), ("simulate_recovery", "trials"), ("judge", "concurrency"),
            ("simulate_figure3", "reps"), ("agree", "top_k")} <= set(FOUND)


def test_every_numeric_option_has_its_range() -> None:
    assert sorted(set(FOUND) - set(RANGES)) == [], "a new numeric option: give it its command line's range here"
    assert sorted(set(RANGES) - set(FOUND)) == []


# ---- valid inputs: tiny ones, every output to a file under tmp_path --------------------------------------------

Q, RUNS, JUDGE = str(ROOT / "qrels/dl19-sample.qrels"), [str(ROOT / "runs/bm25.run"), str(ROOT / "runs/dense.run")], \
    str(ROOT / "judgments/dl19-sample.judge")
STATS = ROOT / "tests" / "data" / "stats"
A, B = str(ROOT / "judgments/dl21-crowd-sample.txt"), str(ROOT / "judgments/dl21-gpt4o-sample.human")


def _tiny(tmp: Path) -> dict[str, str]:
    (tmp / "q").write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 a 1\n2 0 d 1\n")
    (tmp / "r1").write_text("1 Q0 a 1 3 r1\n1 Q0 b 2 2 r1\n1 Q0 c 3 1 r1\n2 Q0 d 1 2 r1\n2 Q0 a 2 1 r1\n")
    (tmp / "r2").write_text("1 Q0 c 1 3 r2\n1 Q0 b 2 2 r2\n1 Q0 a 3 1 r2\n2 Q0 a 1 2 r2\n2 Q0 d 2 1 r2\n")
    (tmp / "m").write_text("0.5 0.75 0.75\n0.25 0.5 0.5\n0.25 0.5 0.5\n")
    (tmp / "pairs.tsv").write_text("q1\td1\td2\nq1\td2\td3\n")
    (tmp / "qs.tsv").write_text("q1\tquery one\n")
    (tmp / "ds.tsv").write_text("d1\tdoc one\nd2\tdoc two\nd3\tdoc three\n")
    return {k: str(tmp / k) for k in ("q", "r1", "r2", "m", "pairs.tsv", "qs.tsv", "ds.tsv")}


def _image(out: str) -> Any:
    return api.PlotImage(out, 4.0, 3.0, output_format="svg")


CALLS: dict[str, Callable[[dict, str], Callable[..., Any]]] = {
    "evaluate": lambda t, o: lambda **kw: api.evaluate(t["q"], [t["r1"]], ["P@2", "map"], **kw),
    "evaluate_runs": lambda t, o: lambda **kw: api.evaluate_runs(t["q"], [t["r1"], t["r2"]],
                                                                 **{"measures": ["rpp"], "output": o, **kw}),
    "preferences": lambda t, o: lambda **kw: api.preferences(t["q"], [t["r1"], t["r2"]], ["rpp"], **kw),
    "compare_runs": lambda t, o: lambda **kw: api.compare_runs(qrels=t["q"], runs=[t["r1"], t["r2"]],
                                                               **{"measures": ["map"], "resamples": 2,
                                                                  "output": o, **kw}),
    "compare_orderings": lambda t, o: lambda **kw: api.compare_orderings(str(STATS / "order_a.tsv"),
                                                                         str(STATS / "order_b.txt"), output=o, **kw),
    "aggregate": lambda t, o: lambda **kw: api.aggregate(t["prefs"], **kw),
    "fit": lambda t, o: lambda **kw: api.fit(JUDGE, output=o, **kw),
    "pairs": lambda t, o: lambda **kw: api.pairs(None if "run" in kw else [("q1", ["a", "b", "c"])], output=o, **kw),
    "pairs_init": lambda t, o: lambda **kw: api.pairs_init(o, t["q"], **kw),
    "pairs_pool": lambda t, o: lambda **kw: api.pairs_pool(  # (-l counts --contributions' relevant: needs both)
        [t["r1"], t["r2"]], **{"output": o, "depth": 1, **({"qrels": t["q"], "contributions": f"{o}.c"}
                                                            if "level" in kw else {}), **kw}),
    "simulate": lambda t, o: lambda **kw: api.simulate(t["m"], **{"reps": 1, "output": o, **kw}),
    "simulate_recovery": lambda t, o: lambda **kw: api.simulate_recovery(
        **{"ks": (4,), "sigma": (1.0,), "cycles": (1,), "trials": 1, "output": o, **kw}),
    "simulate_bandit": lambda t, o: lambda **kw: api.simulate_bandit(
        "dts", **{"matrix": t["m"], "reps": 1, "budget": 5, "output": o, **kw}),
    "simulate_adaptive": lambda t, o: lambda **kw: api.simulate_adaptive(
        **{"matrix": t["m"], "reps": 1, "output": o, **kw}),
    "simulate_figure3": lambda t, o: lambda **kw: api.simulate_figure3(**{"reps": 1, "algorithms": ["tournament"],
                                                                          "output": o, **kw}),
    "plot_matrix": lambda t, o: lambda **kw: api.plot_matrix([JUDGE], _image(o), **kw),
    "plot_scores": lambda t, o: lambda **kw: api.plot_scores(t["scores"], _image(o), **kw),
    "plot_systems": lambda t, o: lambda **kw: api.plot_systems(
        api.PlotValues(qrels=t["q"], runs=(t["r1"], t["r2"]), measure="map"), _image(o), **kw),
    "judge": lambda t, o: lambda **kw: api.judge(t["pairs.tsv"], judges=["cmd:while read l; do echo 0.5; done"],
                                                 queries=t["qs.tsv"], docs=t["ds.tsv"], store=o + ".sqlite",
                                                 output=o, dry_run=True, **kw),
    "agree": lambda t, o: lambda **kw: api.agree([A, B], **{"levels": ("pair",), "resamples": 2, "output": o,
                                                            "output_format": "tsv", **kw}),
}

# an option that applies only together with another one (as on the command line)
WITH = {
    ("evaluate_runs", "level"): {"measures": ["map"], "output_format": "trec"},
    ("evaluate_runs", "depth"): {"measures": ["map"], "output_format": "trec"},
    ("evaluate_runs", "jobs"): {"measures": ["map"], "output_format": "trec"},
    ("evaluate_runs", "digits"): {"measures": ["map"], "output_format": "topics-text"},
    ("compare_runs", "binary"): {"measures": ["rpp"]}, ("compare_runs", "floor"): {"measures": ["rpp"]},
    ("simulate_recovery", "window"): {"strategy": "adaptive"}, ("simulate_recovery", "batch"): {"strategy": "adaptive"},
    ("simulate_bandit", "batch"): {"algorithm": "mergedts"}, ("simulate_bandit", "c"): {"algorithm": "mergedts"},
    ("simulate_bandit", "delta"): {"algorithm": "round-efficient"},
    **{("pairs_init", n): {"strategy": "adaptive"} for n in ("lead", "max_per_pair")},
    **{("pairs_init", n): {"strategy": "adaptive", "goal": "ranking"} for n in ("cycles", "batch", "window")},
    ("pairs_init", "depth"): {"strategy": "adaptive", "goal": "ranking", "run": "R1"},
    ("plot_matrix", "prior"): {"qid": "1037798"},
    # zelo_agree's level-specific options are refused without a level that reads them
    ("agree", "buckets"): {"levels": ("calibration",)}, ("agree", "top_k"): {"levels": ("document",)},
    ("agree", "prior"): {"levels": ("document",)},
    ("agree", "alpha"): {"levels": ("system",), "runs": "DL21", "measure": "P.5"},
    ("agree", "judged_depth"): {"levels": ("system",), "runs": "DL21", "measure": "P.5"},
    ("agree", "digits"): {"output_format": "text"},  # refused with tsv/csv/jsonl since session 22 (every digit)
    ("pairs", "depth"): {"run": "R1"},
    ("judge", "max_cost"): {"prices": {"cmd:while read l; do echo 0.5; done": (0.0, 0.0)}},
    # p > k, f > p: the smallest p and f with the smallest k (the tournament's own rule)
    ("pairs_init", "p"): {"k": 1}, ("pairs_init", "f"): {"k": 1, "p": 2},
    ("simulate", "p"): {"k": 1}, ("simulate", "f"): {"k": 1, "p": 2},
}


def _call(func: str, tmp_path: Path, option: str, value: Any, missing: bool = False) -> tuple[Path, Any]:
    """Call ``func`` with ``option=value`` on valid inputs (``missing``: on input paths that do not exist)."""
    t = _tiny(tmp_path)
    if missing:
        t = {k: str(tmp_path / "missing" / k) for k in [*t, "scores", "prefs"]}
    out = tmp_path / "out"
    if missing:
        pass
    elif func == "plot_scores":
        t["scores"] = str(tmp_path / "z.tsv")
        api.fit(JUDGE, output=t["scores"])
    extra = dict(WITH.get((func, option), {}))
    if extra.get("run") == "R1":
        extra["run"] = t["r1"]
        t["q"] = None  # type: ignore[assignment]
    if extra.get("runs") == "DL21" and missing:
        extra["runs"] = [str(tmp_path / "missing" / "r1"), str(tmp_path / "missing" / "r2")]
    if extra.get("runs") == "DL21":  # two runs over the judged documents of A (zelo_agree's system level)
        docs: dict[str, list[str]] = {}
        for line in Path(A).read_text().splitlines():
            q, a, b, _ = line.split()
            docs.setdefault(q, [])
            docs[q] += [d for d in (a, b) if d not in docs[q]]
        extra["runs"] = []
        for k in (1, -1):
            path = tmp_path / f"dl21.{k}.run"
            path.write_text("".join(f"{q} Q0 {d} {r + 1} {100 - r} s{k}\n" for q, ds in docs.items()
                                    for r, d in enumerate(ds[::k][:10])))
            extra["runs"].append(str(path))
    if func == "aggregate" and not missing:  # a preference file of the tiny runs, as zelo_eval -q writes it
        t["prefs"] = str(tmp_path / "prefs.jsonl")
        api.evaluate_runs(t["q"], [t["r1"], t["r2"]], per_query=True, output=t["prefs"])
    algorithm = extra.pop("algorithm", None)
    f = CALLS[func](t, str(out))
    if algorithm:  # simulate_bandit's first argument
        return out, api.simulate_bandit(algorithm, **{"matrix": t["m"], "reps": 1, "budget": 5, "output": str(out),
                                                      **extra, option: value})
    return out, f(**extra, **{option: value})


def _bad(func: str, option: str) -> list[Any]:
    lo, hi, lo_open, hi_open = RANGES[(func, option)]
    kind = NUMERIC[str(inspect.signature(getattr(api, func)).parameters[option].annotation).strip("'")]
    bad: list[Any] = ["3", True, [1], np.array([1]), math.nan, math.inf]
    if "None" not in str(inspect.signature(getattr(api, func)).parameters[option].annotation):
        bad.append(None)
    if kind is int:
        bad += [2.5, np.float64(3.0)]
        bad += [] if lo is None else [lo - 1]
        bad += [] if hi is None else [hi + 1]
    else:
        bad += [] if lo is None else [lo] if lo_open else [lo - 0.001]
        bad += [] if hi is None else [hi] if hi_open else [hi + 0.001]
    return bad


def _label(option: str) -> str:
    """The name the message starts with: the option (``seed``), or the flag for the messages tests
    have matched since before (``--digits``, ``--budget-requests``)."""
    return "(--)?" + re.escape(option).replace("_", "[-_]")


BAD = [(f, o, v) for f, o in sorted(RANGES) for v in _bad(f, o)]


@pytest.mark.parametrize(("func", "option", "bad"), BAD, ids=[f"{f}-{o}-{v!r}" for f, o, v in BAD])
def test_a_bad_number_is_refused_before_any_output(tmp_path: Path, func: str, option: str, bad: Any) -> None:
    with pytest.raises(UsageError, match=rf"^{_label(option)}: expected (an integer|a finite number)\b"):
        _call(func, tmp_path, option, bad)
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.sqlite").exists()


@pytest.mark.parametrize(("func", "option"), sorted(RANGES))
def test_a_bad_number_is_refused_before_any_input_is_read(tmp_path: Path, monkeypatch, func: str,
                                                          option: str) -> None:
    """Every input path missing: the bad option is reported, not the missing file (InputError)."""
    import sys

    here = sys.modules[__name__]
    for name in ("JUDGE", "A", "B"):
        monkeypatch.setattr(here, name, str(tmp_path / "missing" / name))
    monkeypatch.setattr(here, "STATS", tmp_path / "missing")
    with pytest.raises(UsageError, match=rf"^{_label(option)}: expected "):
        _call(func, tmp_path, option, "3", missing=True)


def _good(func: str, option: str) -> list[Any]:
    lo, hi, lo_open, hi_open = RANGES[(func, option)]
    kind = NUMERIC[str(inspect.signature(getattr(api, func)).parameters[option].annotation).strip("'")]
    step = 1 if kind is int else 1e-3
    good = [] if lo is None else [lo + step if lo_open else lo]
    good += [] if hi is None else [hi - step if hi_open else hi]
    if lo is None and hi is None:  # unbounded: a negative and a positive value
        good = [-3, 3] if kind is int else [-2.5, 1.5]
    if kind is float and lo is not None and not lo_open and float(lo).is_integer():
        good.append(np.float32(lo))  # numpy scalars are numbers
    if kind is int and lo is not None:
        good.append(np.int64(lo))
    return good


GOOD = [(f, o, v) for f, o in sorted(RANGES) for v in _good(f, o)]


@pytest.mark.parametrize(("func", "option", "good"), GOOD, ids=[f"{f}-{o}-{v!r}" for f, o, v in GOOD])
def test_a_number_at_an_end_of_the_range_is_taken(tmp_path: Path, func: str, option: str, good: Any) -> None:
    _call(func, tmp_path, option, good)


def test_the_ranges_are_the_command_lines() -> None:
    """Each range above is the one of the command line's click option for the same flag (IntRange,
    FloatRange, Finite: min, max, min_open, max_open); an option the command line declares as a plain
    ``int`` / ``float`` (``-l``, ``-b``) is unbounded."""
    import importlib

    import click

    from pref_eval.cli.options import COMMANDS as TABLE

    modules = {s: c.module for c in TABLE for s in c.scripts}
    seen = 0
    for (func, option), (lo, hi, lo_open, hi_open) in RANGES.items():
        script, sub = COMMANDS[func]
        cmd = importlib.import_module(modules[script]).command
        if sub is not None or isinstance(cmd, click.Group):
            cmd = cmd.commands[sub or "run"]
        params = {p.name: p for p in cmd.params}
        p = params.get(option)
        if p is None:
            continue
        ty = p.type
        if hasattr(ty, "item"):  # NumberList
            ty = ty.item
        if isinstance(ty, click.types._NumberRangeBase):
            got = (ty.min, ty.max, ty.min_open, ty.max_open)
        else:
            got = (None, None, False, False)
        assert got == (lo, hi, lo_open, hi_open), (func, option)
        seen += 1
    assert seen > 60


# the numbers of the plots' NamedTuple arguments: PlotImage (every plot) and PlotValues (systems, pairs)
FIELDS = {("PlotImage", "width"): (1, 100, False, False), ("PlotImage", "height"): (1, 100, False, False),
          ("PlotImage", "dpi"): (10, 1200, False, False), ("PlotValues", "alpha"): PROB,
          ("PlotValues", "seed"): SEED}
FIELD_FLAGS = {("PlotImage", "width"): "width", ("PlotImage", "height"): "height", ("PlotImage", "dpi"): "dpi",
               ("PlotValues", "alpha"): "alpha", ("PlotValues", "seed"): "seed"}


def test_every_numeric_field_of_the_plot_arguments_has_its_range() -> None:
    import click

    from pref_eval.cli.plot import command

    found = {(cls, f) for cls in ("PlotImage", "PlotValues")
             for f, a in getattr(api, cls).__annotations__.items()
             if getattr(a, "__forward_arg__", str(a)).strip("'") in NUMERIC}
    assert found == set(FIELDS)
    params = {p.name: p.type for p in command.commands["systems"].params}
    for key, (lo, hi, lo_open, hi_open) in FIELDS.items():
        ty = params[FIELD_FLAGS[key]]
        assert isinstance(ty, click.types._NumberRangeBase)
        assert (ty.min, ty.max, ty.min_open, ty.max_open) == (lo, hi, lo_open, hi_open), key


def _plot_systems(tmp_path: Path, image: dict, values: dict) -> Any:
    t = _tiny(tmp_path)
    v = api.PlotValues(**{"qrels": t["q"], "runs": (t["r1"], t["r2"]), "measure": "map", **values})
    return api.plot_systems(v, api.PlotImage(**{"output": str(tmp_path / "out"), "width": 4.0, "height": 3.0,
                                                "output_format": "svg", **image}))


@pytest.mark.parametrize(("cls", "field"), sorted(FIELDS))
def test_a_bad_number_in_the_plot_arguments_is_refused(tmp_path: Path, cls: str, field: str) -> None:
    lo, hi, lo_open, hi_open = FIELDS[(cls, field)]
    kind = int if field == "seed" else float
    bad: list[Any] = ["3", True, [1], math.nan, math.inf, None, lo if lo_open else lo - 1]
    bad += [] if hi is None else [hi if hi_open else hi + 1]
    bad += [2.5] if kind is int else []
    for v in bad:
        with pytest.raises(UsageError, match=rf"^{field}: expected "):
            _plot_systems(tmp_path, *(({field: v}, {}) if cls == "PlotImage" else ({}, {field: v})))
        assert not (tmp_path / "out").exists()
    good = [lo + 1e-3 if lo_open else lo] + ([] if hi is None else [hi - 1e-3 if hi_open else hi])
    for v in good:
        _plot_systems(tmp_path, *(({field: v}, {}) if cls == "PlotImage" else ({}, {field: v})))
