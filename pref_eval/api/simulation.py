"""``zelo_simulate``: :func:`simulate` (tournament), :func:`simulate_recovery`,
:func:`simulate_bandit`, :func:`simulate_adaptive`, :func:`simulate_figure3`.
"""
from __future__ import annotations

import numbers
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..seeds import SEED_MAX
from ..errors import UsageError, option_name as _o, option_value, shown
from ._inputs import _check_float, _check_int, _input_options, _is_number, _preflight, _string_list

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


def simulate(matrix: Any, reps: int = 1000, *, k: int = 1, p: int | None = None, f: int | None = None, seed: int = 0,
             final_phase: bool = False, output: str | None = None, log: Any = None,
             inputs: InputOptions | None = None) -> dict[str, Any]:
    """Clarke et al.'s pruning tournament against a preference matrix (``zelo_simulate tournament``).

    ``matrix[i][j]`` is the probability that item i is preferred to item j
    (an array, or a path read by :func:`pref_eval.io.matrix.read_probability_matrix`).
    Each of ``reps`` repetitions runs the tournament (Clarke, Vtyurina &
    Smucker, ICTIR 2021: pools of ``p``, ``f`` judgments per pair, top ``k``;
    ``final_phase``: Yan et al.'s extra final comparison) and records whether
    a best item (a Copeland winner of the matrix) was found and how many
    comparisons it took. Returns :func:`pref_eval.zelo.simulate.simulate_tournament`'s dict;
    with ``output`` (``-`` = stdout) the summary row ``zelo_simulate`` writes is written there.
    """
    from ._inputs import _check_flags

    _check_flags(final_phase=final_phase)
    _check_int("reps", reps, 1)
    _check_int("k", k, 1)
    _check_int("p", p, 2, optional=True)
    _check_int("f", f, 3, optional=True)
    _check_int("seed", seed, 0, SEED_MAX)
    from ..zelo.simulate import simulate_tournament

    label = os.fspath(matrix) if isinstance(matrix, (str, os.PathLike)) else "matrix"
    own = _input_options(inputs, output=output, matrix=label)
    _preflight(own, output)  # before the matrix is read and the tournaments run
    m = _probability_matrix(matrix)
    r = simulate_tournament(m, reps, k=k, p=p, f=f, seed=seed, final_phase=final_phase,
                            progress=_percent_progress(log, "tournament"))
    if output is not None:
        from ..output.atomic import command_output
        from ..output.simulations import write_tournament

        with command_output(output, own) as out:
            write_tournament(out, label, reps, r)
    return r


def _probability_matrix(matrix: Any) -> Any:
    if isinstance(matrix, (str, os.PathLike)):
        from ..io.matrix import read_probability_matrix

        return read_probability_matrix(os.fspath(matrix))
    from ..io.matrix import probability_matrix_from_data

    return probability_matrix_from_data(matrix)


def _percent_progress(log: Any, label: str) -> Any:
    """A progress callback ``(done, total)`` that tells ``log`` once per percent (and at the end)."""
    if log is None:
        return None
    state = {"last": -1}

    def cb(done: int, total: int) -> None:
        pct = int(100 * done / total)
        if pct != state["last"] or done == total:
            state["last"] = pct
            log.progress(label, done, total)

    return cb


SIGMA_MAX = 1e6
"""Largest ``--sigma`` of ``zelo_simulate recovery``: beyond a few hundred every simulated judgment is
already certain; the bound keeps the seed derived from round(1000 sigma) an integer."""


