"""Measure specifications and the registry.

A measure is a small declarative :class:`MeasureSpec` (name, parameters and
defaults, aggregation, value for an empty query, documentation) plus one pure
function ``compute(ranked, params, ctx) -> ndarray`` that returns a
``(n_queries, n_columns)`` array (one column per parameter value, e.g. one per
cutoff of ``P``) for a :class:`~pref_eval.collection.Ranked` run.

Families live in one file each (``precision.py``, ``ndcg.py`` ...) and
register their specs with :func:`register`; ``order`` is trec_eval's print
order (``measures.c``), which is also the order in which ``zelo_trec`` prints.

Every spec carries its ``formula`` and ``citation`` (the registry-wide test
``tests/test_measures_registry.py`` fails without them), its empty-query value
(``empty_value``), and, for the ir-measures syntax, its name ``irm`` and its
declared keyword parameters ``keywords`` -- a tuple of
:class:`~pref_eval.measures.params.Param`. **How a family declares its
parameters** is described in :mod:`pref_eval.measures.params`: in short, a
parameter not declared is refused, a declared one is type/range checked and
then honoured by its ``role`` (cutoff, truncate, level, judged_only) or by the
compute function reading ``ctx.opts[name]``.
"""
from __future__ import annotations

from dataclasses import field, replace
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ..errors import UsageError
from ..records import record
from .params import Param

ParamKind = Literal["none", "cutoffs", "floats", "raw", "gains"]
Aggregate = Literal["mean", "sum", "gmean", "count", "runid", "none"]
ValueType = Literal["float", "int", "str"]


@record(frozen=True)
class EvalContext:
    """Evaluation options that measures may read.

    ``level``: relevance threshold (trec_eval ``-l``; per-measure override
    from ir-measures' ``rel=``). ``trec9``: emulate trec_eval 9.x where its
    formulas differ (iprec_at_recall rounding). ``complete``: ``-c``.
    ``num_docs_in_coll``: ``-N``. ``qrels_num_rel_gt0``: per evaluated
    query, the number of qrels grades > 0 (trec_eval's ``-c`` summary of
    num_rel). ``extra`` carries format-specific inputs (e.g. prefs).
    """

    level: int = 1
    trec9: bool = False
    complete: bool = False
    num_docs_in_coll: int = 0
    extra: dict = field(default_factory=dict)
    opts: dict = field(default_factory=dict)  # declared keyword parameters of the request (ir-measures syntax)
    irm: bool = False  # the request was written in ir-measures syntax (its providers' conventions apply)

    def required(self, key: str, refusal: str) -> Any:
        """``extra[key]``, the input a measure family needs; UsageError ``refusal`` (which names the option that
        gives it) when the evaluation was not given it."""
        value = self.extra.get(key) if self.extra else None
        if value is None:
            raise UsageError(refusal)
        return value


Compute = Callable[[Any, tuple, EvalContext], Any]


@record(frozen=True)
class MeasureSpec:
    """Declarative description of one trec_eval-style measure family.

    * ``name`` -- trec_eval's name (``P``, ``ndcg_cut``, ``map``).
    * ``order`` -- position in trec_eval's measure table (print order).
    * ``compute`` -- pure function ``(ranked, params, ctx)`` →
      ``(nq, ncols)`` float array (or a list of str for ``value_type='str'``).
    * ``param_kind`` -- ``none``; ``cutoffs`` (integer list, a decimal number
      truncated as C ``atol`` does, any other text refused; sorted, printed
      ``name_%ld``); ``floats`` (double list, sorted, printed ``name_%3.2f``);
      ``raw`` (parameter string kept verbatim and appended to the printed name,
      e.g. ``utility_2,-1,0,0``); ``gains`` (``k=v`` list with integer grades or
      the measure's keywords, ``parse.PAIR_KEYWORDS``; raw string appended to
      the name). Numbers must be written whole (``parse._whole_float``).
    * ``defaults`` -- default parameter values.
    * ``aggregate`` -- summary over queries: ``mean``, ``sum``, ``gmean``
      (exp of mean log with floor 1e-5), ``count`` (number of queries),
      ``runid``, ``none`` (per-query only).
    * ``value_type`` -- how values are printed (float ``%6.4f``, int ``%ld``, str).
    * ``empty_value`` -- value for a query with no retrieved document (NaN
      allowed: 0/0; None: not a constant, it depends on the qrels, e.g. num_rel).
    * ``bounds`` -- (low, high) every per-query value lies in (float measures;
      NaN allowed only when ``empty_value`` is NaN); None: unbounded.
    * ``summary_only`` / ``per_query_only`` -- trec_eval's printing rules.
    * ``zero_if_missing`` -- under ``-c``, a query the run lacks gets 0 for
      this measure regardless of compute (trec_eval zeroes num_ret,
      utility, unj, rbp_resid, relstring for missing queries).
    * ``uses_level`` -- whether ``-l`` affects the measure (docs).
    * ``nicknames`` -- trec_eval measure sets this belongs to.
    * ``irm`` -- ir-measures family name, if any (e.g. ``nDCG``; ``nDCG@``
      for the spec reached with a cutoff).
    * ``keywords`` -- declared keyword parameters (:mod:`.params`).
    * ``trec_params`` -- declared parameters of the trec_eval syntax (type,
      range, how many values; :mod:`.params`): required for ``param_kind``
      floats/raw/gains, :data:`~.params.LIST_CUTOFF` by default for cutoffs.
    * ``irm_per_query`` -- in ir-measures syntax the measure has per-query
      values even if trec_eval prints it as a summary only (``NumQ`` = 1).
    * ``tie_order`` -- ``trec`` (score desc, docno desc: trec_eval) or
      ``docno_asc`` (score desc, docno asc: the order of ir-measures' own
      providers and MS MARCO's script, used by ``Judged`` and ``RR@k``).
    * ``needs`` -- inputs beyond qrels and run: ``subtopics`` (the qrels are
      read as subtopic qrels, :func:`needs_subtopics`), ``judgments`` (a
      pairwise judgment file, ``-P``).
    """

    name: str
    order: int
    compute: Compute
    description: str
    formula: str = ""
    citation: str = ""
    param_kind: ParamKind = "none"
    defaults: tuple = ()
    aggregate: Aggregate = "mean"
    value_type: ValueType = "float"
    empty_value: float | None = 0.0
    bounds: tuple[float, float] | None = (0.0, 1.0)
    summary_only: bool = False
    per_query_only: bool = False
    zero_if_missing: bool = False
    uses_level: bool = True
    nicknames: frozenset = frozenset()
    irm: str | None = None
    summarize: Callable | None = None  # custom summary (values, ranked, ctx) -> ndarray
    keywords: tuple[Param, ...] = ()
    trec_params: tuple[Param, ...] = ()  # trec_eval syntax: the list's values, or gains' pairs (params.py)
    irm_per_query: bool = False
    tie_order: Literal["trec", "docno_asc"] = "trec"
    validate: Callable[[str, dict], None] | None = None  # extra check of the options (one-line UsageError)
    needs: frozenset = frozenset()  # extra inputs: "subtopics" (subtopic qrels), "judgments" (-P file)

    def keyword(self, name: str) -> Param | None:
        """The declared keyword parameter ``name`` (None if not declared)."""
        return next((p for p in self.keywords if p.name == name), None)

    def keyword_gain(self) -> Param | None:
        """The declared ``grade=gain`` pairs of the trec_eval syntax (gains kind), None if it takes none."""
        return next((p for p in self.trec_params if p.name == "gain"), None)


