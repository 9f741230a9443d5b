"""``zelo_plot``: :func:`plot_matrix`, :func:`plot_scores`, :func:`plot_systems`, :func:`plot_pairs`,
:func:`plot_calibration`; the image (:class:`PlotImage`) and the values (:class:`PlotValues`) they take.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ..seeds import SEED_MAX
from ..errors import UsageError, command_running, renamed_keywords, shown
from ._inputs import (_check_float, _check_int, _check_paths, _check_strings, _input_options, _path_list,
                      _refuse_stdin_twice, _string_list)

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


class _Image(NamedTuple):
    output: str
    width: float
    height: float
    dpi: float = 100.0
    title: str | None = None
    output_format: str | None = None


class PlotImage(_Image):
    """Where and how ``zelo_plot`` draws: the image file (``-`` = standard output), its size in inches, its
    resolution (PNG), the title (``None``: one describing the data) and the format ``output_format`` (``png``,
    ``svg`` or ``pdf``; ``None``: by the file's extension; needed for ``-``; refused when it contradicts the
    extension).

    A NamedTuple (unpacking, ``_replace``, pickling as before); ``fmt``, the field's name before session 26, is
    still taken by the constructor and readable as ``.fmt``, each with a ``DeprecationWarning``."""

    __slots__ = ()
    __annotations__ = dict(_Image.__annotations__)  # the fields' types, read as PlotImage's (tests, tools)

    def __new__(cls, output: str, width: float, height: float, dpi: float = 100.0, title: str | None = None,
                output_format: str | None = None) -> PlotImage:
        return super().__new__(cls, output, width, height, dpi, title, output_format)

    __new__.__name__ = "PlotImage"  # the deprecation's message: PlotImage(fmt=...)
    __new__ = renamed_keywords(fmt="output_format")(__new__)

    @property
    def fmt(self) -> str | None:
        """Deprecated: :attr:`output_format`."""
        import warnings

        warnings.warn("PlotImage.fmt is deprecated: the field is output_format", DeprecationWarning, stacklevel=2)
        return self.output_format


def _check_image(image: Any, files: dict[str, Any]) -> None:
    """``image`` must be a :class:`PlotImage` and the file parameters paths, before anything is read: a path
    string where the image goes (``image="x.svg"``) was ``AttributeError: 'str' object has no attribute 'output'``,
    a DataFrame where a file goes a TypeError or pandas' ValueError."""
    if not isinstance(image, _Image):
        what = f" {shown(image)}" if isinstance(image, str) else ""
        raise UsageError(f"image: expected a PlotImage, got {type(image).__name__}{what} "
                         "(pref_eval.PlotImage(output, width, height): e.g. PlotImage('plot.svg', 6, 4))")
    for name, v in files.items():
        if name == "judgments":
            _path_list(v, name, "paths of judgment files")
        else:
            _check_paths("a path of a file", **{name: v})


def _plot_check(image: PlotImage, own: InputOptions) -> None:
    """Refuse a bad extension, a PNG too large to draw (:func:`pref_eval.plot.png.check_png_size`) or an
    output that is an input before any work."""
    from ..output.atomic import inputs_besides, preflight
    from ..plot.output import image_format

    # the ranges of zelo_plot's --width, --height, --dpi
    _check_float("width", image.width, 1, 100)
    _check_float("height", image.height, 1, 100)
    _check_float("dpi", image.dpi, 10, 1200)
    if image_format(image.output, image.output_format) == "png":
        from ..plot.png import check_png_size

        check_png_size(image.width, image.height, image.dpi)
    preflight(image.output, inputs_besides(image.output, own))


def _plot_end(fig: Any, image: PlotImage, own: InputOptions, log: Any) -> None:
    """Save a :class:`pref_eval.plot.canvas.Canvas` (:func:`pref_eval.plot.output.save_canvas`)."""
    from ..output.atomic import inputs_besides, is_stdout
    from ..plot.output import save_canvas


    warned = save_canvas(fig, image.output, image.dpi, inputs_besides(image.output, own), image.output_format)
    if log is not None:
        for line in warned:
            log.warn(line)
        log.info("wrote the image to standard output" if is_stdout(image.output) else f"wrote {image.output}")


