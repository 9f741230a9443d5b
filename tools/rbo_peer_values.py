"""Write tests/data/stats/rbo_peer.json: RBO values computed by two peer implementations, for the tests.

    python tools/rbo_peer_values.py --corsi-urbano /tmp/x/rbo.py [--pypi-rbo /tmp/y] [--dlukes /tmp/z/rbo.py]
                                    [--check N]

``--corsi-urbano``: the file rbo/Python/rbo.py of https://github.com/julian-urbano/sigir2024-rbo (Corsi &
Urbano, SIGIR 2024; kept under /tmp, never copied here): RBO_ext with ties='a', 'b', 'w' of random
orderings of the same systems, with ties (``tied``), and RBO_ext / min / max / res of two prefixes of
different lengths and items, with and without ties (``uneven``). ``--pypi-rbo``: a folder holding the PyPI
``rbo`` package (https://github.com/changyaochen/rbo, e.g. its wheel unpacked; it pins numpy < 2, so it is
not a test dependency): ``RankingSimilarity(S, T).rbo_ext(p)`` (Webber et al. 2010, eq. 32) of tie-free
orderings, of the same systems (``tie_free``) and of the ``uneven`` prefixes. ``--dlukes``: rbo.py of
https://github.com/dlukes/rbo, ``rbo(S, L, p)`` of the ``uneven`` tie-free prefixes (it departs from the
paper with uneven lengths: docs/zelo_compare.md). tests/test_stats_orderings_ties.py and
tests/test_stats_rbo_prefix.py compare pref_eval.stats.orderings with the stored values; ``--check N``
also compares rbo_ext_tied and rbo_prefix with Corsi & Urbano's code live on N random cases.

    python tools/rbo_peer_values.py --depth-values --pypi-rbo /tmp/y

writes tests/data/stats/rbo_depth_peer.json instead (nothing else needed): RBO at an evaluation depth k of
the PyPI ``rbo`` package, ``RankingSimilarity(S, T).rbo(k=k, p=p, ext=True)`` and ``.rbo(k=k, p=p)``, of
random tie-free orderings of the same systems and depths below, at and above their length
(tests/test_stats_rbo_depth.py compares ``zelo_compare --rbo-depth`` with them).

    python tools/rbo_peer_values.py --webber-values /tmp/w/test_data

writes tests/data/stats/rbo_webber.json instead: the cases of test_data/uneven_abc.json and
test_data/permute_abc.json of https://github.com/mpetri/rbo (commit 9ec4cd6; values of William Webber's own
RBO implementation, RBO_ext, six decimals: the alphabet against shorter lists of its letters, and a
permutation of letters against their alphabetical order; the folder kept under /tmp), and prints the largest
|RBO_ext - Webber's| over each (tests/test_stats_rbo_worked.py compares them).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def cases(seed: int = 18, n: int = 24) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        k = int(rng.integers(2, 16))
        dec = 0 if i % 3 == 0 else 1  # coarse rounding: many ties
        x = np.round(rng.normal(size=k), dec)
        y = np.round(0.6 * x + rng.normal(size=k), dec)
        out.append({"names": [f"s{j}" for j in range(k)], "a": x.tolist(), "b": y.tolist(),
                    "p": float(rng.choice([0.5, 0.8, 0.9, 0.95]))})
    return out


def uneven_cases(seed: int = 29, n: int = 30) -> list[dict]:
    """Two prefixes of different lengths drawn from one pool of systems; every other one with ties."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        s = int(rng.integers(1, 9))
        l_ = int(rng.integers(s, 16))
        pool = [f"s{j}" for j in range(20)]
        a = [str(x) for x in rng.choice(pool, s, replace=False)]
        b = [str(x) for x in rng.choice(pool[:16], l_, replace=False)]
        if i % 3 == 2:
            a, b = b, a  # the longer one first
        tied = i % 2 == 1
        sa = np.round(rng.normal(size=len(a)), 0) if tied else -np.arange(len(a), dtype=float)
        sb = np.round(rng.normal(size=len(b)), 0) if tied else -np.arange(len(b), dtype=float)
        out.append({"a": dict(zip(a, sa.tolist(), strict=True)), "b": dict(zip(b, sb.tolist(), strict=True)),
                    "p": float(rng.choice([0.5, 0.8, 0.9, 0.95]))})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corsi-urbano", type=Path)
    ap.add_argument("--webber-values", type=Path)
    ap.add_argument("--pypi-rbo", type=Path)
    ap.add_argument("--dlukes", type=Path)
    ap.add_argument("--depth-values", action="store_true",
                    help="write rbo_depth_peer.json from --pypi-rbo's rbo(k=..., p=...) (with and without ext)")
    ap.add_argument("--check", type=int, default=0, metavar="N",
                    help="also compare pref_eval's rbo_ext_tied with their code live on N random cases")
    args = ap.parse_args()
    if args.depth_values:
        return depth_values(args.pypi_rbo or ap.error("--depth-values needs --pypi-rbo"))
    if args.webber_values:
        webber_check(args.webber_values)
    if not args.corsi_urbano:
        if not args.webber_values:
            ap.error("--corsi-urbano is needed to write the values")
        return
    cu = _load_corsi_urbano(args.corsi_urbano)
    tied = cases()
    for c in tied:
        x = cu.extract_ranking(c["names"], c["a"])
        y = cu.extract_ranking(c["names"], c["b"])
        c["corsi_urbano"] = {t: float(cu.rbo(x, y, c["p"], ties=t, score=("ext",))["ext"]) for t in "abw"}
    uneven = uneven_cases()
    for c in uneven:
        x = cu.extract_ranking(list(c["a"]), list(c["a"].values()))
        y = cu.extract_ranking(list(c["b"]), list(c["b"].values()))
        c["corsi_urbano"] = {t: {k: float(v) for k, v in cu.rbo(x, y, c["p"], ties=t).items()} for t in "abw"}
    data: dict = {"source": {"corsi_urbano": "https://github.com/julian-urbano/sigir2024-rbo rbo/Python/rbo.py, "
                                             "rbo(extract_ranking(names, a), extract_ranking(names, b), p, ties=t)"
                                             "['ext'] (tied), [form] (uneven)"},
                  "tied": tied, "uneven": uneven}
    if args.pypi_rbo:
        sys.path.insert(0, str(args.pypi_rbo))
        from rbo import RankingSimilarity  # type: ignore[import-not-found]

        data["source"]["pypi_rbo"] = "PyPI rbo 0.1.3, RankingSimilarity(S, T).rbo_ext(p)"
        rng = np.random.default_rng(7)
        free = []
        for _ in range(12):
            k = int(rng.integers(2, 20))
            order_a = [f"s{j}" for j in rng.permutation(k)]
            order_b = [f"s{j}" for j in rng.permutation(k)]
            p = float(rng.choice([0.5, 0.9, 0.98]))
            free.append({"a": order_a, "b": order_b, "p": p,
                         "pypi_rbo": float(RankingSimilarity(order_a, order_b).rbo_ext(p))})
        data["tie_free"] = free
        for c in uneven:
            if len(set(c["a"].values())) == len(c["a"]) and len(set(c["b"].values())) == len(c["b"]):
                c["pypi_rbo"] = float(RankingSimilarity(list(c["a"]), list(c["b"])).rbo_ext(c["p"]))
    if args.dlukes:
        spec = importlib.util.spec_from_file_location("rbo_dlukes", args.dlukes)
        assert spec and spec.loader
        dl = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(dl)
        data["source"]["dlukes"] = "https://github.com/dlukes/rbo rbo.py (620b84e), rbo(S, L, p) -> (min, res, ext)"
        for c in uneven:
            if len(set(c["a"].values())) == len(c["a"]) and len(set(c["b"].values())) == len(c["b"]):
                r = dl.rbo(list(c["a"]), list(c["b"]), c["p"])
                c["dlukes"] = {"min": float(r.min), "res": float(r.res), "ext": float(r.ext)}
        # the case of docs/zelo_compare.md: a short list that agrees fully with the top of a longer one
        short, long_ = list("abcdefg"), list("abcdefghijklmnopqrstuvwxyz")
        r = dl.rbo(short, long_, 0.9)
        data["dlukes_case"] = {"a": short, "b": long_, "p": 0.9,
                               "dlukes": {"min": float(r.min), "res": float(r.res), "ext": float(r.ext)}}
    out = ROOT / "tests" / "data" / "stats" / "rbo_peer.json"
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {out}")
    if args.check:
        live_check(cu, args.check)


