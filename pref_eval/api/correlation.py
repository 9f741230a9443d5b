"""``zelo_compare --orderings A B``: :func:`compare_orderings`, the correlation between two orderings of
systems (Kendall's tau, tau_AP, rank-biased overlap).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError, option_name, renamed_keywords, shown
from ._inputs import _input_options, _preflight

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


@renamed_keywords(fmt="output_format")
def compare_orderings(a: str, b: str, *, key_a: str | None = None, key_b: str | None = None, rbo_p: float = 0.9,
                      rbo_ties: str = "a", rbo_lists: str = "common", rbo_depth: int | None = None,
                      output_format: str = "text", digits: int = 4, output: str | None = None, log: Any = None,
                      inputs: InputOptions | None = None) -> str:
    """Correlation between two orderings of systems (``zelo_compare --orderings A B``): the report.

    Each file is a system-score TSV, a list, or a ``pref_aggregate`` output
    (``key_a``/``key_b``: which of its orderings, ``MEASURE[:LIST]``). The
    report gives Kendall's τ (Kendall 1938), τ_AP (Yilmaz, Aslam & Robertson,
    SIGIR 2008) and rank-biased overlap with persistence ``rbo_p`` (Webber,
    Moffat & Zobel, TOIS 2010; 0 = not computed) over the systems in both
    (:mod:`pref_eval.stats.orderings`); ``rbo_ties``: RBO's treatment of tied
    scores (Corsi & Urbano, SIGIR 2024): ``a`` (the expected RBO over random
    tie-breaking), ``b``, ``w``, or ``name`` (ties broken by system name, the
    rule before session 18); ``rbo_lists``: which lists RBO compares,
    ``common`` (the complete orderings of the systems in both) or ``prefix``
    (each whole ordering as the top of a longer ranking: RBO_ext with the
    bounds RBO_min, RBO_max and RBO_res, Webber et al. section 4; for a top-k
    list against a longer one); ``rbo_depth`` (with ``common``): RBO evaluated at
    that depth K (the top K of each ordering seen; K = the number of systems
    when fewer): RBO_ext at K and the truncated sum, as the PyPI ``rbo``
    package's ``rbo(k=K, p=p, ext=True)`` and ``rbo(k=K, p=p)``
    (:func:`pref_eval.stats.orderings.rbo_at_depth`); ``output_format`` text, markdown, csv or jsonl;
    written to ``output`` when given (``-`` = stdout).
    """
    from ..io.orderings import read_ordering
    from ..log import Log
    from ..output.comparisons import format_orderings
    from ..stats.orderings import RBO_LISTS, RBO_TIES
    from ..stats.orderings import compare_orderings as correlate
    from ._inputs import _check_float, _check_int, _check_paths

    if (fmt := output_format) not in ("text", "markdown", "csv", "jsonl"):  # before any reading or warning
        raise UsageError(f"{option_name('compare_orderings', '--orderings')} supports "
                         f"{option_name('output_format', '-o')} text, markdown, csv or jsonl"
                         + (f" (got {shown(fmt)})" if fmt != "latex" else ""))
    # (a DataFrame or a dict was os.fspath's TypeError)
    _check_paths("paths of system-score TSVs, lists or pref_aggregate outputs", a=a, b=b)
    _check_float("rbo_p", rbo_p, 0, 1, hi_open=True)  # 0: RBO not computed
    _check_int(option_name("digits", "--digits"), digits, 0, 17)
    _check_int("rbo_depth", rbo_depth, 1, optional=True)
    if rbo_depth is not None and rbo_lists != "common":
        raise UsageError("rbo_depth applies to rbo_lists common (a prefix is seen to its length: cut the "
                         "orderings to their top k instead)")
    if rbo_depth is not None and rbo_p == 0:
        raise UsageError("rbo_depth applies only with rbo_p above 0 (RBO computed)")
    if rbo_ties not in RBO_TIES:
        raise UsageError(f"rbo_ties: expected one of {', '.join(RBO_TIES)}, got {shown(rbo_ties)}")
    if rbo_lists not in RBO_LISTS:
        raise UsageError(f"rbo_lists: expected one of {', '.join(RBO_LISTS)}, got {shown(rbo_lists)}")
    log = log or Log("zelo_compare", quiet=True)
    own = _input_options(inputs, output=output, orderings=[a, b])
    _preflight(own, output)  # before the orderings are read
    ra, desc_a = read_ordering(a, key_a)
    rb, desc_b = read_ordering(b, key_b)
    try:
        res = correlate(ra, rb, rbo_p if rbo_p > 0 else None, rbo_ties, rbo_lists, rbo_depth)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if res["only_a"] or res["only_b"]:
        prefix = option_name("rbo_lists='prefix'", "--rbo-lists prefix")
        log.warn(f"{len(res['only_a'])} system(s) only in A and {len(res['only_b'])} only in B are left out"
                 + (f" (but for RBO, {prefix})" if "rbo_min" in res
                    else f" (RBO of the whole orderings: {prefix})" if "rbo" in res else ""))
    text = format_orderings(res, fmt, f"{a} ({desc_a})", f"{b} ({desc_b})", digits)
    if output is not None:
        from ..output.atomic import command_output

        with command_output(output, own) as out:
            out.write(text)
    return text