@renamed_keywords(fmt="judgments_format")
def plot_matrix(judgments: Sequence[str], image: PlotImage, *, judgments_format: str | None = None,
                ties: str = "half", qid: str | None = None, scores: str | None = None, prior: float = 0.5,
                log: Any = None, inputs: InputOptions | None = None) -> Any:
    """zbench's K×K comparison matrix of one query (``zelo_plot matrix``): cell (i, j) is the share of the
    comparisons between i and j that i won, documents in input and in zELO order (a Bradley–Terry fit,
    Bradley & Terry 1952, with ``prior``, or the ``scores`` file of ``zelo_fit``); drawn on
    :class:`pref_eval.plot.canvas.Canvas`, saved to ``image`` and returned."""
    from ..io.judgments import read_judgments
    from ..plot.matrix import draw_matrix, share_matrix, win_matrix, zelo_order

    _check_image(image, dict(judgments=judgments))
    _check_float("prior", prior, 0)
    _check_strings(judgments_format=judgments_format, qid=qid, ties=ties)
    _check_paths("a zelo_fit score file", scores=scores)
    from ..plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, judgments=list(judgments), scores=scores)
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    judg = None
    for path in judgments:
        judg = read_judgments(path, judgments_format, ties=ties, into=judg)
    if judg is None or not judg.queries:
        raise UsageError("the judgment files hold no judgments")
    qid = qid or judg.queries[0]
    docs, wins = win_matrix(judg, qid)
    given = None
    if scores:
        from ..plot.scores import read_scores_with_se

        table = read_scores_with_se(scores)
        if qid not in table:
            raise UsageError(f"query {shown(qid)} is not in {scores}")
        given = dict(zip(table[qid][0], table[qid][1], strict=False))
    order, x = zelo_order(judg, qid, docs, given, prior=prior)
    canvas = draw_matrix(docs, share_matrix(wins), order, x, qid, (image.width, image.height), image.title, measure)
    _plot_end(canvas, image, own, log)
    return canvas


def plot_scores(scores: str, image: PlotImage, *, queries: Sequence[str] = (), max_queries: int = 3,
                top: int | None = None, confidence: float = 0.95, log: Any = None,
                inputs: InputOptions | None = None) -> Any:
    """zELO scores (Bradley–Terry, Bradley & Terry 1952) with intervals score ± z·se, z = Φ⁻¹(1 − (1 −
    confidence)/2), one panel per query (``zelo_plot scores``; ``queries``, else the first ``max_queries``; the
    ``top`` documents).

    Drawn on pref_eval's own :class:`pref_eval.plot.canvas.Canvas` (PNG by Pillow, SVG as text, PDF through
    matplotlib), which is saved to ``image`` and returned."""
    from ..plot.fonts import TextMeasure
    from ..plot.scores import draw_scores, read_scores_and_scale, select_queries

    _check_image(image, dict(scores=scores))
    _check_int("max_queries", max_queries, 1)
    queries = _string_list("queries", queries)  # (an int was "object is not iterable")
    _check_int("top", top, 1, optional=True)
    _check_float("confidence", confidence, 0, 1, lo_open=True, hi_open=True)
    own = _input_options(inputs, output=image.output, scores=scores)
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    data, elo = read_scores_and_scale(scores)
    chosen = select_queries(list(data), tuple(queries), max_queries)
    canvas = draw_scores(data, chosen, confidence, top, (image.width, image.height), image.title, measure,
                         elo=elo)
    _plot_end(canvas, image, own, log)
    return canvas


class _Values(NamedTuple):
    qrels: str | None = None
    per_query_file: str | None = None
    runs: tuple[str, ...] = ()
    measure: str | None = None
    complete: bool = False
    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    seed: int = 0
    run_id_mode: str = "path"
    run_names: tuple[str, ...] = ()