def _load_corsi_urbano(path: Path):
    if not hasattr(np, "in1d"):
        np.in1d = np.isin  # type: ignore[attr-defined]  # the peer calls np.in1d, gone in numpy 2.4
    spec = importlib.util.spec_from_file_location("rbo_corsi_urbano", path)
    assert spec and spec.loader
    cu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cu)
    return cu


def depth_values(folder: Path) -> None:
    """tests/data/stats/rbo_depth_peer.json: the PyPI rbo package's RBO at depth k (see the docstring)."""
    sys.path.insert(0, str(folder))
    from rbo import RankingSimilarity  # type: ignore[import-not-found]

    rng = np.random.default_rng(30)
    out = []
    for i in range(40):
        k = int(rng.integers(1, 25))
        order_a = [f"s{j}" for j in rng.permutation(k)]
        order_b = [f"s{j}" for j in rng.permutation(k)]
        if i % 4 == 0:  # agreeing tops: large values
            cut = int(rng.integers(0, k + 1))
            order_b = order_a[:cut] + [s for s in order_b if s not in order_a[:cut]]
        depth = int(rng.integers(1, k + 4))
        p = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.98]))
        rs = RankingSimilarity(order_a, order_b)
        out.append({"a": order_a, "b": order_b, "p": p, "depth": depth,
                    "ext": float(rs.rbo(k=depth, p=p, ext=True)), "sum": float(rs.rbo(k=depth, p=p))})
    data = {"source": "PyPI rbo 0.1.3 (https://github.com/changyaochen/rbo), RankingSimilarity(a, b).rbo(k=depth, "
                      "p=p, ext=True) (ext) and .rbo(k=depth, p=p) (sum); tools/rbo_peer_values.py --depth-values",
            "cases": out}
    path = ROOT / "tests" / "data" / "stats" / "rbo_depth_peer.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")


