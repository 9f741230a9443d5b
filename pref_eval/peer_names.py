"""ranx's keyword arguments and what does their work here: one table for every refusal that names ours.

ranx (Bassani, ECIR 2022) is called as ``ranx.evaluate(qrels, run, metrics, return_mean=True, threads=0,
make_comparable=False, ...)`` and ``ranx.compare(qrels, runs, metrics, stat_test="student", max_p=0.01,
n_permutations=1000, random_seed=42, rounding_digits=3, make_comparable=False, ...)``. Its users type these
keywords as options of the commands (``zelo_compare --max-p 0.01``, ``zelo_eval --metrics ndcg@10``) or as
keywords of the API functions (``pref_eval.compare(pq, stat_test="student")``); each is refused (click's "No
such option", the API's ``UsageError``) with the line of :data:`RANX_KEYWORDS` for that command or function.
Read by the commands' error line (``pref_eval.cli.common``) and by :func:`pref_eval.api.compare`
and :func:`pref_eval.api.evaluate` / ``iter_calc`` / ``calc_aggregate`` / ``evaluator`` (the API).
"""
from __future__ import annotations

_TESTS = " (student: t, fisher: randomization, tukey: tukey; several: --tests t,wilcoxon)"


def _no_tests(option: str, command: str) -> tuple[str, str]:
    return f"zelo_compare {option}", f" ({command} runs no significance test)"


_EVERY_TOPIC = " (every qrels topic counts; a topic a run lacks counts 0)"

#: ranx keyword -> {where: (ours, the rest of the sentence)}; where is a command's module name (``compare``,
#: ``eval``, ``trec``: ours is an option) or ``api:FUNCTION`` (a keyword of that function of
#: :mod:`pref_eval.api`). A command says "No such option '--max-p': ranx's max_p is --alpha P here (...)."
#: (:func:`command_hint`), a function "(ranx.compare's; here: alpha)" (:func:`api_hint`).
RANX_KEYWORDS: dict[str, dict[str, tuple[str, str]]] = {
    "metrics": {
        "compare": ("-m", ", one per name (-m ndcg@10 -m map@100)"),
        "eval": ("-m", ", one per name (-m ndcg@10 -m map@100)"),
        "trec": ("-m", ", one per trec_eval name (-m ndcg_cut.10 -m map; ranx's names work on zelo_eval)"),
        "api:evaluate": ("measures", ", the third argument, as ranx.evaluate's"),
    },
    "max_p": {
        "compare": ("--alpha P", " (the significance level of the markers)"),
        "eval": _no_tests("--alpha P", "zelo_eval"),
        "trec": _no_tests("--alpha P", "zelo_trec"),
        "api:compare": ("alpha", ""),
    },
    "stat_test": {
        "compare": ("--tests", _TESTS),
        "eval": _no_tests("--tests", "zelo_eval"),
        "trec": _no_tests("--tests", "zelo_trec"),
        "api:compare": ("tests", ""),
    },
    "n_permutations": {
        "compare": ("--resamples N", ""),
        "eval": _no_tests("--resamples N", "zelo_eval"),
        "trec": _no_tests("--resamples N", "zelo_trec"),
        "api:compare": ("resamples", ""),
    },
    "random_seed": {
        "compare": ("--seed S", ""),
        "eval": ("zelo_compare --seed S", " (zelo_eval's --seed is the seed of its sampling options)"),
        "trec": _no_tests("--seed S", "zelo_trec"),
        "api:compare": ("seed", ""),
    },
    "make_comparable": {
        "compare": ("-c", " (a topic a run lacks counts as trec_eval -c counts it)"),
        "eval": ("-c", _EVERY_TOPIC),
        "trec": ("-c", _EVERY_TOPIC),
        "api:compare": ("complete", ""),
        "api:evaluate": ("complete", ""),
    },
    "rounding_digits": {
        "compare": ("--digits N", ""),
        "eval": ("--digits N", " (the tables -o text, markdown, latex, topics-*)"),
        "trec": ("trec_eval's four decimals", " (zelo_eval -o text --digits N rounds otherwise)"),
    },
    "return_mean": {
        "eval": ("the default", " (the 'all' lines; per-query values too: -q)"),
        "trec": ("the default", " (the 'all' lines; per-query values too: -q)"),
        "api:evaluate": ("summary", " (True: the 'all' rows too; the means alone: calc_aggregate)"),
    },
    "threads": {
        "compare": ("--jobs N", ""),
        "eval": ("--jobs N", ""),
        "api:compare": ("jobs", ""),
        "api:evaluate": ("jobs", ""),
    },
}


def _entry(where: str, keyword: str) -> tuple[str, tuple[str, str] | None]:
    key = keyword.lstrip("-").replace("-", "_").lower()
    return key, RANX_KEYWORDS.get(key, {}).get(where)


def command_hint(command: str, option: str) -> str:
    """What a command (its module name: ``compare``, ``eval``, ``trec``) says of ``option`` (``--max-p``,
    ``--max_p``), a ranx keyword typed as an option: "ranx's max_p is --alpha P here (...)", or ""."""
    key, entry = _entry(command, option)
    if entry is None:
        return ""
    ours, rest = entry
    return f"ranx's {key} {'are' if key == 'metrics' else 'is'} {ours} here{rest}"


def api_hint(function: str, keyword: str, known: tuple[str, ...] | None = None) -> str:
    """What API function ``function`` (``compare``, ``evaluate``) says of ``keyword``, a ranx keyword:
    "ranx.compare's; here: alpha", or ""; with ``known`` (the keywords of a function that takes
    ``evaluate``'s options: ``iter_calc``, ``calc_aggregate``, ``evaluator``), only a hint naming one of them."""
    key, entry = _entry(f"api:{function}", keyword)
    if entry is None or key != keyword or (known is not None and entry[0] not in known):
        return ""
    ours, rest = entry
    ranx_fn = "ranx.compare" if function == "compare" else "ranx.evaluate"
    return f"{ranx_fn}'s; here: {ours}{rest}"
