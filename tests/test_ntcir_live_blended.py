"""O-measure, P-measure, P-plus, NCU and the original nDCG@k against NTCIREVAL 190111 run live, on random collections.

The collections, the driver and the comparison (``%.4f``, one unit of slack on a rounding edge) are
tests/test_ntcir_live.py's (skipped where NTCIREVAL's ``ntcir_eval`` is not built, e.g. CI); only the names differ:
NTCIREVAL's ``O-measure``, ``P-measure``, ``P-plus``, ``NCUgu,BR``, ``NCUgu,P``, ``NCUrb,BR``, ``NCUrb,P``
(its default γ 0.95) and ``nDCG@k`` (its default log base 2) against ``O_measure``, ``P_measure``, ``P_plus``,
``NCU(...)`` and ``nDCG_JK@k`` with the collection's β, gains and ``judged_only``.
"""
from __future__ import annotations

import pytest

import test_ntcir_live as live  # same folder (pytest prepends it to sys.path)

pytestmark = live.pytestmark


def blended_names(h, grades, gains, beta, ks, p, jo):
    """(NTCIREVAL's name, ours) pairs."""
    gm = "{" + ", ".join(f"{i}: {int(g)}" for i, g in enumerate(gains, 1)) + "}"
    common = ([] if grades else [f"gains={gm}"]) + (["judged_only=True"] if jo else [])
    br = [f"beta={beta!r}"] + common

    def name(base, *options):
        return f"{base}({', '.join(options)})" if options else base

    out = [("O-measure", name("O_measure", *br)), ("P-measure", name("P_measure", *br)),
           ("P-plus", name("P_plus", *br)), ("NCUgu,BR", name("NCU", *br)),
           ("NCUgu,P", name("NCU", "utility='P'", *common)), ("NCUrb,BR", name("NCU", "stop='rb'", *br)),
           ("NCUrb,P", name("NCU", "stop='rb'", "utility='P'", *common))]
    return out + [(f"nDCG@{k:04d}", f"{name('nDCG_JK', *common)}@{k}") for k in ks]


@pytest.mark.parametrize("seed", live.SEEDS)
def test_random_collections_equal_ntcireval(seed, tmp_path, monkeypatch):
    monkeypatch.setattr(live, "names", blended_names)
    counts = live.check_seed(seed, tmp_path)
    assert sum(counts.values()) > 0 or seed in live.EMPTY_SEEDS
    assert not counts or set(counts) == {"O-measure", "P-measure", "P-plus", "NCUgu,BR", "NCUgu,P", "NCUrb,BR",
                                         "NCUrb,P", "nDCG"}
