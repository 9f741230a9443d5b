"""How many queries of a judgment file are not one strongly connected comparison graph (docs/zelo.md).

    python tools/scc_share.py FILE [FILE ...]

Prints ``FILE: K of N queries are not strongly connected`` per file: the queries whose judged documents
form more than one strongly connected component (``n_components > 1`` in ``zelo_fit --prior 0
--diagnostics``), where the maximum-likelihood scores do not all exist.
"""
from __future__ import annotations

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))


def scc_share(path: str) -> tuple[int, int]:
    """(queries with more than one strongly connected component, queries) of one judgment file."""
    from pref_eval.api.fitting import fit

    with tempfile.TemporaryDirectory() as tmp:
        diag = os.path.join(tmp, "diagnostics.tsv")
        fit(path, prior=0.0, diagnostics=diag, keep_results=False)
        with open(diag, encoding="utf-8") as fh:
            header = fh.readline().rstrip("\n").split("\t")
            col = header.index("n_components")
            counts = [int(line.split("\t")[col]) for line in fh if line.strip()]
    return sum(c > 1 for c in counts), len(counts)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        k, n = scc_share(path)
        print(f"{path}: {k} of {n} queries are not strongly connected")


if __name__ == "__main__":
    main()