def _check_ints(values: Any, name: str, minimum: int, flag: str | None = None) -> None:
    """``values`` a list of integers >= ``minimum`` (the command line's ``--K``/``--cycles`` ranges)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise UsageError(f"{_o(name, flag)}: expected a list of integers, got {type(values).__name__} {values!r:.40}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < minimum:
            raise UsageError(f"{_o(name, flag)}: expected integers >= {minimum}, got {shown(v)}")


def _check_sigma(sigma: Sequence[float]) -> None:
    """Every ``--sigma`` in (0, SIGMA_MAX] (the truth's seed holds round(1000 sigma): a finite integer)."""
    if isinstance(sigma, (str, bytes)) or not isinstance(sigma, Sequence):
        raise UsageError(f"{_o('sigma')}: expected a list of numbers, got {type(sigma).__name__} {sigma!r:.40}")
    for s in sigma:
        if not _is_number(s) or not 0 < s <= SIGMA_MAX:  # numpy scalars too (np.float32(0.6))
            raise UsageError(f"{_o('sigma')}: expected numbers in (0, {SIGMA_MAX:g}], got {shown(s)}")


def simulate_recovery(*, ks: Sequence[int] = (25, 50, 100), sigma: Sequence[float] = (0.6, 1.5),
                      cycles: Sequence[int] = (2, 4, 8), trials: int = 100, seed: int = 0,
                      strategy: str = "cycles", window: int | None = None, start: str | None = None,
                      batch: int | None = None, criterion: str | None = None, output: str | None = None,
                      log: Any = None, inputs: InputOptions | None = None) -> list[dict[str, Any]]:
    """Recovery of Bradley–Terry rankings (Bradley & Terry 1952) from sparse pairs (``zelo_simulate recovery``).

    For every (K documents, σ of the true scores, cycles) cell, ``trials``
    simulations (:func:`pref_eval.zelo.simulate.recovery`): judgments drawn
    for random cycles (``strategy="adaptive"``: adaptive pairs with the same
    budget), fitted, and compared with the dense-matrix fit and the truth by
    Kendall's τ (Kendall 1938) and the top-10 overlap. Returns one dict per cell (its keys,
    and the per-trial arrays); with ``output`` each row is written (and
    flushed) as it is computed, a line on ``log`` per cell. The adaptive
    strategy's ``window``, ``start``, ``batch`` and ``criterion`` (None: its
    defaults) are refused with ``strategy="cycles"``.
    """
    from ..zelo.simulate import recovery

    _check_int("trials", trials, 1)
    _check_int("seed", seed, 0, SEED_MAX)
    given = {k: v for k, v in {"window": window, "start": start, "batch": batch, "criterion": criterion}.items()
             if v is not None}
    if given and strategy != "adaptive":
        raise UsageError(f"{_o(next(iter(given)))} applies only to "
                         f"{option_value('strategy', '--strategy', 'adaptive')}")
    if strategy not in ("cycles", "adaptive"):
        raise UsageError(f"unknown strategy {shown(strategy)}")
    if start is not None and start not in ("matching", "cycle"):
        raise UsageError(f"{_o('start')}: expected matching or cycle, got {shown(start)}")
    if criterion is not None and criterion not in ("discordance", "uncertainty", "rowsum"):
        raise UsageError(f"{_o('criterion')}: expected discordance, uncertainty or rowsum, got {shown(criterion)}")
    for name in ("window", "batch"):
        v = given.get(name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1):
            raise UsageError(f"{_o(name)}: expected an integer >= 1, got {shown(v)}")
    _check_sigma(sigma)
    _check_ints(ks, "ks", 2, "--K")
    _check_ints(cycles, "cycles", 1)
    params: dict[str, Any] = dict(given, strategy=strategy)
    cells = [(k, s, c) for k in ks for s in sigma for c in cycles]
    if strategy == "adaptive":
        for k, c in sorted({(k, c) for k, _, c in cells}):
            if c * k > k * (k - 1) // 2:
                cy, kk = _o("cycles"), _o("ks", "--K")
                hint = (f"use {cy} ≤ {(k - 1) // 2}" if k >= 3 else
                        f"use {kk} ≥ 3 or {option_value('strategy', '--strategy', 'cycles')}")
                raise UsageError(f"{cy} {c} with {kk} {k}: the adaptive strategy judges each pair at most once, "
                                 f"and {c}×{k} = {c * k} pairs exceed the {k * (k - 1) // 2} distinct pairs of "
                                 f"{k} documents ({hint})")
    got: list[dict[str, Any]] = []
    if output is None:
        for k, s, c in cells:
            got.append({"K": k, "sigma": s, "cycles": c, **recovery(k, s, c, trials, seed=seed, **params)})
        return got
    from ..output.atomic import command_output
    from ..output.simulations import RECOVERY_HEADER, recovery_row

    with command_output(output, _input_options(inputs, output=output)) as out:
        out.write(RECOVERY_HEADER)
        for i, (k, s, c) in enumerate(cells, start=1):
            r = recovery(k, s, c, trials, seed=seed, **params)
            got.append({"K": k, "sigma": s, "cycles": c, **r})
            out.write(recovery_row(k, s, c, trials, r))
            out.flush()
            if log is not None:
                log.info(f"recovery: {i}/{len(cells)} cells (K={k}, sigma={s:g}, cycles={c})")
    return got


_ALGO_PARAMS = {"dts": {"alpha"}, "mergedts": {"alpha", "batch", "c"}, "round-efficient": {"delta"}}


_BANDIT_DEFAULTS = {"dts": {"alpha": 0.8 ** 7}, "mergedts": {"alpha": 0.8 ** 6, "batch": 16, "c": 4_000_000.0},
                    "round-efficient": {"delta": 0.2}}


def _case_or_matrix(case: str | None, matrix: Any) -> tuple[Any, str]:
    """Yan et al.'s Case A/B matrix, or the given one (a path or an array): (matrix, its label)."""
    if (case is None) == (matrix is None):
        raise UsageError(f"give exactly one of {_o('case')} and {_o('matrix')}")
    if case is not None:
        from ..zelo.bandits import case_matrix

        if not isinstance(case, str) or case.upper() not in ("A", "B"):
            raise UsageError(f"{_o('case')}: expected A or B, got {shown(case)}")

        return case_matrix(case), case.upper()
    return _probability_matrix(matrix), (os.fspath(matrix) if isinstance(matrix, (str, os.PathLike)) else "matrix")


def _matrix_output(case: str | None, matrix: Any, output: str | None, inputs: InputOptions | None) -> InputOptions:
    """The files ``output`` must not be (the matrix's path), ``output`` refused now if it cannot be written:
    before the matrix is read and the simulations run."""
    path = os.fspath(matrix) if case is None and isinstance(matrix, (str, os.PathLike)) else None
    own = _input_options(inputs, output=output, matrix=path)
    if (case is None) != (matrix is None):  # else the usage error first (_case_or_matrix)
        _preflight(own, output)
    return own


def _write_summary(rows: list[dict[str, Any]], output: str | None, inputs: InputOptions) -> None:
    if output is None:
        return
    from ..output.atomic import command_output
    from ..output.simulations import write_summary_rows

    with command_output(output, inputs) as out:
        write_summary_rows(out, rows)


def simulate_bandit(algorithm: str, *, case: str | None = None, matrix: Any = None, reps: int = 1000,
                    budget: int = 1000, seed: int = 0, alpha: float | None = None, batch: int | None = None,
                    c: float | None = None, delta: float | None = None, output: str | None = None,
                    log: Any = None, inputs: InputOptions | None = None) -> dict[str, Any]:
    """A dueling-bandit algorithm against a matrix (``zelo_simulate bandit``; Yan et al. 2022, Figure 3).

    ``algorithm``: ``dts`` (Double Thompson Sampling, Wu & Liu 2016),
    ``mergedts`` (Li et al. 2020) or ``round-efficient`` (Lin & Lu 2018),
    each with its own parameters (``alpha``; ``alpha``, ``batch``, ``c``;
    ``delta``; another algorithm's parameter is refused), ``budget``
    comparisons per repetition, against Case ``A``/``B`` or ``matrix``.
    Returns the summary row (:data:`pref_eval.zelo.figure3.COLUMNS`), written to ``output`` when given.
    """
    from ..zelo.bandits import simulate_bandit as run_bandit
    from ..zelo.figure3 import summarise

    _check_int("reps", reps, 1)
    _check_int("budget", budget, 1)
    _check_int("seed", seed, 0, SEED_MAX)
    _check_float("alpha", alpha, 0, lo_open=True, optional=True)
    _check_int("batch", batch, 2, optional=True)
    _check_float("c", c, 0, optional=True)
    _check_float("delta", delta, 0, 1, lo_open=True, hi_open=True, optional=True)
    if algorithm not in _ALGO_PARAMS:
        raise UsageError(f"unknown algorithm {shown(algorithm)}; expected one of {', '.join(sorted(_ALGO_PARAMS))}")
    if (case is None) == (matrix is None):
        raise UsageError(f"give exactly one of {_o('case')} and {_o('matrix')}")
    given = {k: v for k, v in {"alpha": alpha, "batch": batch, "c": c, "delta": delta}.items() if v is not None}
    extra = sorted(set(given) - _ALGO_PARAMS[algorithm])
    if extra:
        raise UsageError(f"{_o(extra[0], '--C' if extra[0] == 'c' else None)} does not apply to "
                         f"{option_value('algorithm', '--algorithm', algorithm)}")
    params = {**_BANDIT_DEFAULTS[algorithm], **given}
    if "c" in params:
        params["C"] = params.pop("c")
    own = _matrix_output(case, matrix, output, inputs)
    m, label = _case_or_matrix(case, matrix)
    r = run_bandit(algorithm, m, reps, seed=seed, T=budget, progress=_percent_progress(log, algorithm), **params)
    row = summarise(algorithm, label, r)
    _write_summary([row], output, own)
    return row


def simulate_adaptive(*, case: str | None = None, matrix: Any = None, reps: int = 1000, seed: int = 0,
                      lead: float = 2.0, batch: int = 1, max_per_pair: int = 6, max_per_match: int = 5,
                      lives: int = 2, final: int = 6, final_lead: float = 3.0, output: str | None = None,
                      log: Any = None, inputs: InputOptions | None = None) -> dict[str, Any]:
    """The adaptive best-item strategy against a matrix (``zelo_simulate adaptive``).

    Double elimination seeded by the Bradley–Terry (Bradley & Terry 1952) posterior, matches that
    end at a ``lead`` of wins (at most ``max_per_match`` judgments, ``batch``
    per round, ``max_per_pair`` of one pair), ``lives`` losses, then an
    all-pairs final of ``final`` items to ``final_lead``
    (:mod:`pref_eval.zelo.adaptive`). Returns the summary row (columns as for
    :func:`simulate_bandit`), written to ``output`` when given.
    """
    from ..zelo.adaptive import simulate_adaptive as run_adaptive
    from ..zelo.figure3 import summarise

    _check_int("reps", reps, 1)
    _check_int("seed", seed, 0, SEED_MAX)
    _check_float("lead", lead, 0.5)
    for name, v in (("batch", batch), ("max_per_pair", max_per_pair), ("max_per_match", max_per_match),
                    ("lives", lives), ("final", final)):
        _check_int(name, v, 1)
    _check_float("final_lead", final_lead, 0.5)
    own = _matrix_output(case, matrix, output, inputs)
    m, label = _case_or_matrix(case, matrix)
    r = run_adaptive(m, reps, seed=seed, progress=_percent_progress(log, "adaptive"), lead=lead, batch=batch,
                     max_per_pair=max_per_pair, max_per_match=max_per_match, lives=lives, final=final,
                     final_lead=final_lead)
    row = summarise("adaptive", label, r)
    _write_summary([row], output, own)
    return row


def simulate_figure3(reps: int = 1000, seed: int = 0,
                     algorithms: Sequence[str] = ("dts", "mergedts", "round-efficient", "tournament",
                                                  "tournament-final", "adaptive"), *,
                     output: str | None = None, log: Any = None,
                     inputs: InputOptions | None = None) -> list[dict[str, Any]]:
    """Yan et al.'s Figure 3 ("Human Preferences as Dueling Bandits", SIGIR 2022; ``zelo_simulate figure3``):
    every algorithm of ``algorithms`` on Case A and Case B (T = 1,000; :func:`pref_eval.zelo.figure3.figure3`);
    the rows, written to ``output`` when given."""
    from ..zelo.figure3 import ROWS, figure3

    _check_int("reps", reps, 1)
    _check_int("seed", seed, 0, SEED_MAX)
    algos = tuple(algorithms.split(",")) if isinstance(algorithms, str) else tuple(
        _string_list("algorithms", algorithms))  # "dts,mergedts"; an int was "object is not iterable"
    if not algos:
        raise UsageError(f"{_o('algorithms')} is empty")
    bad = [a for a in algos if a not in ROWS]
    if bad:
        raise UsageError(f"{_o('algorithms')}: unknown {shown(bad[0])} (expected some of {', '.join(ROWS)})")
    own = _input_options(inputs, output=output)
    _preflight(own, output)  # before the simulations
    progress = None if log is None else (lambda label, d, t: log.progress(label, d, t))
    rows = figure3(reps, seed, algos, progress=progress)
    _write_summary(rows, output, own)
    return rows
