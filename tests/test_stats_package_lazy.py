"""``pref_eval.stats`` loads each name's module on first use (session 29), and its name ``compare`` stays the
function :func:`pref_eval.stats.compare.compare` whatever is imported first -- the submodule of the same name
(``from pref_eval.stats.compare import ...``), the package, or both -- as when the package imported it eagerly.

Each order runs in a fresh interpreter (an import order cannot be undone in this one); the expectations are
what Python's import rules give a package whose ``__init__`` imports the function eagerly (the code before
session 29: the five orders pass on it, the two laziness tests fail)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import pref_eval

HERE = os.path.dirname(os.path.dirname(os.path.abspath(pref_eval.__file__)))  # the package the tests imported

SEQUENCES = {
    # the submodule first, then the package's name
    "module-first": ("import pref_eval.stats.compare as m\nimport pref_eval.stats as S\n"
                     "out = [type(m).__name__, type(S.compare).__name__, S.compare is sys.modules["
                     "'pref_eval.stats.compare'].compare]", ["function", "function", True]),
    "from-module-first": ("from pref_eval.stats.compare import compare as f\nimport pref_eval.stats as S\n"
                          "from pref_eval.stats import compare\nout = [S.compare is f, compare is f]", [True, True]),
    "package-first": ("import pref_eval.stats as S\nfrom pref_eval.stats import compare as f\n"
                      "import pref_eval.stats.compare as m\n"
                      "out = [type(m).__name__, S.compare is f, type(sys.modules['pref_eval.stats.compare']).__name__]",
                      ["function", True, "module"]),
    "set-and-restore": ("import pref_eval.stats as S\nold = S.compare\nS.compare = 5\nout = [S.compare]\n"
                        "S.compare = old\nout += [S.compare is old, type(S.paired).__name__, S.TESTS[0]]",
                        [5, True, "module", "t"]),
    "other-submodule-first": ("import pref_eval.stats.paired\nimport pref_eval.stats as S\n"
                              "out = [type(S.compare).__name__, S.correction.__name__, callable(S.kendall_tau_b)]",
                              ["function", "pref_eval.stats.correction", True]),
}


def _run(code: str) -> dict:
    probe = ("import json, sys\n" + code + "\nprint(json.dumps({'out': out, 'stats': sorted(m for m in sys.modules "
             "if m.startswith('pref_eval.stats'))}))")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=HERE,
                       env={**os.environ, "PYTHONPATH": HERE})
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_compare_stays_the_function(name):
    code, want = SEQUENCES[name]
    assert _run(code)["out"] == want


def test_package_imports_no_submodule():
    """``import pref_eval.stats`` loads none of its modules (they loaded paired, correction, effect and compare
    before session 29), ``from pref_eval.stats import *`` every one of ``__all__``."""
    got = _run("import pref_eval.stats\nout = []")
    assert got["stats"] == ["pref_eval.stats"]
    got = _run("from pref_eval.stats import *\nout = sorted(n for n in __import__('pref_eval.stats').stats.__all__ "
               "if n not in globals())")
    assert got["out"] == [] and {"pref_eval.stats.compare", "pref_eval.stats.orderings",
                                 "pref_eval.stats.tukey"} <= set(got["stats"])


def test_orderings_writer_imports_no_tests(tmp_path):
    """``pref_eval.compare_orderings`` (``zelo_compare --orderings``) imports the orderings, not the paired tests,
    corrections and effect sizes (the record labels it shares with them are constants of stats/__init__.py)."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("bm25 0.3\ndense 0.5\nrerank 0.6\n")
    b.write_text("bm25 0.2\ndense 0.6\nrerank 0.5\n")
    got = _run(f"import pref_eval\nres = pref_eval.compare_orderings({str(a)!r}, {str(b)!r})\nout = []")
    assert "pref_eval.stats.orderings" in got["stats"]
    assert not {"pref_eval.stats.compare", "pref_eval.stats.paired", "pref_eval.stats.correction",
                "pref_eval.stats.effect"} & set(got["stats"])
