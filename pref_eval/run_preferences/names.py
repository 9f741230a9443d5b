"""Measure names of ``zelo_eval``'s preference mode (``pref_eval.py`` syntax).

Three kinds of names, resolved in this order:

* **preference measures** (one value per pair of runs): ``rpp``, ``invrpp``,
  ``dcgrpp``, ``lexirecall`` (aliases ``LR``, ``sgnLR``), ``lexiprecision``
  (``sgnLP``), ``rrlexiprecision`` (``rrLP``);
* **pref_eval's metrics** (one value per run, differences in preference
  lines): ``ap``, ``ap@K``, ``rbp``, ``rbp@γ``, ``rbp@γ,K``, ``rr``, ``rr@K``,
  ``ndcg``, ``ndcg@K``, ``rp``, ``p@K``, ``r@K``;
* any measure of the registry, in trec_eval or ir-measures syntax
  (``ndcg_cut.10``, ``nDCG@10``); it must give a single column.

Unlike pref_eval.py, an unknown name is an error (it silently gave 0.0 there),
and so is a malformed parameter (``p@0``, ``p@x``, ``rp@5``). As there, a cut-off
K ≤ 0 of ``ap@K``, ``rr@K``, ``ndcg@K``, ``rbp@γ,K`` means no cut-off.
"""
from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from ..records import record
from ..errors import UsageError

if TYPE_CHECKING:
    from ..measures import MeasureRequest

_RPP = "Diaz & Ferraro, \"Offline Retrieval Evaluation Without Evaluation Metrics\", SIGIR 2022"
_RPP_W = (_RPP + "; recall-level weights as in diazf/pref_eval (README's measure list, "
          "measures/rpp.py ≤ 60e3203)")
_LR = "Diaz, Ekstrand & Mitra, \"Recall, Robustness, and Lexicographic Evaluation\", ACM TORS 2025 (arXiv 2302.11370)"
_LP = ("Diaz, \"Best-Case Retrieval Evaluation: Improving the Sensitivity of Reciprocal Rank with "
       "Lexicographic Precision\", EVIA 2023 (arXiv 2306.07908)")
_GRADED = (" Graded (without -b): Σ_g m_g·v_g / Σ_g m_g over the query's relevant grades g, v_g on the "
           "m_g documents with grade ≥ g.")


@record(frozen=True)
class MeasureDef:
    """Definition of one measure name of the preference mode (the source of docs/measures.md's second table).

    ``kind``: ``preference`` (one value per pair of runs) or ``metric`` (one
    value per run; preference lines carry differences). ``trec`` / ``irm``:
    the trec_eval / ir-measures measure with the same per-query value
    (``K`` stands for the cut-off), empty if none; ``values`` the range.
    """

    name: str
    kind: str
    formula: str
    citation: str
    values: str
    aliases: tuple[str, ...] = ()
    trec: str = ""
    irm: str = ""


DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef("rpp", "preference",
               "Σ_{i<m} w_i·sgn(y_i − x_i), w_i = 1/m; stops at the first level where both are ∞." + _GRADED,
               _RPP, "[−1, 1]"),
    MeasureDef("invrpp", "preference",
               "as rpp with w_i = (1/(i+1)) / Σ_{k<m} 1/(k+1) (i 0-based)." + _GRADED, _RPP_W, "[−1, 1]"),
    MeasureDef("dcgrpp", "preference",
               "as rpp with w_i = (1/log2(i+2)) / Σ_{k<m} 1/log2(k+2) (i 0-based)." + _GRADED, _RPP_W, "[−1, 1]"),
    MeasureDef("lexirecall", "preference",
               "sgn(n_x − n_y) if the numbers of relevant documents retrieved differ; else sgn(y_t − x_t) at "
               "the last t < n_x with x_t ≠ y_t; 0 if none (binary: grade > 0).",
               _LR, "−1, 0, 1", aliases=("LR", "sgnLR")),
    MeasureDef("lexiprecision", "preference",
               "sgn(y_t − x_t) at the first t with x_t ≠ y_t; 0 if x = y (binary: grade > 0).",
               _LP, "−1, 0, 1", aliases=("sgnLP",)),
    MeasureDef("rrlexiprecision", "preference",
               "1/x_t − 1/y_t at the first t with x_t ≠ y_t (1/∞ = 0); 0 if x = y (binary).",
               _LP, "[−1, 1]", aliases=("rrLP",)),
    MeasureDef("ap", "metric", "Σ_k k/x_k / m", "Buckley & Voorhees 2005", "[0, 1]", trec="map", irm="AP"),
    MeasureDef("ap@K", "metric", "Σ_{k: x_k ≤ K} k/x_k / m", "Buckley & Voorhees 2005", "[0, 1]",
               trec="map_cut.K", irm="AP@K"),
    MeasureDef("rbp", "metric", "(1−γ) Σ_k γ^(x_k−1), γ = 0.5, binary, no residual",
               "Moffat & Zobel, ACM TOIS 27(1), 2008", "[0, 1)"),
    MeasureDef("rbp@γ[,K]", "metric", "(1−γ) Σ_{k: x_k ≤ K} γ^(x_k−1), 0 < γ < 1, binary, no residual",
               "Moffat & Zobel, ACM TOIS 27(1), 2008", "[0, 1)"),
    MeasureDef("rr", "metric", "1/x_1 (0 if none retrieved)", "Voorhees, TREC-8 QA track report, 1999",
               "[0, 1]", trec="recip_rank", irm="RR"),
    MeasureDef("rr@K", "metric", "1/x_1 if x_1 ≤ K, else 0", "Voorhees, TREC-8 QA track report, 1999", "[0, 1]"),
    MeasureDef("ndcg", "metric",
               "Σ_{retrieved d ∈ Rel} g(d)/log2(rank(d)+1) / Σ_{i<m} g_(i)/log2(i+2), linear gain = grade",
               "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002", "[0, 1]", trec="ndcg", irm="nDCG"),
    MeasureDef("ndcg@K", "metric", "as ndcg with both sums cut to the top K ranks",
               "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002", "[0, 1]", trec="ndcg_cut.K", irm="nDCG@K"),
    MeasureDef("rp", "metric", "#{k : x_k ≤ m} / m", "Buckley & Voorhees, SIGIR 2000", "[0, 1]",
               trec="Rprec", irm="Rprec"),
    MeasureDef("p@K", "metric", "#{k : x_k ≤ K} / K", "van Rijsbergen 1979", "[0, 1]", trec="P.K", irm="P@K"),
    MeasureDef("r@K", "metric", "#{k : x_k ≤ K} / m", "van Rijsbergen 1979", "[0, 1]",
               trec="recall.K", irm="R@K"),
)

PREFERENCES = {alias: d.name for d in DEFINITIONS if d.kind == "preference" for alias in (d.name, *d.aliases)}
PREFERENCE_SET = ("rpp", "invrpp", "dcgrpp", "lexirecall", "lexiprecision", "rrlexiprecision")
ALL_SET = PREFERENCE_SET + ("ap", "rbp", "rr", "ndcg", "rp", "p@1", "p@10", "r@1", "r@10")
METRIC_PREFIXES = ("ap", "rbp", "rr", "ndcg", "rp", "p", "r")


@record(frozen=True)
class PrefMeasure:
    """One requested measure.

    ``key`` is the name as typed (the JSON key); ``kind`` is ``pref`` (a
    preference measure, ``base`` its canonical name), ``metric`` (one of
    pref_eval's metrics: ``base`` in ap/rbp/rr/ndcg/rp/p/r with ``k`` the
    cut-off, 0 = none, and ``gamma`` for rbp) or ``registry`` (``request``
    a :class:`~pref_eval.measures.MeasureRequest`, ``column`` its column).
    """

    key: str
    kind: str
    base: str
    k: int = 0
    gamma: float = 0.5
    request: MeasureRequest | None = None
    column: int = 0

    @property
    def is_metric(self) -> bool:
        return self.kind != "pref"


def _positive_int(text: str, name: str) -> int:
    if not re.fullmatch(r"\+?\d+", text) or int(text) <= 0:
        raise UsageError(f"measure {name!r}: the cut-off must be a positive integer (got {text!r})")
    return int(text)


