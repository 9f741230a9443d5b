"""Regenerate the expected outputs of the ```console blocks of docs pages from the commands themselves.

    python tools/update_docs_console.py docs/zelo_compare.md [docs/other.md ...]

Runs every ```sh and ```console block of each page in order, exactly as tests/test_docs.py does (a
scratch directory mirroring the repository root, the checkout's bin/ first on PATH), and rewrites
the lines after each ``$ command`` with what the command printed. tests/test_docs.py then checks
them on every run, so the figures on the pages always come from the commands.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_docs import FENCE, console_commands, scratch_root  # noqa: E402


def update(page: Path) -> int:
    lines = page.read_text(encoding="utf-8").split("\n")
    env = {**os.environ, "PATH": f"{ROOT / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "PYTHON": sys.executable}
    changed = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = scratch_root(Path(tmp))
        out: list[str] = []
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m or m.group("info").strip() not in ("sh", "console"):
                out.append(lines[i])
                i += 1
                continue
            indent, fence, kind = m.group("indent"), m.group("fence"), m.group("info").strip()
            j = i + 1
            while lines[j].strip() != fence:
                j += 1
            body = [x[len(indent):] if x.startswith(indent) else x for x in lines[i + 1:j]]
            code = "\n".join(body) + "\n"
            out.append(lines[i])
            steps = [(code, None)] if kind == "sh" else console_commands(code)
            for cmd, expected in steps:
                res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], capture_output=True, text=True,
                                     cwd=work, env=env, timeout=600)
                if res.returncode != 0:
                    raise SystemExit(f"{page}:{i + 1}: exit {res.returncode}\n{res.stderr}")
                if kind == "sh":
                    out.extend(lines[i + 1:j])
                    continue
                got = "".join(x.rstrip() + "\n" for x in res.stdout.rstrip("\n").split("\n")) if res.stdout else ""
                changed += got != expected
                out.append(indent + "$ " + cmd)
                out.extend(indent + x if x else x for x in got.rstrip("\n").split("\n") if got)
            out.append(lines[j])
            i = j + 1
    page.write_text("\n".join(out), encoding="utf-8")
    return changed


def main(argv: list[str]) -> None:
    for p in argv:
        n = update(Path(p))
        print(f"{p}: {n} output(s) updated", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
