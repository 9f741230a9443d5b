"""ranx's and PyTerrier's keyword arguments and what does their work here: tables for the refusals that name ours.

ranx (Bassani, ECIR 2022) is called as ``ranx.evaluate(qrels, run, metrics, return_mean=True, threads=0,
make_comparable=False, ...)`` and ``ranx.compare(qrels, runs, metrics, stat_test="student", max_p=0.01,
n_permutations=1000, random_seed=42, rounding_digits=3, make_comparable=False, ...)``. Its users type these
keywords as options of the commands (``zelo_compare --max-p 0.01``, ``zelo_eval --metrics ndcg@10``) or as
keywords of the API functions (``pref_eval.compare(pq, stat_test="student")``); each is refused (click's "No
such option", the API's ``UsageError``) with the line of :data:`RANX_KEYWORDS` for that command or function.
Read by the commands' error line (``pref_eval.cli.common``) and by :func:`pref_eval.api.compare`
and :func:`pref_eval.api.evaluate` / ``iter_calc`` / ``calc_aggregate`` / ``evaluator`` (the API).

PyTerrier (Macdonald et al., CIKM 2021) evaluates and compares in one call, ``pt.Experiment(systems, topics,
qrels, eval_metrics, names=None, perquery=False, dataframe=True, filter_by_qrels=False, filter_by_topics=True,
baseline=None, test="t", correction=None, correction_alpha=0.05, highlight=None, round=None, verbose=False,
...)``; here that is ``pref_eval.compare(pref_eval.evaluate(qrels, runs, measures), baseline=NAME, ...)``. Its
keywords given to :func:`pref_eval.api.evaluate` or :func:`pref_eval.api.compare` are refused with the line of
:data:`PYTERRIER_KEYWORDS` (:func:`pyterrier_hint`); its ``correction`` names are statsmodels'
(:data:`STATSMODELS_CORRECTIONS`, :func:`correction_hint`).
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
        "api:compare_runs": ("measures", ""),
    },
    "max_p": {
        "compare": ("--alpha P", " (the significance level of the markers)"),
        "eval": _no_tests("--alpha P", "zelo_eval"),
        "trec": _no_tests("--alpha P", "zelo_trec"),
        "api:compare": ("alpha", ""),
        "api:compare_runs": ("alpha", " (the significance level of the markers)"),
    },
    "stat_test": {
        "compare": ("--tests", _TESTS),
        "eval": _no_tests("--tests", "zelo_eval"),
        "trec": _no_tests("--tests", "zelo_trec"),
        "api:compare": ("tests", ""),
        "api:compare_runs": ("tests", " (student: 't', fisher: 'randomization', tukey: 'tukey'; "
                                      "several: 't,wilcoxon')"),
    },
    "n_permutations": {
        "compare": ("--resamples N", ""),
        "eval": _no_tests("--resamples N", "zelo_eval"),
        "trec": _no_tests("--resamples N", "zelo_trec"),
        "api:compare": ("resamples", ""),
        "api:compare_runs": ("resamples", ""),
    },
    "random_seed": {
        "compare": ("--seed S", ""),
        "eval": ("zelo_compare --seed S", " (zelo_eval's --seed is the seed of its sampling options)"),
        "trec": _no_tests("--seed S", "zelo_trec"),
        "api:compare": ("seed", ""),
        "api:compare_runs": ("seed", ""),
    },
    "make_comparable": {
        "compare": ("-c", " (a topic a run lacks counts as trec_eval -c counts it)"),
        "eval": ("-c", _EVERY_TOPIC),
        "trec": ("-c", _EVERY_TOPIC),
        "api:compare": ("complete", ""),
        "api:compare_runs": ("complete", ""),
        "api:evaluate": ("complete", ""),
    },
    "rounding_digits": {
        "compare": ("--digits N", ""),
        "eval": ("--digits N", " (the tables -o text, markdown, latex, topics-*)"),
        "trec": ("trec_eval's four decimals", " (zelo_eval -o text --digits N rounds otherwise)"),
        "api:compare_runs": ("digits", " (the report's decimals)"),
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
        "api:compare_runs": ("jobs", ""),
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
    ranx_fn = "ranx.compare" if function.startswith("compare") else "ranx.evaluate"
    return f"{ranx_fn}'s; here: {ours}{rest}"


_COMPARE = "pref_eval.compare(evaluate(...), "
_EVERY = ("the default", ": a run is evaluated on the topics it shares with the qrels (complete=True: on every "
          "qrels topic, a topic the run lacks counting as trec_eval -c counts it)")

#: PyTerrier's ``pt.Experiment`` keyword -> {function of :mod:`pref_eval.api`: (ours, the rest of the sentence)}.
PYTERRIER_KEYWORDS: dict[str, dict[str, tuple[str, str]]] = {
    "eval_metrics": {"evaluate": ("measures", ", the third argument"), "compare": ("measures", ""),
                     "compare_runs": ("measures", "")},
    "names": {"evaluate": ("a mapping {name: run} as runs", ", whose names label the run column"),
              "compare_runs": ("run_names", " (['RUN=LABEL', ...], as zelo_compare --name)"),
              "compare": ("the run (or PyTerrier's name) column's values", " (name the runs in evaluate's mapping)")},
    "perquery": {"evaluate": ("the default", ": one row per run, query and measure (summary=True adds the 'all' "
                                             "rows; the means alone: calc_aggregate)")},
    "dataframe": {"evaluate": ("the default", ": evaluate returns a DataFrame (pytrec_eval's dict: "
                                              "evaluator(measures, qrels).evaluate(run))")},
    "filter_by_qrels": {"evaluate": _EVERY},
    "filter_by_topics": {"evaluate": _EVERY},
    "baseline": {"evaluate": (_COMPARE + "baseline=NAME)", ", a run's name")},
    "test": {"evaluate": (_COMPARE + "tests=['t'])", " (scipy.stats.ttest_rel / wilcoxon themselves are taken too)"),
             "compare": ("tests", " (t, wilcoxon, sign, randomization, bootstrap, tukey; several: ['t', 'wilcoxon']; "
                                  "scipy.stats.ttest_rel / wilcoxon themselves are taken too)"),
             "compare_runs": ("tests", " (t, wilcoxon, sign, randomization, bootstrap, tukey; several: 't,wilcoxon'; "
                                       "scipy.stats.ttest_rel / wilcoxon themselves are taken too)")},
    "correction": {"evaluate": (_COMPARE + "correction=...)", " (holm by default; 'none' for none)")},
    "correction_alpha": {"evaluate": (_COMPARE + "alpha=...)", ""), "compare": ("alpha", ""),
                         "compare_runs": ("alpha", "")},
    "round": {"evaluate": ("no option", ": round the returned DataFrame (df.round({'value': 4}))"),
              "compare": ("no option", ": round the records (res.records.round(4)); the report's digits: "
                                       "compare_runs(digits=N)")},
    "highlight": {"compare": ("compare_runs(output_format='markdown' or 'latex')",
                              ", whose tables put the best mean in bold")},
    "verbose": {"compare": ("progress", " (a function progress(done, total))")},
}


def pyterrier_hint(function: str, keyword: str) -> str:
    """What API function ``function`` (``evaluate``, ``compare``) says of ``keyword``, a ``pt.Experiment``
    keyword: "PyTerrier's pt.Experiment keyword; here: alpha", or ""."""
    entry = PYTERRIER_KEYWORDS.get(keyword, {}).get(function)
    if entry is None:
        return ""
    ours, rest = entry
    return f"PyTerrier's pt.Experiment keyword; here: {ours}{rest}"


#: statsmodels' ``multipletests`` method names (PyTerrier's ``correction``) -> ours, or None: not offered here.
STATSMODELS_CORRECTIONS: dict[str, str | None] = {
    **dict.fromkeys(("b", "bonf"), "bonferroni"), "h": "holm",
    **dict.fromkeys(("fdr_bh", "fdr_i", "fdr_p", "fdri", "fdrp"), "bh"),
    **dict.fromkeys(("s", "sidak", "hs", "holm-sidak", "sh", "simes-hochberg", "ho", "hommel", "fdr_by", "fdr_n",
                     "fdr_c", "fdrn", "fdrcorr", "fdr_tsbky", "fdr_2sbky", "fdr_twostage", "fdr_tsbh", "fdr_2sbh",
                     "fdr_gbs", "lfdr", "lfdr_sl"), None),
}


def correction_hint(name: str) -> str:
    """What a refusal of correction ``name`` adds when it is a statsmodels method name: "statsmodels' name of
    bh: write 'bh'" or "statsmodels' hommel is not offered here", or ""."""
    key = name.lower() if isinstance(name, str) else name
    if key not in STATSMODELS_CORRECTIONS:
        return ""
    ours = STATSMODELS_CORRECTIONS[key]
    if ours is None:
        return f" (statsmodels' {name!r} is not offered here)"
    return f" (statsmodels' name of {ours}: write {ours!r})"