def webber_check(folder: Path) -> None:
    """tests/data/stats/rbo_webber.json from mpetri/rbo's test_data folder (``other``, ``p``, ``rbo`` per case),
    and the largest |pref_eval's RBO_ext - Webber's| over each file."""
    sys.path.insert(0, str(ROOT))
    from pref_eval.stats.orderings import rbo_ext, rbo_prefix

    folder = folder.parent if folder.is_file() else folder
    alphabet = list("abcdefghijklmnopqrstuvwxyz")
    data: dict = {"source": "https://github.com/mpetri/rbo (commit 9ec4cd6) test_data/uneven_abc.json (RBO_ext of the "
                            "alphabet against `other`) and test_data/permute_abc.json (RBO_ext of sorted(`other`) "
                            "against `other`): William Webber's RBO implementation, six decimals; "
                            "tools/rbo_peer_values.py --webber-values",
                  "uneven": [], "permute": []}
    for key, name in (("uneven", "uneven_abc.json"), ("permute", "permute_abc.json")):
        cases = json.loads((folder / name).read_text())
        data[key] = [[c["other"], c["p"], c["rbo"]] for c in cases]
        if key == "uneven":
            got = [rbo_prefix(alphabet, list(c["other"]), c["p"])["ext"] for c in cases]
        else:
            got = [rbo_ext(sorted(c["other"]), list(c["other"]), c["p"]) for c in cases]
        worst = max(abs(g - c["rbo"]) for g, c in zip(got, cases, strict=True))
        print(f"{len(cases)} cases of {name}: max |RBO_ext - Webber's| = {worst:.2g} (the values have 6 decimals)")
    out = ROOT / "tests" / "data" / "stats" / "rbo_webber.json"
    out.write_text("{" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()) + "}\n")
    print(f"wrote {out}")


def live_check(cu, n: int) -> None:
    """Print the largest |pref_eval - Corsi & Urbano| of each variant over n random tied cases (k = 1..29)."""
    sys.path.insert(0, str(ROOT))
    from pref_eval.stats.orderings import rbo_ext_tied

    rng = np.random.default_rng(1)
    from pref_eval.stats.orderings import rbo_prefix

    worst = dict.fromkeys("abw", 0.0)
    worst_prefix = dict.fromkeys("abw", 0.0)
    for _ in range(n):
        k = int(rng.integers(1, 30))
        names = [f"s{i}" for i in range(k)]
        x = np.round(rng.normal(size=k), int(rng.integers(0, 3)))
        y = np.round(x * rng.random() + rng.normal(size=k), int(rng.integers(0, 3)))
        p = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
        rx, ry = cu.extract_ranking(names, x), cu.extract_ranking(names, y)
        for t in "abw":
            ref = float(cu.rbo(rx, ry, p, ties=t, score=("ext",))["ext"])
            worst[t] = max(worst[t], abs(ref - rbo_ext_tied(x, y, p, t)))
        # two prefixes: A the top ka of the systems by x, B another top kb drawn from a larger pool
        ka, kb = int(rng.integers(1, k + 1)), int(rng.integers(1, 30))
        sa = dict(zip(names[:ka], x[:ka], strict=True))
        sb = dict(zip([f"s{i}" for i in rng.permutation(40)[:kb]], np.round(rng.normal(size=kb), 1), strict=True))
        ra, rb = cu.extract_ranking(list(sa), list(sa.values())), cu.extract_ranking(list(sb), list(sb.values()))
        for t in "abw":
            ref = cu.rbo(ra, rb, p, ties=t)
            got = rbo_prefix(sa, sb, p, t)
            worst_prefix[t] = max([worst_prefix[t]] + [abs(ref[f] - got[f]) for f in ("ext", "min", "max", "res")])
    print(f"{n} random cases, max |pref_eval - Corsi & Urbano|: " + ", ".join(f"{t} {v:.3g}" for t, v in worst.items()))
    print("prefixes of uneven lengths, all four forms: " + ", ".join(f"{t} {v:.3g}" for t, v in worst_prefix.items()))


if __name__ == "__main__":
    main()
