"""The optional compiled kernels, found in one place.

``pref_eval/_kernels.c`` (built by ``pip install .`` when a C compiler is present; in a checkout by
``python setup.py build_ext --inplace``) holds the fit's kernels, the counting sorts, the key
factorization and the score writer's formatting. Every caller asks :func:`kernels` and falls back
to its numpy / scipy path when it answers None; ``PREF_EVAL_PURE_PYTHON=1`` switches the compiled
parts off so that tests can compare both paths.
"""
from __future__ import annotations

import os
from types import ModuleType


def kernels() -> ModuleType | None:
    """``pref_eval._kernels``, or None (not built, or ``PREF_EVAL_PURE_PYTHON`` set)."""
    if os.environ.get("PREF_EVAL_PURE_PYTHON"):
        return None
    try:
        from . import _kernels
    except ImportError:
        return None
    return _kernels
