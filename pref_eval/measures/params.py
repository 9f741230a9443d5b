"""Declared keyword parameters of a measure (ir-measures' ``SUPPORTED_PARAMS`` idea).

A measure accepts, in ir-measures syntax (``P(rel=2)@10``,
``nDCG(dcg='exp-log2')@10``, ``RBP(p=0.8, rel=1)``), exactly the keyword
parameters its :class:`~pref_eval.measures.base.MeasureSpec` declares in
``keywords``; anything else is refused with one line naming the measure, the
parameter and what it accepts. A value is checked for type, range and
choices before anything is computed, so a parameter is always honoured or
refused, never accepted and ignored.

How a family declares parameters (for authors of new families)
---------------------------------------------------------------
Give the spec ``keywords=(Param(...), ...)``. Each :class:`Param` has a name,
a type (``int``, ``float``, ``bool``, ``str``, ``dict``), a default
(:data:`NOT_GIVEN` when absent means "not set"), an optional range
(``low``/``high``, open or closed) or ``choices``, a one-line ``doc`` and a
``role`` telling the engine who honours it:

* ``"cutoff"`` -- the ``@k`` / ``cutoff=k`` of ir-measures; for a spec with
  ``param_kind='cutoffs'`` (or ``'floats'``: ``IPrec@0.2``, ``recall=``) it
  becomes the spec's parameter tuple ``(k,)``; declare it on the spec whose
  ``irm`` ends with ``@``.
* ``"truncate"`` -- a cutoff applied by keeping the top k of the ranking
  before the measure runs (``RR@10``, ``RBP@10``).
* ``"level"`` -- the relevance threshold: overrides ``ctx.level`` (``-l``).
* ``"judged_only"`` -- ``True`` removes the unjudged documents of the
  ranking first (trec_eval ``-J``).
* ``"compute"`` -- passed to the compute function in ``ctx.opts[name]``
  (the declared default is filled in, so ``ctx.opts`` always holds it for a
  request made in ir-measures syntax; it is empty for trec_eval syntax).
  The compute function **must** read it.

Use the shared declarations below (:data:`REL`, :data:`CUTOFF`,
:data:`JUDGED_ONLY` ...) when the meaning is the usual one.

trec_eval's syntax (``P.5,10``, ``set_F.0.5``, ``ndcg.1=3,2=9``, ``rbp.p=0.8``)
is declared the same way, in the spec's ``trec_params`` (its ``param_kind``
says how the text is split):

* ``cutoffs`` / ``floats`` / ``raw`` -- one :class:`Param` describing every
  value of the comma-separated list, with ``count=(least, most)`` values
  (``most`` None: any number, and then the values must be distinct, as
  trec_eval's cutoffs). A spec of kind ``cutoffs`` that declares nothing gets
  :data:`LIST_CUTOFF` (integers ≥ 1) when registered; the other kinds must
  declare theirs (``register`` refuses them otherwise).
* ``gains`` -- :data:`GAIN` (``grade=gain`` pairs: an integer grade, a finite
  gain) when the measure reads gains, and its ``name=value`` keywords
  (``rbp``'s ``p``). Each grade and each keyword at most once.

An integer parameter is also refused outside 64 bits (the grades and
positions are int64).
``tests/test_measures_registry.py`` checks every registered spec: formula,
citation, declared parameters, bounds and invariances.
"""
from __future__ import annotations

import math
from typing import Any, Literal

from ..records import record
from ..errors import UsageError

Role = Literal["cutoff", "truncate", "level", "judged_only", "compute"]


class _NotGiven:
    def __repr__(self) -> str:
        return "not given"

    def __reduce__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Any = _NotGiven()

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_TYPE_NAMES = {int: "an integer", float: "a number", bool: "True or False", str: "a string",
               dict: "a dict {grade: gain}"}