class PlotValues(_Values):
    """The per-query values ``zelo_plot systems|pairs`` test: runs evaluated against ``qrels`` with
    ``measure``, or the file ``per_query_file`` (``zelo_eval -q -o tsv|csv|jsonl`` output, zelo_plot's ``-P``);
    the paired ``test``, ``correction``, ``alpha``, ``seed``.

    A NamedTuple (unpacking, ``_replace``, pickling as before); ``per_query``, the field's name before session
    27 (``per_query`` is a flag elsewhere: ``evaluate_runs``, ``preferences``), is still taken by the
    constructor and readable as ``.per_query``, each with a ``DeprecationWarning``."""

    __slots__ = ()
    __annotations__ = dict(_Values.__annotations__)  # the fields' types, read as PlotValues' (tests, tools)

    def __new__(cls, qrels: str | None = None, per_query_file: str | None = None, runs: tuple[str, ...] = (),
                measure: str | None = None, complete: bool = False, test: str = "t", correction: str = "holm",
                alpha: float = 0.05, seed: int = 0, run_id_mode: str = "path",
                run_names: tuple[str, ...] = ()) -> PlotValues:
        return super().__new__(cls, qrels, per_query_file, runs, measure, complete, test, correction, alpha, seed,
                               run_id_mode, run_names)

    __new__.__name__ = "PlotValues"  # the deprecation's message: PlotValues(per_query=...)
    __new__ = renamed_keywords(per_query="per_query_file")(__new__)

    @property
    def per_query(self) -> str | None:
        """Deprecated: :attr:`per_query_file`."""
        import warnings

        warnings.warn("PlotValues.per_query is deprecated: the field is per_query_file", DeprecationWarning,
                      stacklevel=2)
        return self.per_query_file


def _check_values(v: PlotValues) -> None:
    """The numbers of :class:`PlotValues` in the ranges of zelo_plot's ``--alpha`` and ``--seed``."""
    if not isinstance(v, _Values):  # (a DataFrame was "'DataFrame' object has no attribute 'alpha'")
        raise UsageError(f"values: expected a PlotValues, got {type(v).__name__} (pref_eval.PlotValues(qrels=QRELS, "
                         "runs=[RUN, ...], measure=M) or PlotValues(per_query_file=FILE))")
    _check_float("alpha", v.alpha, 0, 1, lo_open=True, hi_open=True)
    _check_int("seed", v.seed, 0, SEED_MAX)
    hint = "for data: write it with pref_eval.evaluate_runs(..., per_query=True, output_format='tsv', output=FILE)"
    _check_paths(hint, qrels=v.qrels, per_query_file=v.per_query_file)
    if v.runs:
        _refuse_stdin_twice(qrels=v.qrels, runs=_path_list(v.runs, "runs", hint))


def _plot_values(v: PlotValues, log: Any) -> tuple[Any, str]:
    from ..plot.data import load_values

    if log is not None:
        log.stage(f"reading values ({len(v.runs)} runs)" if v.runs else "reading values")
    return load_values(v.qrels, v.runs, v.per_query_file, v.measure, v.complete, v.run_id_mode, v.run_names, log=log)


def plot_systems(values: PlotValues, image: PlotImage, *, ci: str = "t", confidence: float = 0.95,
                 log: Any = None, inputs: InputOptions | None = None) -> Any:
    """Runs ordered by a measure with ``confidence`` intervals of their means (Student t, or BCa
    bootstrap: Efron 1987) and significance groups (``zelo_plot systems``): runs sharing a letter are not
    significantly different by ``values.test`` with ``values.correction`` over all pairs. Drawn on
    :class:`pref_eval.plot.canvas.Canvas` (as ``plot_scores``), saved to ``image`` and returned."""
    import numpy as np

    from ..plot.data import paired_table, pairwise_tests
    from ..plot.systems import draw_systems, letter_groups, mean_intervals, significant_matrix
    from ..stats.compare import CORRECTION_LABELS, TEST_LABELS

    _check_float("confidence", confidence, 0, 1, lo_open=True, hi_open=True)
    _check_values(values)
    _check_image(image, {})
    from ..plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, qrels=values.qrels, per_query_file=values.per_query_file,
                         runs=list(values.runs))
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before evaluating
    df, name = _plot_values(values, log)
    wide = paired_table(df, values.complete)
    run_list = list(wide.columns)
    means, low, high = mean_intervals(wide, confidence, ci, values.seed)
    order = np.argsort(-means, kind="stable")
    letters, legend = ["a"], f"{confidence:.0%} intervals"
    if len(run_list) >= 2:
        test, correction, alpha = values.test, values.correction, values.alpha
        if log is not None:
            log.stage(f"{test} tests over {len(run_list) * (len(run_list) - 1) // 2} pairs")
        records = pairwise_tests(df, test, correction, alpha, values.seed, values.complete)
        letters = letter_groups(significant_matrix(records, run_list, alpha), order)
        legend = (f"{confidence:.0%} {'t' if ci == 't' else 'bootstrap'} intervals; same letter = not "
                  f"significantly different ({TEST_LABELS.get(test, test)}, "
                  f"{CORRECTION_LABELS.get(correction, correction)}, α = {alpha:g})")
    canvas = draw_systems(run_list, means, low, high, letters, name, len(wide), legend,
                          (image.width, image.height), image.title, measure)
    _plot_end(canvas, image, own, log)
    return canvas


