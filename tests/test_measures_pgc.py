"""PGC from -P judgments against chengxiluo/Greedy-Preference-Graph-Compatibility (live); a hand-worked example.

The reference script is read from a local snapshot of the repository
(``PGC_REFERENCE`` = path of greedy_pgc.py, or the fetched mirror); the
comparison is skipped without it. Its run ranks every judged document (the
reference orders unretrieved documents by Python's set iteration order).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pref_eval
from pref_eval.errors import UsageError

MIRROR = Path("/work/.mirror/chengxiluo+Greedy-Preference-Graph-Compatibility/repo")


def _reference_script(tmp_path: Path) -> Path | None:
    env = os.environ.get("PGC_REFERENCE")
    if env and Path(env).is_file():
        return Path(env)
    if MIRROR.exists():
        out = subprocess.run(["git", "-C", str(MIRROR), "show", "HEAD:greedy_pgc.py"], capture_output=True, text=True)
        if out.returncode == 0:
            p = tmp_path / "greedy_pgc.py"
            p.write_text(out.stdout)
            return p
    return None


def _collection(tmp_path: Path, seed: int):
    rng = np.random.default_rng(seed)
    prefs, run, qrels = [], [], []
    for q in range(1, 9):
        docs = [f"p{q}_{i}" for i in range(int(rng.integers(3, 25)))]
        for _ in range(int(rng.integers(3, 60))):  # cycles and repeated pairs (multi-edges)
            a, b = rng.choice(docs, 2, replace=False)
            prefs.append(f"{q} {a} {b}\n")
        order = list(docs) + [f"x{q}_{i}" for i in range(int(rng.integers(0, 6)))]
        rng.shuffle(order)
        run += [f"{q} Q0 {d} {i + 1} {-float(i)} r\n" for i, d in enumerate(order)]
        qrels.append(f"{q} 0 {docs[0]} 1\n")
    for name, lines in (("prefs", prefs), ("run", run), ("qrels", qrels)):
        (tmp_path / name).write_text("".join(lines))


@pytest.mark.parametrize("seed", [5, 6])
def test_pgc_matches_reference(tmp_path, seed):
    script = _reference_script(tmp_path)
    if script is None:
        pytest.skip("greedy_pgc.py (chengxiluo/Greedy-Preference-Graph-Compatibility) not available")
    _collection(tmp_path, seed)
    ref = subprocess.run([sys.executable, str(script), str(tmp_path / "prefs"), str(tmp_path / "run")],
                         capture_output=True, text=True, check=True).stdout.strip().split("\n")[1:]
    df = pref_eval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["PGC"], judgments=str(tmp_path / "prefs"),
                            judgments_format="clarke3")
    got = dict(zip(df.qid, df.value, strict=True))
    n = 0
    for line in ref:
        _, topic, value = line.split(",")
        if topic != "amean":
            assert got[topic] == pytest.approx(float(value), abs=1e-12), topic
            n += 1
    assert n == 8


def test_pgc_hand_worked(tmp_path):
    """Judgments a>b, b>c, c>a (a cycle), d>a; run c, a, b, d.

    Greedy: no sink; source d → s1; then every out−in is 0: the run's best, c → s1; b becomes a
    sink → s2, then a → front of s2. Ideal d, c, a, b. Overlaps with the run at depths 1-4: 0, 1, 2, 4.
    """
    (tmp_path / "prefs").write_text("7 a b\n7 b c\n7 c a\n7 d a\n")
    (tmp_path / "run").write_text("7 Q0 c 1 4 r\n7 Q0 a 2 3 r\n7 Q0 b 3 2 r\n7 Q0 d 4 1 r\n")
    (tmp_path / "qrels").write_text("7 0 a 1\n")
    p = 0.8
    overlap = [0, 1, 2] + [4] * 997
    want = sum(p ** i * overlap[i] / (i + 1) for i in range(1000)) / sum(p ** i for i in range(1000))
    df = pref_eval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["PGC"], judgments=str(tmp_path / "prefs"))
    assert float(df.value[0]) == pytest.approx(want, abs=1e-14)
    df = pref_eval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["PGC(p=0.5)"],
                            judgments=str(tmp_path / "prefs"))
    want5 = sum(0.5 ** i * overlap[i] / (i + 1) for i in range(1000)) / sum(0.5 ** i for i in range(1000))
    assert float(df.value[0]) == pytest.approx(want5, abs=1e-14)


def test_pgc_cli_and_refusals(tmp_path):
    (tmp_path / "prefs").write_text("7 a b a\n7 b c b\n")  # clarke4: topic docA docB winner
    (tmp_path / "run").write_text("7 Q0 a 1 3 r\n7 Q0 b 2 2 r\n7 Q0 c 3 1 r\n")
    (tmp_path / "qrels").write_text("7 0 a 1\n")
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", str(tmp_path / "qrels"), "-P",
                          str(tmp_path / "prefs"), "-m", "PGC", "-q", str(tmp_path / "run")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0].split()[:2] == ["PGC", "7"]
    with pytest.raises(UsageError, match="no requested measure uses them"):
        pref_eval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["P@1"], judgments=str(tmp_path / "prefs"))
    with pytest.raises(UsageError, match="needs pairwise judgments"):
        pref_eval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["PGC"])
    (tmp_path / "run2").write_text("7 Q0 c 1 3 s\n7 Q0 b 2 2 s\n")
    bad = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", str(tmp_path / "qrels"), "-P",
                          str(tmp_path / "prefs"), "-m", "PGC", "-o", "pref", str(tmp_path / "run"),
                          str(tmp_path / "run2")], capture_output=True, text=True)
    assert bad.returncode != 0 and "not applicable" in bad.stderr and "Traceback" not in bad.stderr
