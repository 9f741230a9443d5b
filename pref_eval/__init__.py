"""pref_eval: trec_eval-exact and preference-based IR evaluation, zELO, comparisons.

Public API (lazy: importing the package stays cheap):

* :func:`evaluate` -- qrels + runs + measures → long DataFrame (run, qid, measure, value).
"""
from __future__ import annotations

__version__ = "0.1.0"


def evaluate(*args, **kwargs):
    """See :func:`pref_eval.api.evaluate`."""
    from .api import evaluate as _evaluate

    return _evaluate(*args, **kwargs)


__all__ = ["evaluate", "__version__"]
