"""tools/fuzz_compare.py: the end-to-end differential fuzz of ``pref_eval.compare``, ``compare_differences`` and
``zelo_compare -P`` against scipy / statsmodels / ranx and exact-integer oracles (session 25, f35)."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import ROOT, import_tool

pytest.importorskip("statsmodels")


@pytest.fixture
def fz():
    return import_tool("fuzz_compare")


def test_unknown_check_is_one_line_exit_2(fz, capsys):
    assert fz.main(["--only", "api,bogus"]) == 2
    assert capsys.readouterr().err == "fuzz_compare: unknown check 'bogus'; expected some of " \
        "api,command,diff,refusal,ranx,prefs\n"


def test_one_case_agrees(fz, capsys):
    assert fz.main(["--case", "0:7", "--only", "api,diff"]) == 0
    err = capsys.readouterr().err
    assert "1 cases" in err and "api_records_same 1" in err and "0 findings" in err and "DIFFERENT" not in err


def test_oracle_rounds_exactly(fz):
    """The differences' oracle: the exact difference rounded to 12 decimals, half to even, then the nearest float
    (0.3 - 0.1 computes to 0.19999999999999998; 0.2 after rounding)."""
    from fractions import Fraction

    assert fz.round12(Fraction(0.3) - Fraction(0.1)) == 0.2
    assert fz.round12(Fraction(1, 2 * 10**12)) == 0.0 and fz.round12(Fraction(3, 2 * 10**12)) == 2e-12
    assert fz.ints12(np.array([0.2, -1e-12, 125000.5])) == [200_000_000_000, -1, 125_000_500_000_000_000]


def test_wilcoxon_rule_is_scipys(fz):
    """The per-row method rule the oracle expects (scipy 1.17's for one sample; ours' exact -> sign flip on ties)."""
    d = np.array([0.1, -0.2, 0.3])
    assert fz.wilcoxon_rule(d, "wilcox", "auto") == "exact"
    assert fz.wilcoxon_rule(np.array([0.1, -0.1, 0.3]), "wilcox", "auto") == "permutation"
    assert fz.wilcoxon_rule(np.r_[d, 0.0], "wilcox", "exact") == "exact"
    assert fz.wilcoxon_rule(np.r_[d, 0.0], "pratt", "exact") == "permutation"
    untied = np.arange(1, 15) / 10 * np.r_[np.ones(13), -1]
    assert fz.wilcoxon_rule(untied, "zsplit", "auto") == "exact"  # n = 14 > 13: exact all the same (scipy's rule)
    assert fz.wilcoxon_rule(np.r_[untied[:13], -0.7], "wilcox", "auto") == "asymptotic"  # tied |d|, n = 14
    assert fz.wilcoxon_rule(np.r_[np.arange(1, 14), 0.0], "wilcox", "auto") == "asymptotic"


def test_a_planted_holm_without_its_running_maximum_is_reported(fz, monkeypatch, capsys):
    """The fuzz can fail: Holm's step-down without the running maximum (an adjusted p below an earlier one)."""
    import pref_eval.stats.correction as correction
    orig = correction._adjust_sorted

    def no_max(ps, method):
        if method == "holm":
            return np.minimum(ps * np.arange(ps.size, 0, -1), 1.0)
        return orig(ps, method)

    monkeypatch.setattr(correction, "_adjust_sorted", no_max)
    assert fz.main(["--case", "10:3", "--only", "api"]) == 1
    assert '"check": "correction"' in capsys.readouterr().out


def test_a_planted_rounding_to_6_decimals_is_reported(fz, monkeypatch, capsys):
    """Differences rounded to 6 decimals (d_z, t, effect sizes move) are found on the same cases."""
    import pref_eval.stats.paired as paired
    monkeypatch.setattr(paired.differences, "__defaults__", (6,))
    assert fz.main(["--case", "7:4", "--only", "api"]) == 1
    assert '"check": "effects"' in capsys.readouterr().out


@pytest.mark.slow
def test_sixty_cases_agree(fz, capsys):
    """Every check, the command in a quarter of the cases (fresh processes)."""
    assert fz.main(["--cases", "60", "--seed", "11"]) == 0, capsys.readouterr().out[:3000]


