"""Preference-based evaluation: RPP, lexicographic recall/precision, pref_eval's metrics.

* :mod:`.names` — measure names (pref_eval.py syntax + the registry);
* :mod:`.data` — qrels/runs → relevance vectors (numpy, all runs at once);
* :mod:`.pairwise` — the six preference measures for all pairs at once;
* :mod:`.metrics` — pref_eval's metrics and their pairwise differences;
* :mod:`.evaluate` — :func:`evaluate_preferences`;
* :mod:`.output` — pref_eval.py's JSON lines and long tables.
"""
from .evaluate import PrefResult, evaluate_preferences, run_id

__all__ = ["PrefResult", "evaluate_preferences", "run_id"]