@record(frozen=True)
class Param:
    """One declared keyword parameter (see the module docstring)."""

    name: str
    type: type
    default: Any = NOT_GIVEN
    doc: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple | None = None
    role: Role = "compute"
    count: tuple[int, int | None] | None = None  # trec_eval-syntax lists: (least, most) values; None: one value

    def describe(self) -> str:
        """``rel (integer ≥ 0, default 1)`` -- for docs and error messages."""
        what = _TYPE_NAMES.get(self.type, self.type.__name__)
        if self.choices is not None:
            what = "one of " + ", ".join(repr(c) for c in self.choices)
        rng = self._range_text()
        if rng:
            what += f" {rng}"
        dflt = "" if self.default is NOT_GIVEN else f", default {_shown(self.default)}"
        return f"{self.name} ({what}{dflt}{self._count_text()})"

    def _count_text(self) -> str:
        if self.count is None:
            return ""
        lo, hi = self.count
        if lo == hi:
            return f"; exactly {lo} value{'s' if lo != 1 else ''}"
        if hi is None:
            return f"; a list of {lo} or more distinct values"
        return f"; {lo} to {hi} values"

    def _range_text(self) -> str:
        lo = None if self.low is None else ("> " if self.low_open else "≥ ") + _num(self.low)
        hi = None if self.high is None else ("< " if self.high_open else "≤ ") + _num(self.high)
        return " and ".join(x for x in (lo, hi) if x)

    def check(self, measure: str, value: Any) -> Any:
        """The value, converted to the declared type; UsageError naming ``measure`` otherwise."""
        bad = UsageError(f"measure {measure!r}: parameter {self.describe()} got {_shown(value)}")
        if self.type is float and _is_int(value):  # ir-measures refuses BPM(T=2), RBP(p=0), IPrec@1 alike
            raise UsageError(f"measure {measure!r}: parameter {self.describe()} got the integer {value!r}: write "
                             f"{value!r}.0 (ir-measures declares {self.name} a float and refuses an integer)")
        if not _TYPE_OK[self.type](value):
            raise bad
        if self.type is int and not INT64_MIN <= value <= INT64_MAX:
            raise UsageError(f"measure {measure!r}: parameter {self.describe()} got {value!r} (beyond 64 bits)")
        if self.type is float:
            value = float(value)
        elif self.type is dict:
            value = _gain_map(measure, value)
        if self.choices is not None and value not in self.choices:
            raise bad
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            raise bad
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            raise bad
        return value


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_TYPE_OK = {
    bool: lambda v: isinstance(v, bool),
    int: _is_int,
    float: lambda v: isinstance(v, float) and math.isfinite(v),
    str: lambda v: isinstance(v, str),
    dict: lambda v: isinstance(v, dict),
}


def _gain_map(measure: str, value: dict) -> tuple:
    """``{grade: gain}`` → sorted pairs; grades are integers ≥ 0, gains integers (ir-measures: int-to-int)."""
    for k, v in value.items():
        if not _is_int(k) or not 0 <= k <= INT64_MAX:
            raise UsageError(f"measure {measure!r}: gains keys must be grades (integers ≥ 0, 64 bits), got {k!r}")
        if not _is_int(v) or not INT64_MIN <= v <= INT64_MAX:
            raise UsageError(f"measure {measure!r}: gains values must be integers (64 bits), got {v!r}")
    return tuple(sorted(value.items()))


def _num(x: float) -> str:
    """A bound as a human writes it: ``1000000`` (an integer below 1e16), ``0.01``, ``1e300`` (not 301 digits)."""
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return _float_text(float(x))


def _float_text(x: float) -> str:
    """``repr`` with the exponent as written by hand: ``1e300``, ``2.5e-7`` (not ``1e+300``, ``2.5e-07``)."""
    text = repr(x)
    if "e" not in text:
        return text
    mant, exp = text.split("e")
    return f"{mant}e{int(exp)}"


def _shown(value: Any) -> str:
    """A refused value: a float as :func:`_float_text` writes it, anything else as its ``repr``."""
    return _float_text(value) if isinstance(value, float) and math.isfinite(value) else repr(value)


# ------------------------------------------------------- shared declarations
REL = Param("rel", int, 1, "minimum grade counted as relevant (inclusive); default: -l", low=0, role="level")
CUTOFF = Param("cutoff", int, NOT_GIVEN, "rank cutoff k (also written @k)", low=1, role="cutoff")
TRUNCATE = Param("cutoff", int, NOT_GIVEN, "evaluate the top k only (also written @k)", low=1, role="truncate")
JUDGED_ONLY = Param("judged_only", bool, False, "remove unjudged documents from the ranking first (trec_eval -J)",
                    role="judged_only")
RECALL = Param("recall", float, NOT_GIVEN, "recall point (also written @x)", low=0.0, high=1.0, role="cutoff")


# --------------------------------------------- trec_eval syntax (spec.trec_params)
LIST_CUTOFF = Param("cutoff", int, doc="rank cutoffs k (name.k1,k2,...)", low=1, count=(1, None))
GAIN = Param("gain", float, doc="grade=gain: the gain of an integer grade (trec_eval reads any number; "
             "finite here)")