def _cutoff_or_whole(text: str, name: str) -> int:
    """A cut-off of ``ap@K``, ``rr@K``, ``ndcg@K``, ``rbp@γ,K``: K ≤ 0 is the whole ranking (0).

    pref_eval.py cuts only ``if k > 0``, and its own default K is 0 (``rbp@γ`` is ``rbp@γ,0``), so
    ``ap@0`` or ``rbp@0.8,0`` there is the measure without a cut-off; ``p@K`` / ``r@K`` (K the
    denominator or the depth of a count) keep a positive K.
    """
    if not re.fullmatch(r"[+-]?\d+", text):
        raise UsageError(f"measure {name!r}: the cut-off must be an integer (got {text!r}; "
                         "0 or less means the whole ranking, as pref_eval.py)")
    return max(int(text), 0)


def parse_pref_measure(name: str) -> list[PrefMeasure]:
    """Resolve one ``-m`` name (see the module docstring)."""
    if name in PREFERENCES:
        return [PrefMeasure(name, "pref", PREFERENCES[name])]
    if name in ("ap", "rbp", "rr", "ndcg", "rp"):
        return [PrefMeasure(name, "metric", name)]
    head, at, tail = name.partition("@")
    if at and head in ("ap", "rr", "ndcg"):
        return [PrefMeasure(name, "metric", head, k=_cutoff_or_whole(tail, name))]
    if at and head in ("p", "r"):
        return [PrefMeasure(name, "metric", head, k=_positive_int(tail, name))]
    if at and head == "rbp":
        parts = tail.split(",")
        if len(parts) > 2:
            raise UsageError(f"measure {name!r}: expected rbp@GAMMA or rbp@GAMMA,K")
        try:
            gamma = float(parts[0])
        except ValueError:
            raise UsageError(f"measure {name!r}: persistence {parts[0]!r} is not a number") from None
        if not 0.0 < gamma < 1.0:
            raise UsageError(f"measure {name!r}: persistence must be in (0, 1)")
        k = _cutoff_or_whole(parts[1], name) if len(parts) == 2 else 0
        return [PrefMeasure(name, "metric", "rbp", k=k, gamma=gamma)]
    if at and head in METRIC_PREFIXES:
        raise UsageError(f"measure {name!r}: {head} takes no cut-off here")
    if name in ("p", "r"):
        raise UsageError(f"measure {name!r}: needs a cut-off, e.g. {name}@10")
    return _registry_measure(name)


def _registry_measure(name: str) -> list[PrefMeasure]:
    from ..measures import parse_measure

    try:
        reqs = parse_measure(name)
    except UsageError as err:
        if not str(err).startswith("unknown measure"):
            raise  # a known name written wrong (bpref@10, P(rel=-1)@5): its own message
        close = difflib.get_close_matches(name, list(dict.fromkeys([*PREFERENCES, *ALL_SET])), n=3, cutoff=0.6)
        if close:
            raise UsageError(f"unknown measure {name!r}; did you mean {', '.join(close)}?") from None
        raise err
    out: list[PrefMeasure] = []
    for req in reqs:
        cols = req.columns()
        if req.spec.value_type == "str":
            continue  # runid / relstring have no numeric value
        for c, col in enumerate(cols):
            key = name if (len(reqs) == 1 and len(cols) == 1) else col
            out.append(PrefMeasure(key, "registry", req.spec.name, request=req, column=c))
    if not out:
        raise UsageError(f"measure {name!r} has no numeric value to compare")
    return out


def resolve(measures: list[str], measure_set: str | None) -> list[PrefMeasure]:
    """pref_eval.py's selection: any ``-m`` wins, else the ``-M`` set.

    ``measure_set``: ``preferences``, ``all`` (also ``none``, pref_eval.py's
    default, which means all), or a trec_eval nickname (``official``...).
    Duplicated keys are an error.
    """
    names = list(measures)
    if not names:
        ms = "all" if measure_set in (None, "none", "all") else measure_set
        if ms == "preferences":
            names = list(PREFERENCE_SET)
        elif ms == "all":
            names = list(ALL_SET)
        else:
            from ..measures.nicknames import NICKNAMES

            if ms not in NICKNAMES:
                raise UsageError(f"unknown measure set {measure_set!r}; expected preferences, all, none, "
                                 f"a trec_eval nickname ({', '.join(NICKNAMES)}) or a depth")
            names = [ms]
    out: list[PrefMeasure] = []
    for n in names:
        out.extend(parse_pref_measure(n))
    keys = [m.key for m in out]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise UsageError(f"measure(s) requested twice: {', '.join(dup)}")
    return out
