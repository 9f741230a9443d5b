"""A new user's reading of the API's own text (session 27, a37): every public name has a docstring, every function
that computes a measure or a statistic names its paper or formula (or the measure registry's page, where each
measure has both), and every ``>>>`` example in the API's docstrings runs as shown from the repository root
(the package docstring's example named ``qrels/sample.qrels``, a file the repository never shipped).

docs/api.md's own examples are checked elsewhere: its ```python blocks are signatures, compared with the functions by
tests/test_docs.py (``test_api_page_signatures_are_the_functions``, ``test_api_page_names_every_public_name``); its
shell blocks run in tests/test_docs.py's slow part (``SLOW_PAGES``).
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import os
import pkgutil
import re
from pathlib import Path

import pytest

import pref_eval.api as api

ROOT = Path(__file__).resolve().parent.parent

# the public names that compute a measure, a statistic or a fit (the others read, write, select or drive)
COMPUTING = ["evaluate", "iter_calc", "calc_aggregate", "evaluator", "Evaluator", "evaluate_runs", "preferences",
             "compare", "compare_runs", "compare_orderings", "aggregate", "fit", "pairs_init", "pairs_pool",
             "simulate", "simulate_recovery", "simulate_bandit", "simulate_adaptive", "simulate_figure3",
             "plot_matrix", "plot_scores", "plot_systems", "plot_pairs", "plot_calibration", "agree"]
_PAPER = re.compile(r"\b(?:1[89]|20)\d\d\b")  # a year: "Student 1908", "SIGIR 2022", "Bradley & Terry 1952"


def _public() -> list[tuple[str, object]]:
    return [(n, getattr(api, n)) for n in api.__all__ if inspect.isfunction(getattr(api, n))
            or inspect.isclass(getattr(api, n))]


@pytest.mark.parametrize(("name", "obj"), _public(), ids=[n for n, _ in _public()])
def test_every_public_name_has_a_docstring(name, obj):
    doc = inspect.getdoc(obj) or ""
    assert len(doc.split("\n", 1)[0]) >= 20, f"{name}: no docstring (or a first line of a few words)"


@pytest.mark.parametrize("name", COMPUTING)
def test_a_function_computing_a_measure_names_its_paper(name):
    doc = inspect.getdoc(getattr(api, name)) or ""
    assert _PAPER.search(doc) or "docs/measures.md" in doc, f"{name}: its docstring cites no paper"


def test_the_computing_list_is_public():
    assert set(COMPUTING) <= set(api.__all__)


def _api_modules() -> list[str]:
    return ["pref_eval.api", *(f"pref_eval.api.{m.name}" for m in pkgutil.iter_modules(api.__path__))]


def test_the_docstring_examples_run_from_the_repository_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    found = 0
    for module in _api_modules():
        mod = importlib.import_module(module)
        for test in doctest.DocTestFinder(exclude_empty=True).find(mod, module):
            if not test.examples:
                continue
            found += len(test.examples)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            runner.run(test, out=lambda text: None)
            assert runner.failures == 0, f"{test.name}: {runner.failures} of {len(test.examples)} examples fail"
    assert found >= 3  # the package docstring's three lines at least
    assert os.path.exists(ROOT / "qrels" / "dl19-sample.qrels")