@record(frozen=True)
class MeasureRequest:
    """A measure with its parameters, as requested (``P.5,10`` → P with (5, 10)).

    ``raw`` is the parameter string as typed (used for the printed name of
    ``raw``/``gains`` measures); ``level`` overrides the relevance level.
    """

    spec: MeasureSpec
    params: tuple
    raw: str | None = None
    level: int | None = None
    label: str | None = None  # display name for non-trec syntaxes (e.g. "nDCG@10")
    options: tuple = ()  # ((name, value), ...) declared keyword parameters, checked

    def columns(self) -> list[str]:
        """Printed names of the columns, trec_eval style."""
        s = self.spec
        if s.param_kind == "cutoffs":
            return [f"{s.name}_{int(c)}" for c in self.params]
        if s.param_kind == "floats":
            return [f"{s.name}_{float(c):3.2f}" for c in self.params]
        if s.param_kind in ("raw", "gains"):
            return [f"{s.name}_{self.raw}" if self.raw else s.name]
        return [s.name]

    def context(self, ctx: EvalContext) -> EvalContext:
        """``ctx`` with this request's relevance level and keyword options."""
        opts = dict(self.options)
        level = self.level if self.level is not None else ctx.level
        irm = self.label is not None
        if level == ctx.level and opts == ctx.opts and irm == ctx.irm:
            return ctx
        return replace(ctx, level=level, opts=opts, irm=irm)

    def prepare(self, ranked: Any) -> Any:
        """The ranking the measure sees: ties reordered, unjudged removed, truncated (by role)."""
        from ..collection import docno_ascending_ties, subset_ranked

        if self.spec.tie_order == "docno_asc":
            ranked = docno_ascending_ties(ranked)
        opts = dict(self.options)
        for p in self.spec.keywords:
            v = opts.get(p.name)
            if p.role == "judged_only" and v:
                ranked = subset_ranked(ranked, ranked.grade >= 0)
        for p in self.spec.keywords:
            v = opts.get(p.name)
            if p.role == "truncate" and v is not None:
                ranked = subset_ranked(ranked, ranked.pos < int(v))
        return ranked

    def compute(self, ranked: Any, ctx: EvalContext) -> Any:
        return self.spec.compute(self.prepare(ranked), self.params, self.context(ctx))


REGISTRY: dict[str, MeasureSpec] = {}


def register(spec: MeasureSpec) -> MeasureSpec:
    """Add ``spec`` to the registry; a second spec with the same name is an error, and so is one whose
    trec_eval parameters are not declared (``trec_params``; cutoffs default to integers ≥ 1)."""
    from .params import LIST_CUTOFF

    if spec.name in REGISTRY:
        raise ValueError(f"measure {spec.name!r} registered twice")
    if spec.param_kind == "cutoffs" and not spec.trec_params:
        spec = replace(spec, trec_params=(LIST_CUTOFF,))
    if (spec.param_kind == "none") != (not spec.trec_params):
        raise ValueError(f"measure {spec.name!r}: param_kind {spec.param_kind!r} needs declared trec_params "
                         "(and 'none' none)")
    REGISTRY[spec.name] = spec
    return spec


def measure(name: str, order: int, description: str, **kw: Any) -> Callable[[Compute], Compute]:
    """Decorator: register ``fn`` as the compute function of a new spec."""

    def deco(fn: Compute) -> Compute:
        register(MeasureSpec(name=name, order=order, compute=fn, description=description, **kw))
        return fn

    return deco


def needs_subtopics(requests: Sequence[MeasureRequest]) -> bool:
    """Whether some request needs the qrels read as subtopic qrels (second column kept)."""
    return any("subtopics" in r.spec.needs for r in requests)


def needs_input(requests: Sequence[MeasureRequest], what: str) -> bool:
    """Whether some request needs the extra input ``what`` (``judgments``, ``best``)."""
    return any(what in r.spec.needs for r in requests)