#: scipy.stats' paired tests that ``pt.Experiment(test=FUNCTION)`` calls as ``FUNCTION(system, baseline)[1]``
#: -> ours with the same p-value (scipy's defaults: two-sided; Wilcoxon's zero_method "wilcox", method "auto").
SCIPY_PAIRED_TESTS: dict[str, str] = {"ttest_rel": "t", "wilcoxon": "wilcoxon"}

#: scipy.stats' tests of two independent samples (or one): refused as not paired.
_SCIPY_UNPAIRED = frozenset(("ttest_ind", "ttest_ind_from_stats", "ttest_1samp", "mannwhitneyu", "ranksums",
                             "brunnermunzel", "kruskal", "ks_2samp", "cramervonmises_2samp", "epps_singleton_2samp",
                             "ansari", "mood", "median_test"))


def scipy_test(fn: object) -> str:
    """Our test's name for ``fn``, a function given as a test (PyTerrier's ``test=scipy.stats.ttest_rel``): "t" or
    "wilcoxon" when ``fn`` IS scipy.stats' ``ttest_rel`` or ``wilcoxon`` (by identity; scipy is not imported here:
    a caller holding scipy's function has loaded it); any other callable a UsageError saying why (its numbers
    are not ours to vouch for)."""
    import sys

    from .errors import UsageError

    name = str(getattr(fn, "__name__", ""))
    stats = sys.modules.get("scipy.stats")
    ours = SCIPY_PAIRED_TESTS.get(name)
    if ours is not None and stats is not None and getattr(stats, name, None) is fn:
        return ours
    base = getattr(fn, "func", None)  # functools.partial
    if base is not None and getattr(base, "__name__", None) in SCIPY_PAIRED_TESTS:
        what = f"functools.partial(scipy.stats.{base.__name__}, ...)"
        why = (f"its keywords ({', '.join(getattr(fn, 'keywords', {}) or ()) or 'arguments'}) may change the "
               f"p-values; write {SCIPY_PAIRED_TESTS[base.__name__]!r} with this function's options "
               "(zero_method, wilcoxon_method: docs/zelo_compare.md)")
    else:
        module = getattr(fn, "__module__", None) or type(fn).__module__
        qual = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        what = f"{module}.{qual}" if not str(module).startswith("scipy.stats") else f"scipy.stats.{name}"
        why = ("not a paired test (pt.Experiment's p-values are of paired per-query values)"
               if str(module).startswith("scipy.stats") and name in _SCIPY_UNPAIRED else
               "pref_eval computes each test itself and cannot vouch for another function's p-values")
    raise UsageError(f"tests: the function {what} is not taken: {why}; a function is taken only when it is "
                     "scipy.stats.ttest_rel or scipy.stats.wilcoxon itself (as 't' / 'wilcoxon'); give a test's name "
                     "(t, wilcoxon, sign, randomization, bootstrap, tukey)")


