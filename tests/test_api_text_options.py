"""Every text option of every public API function (annotation ``str``, ``str | None``, ``Sequence[str]``) is
honoured or refused (session 24, a33; test_api_flags / test_api_numbers do the same for the flags and numbers).

Found by passing ``5`` and ``"bogus"`` to each: ``evaluate_runs(output_format="bogus")`` wrote preference lines,
``label_policy``, ``fit(compat=, output_format=)``, ``pairs(compat=, output_format=)``, ``pairs_init(strategy=,
goal=)`` ran as with their defaults, ``fit(grades=, bins=)`` without ``qrels_output`` and ``pairs(queries,
docs=...)`` were ignored; an int was Python's AttributeError (``measure_set``, ``ci_method``), TypeError
("object is not iterable", ``os.fspath``) or was taken. Now a ``UsageError`` (exit 2 on the command line, which
refuses the same values by its click choices), before any output. One string of measures is names separated by
spaces (``evaluate_runs(measures="map")`` read the letters m, a, p).
"""
from __future__ import annotations

import inspect

import pytest

import pref_eval.api as api
from pref_eval.errors import UsageError
from test_api_numbers import CALLS, _call

SKIP = {"log", "inputs", "output"}  # objects / the output path (any path is an output)
# passed by test_api_numbers' CALLS
GIVEN = {("judge", "pairs"), ("judge", "queries"), ("judge", "docs"), ("compare_runs", "qrels"),
         ("compare_runs", "runs"), ("preferences", "measures"), ("pairs_init", "qrels")}


def _text_options() -> list[tuple[str, str]]:
    out = []
    for name in api.__all__:
        f = getattr(api, name)
        if not inspect.isfunction(f) or name not in CALLS or name == "pairs_pool":  # (its CALLS takes no options)
            continue
        for p in inspect.signature(f).parameters.values():
            ann = str(p.annotation).strip("'")
            if p.name in SKIP or p.default is inspect.Parameter.empty or (name, p.name) in GIVEN:
                continue
            if ann.startswith("str") or ann.startswith("Sequence[str]"):
                out.append((name, p.name))
    return out


TEXT = _text_options()


def test_the_text_options_are_found():
    assert len(TEXT) > 50
    assert {("evaluate_runs", "output_format"), ("fit", "compat"), ("pairs_init", "strategy"),
            ("agree", "levels")} <= set(TEXT)


@pytest.mark.parametrize(("func", "option"), TEXT, ids=[f"{f}.{o}" for f, o in TEXT])
def test_a_text_option_given_a_number_is_refused(func, option, tmp_path):
    with pytest.raises(UsageError):
        _call(func, tmp_path, option, 5)
    assert not (tmp_path / "out").exists()


CHOICES = [("evaluate_runs", "output_format"), ("evaluate_runs", "label_policy"), ("fit", "compat"),
           ("fit", "output_format"),
           ("pairs", "compat"), ("pairs", "output_format"), ("pairs_init", "strategy"), ("pairs_init", "goal"),
           ("fit", "grades"), ("fit", "bins")]


@pytest.mark.parametrize(("func", "option"), CHOICES, ids=[f"{f}.{o}" for f, o in CHOICES])
def test_an_unknown_choice_is_refused_naming_the_option(func, option, tmp_path):
    with pytest.raises(UsageError, match=f"^{option}"):
        _call(func, tmp_path, option, "bogus")
    assert not (tmp_path / "out").exists()


def test_pairs_refuses_candidate_files_beside_the_queries(tmp_path):
    (tmp_path / "docs").write_text("q1 d9\n")
    with pytest.raises(UsageError, match="^docs reads the candidates from files; the queries are given"):
        api.pairs([("q1", ["a", "b"])], docs=str(tmp_path / "docs"))


def test_one_string_of_measures_is_names_separated_by_spaces(tmp_path):
    args = ("qrels/dl19-sample.qrels", ["runs/bm25.run"])
    api.evaluate_runs(*args, measures="map P_10", output_format="trec", output=str(tmp_path / "one"))
    api.evaluate_runs(*args, measures=["map", "P_10"], output_format="trec", output=str(tmp_path / "two"))
    one = (tmp_path / "one").read_text()
    assert one == (tmp_path / "two").read_text() and "map " in one and "P_10 " in one


@pytest.mark.parametrize("option", ["qrels", "contributions", "groups", "group_sep"])
def test_pairs_pool_text_options_given_a_number_are_refused(option, tmp_path):
    """(``qrels=5`` was read as a file named "5", ``contributions=5`` was os.fspath's TypeError.)"""
    runs = ["runs/bm25.run", "runs/dense.run"]
    with pytest.raises(UsageError, match=f"^{option}: expected a (path|string), got int"):
        api.pairs_pool(runs, 5, output=str(tmp_path / "out"), **{option: 5})
    assert not (tmp_path / "out").exists()
