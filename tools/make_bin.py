#!/usr/bin/env python3
"""Write (or with --check, verify) the bin/ wrappers from pref_eval.cli.options.COMMANDS.

    python tools/make_bin.py            # rewrite bin/
    python tools/make_bin.py --check    # exit 1 if bin/ differs from the table

Each wrapper runs the command from this checkout without installing it (the
installed console scripts of setup.cfg do the same).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pref_eval.cli.options import console_scripts  # noqa: E402

TEMPLATE = '''#!/usr/bin/env python3
"""Entry script for {script} (the installed console script does the same)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
from {module} import main  # noqa: E402

main()
'''


def wrappers() -> dict[str, str]:
    """{script name: wrapper text} for every console script."""
    return {s: TEMPLATE.format(script=s, module=target.split(":")[0]) for s, target in console_scripts().items()}


def main(argv: list[str]) -> int:
    want = wrappers()
    have = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "bin").iterdir() if p.is_file()}
    if "--check" in argv:
        bad = sorted(set(want) ^ set(have)) + sorted(s for s in want if s in have and have[s] != want[s])
        for s in bad:
            print(f"bin/{s}: differs from pref_eval.cli.options.COMMANDS (run python tools/make_bin.py)")
        return 1 if bad else 0
    for s, text in want.items():
        p = ROOT / "bin" / s
        p.write_text(text, encoding="utf-8")
        os.chmod(p, 0o755)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