@pytest.mark.parametrize("tool", ["fuzz_trec_eval", "fuzz_pref_eval", "fuzz_compare", "fuzz_stats"])
def test_the_fuzz_tools_test_this_checkout(tool, tmp_path):
    """Run from anywhere without PYTHONPATH, a fuzz tool imports the pref_eval of its own checkout, not a copy
    installed in the environment (``pip install .`` is not editable): session 25's first fuzz_trec_eval run
    compared trec_eval with a stale installed zelo_trec (77:372, map on a topic judged below 0 under -l -2)."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = (f"import runpy, sys; sys.argv = ['x', '--help']; sys.path.insert(0, {str(ROOT / 'tools')!r})\n"
            f"import {tool}, pref_eval; print(pref_eval.__file__)")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == str(ROOT / "pref_eval" / "__init__.py")


def test_a_planted_int64_sign_flip_count_is_reported(fz, monkeypatch, capsys):
    """Ours' sign-flip tail counted in int64 (wrapping past 2^63) moves only rows of more than 62 queries: the oracle
    left every row over 60 unchecked before session 26 (it counted in int64 itself); now it counts in Python
    integers (case 3:126, two rows of 81 queries under ``wilcoxon_method="exact"``)."""
    import pref_eval.stats.signed_rank as sr

    orig = sr._sign_flip_lower_tails
    monkeypatch.setattr(sr, "_sign_flip_lower_tails", lambda w, tops: [t % (1 << 63) for t in orig(w, tops)])
    assert fz.main(["--case", "3:126", "--only", "api"]) == 1
    assert '"check": "wilcoxon_permutation_over60"' in capsys.readouterr().out


def test_more_than_sixty_queries_are_checked(fz, capsys):
    assert fz.main(["--case", "3:126", "--only", "api"]) == 0
    assert "wilcoxon_permutation_over60_same 2" in capsys.readouterr().err


def test_jobs_are_drawn_from_one_to_six_and_a_planted_fault_is_reported(fz, monkeypatch, capsys):
    """``compare(jobs=N)``, N = 1..6 (case 0:117: 3 jobs for 3 measures; 0:64: 4 jobs for 2), must give the records of
    ``jobs=1`` bit for bit; the measures' blocks handed back in the wrong order by the pool are reported."""
    import pref_eval.parallel as par

    assert fz.main(["--case", "0:64", "--only", "api"]) == 0
    assert "jobs_more_than_measures_same 1" in capsys.readouterr().err
    orig = par.ordered_map
    monkeypatch.setattr(par, "ordered_map", lambda fn, items, **kw: orig(fn, items, **kw)[::-1])
    assert fz.main(["--case", "0:117", "--only", "api"]) == 1
    assert '"check": "jobs"' in capsys.readouterr().out


def test_flip_tails_counts_every_sign_vector(fz):
    """The exact sign-flip counts met in the middle (ranx's Fisher p checked against the "> obs" .. ">= obs" range up
    to FLIP_EXACT_MAX non-zero differences, was 16): equal to the count over every sign vector enumerated (numpy,
    integers), tied sums on a grid included, at 1-17 differences; None past the limit."""
    rng = np.random.default_rng(3)
    for n in [*range(1, 13), 17]:
        nz = rng.integers(1, 6, n) * rng.choice([-1, 1], n) * 10 ** int(rng.integers(0, 12))
        S = 1 - 2 * ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1)
        sums = np.abs(S.astype(np.int64) @ nz)
        obs = abs(int(nz.sum()))
        want = [int((sums > obs).sum()), int((sums >= obs).sum()), int((sums >= obs - 7).sum()), 1 << n]
        assert fz.flip_tails(nz, [obs + 1, obs, obs - 7, 0]) == want, n
    assert fz.flip_tails(np.ones(fz.FLIP_EXACT_MAX + 1, dtype=np.int64), [1]) is None


def test_t_interval_slack_scales_with_the_differences(fz, capsys):
    """600:121 (session 30, z40): two differences 105252.375 and 0 at confidence 0.5: t_0.75,1 = 1, so the
    interval is [0, 105252.375] exactly (ours); scipy's ttest_1samp gives -1.455e-11 for the lower end, its
    round-off on differences of ~1e5, which the tool's absolute slack of 1e-13 called a finding."""
    assert fz.main(["--case", "600:121", "--only", "api"]) == 0, capsys.readouterr().out[:2000]