def ir_measures_order(command: str, words: tuple[str, ...] | list[str]) -> str:
    """ir-measures' command line, ``ir_measures QRELS RUN MEASURE...``, typed to ``zelo_eval`` (no ``-R``) or
    ``zelo_trec`` (more than two files): when the first two words are files and every other word is a measure
    name (and no file), the line to write here ("; ir_measures' QRELS RUN MEASURES is zelo_eval -R QRELS -m
    'nDCG@10 P@5' RUN here"); else ""."""
    import os
    import shlex

    from .errors import UsageError
    from .measures import parse_measures
    from .measures.parse import split_names

    if len(words) < 3 or not all(os.path.isfile(w) or w == "-" for w in words[:2]):
        return ""
    names = list(words[2:])
    if any(os.path.exists(w) for w in names):
        return ""
    try:
        parse_measures(names)
    except UsageError:
        return ""
    q, r = (shlex.quote(w) for w in words[:2])
    line = (f"zelo_eval -R {q} -m {shlex.quote(' '.join(names))} {r}" if command == "zelo_eval" else
            f"zelo_trec {' '.join(f'-m {shlex.quote(n)}' for w in names for n in split_names(w))} {q} {r}")
    return f"; ir_measures' QRELS RUN MEASURES is {line} here"


_DIGITS = "is zelo_eval -o text --digits N here (zelo_trec keeps trec_eval's four decimals)"
_PROVIDER = ("has no counterpart: every measure is computed here, to ir-measures' default provider's values "
             "(where providers differ, as in ordering tied scores: docs/differences.md)")

