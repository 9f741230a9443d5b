"""The developers' guide's rules over the whole package, read from the source (no import, so no start-up cost):

* a function that computes a statistic gives its formula and its paper in its docstring (the measures give theirs
  in the registry: tests/test_measures_registry.py; the API's functions: tests/test_api_docstrings.py);
* no module-level caches: no ``functools.cache`` / ``lru_cache``, no module-level dict, list or set filled by a
  function (the measure registry is filled at import by its decorators), no ``global`` but the one counter that
  is process state, not a cache;
* nothing built at import time that is only needed on use: regular expressions are compiled on use (``re``'s own
  cache), docs/architecture.md.

``assert`` in the package is ruff's S101 (pyproject.toml); public functions' type hints are tools/missing_hints.py
(tests/test_missing_hints.py).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "pref_eval"

# functions that compute a statistic: (module, function). Each docstring names a paper (a year) and gives a formula
STATISTICS = [
    ("stats/paired.py", "t_test"), ("stats/paired.py", "wilcoxon_test"), ("stats/paired.py", "sign_p_value"),
    ("stats/paired.py", "sign_test"), ("stats/paired.py", "randomization_test"), ("stats/paired.py", "bootstrap_test"),
    ("stats/signed_rank.py", "wilcoxon"), ("stats/correction.py", "adjust"), ("stats/effect.py", "effect_sizes"),
    ("stats/tukey.py", "randomised_tukey_hsd"),
    ("stats/orderings.py", "kendall_tau_b"), ("stats/orderings.py", "kendall_tau_b_rows"),
    ("stats/orderings.py", "tau_ap"), ("stats/orderings.py", "tau_ap_a"), ("stats/orderings.py", "tau_ap_a_rows"),
    ("stats/orderings.py", "tau_ap_b"), ("stats/orderings.py", "rbo_ext"), ("stats/orderings.py", "rbo_ext_tied"),
    ("stats/special.py", "betainc"), ("stats/special.py", "t_two_sided"), ("stats/special.py", "t_two_sided_exact"),
    ("stats/special.py", "t_density"), ("stats/special.py", "t_quantile"), ("stats/special.py", "normal_two_sided"),
    ("stats/t_tail.py", "t_two_sided_array"),
    ("rank_aggregation.py", "borda"), ("rank_aggregation.py", "mc4"), ("rank_aggregation.py", "stationary"),
    ("agree/pairlevel.py", "kappa"), ("agree/pairlevel.py", "weighted_kappa"), ("agree/pairlevel.py", "alpha_ordinal"),
    ("agree/pairlevel.py", "fleiss_factory"),
    ("agree/calibration.py", "ece"), ("agree/calibration.py", "brier"), ("agree/calibration.py", "log_loss"),
]
_PAPER = re.compile(r"\b(?:1[789]|20)\d\d\b")  # a year: "Student 1908", "de Borda 1781", "SIGIR 2008"
_FORMULA = re.compile(r"=|Σ|sum_|\bI_| / ")

# module-level names a function may fill, and ``global`` statements allowed: (file, name)
FILLED_AT_IMPORT = {("measures/base.py", "REGISTRY")}  # @measure's decorators, while measures/families imports
GLOBALS = {("blas.py", "_held")}  # pool_blas_limit's depth: the process's BLAS limit is held, not a cached value
# module-level re.compile allowed: none (judge/redact.py's _ESCAPE was the last, session 28)
COMPILED_AT_IMPORT: set[tuple[str, str]] = set()


def _modules() -> list[tuple[str, ast.Module]]:
    return [(p.relative_to(PKG).as_posix(), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PKG.rglob("*.py"))]


def _function(rel: str, name: str) -> ast.FunctionDef:
    tree = ast.parse((PKG / rel).read_text(encoding="utf-8"))
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if not found:
        raise LookupError(f"pref_eval/{rel}: no function {name}")
    return found[0]


@pytest.mark.parametrize(("rel", "name"), STATISTICS, ids=[f"{r}:{n}" for r, n in STATISTICS])
def test_a_statistic_gives_its_formula_and_paper(rel, name):
    doc = ast.get_docstring(_function(rel, name)) or ""
    assert _PAPER.search(doc), f"pref_eval/{rel}: {name}'s docstring cites no paper (a year)"
    assert _FORMULA.search(doc), f"pref_eval/{rel}: {name}'s docstring gives no formula"


def test_no_module_level_cache():
    found = []
    for rel, tree in _modules():
        containers = {}
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []
            value = getattr(node, "value", None)
            mutable = isinstance(value, (ast.Dict, ast.List, ast.Set)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in ("dict", "list", "set", "defaultdict", "OrderedDict"))
            containers.update({t.id: node.lineno for t in targets if isinstance(t, ast.Name) and mutable})
        for fn in ast.walk(tree):
            if isinstance(fn, ast.Global):
                found += [f"{rel}:{fn.lineno}: global {g}" for g in fn.names if (rel, g) not in GLOBALS]
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in fn.decorator_list:
                    called = d.func if isinstance(d, ast.Call) else d
                    last = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                    if last in ("lru_cache", "cache", "cached_property"):
                        found.append(f"{rel}:{d.lineno}: @{ast.unparse(d)}")
                for node in ast.walk(fn):
                    name = None
                    if isinstance(node, (ast.Assign, ast.AugAssign)):
                        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                                name = t.value.id
                    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                            and isinstance(node.func.value, ast.Name) and node.func.attr in (
                                "append", "setdefault", "update", "add", "extend", "insert", "__setitem__"):
                        name = node.func.value.id
                    if name in containers and (rel, name) not in FILLED_AT_IMPORT \
                            and not _local(fn, name):
                        found.append(f"{rel}:{node.lineno}: {fn.name} fills the module's {name}")
    assert found == [], "\n".join(found)


def _local(fn: ast.AST, name: str) -> bool:
    """Whether ``name`` is assigned (so local) or a parameter in ``fn``."""
    args = fn.args  # type: ignore[attr-defined]
    if name in {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}:
        return True
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(fn))


def test_regular_expressions_compiled_on_use():
    found = []
    for rel, tree in _modules():
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                    and "re.compile(" in ast.unparse(node.value):
                names = [t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                         if isinstance(t, ast.Name)]
                found += [f"{rel}:{node.lineno}: {n}" for n in names if (rel, n) not in COMPILED_AT_IMPORT]
    assert found == [], "compiled at import (compile on use, re's cache): " + ", ".join(found)


def test_the_lists_name_what_exists():
    """The allowances above are not stale: each names a module and a name that are still there."""
    for rel, name in FILLED_AT_IMPORT | GLOBALS | COMPILED_AT_IMPORT:
        assert name in (PKG / rel).read_text(encoding="utf-8"), (rel, name)