def plot_pairs(values: PlotValues, image: PlotImage, *, compare_file: str | None = None, value: str = "p_adjusted",
               log: Any = None, inputs: InputOptions | None = None) -> Any:
    """Heatmap of pairwise p-values or mean differences between runs (``zelo_plot pairs``): from a
    ``zelo_compare -o jsonl`` file, or computed from ``values`` with its paired test and correction (those of
    :func:`compare_runs`: t, Student 1908; wilcoxon, Wilcoxon 1945; ...; holm, Holm 1979; ...).
    Drawn on :class:`pref_eval.plot.canvas.Canvas` (as ``plot_scores``), saved to ``image`` and returned."""
    from ..plot.data import pairwise_tests, read_compare_jsonl, run_count, select_records
    from ..plot.pairs import draw_pairs, pair_matrix

    _check_values(values)
    _check_image(image, dict(compare_file=compare_file))
    from ..plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, compare=compare_file, qrels=values.qrels,
                         per_query_file=values.per_query_file, runs=list(values.runs))
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    if compare_file is not None:
        if values.qrels is not None or values.per_query_file is not None or values.runs:
            raise UsageError("give either -C COMPARE_JSONL or -R/-P, not both" if command_running() else
                             "give either compare_file or values with qrels, per_query_file or runs, not both")
        records, name, test_used = select_records(read_compare_jsonl(compare_file), values.measure,
                                                  None if values.test == "t" else values.test, compare_file)
    else:
        df, name = _plot_values(values, log)
        n = run_count(df)
        if n < 2:
            raise UsageError("need at least two runs to compare")
        if log is not None:
            log.stage(f"{values.test} tests over {n * (n - 1) // 2} pairs")
        records = pairwise_tests(df, values.test, values.correction, values.alpha, values.seed, values.complete)
        test_used = values.test
    run_list, m = pair_matrix(records, value)
    pv = pair_matrix(records, "p_adjusted")[1] if value == "mean_diff" else None
    canvas = draw_pairs(run_list, m, value, values.alpha, name, test_used, (image.width, image.height),
                        image.title, pv, measure)
    _plot_end(canvas, image, own, log)
    return canvas


def plot_calibration(agree_file: str, image: PlotImage, *, judge: str | None = None, log: Any = None,
                     inputs: InputOptions | None = None) -> Any:
    """Reliability diagram of a judge from ``zelo_agree -o jsonl`` calibration records (``zelo_plot
    calibration``): the reference's observed mean against the judge's predicted μ per
    bucket (DeGroot & Fienberg 1983; the expected calibration error ECE = Σ_b (n_b/N) |mean μ_b − mean y_b|,
    ``docs/zelo_agree.md``), and the stacked shares of the reference's levels 0, (0,1/2), 1/2, (1/2,1), 1; drawn on
    :class:`pref_eval.plot.canvas.Canvas`, saved to ``image`` and returned."""
    from ..io.agree_records import read_agree_jsonl
    from ..plot.calibration import draw_calibration, select_calibration

    _check_image(image, dict(agree_file=agree_file))
    from ..plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, agree=agree_file)
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    data = select_calibration(read_agree_jsonl(agree_file), judge, agree_file)
    canvas = draw_calibration(data, (image.width, image.height), image.title, measure)
    _plot_end(canvas, image, own, log)
    return canvas
