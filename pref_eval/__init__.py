"""pref_eval: trec_eval-exact and preference-based IR evaluation, zELO, comparisons.

Public API (lazy: importing the package stays cheap):

* :func:`evaluate` -- qrels + runs + measures → long DataFrame (run, qid, measure, value).
* :func:`iter_calc` / :func:`calc_aggregate` -- ir-measures' two calls, same arguments.
* :func:`agreement` -- judgment files → agreement records of ``zelo_agree``.
"""
from __future__ import annotations

__version__ = "0.1.0"


def evaluate(*args, **kwargs):
    """See :func:`pref_eval.api.evaluate`."""
    from .api import evaluate as _evaluate

    return _evaluate(*args, **kwargs)


def iter_calc(*args, **kwargs):
    """See :func:`pref_eval.api.iter_calc`."""
    from .api import iter_calc as _iter_calc

    return _iter_calc(*args, **kwargs)


def calc_aggregate(*args, **kwargs):
    """See :func:`pref_eval.api.calc_aggregate`."""
    from .api import calc_aggregate as _calc_aggregate

    return _calc_aggregate(*args, **kwargs)


def agreement(*args, **kwargs):
    """See :func:`pref_eval.api.agree` (``zelo_agree``); not named ``agree`` because
    ``pref_eval.agree`` is the package of its computations."""
    from .api import agree as _agree

    return _agree(*args, **kwargs)


__all__ = ["evaluate", "iter_calc", "calc_aggregate", "agreement", "__version__"]
