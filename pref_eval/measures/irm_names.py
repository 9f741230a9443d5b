"""ir-measures' aliases: another name for a family, possibly with parameters preset.

The names are those of ir-measures' registry (``ir_measures.measures.registry``;
MacAvaney, Macdonald, Ounis, "Streamlining evaluation with ir-measures",
ECIR 2022). Parameters written by the user override the preset ones
(``NumRelRet(rel=2)`` is ``NumRet(rel=2)``).
"""
from __future__ import annotations

ALIASES: dict[str, tuple[str, dict]] = {
    "MAP": ("AP", {}),
    "BPref": ("Bpref", {}),
    "NDCG": ("nDCG", {}),
    "Precision": ("P", {}),
    "Recall": ("R", {}),
    "RPrec": ("Rprec", {}),
    "MRR": ("RR", {}),
    "NumRelRet": ("NumRet", {"rel": 1}),
    "SetRelP": ("SetP", {"relative": True}),
    "α_DCG": ("alpha_DCG", {}),
    "α_nDCG": ("alpha_nDCG", {}),
    "MAP_IA": ("AP_IA", {}),
}
