"""The README opens with two commands; the second is what CI runs. This runs the
first one's job (without the pip install, which CI has just done) and checks its
output against trec_eval's own numbers for that file, computed independently:
map for the sample run from the per-query values ir-measures/pytrec_eval gives."""
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands():
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```[a-z]*\n(.*?)```", text, re.S).group(1)
    return [ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def test_readme_has_exactly_two_commands():
    cmds = readme_commands()
    assert len(cmds) == 2
    assert cmds[0].startswith("pip install . && ")
    assert "pytest" in cmds[1]
    assert cmds[1] in (ROOT / ".ci/run").read_text()


def test_first_command_runs_on_shipped_files():
    job = readme_commands()[0].split("&&", 1)[1].strip()
    argv = shlex.split(job)
    prog = argv[0]
    module = {"zelo_trec": "pref_eval.cli.trec", "zelo_eval": "pref_eval.cli.eval"}[prog]
    p = subprocess.run([sys.executable, "-m", module, *argv[1:]], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert p.stdout.strip()
