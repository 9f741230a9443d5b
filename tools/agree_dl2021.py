"""The TREC DL 2021 agreement table of docs/zelo_agree.md.

Usage: python tools/agree_dl2021.py CROWD_JUDGMENTS GPT4O_JUDGE_HUMAN

CROWD_JUDGMENTS: judgments.txt of https://github.com/XinyiYan/duelingBandits (the reference);
GPT4O_JUDGE_HUMAN: Pref/DL2021/judge.human of https://github.com/Narabzad/llm-relevance-judgement-comparison
(GPT-4o re-judging the same pairs). Prints a markdown table of the headline figures of
`zelo_agree -J CROWD -J GPT4O` (seed 0, 1,000 bootstrap resamples of the topics, 95 % intervals).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

ROWS = [
    ("crowd", "gpt4o", "pair", "matched", "matched pairs (query, unordered pair)"),
    ("crowd", "gpt4o", "pair", "agreement_decided", "agreement on pairs both decided"),
    ("crowd", "", "pair", "tie_rate", "tie rate, crowd (votes split evenly)"),
    ("gpt4o", "", "pair", "tie_rate", "tie rate, GPT-4o (pair score ½)"),
    ("gpt4o", "", "pair", "missing_rate", "pairs without a GPT-4o judgment ('?' only)"),
    ("crowd", "gpt4o", "pair", "cohen_kappa", "Cohen's kappa (A / tie / B)"),
    ("crowd", "gpt4o", "pair", "weighted_kappa", "weighted kappa (linear)"),
    ("crowd", "gpt4o", "pair", "krippendorff_alpha", "Krippendorff's alpha (ordinal)"),
    ("crowd", "gpt4o", "pair", "consensus_agreement", "agreement on the crowd's consensus pairs"),
    ("crowd", "", "pair", "votes_alpha", "crowd: alpha among repeated judgments of a pair"),
    ("gpt4o", "", "pair", "votes_alpha", "GPT-4o: alpha among repeated judgments of a pair"),
    ("crowd", "gpt4o", "document", "kendall_tau_b", "zELO fits: Kendall tau_b per query (mean)"),
    ("crowd", "gpt4o", "document", "top1_agreement", "zELO fits: same top document"),
]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    from pref_eval.api import agree

    recs = agree(argv, names=["crowd", "gpt4o"], levels=["pair", "document"], resamples=1000, seed=0)
    got = {(r.judge_a, r.judge_b, r.level, r.statistic): r for r in recs}
    print("| figure | value | 95 % interval | n |")
    print("|---|---:|---|---:|")
    for a, b, level, stat, label in ROWS:
        r = got[(a, b, level, stat)]
        if stat == "matched":
            print(f"| {label} | {int(r.value):,} | | {r.n:,} |")
        else:
            print(f"| {label} | {r.value:.3f} | {r.ci_low:.3f} – {r.ci_high:.3f} | {r.n:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