#: ir-measures' command-line options (``ir_measures QRELS RUN MEASURE... --by_query --places 4 --provider X``)
#: -> {command: what does their work}; their spellings (``--by_query``, ``-p``) as ir-measures' argparse takes them.
IR_MEASURES_OPTIONS: dict[tuple[str, ...], dict[str, str]] = {
    ("--by_query",): {"eval": "is -q here", "trec": "is -q here"},
    ("--no_summary",): {"eval": "is -n here", "trec": "is zelo_eval -q -n here (zelo_trec prints trec_eval's summary)"},
    ("--places", "-p"): {"eval": "is -o text --digits N here", "trec": _DIGITS},
    ("--provider",): {"eval": _PROVIDER, "trec": _PROVIDER},
    ("--output_format",): {"eval": "is -o tsv|jsonl here", "trec": "is zelo_eval -o tsv|jsonl here"},
}


def ir_measures_hint(command: str, option: str) -> str:
    """What ``zelo_eval`` / ``zelo_trec`` (``eval``, ``trec``) say of one of ir-measures' command-line options
    typed to them: "ir_measures' --by_query is -q here", or ""."""
    for spellings, where in IR_MEASURES_OPTIONS.items():
        if option in spellings and command in where:
            return f"ir_measures' {spellings[0]} {where[command]}"
    return ""


_NO_COMPAT = ("zbench's tie rules are not an option of {cmd} (no printed number here depends on the CPU, and "
              "zbench's NDCG orders tied run scores as numpy's sort leaves them, chosen per CPU); in Python: the "
              "functions of pref_eval.zelo.bench_measures with compat='zbench' (docs/zelo_eval.md)")


_NO_SCORES = ("recovery draws its true scores, N(0, sigma^2) for K documents, and reads no fitted score file: "
              "give --K the size of your pools and --sigma the standard deviation of a query's zelo_fit scores "
              "(logit scale), an estimate of the spread of its true scores (docs/zelo_simulate.md)")


def zelo_hint(command: str, option: str, sub: str = "") -> str:
    """What ``zelo_eval`` / ``zelo_compare`` / ``zelo_plot`` (``eval``, ``compare``, ``plot``; any of
    zelo_plot's sub-commands ``sub``) say of ``--compat``, the option of ``zelo_fit`` and ``zelo_pairs``
    (``--compat zbench``) that they lack, and ``zelo_simulate recovery`` (``simulate``, ``recovery``) of a score
    file asked for as its truth (decided in session 29; zelo_plot's in session 30), or ""."""
    if option == "--compat" and command in ("eval", "compare", "plot"):
        return "--compat zbench is zelo_fit's and zelo_pairs'; " + _NO_COMPAT.format(cmd=f"zelo_{command}")
    if (command, sub) == ("simulate", "recovery") and option in ("--scores", "-S", "--truth", "--zelo",
                                                                 "--score-file", "-R"):
        return _NO_SCORES
    return ""
