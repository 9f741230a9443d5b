"""Metric-based measures: specs, registry, name parser.

``REGISTRY`` maps trec_eval names to :class:`MeasureSpec`; importing
:mod:`pref_eval.measures.families` fills it. Use :func:`parse_measures` /
:func:`parse_trec_measures` to turn names into :class:`MeasureRequest`.
"""
from .base import REGISTRY, EvalContext, MeasureRequest, MeasureSpec, register
from .parse import parse_measure, parse_measures, parse_trec_measures


def registry() -> dict:
    """The filled registry (imports every family)."""
    from . import families  # noqa: F401

    return REGISTRY


__all__ = ["REGISTRY", "EvalContext", "MeasureRequest", "MeasureSpec", "register",
           "parse_measure", "parse_measures", "parse_trec_measures", "registry"]
