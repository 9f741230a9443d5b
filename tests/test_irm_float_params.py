"""An integer for a measure parameter declared a float (``BPM(T=2)``, ``SetF(beta=1)``, ``IPrec@1``) is refused, as
ir-measures 0.4 refuses it (session 28; u37 found ``BPM(max_rel=3,T=2)`` taken where ir-measures wants ``T=2.0``).

ir-measures builds such a measure (``parse_measure('BPM(T=2)')``, ``ir_measures.BPM(T=2)``) but every provider's
``supports`` checks the parameters' declared types first (``Measure.validate_params``: ``isinstance(2, float)`` is
false) and raises ``AssertionError: invalid param T=2``, so no value is ever computed. pref_eval read the integer as
the float; now a name is valid here exactly when it is valid in ir-measures. The walk covers every parameter of the
registry declared ``float`` in ir-measures syntax (the ``@`` of ``IPrec``, its recall point, too); ir-measures live
is the oracle for the families it has (its ``SUPPORTED_PARAMS`` types), PGC and compatibility are pref_eval's own
and follow the same rule. The trec_eval syntax (``rbp.p=1``, ``set_F.1``) reads numbers as trec_eval's ``atof``
does and is not changed.
"""
from __future__ import annotations

import math

import pytest

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure, registry
from pref_eval.measures.base import MeasureSpec
from pref_eval.measures.params import Param

Q = "qrels/dl19-sample.qrels"


def _values(p: Param) -> tuple[int, str]:
    """An integer for ``p`` (inside its declared range where one is: the type alone refuses it) and a float
    inside the range, as a name writes it (the integer's float where that is inside)."""
    lo = -math.inf if p.low is None else p.low
    hi = math.inf if p.high is None else p.high
    inside = [v for v in range(0, 3) if (lo < v or (lo == v and not p.low_open))
              and (v < hi or (v == hi and not p.high_open))]
    return (inside[0], f"{inside[0]}.0") if inside else (1, repr((lo + hi) / 2))  # PGC, compatibility: p in (0, 1)


def _name(spec: MeasureSpec, p: Param, value: str) -> str:
    """``spec``'s ir-measures name with ``p`` set to the text ``value`` (``max_rel=3`` where declared: ir-measures
    requires it of the C/W/L measures; a cutoff where the name needs one)."""
    family = (spec.irm or "").rstrip("@")
    if p.role == "cutoff":
        return f"{family}@{value}"
    kw = {**({"max_rel": "3"} if spec.keyword("max_rel") else {}), p.name: value}
    at = "@5" if (spec.irm or "").endswith("@") else ""
    return f"{family}({', '.join(f'{k}={v}' for k, v in kw.items())}){at}"


FLOAT_PARAMS = [(spec, p) for spec in registry().values() if spec.irm for p in spec.keywords if p.type is float]


def test_the_walk_covers_every_float_parameter():
    names = {(s.name, p.name) for s, p in FLOAT_PARAMS}
    assert {("BPM", "T"), ("rbp", "p"), ("set_F", "beta"), ("iprec_at_recall", "recall"), ("alpha_nDCG", "alpha"),
            ("NRBP", "beta"), ("INST", "T"), ("PGC", "p")} <= names
    assert len(names) == len(FLOAT_PARAMS) >= 17


@pytest.mark.parametrize(("spec", "p"), FLOAT_PARAMS, ids=[f"{s.name}-{p.name}" for s, p in FLOAT_PARAMS])
def test_an_integer_for_a_float_parameter_is_refused_and_its_float_taken(spec, p):
    v, as_float = _values(p)
    name = _name(spec, p, str(v))
    with pytest.raises(UsageError) as err:
        parse_measure(name)
    assert str(err.value) == (f"measure {name!r}: parameter {p.describe()} got the integer {v}: write {v}.0 "
                              f"(ir-measures declares {p.name} a float and refuses an integer)")
    req = parse_measure(_name(spec, p, as_float))[0]  # the same value written as a float: taken
    assert req.spec is spec


@pytest.mark.parametrize(("spec", "p"), FLOAT_PARAMS, ids=[f"{s.name}-{p.name}" for s, p in FLOAT_PARAMS])
def test_ir_measures_refuses_the_integer_and_takes_the_float(spec, p):
    """The oracle, live: ir-measures' own check of the same two names (skipped for pref_eval's own measures)."""
    ir_measures = pytest.importorskip("ir_measures")
    family = (spec.irm or "").rstrip("@")
    if not hasattr(ir_measures, family):
        pytest.skip(f"{family} is pref_eval's own (not an ir-measures measure): the same rule as the others")
    v, as_float = _values(p)
    theirs = ir_measures.parse_measure(_name(spec, p, str(v)))  # built, as ir_measures.BPM(T=2) is
    with pytest.raises(AssertionError, match=f"invalid param {p.name}={v}$"):
        theirs.validate_params()
    ir_measures.parse_measure(_name(spec, p, as_float)).validate_params()


def test_an_ir_measures_object_with_an_integer_is_refused_by_name():
    ir_measures = pytest.importorskip("ir_measures")
    with pytest.raises(UsageError, match=r"parameter T .* got the integer 2: write 2\.0"):
        pref_eval.evaluator([ir_measures.BPM(T=2, max_rel=3) @ 10], Q)
    assert pref_eval.evaluator([ir_measures.BPM(T=2.0, max_rel=3) @ 10], Q) is not None


def test_the_trec_eval_syntax_still_reads_numbers_as_atof():
    """``set_F.1``, ``iprec_at_recall.1``: trec_eval's syntax has no types (a number is text), unchanged."""
    assert parse_measure("set_F.1")[0].params == (1.0,)
    assert parse_measure("iprec_at_recall.1")[0].params == (1.0,)
