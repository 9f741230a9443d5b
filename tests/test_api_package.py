"""The layout of ``pref_eval/api/`` (one module per command family): every public name resolves from
``pref_eval.api``, each module holds what ``_HOME`` says, no module grows past ``MAX_LINES``, and a
command's module loads only the api modules it needs.

``MAX_LINES`` = 500 (docs/architecture.md): the guide asks for small files named for what they hold;
a module that reaches it is split along its command's modes, as ``pref_eval/api.py`` (2,528 lines) was.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import types

import pytest

import pref_eval.api as api

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API_DIR = os.path.join(ROOT, "pref_eval", "api")
MAX_LINES = 500


def _modules() -> list[str]:
    return sorted(f[:-3] for f in os.listdir(API_DIR) if f.endswith(".py") and f != "__init__.py")


def _defined_public(module: str) -> set[str]:
    """Names a module defines at its top level (def, class, assignment) without a leading underscore."""
    with open(os.path.join(API_DIR, f"{module}.py"), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return {n for n in out if not n.startswith("_")}


def test_every_public_name_resolves():
    assert len(api.__all__) == len(set(api.__all__)) == 43  # 43: pairs_pool (session 21)
    for name in api.__all__:
        value = getattr(api, name)
        assert not isinstance(value, types.ModuleType), name
        module = api._MODULE_OF[name]
        assert getattr(sys.modules[f"pref_eval.api.{module}"], name) is value, name
    ns: dict = {}
    exec("from pref_eval.api import *", ns)  # the star import takes __all__
    assert set(api.__all__) <= set(ns)
    with pytest.raises(AttributeError, match="no_such_name"):
        api.no_such_name  # noqa: B018


def test_all_home_and_type_checking_imports_agree():
    """``__all__``, ``_HOME`` and the ``TYPE_CHECKING`` imports (what mypy sees) name the same modules, and
    every public name a module defines is exported from its module (a new command function cannot be missed)."""
    assert sorted(api.__all__) == sorted(api._MODULE_OF)
    assert set(api._HOME) <= set(_modules())
    assert not set(_modules()) & set(api.__all__), "a module named as a public name would hide it once imported"
    with open(os.path.join(API_DIR, "__init__.py"), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    guarded = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    imported = {a.name: node.module for node in guarded.body if isinstance(node, ast.ImportFrom)
                for a in node.names}
    assert imported == api._MODULE_OF
    for module in _modules():
        defined = _defined_public(module)
        assert defined == set(api._HOME.get(module, ())), module


def test_module_sizes():
    sizes = {}
    for f in os.listdir(API_DIR):
        if f.endswith(".py"):
            with open(os.path.join(API_DIR, f), encoding="utf-8") as fh:
                sizes[f] = sum(1 for _ in fh)
    assert len(sizes) >= 10
    assert max(sizes.values()) <= MAX_LINES, {f: n for f, n in sizes.items() if n > MAX_LINES}


PROBE = r"""
import json, sys
def api_modules():
    return sorted(m for m in sys.modules if m.startswith("pref_eval.api."))
import pref_eval.api
steps = [api_modules()]
from pref_eval.api.fitting import fit
steps.append(api_modules())
pref_eval.api.agree
steps.append(api_modules())
print(json.dumps(steps))
"""


def test_lazy_submodules():
    """``import pref_eval.api`` loads no command module; a command's module loads only the shared ``_inputs``
    besides itself; a name taken from the package loads its own module."""
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, cwd=ROOT, env=env, text=True)
    assert p.returncode == 0, p.stderr
    steps = json.loads(p.stdout)
    assert steps == [[], ["pref_eval.api._inputs", "pref_eval.api.fitting"],
                     ["pref_eval.api._inputs", "pref_eval.api.agreement", "pref_eval.api.fitting"]]
