"""NTCIREVAL's measure names and what to write for each here (the hint of an unknown measure).

NTCIREVAL is the evaluation toolkit of the NTCIR tasks (Sakai,
http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html); it prints its cutoffs
zero-padded (``Q@0010``, ``MSnDCG@0010``). docs/differences.md, "NTCIREVAL",
gives the comparison behind each answer.
"""
from __future__ import annotations

#: NTCIREVAL's names (Sakai's toolkit of the NTCIR tasks; its cutoffs printed %04ld, ``Q@0010``): what to write
#: here, ``{k}`` the cutoff without its zeros (docs/differences.md, "NTCIREVAL"). The names NTCIREVAL shares with
#: ir-measures (``AP``, ``P``, ``RR``, ``nDCG``) are told only with a zero-padded cutoff, which ir-measures refuses.
NTCIR_NAMES = {
    "Q-measure": "NTCIREVAL's Q-measure is Q here (Q@k its Q@k, Q(beta=0.5) its -beta 0.5)",
    "Q": "NTCIREVAL's Q@{k} is Q@{k} here",
    "AP": "NTCIREVAL's AP@{k} (divided by min({k}, R)) is Q(beta=0.0)@{k} here; AP@{k} divides by R",
    "P": "NTCIREVAL's P@{k} is P@{k} here",
    "MSnDCG": "NTCIREVAL's MSnDCG@{k} is nDCG@{k} here (ndcg_cut.{k})",
    "nDCG": "NTCIREVAL's nDCG@{k} (Järvelin & Kekäläinen's original discount) is nDCG_JK@{k} here "
            "(ndcg_jk_cut.{k}; its -logb B is nDCG_JK(b=B)@{k}); its MSnDCG@{k} is nDCG@{k}",
    "Hit": "NTCIREVAL's Hit@{k} is Success@{k} here",
    "RBP": "NTCIREVAL's RBP@{k} is RBP(p=0.95)@{k} here when every topic has a document of the highest grade "
           "(docs/differences.md)",
    "ERR": "NTCIREVAL's ERR@{k} (stopping probability gain/(highest gain + 1), not normalised) is not a measure "
           "here (docs/differences.md); its nERR@{k} is nERR(max_rel=H)@{k}; ERR@{k} is gdeval's",
    "nERR": "NTCIREVAL's nERR@{k} is nERR(max_rel=H)@{k} here, H the highest grade (its -g 1:...:H)",
    "EBR": "NTCIREVAL's EBR (expected blended ratio, undocumented by its author) is not a measure here "
           "(docs/differences.md)",
    "P-plus": "NTCIREVAL's P-plus is P_plus here",
    "P-measure": "NTCIREVAL's P-measure is P_measure here",
    "O-measure": "NTCIREVAL's O-measure is O_measure here",
    "NCUgu,BR": "NTCIREVAL's NCUgu,BR is NCU here (graded-uniform stop, blended ratio)",
    "NCUgu,P": "NTCIREVAL's NCUgu,P is NCU(utility='P') here",
    "NCUrb,BR": "NTCIREVAL's NCUrb,BR is NCU(stop='rb') here (its -gamma G: gamma=G)",
    "NCUrb,P": "NTCIREVAL's NCUrb,P is NCU(stop='rb', utility='P') here",
    "NCUgu": "NTCIREVAL's NCUgu,BR is NCU here, its NCUgu,P NCU(utility='P')",
    "NCUrb": "NTCIREVAL's NCUrb,BR is NCU(stop='rb') here, its NCUrb,P NCU(stop='rb', utility='P')",
}
_NTCIR_OWN = frozenset({"Q-measure", "MSnDCG", "Hit", "EBR", "P-plus", "P-measure", "O-measure", "NCUgu,BR",
                        "NCUgu,P", "NCUrb,BR", "NCUrb,P", "NCUgu", "NCUrb"})


def ntcir_hint(base: str, at: str, k: str) -> str | None:
    """What to write for NTCIREVAL's name ``base@k`` (None: not one of its names)."""
    padded = bool(at) and len(k) == 4 and k.isdigit() and k.startswith("0") and k != "0000"
    if base not in NTCIR_NAMES or not (base in _NTCIR_OWN or padded):
        return None
    text = NTCIR_NAMES[base]
    return text.format(k=str(int(k)) if padded else (k or "k")) if "{k}" in text else text
