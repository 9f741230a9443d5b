"""README.md "Speed (measured)": every block is the output of the script that writes it.

Each of the eight blocks sits between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` (where
``bench/_timing.write_result`` puts it), is not empty, and ends with the command that made it: a
script that exists in bench/ and whose argparse ``--help`` lists every option the command shows.
The blocks written since the scripts record the machine also name the date, the CPU and the load.
No benchmark is run here.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT

# marker name -> the script that writes the block
BLOCKS = {
    "metrics": "bench_trec.py",
    "compare": "bench_compare.py",
    "zelo-fit": "bench_zelo.py",
    "pref": "bench_pref.py",
    "startup": "bench_startup.py",
    "zelo-cli": "bench_zelo_cli.py",
    "scaling": "bench_scaling.py",
    "nocompiler": "bench_nocompiler.py",  # (session 30: an install without a C compiler, two venvs)
}
# blocks written by a script that records the date and the machine (_timing.stamp)
STAMPED = {"metrics", "compare", "zelo-fit", "pref", "zelo-cli", "startup"}
COMMAND = re.compile(r"`((?:[A-Z_]+=\S+(?: \S+)*? )?python bench/[^`]+)`")


def block(name: str) -> str:
    doc = (ROOT / "README.md").read_text(encoding="utf-8")
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    assert doc.count(begin) == 1 and doc.count(end) == 1, f"README.md: one {begin} and one {end} expected"
    i, j = doc.index(begin), doc.index(end)
    assert i < j, f"README.md: {begin} after {end}"
    text = doc[i + len(begin):j].strip()
    assert text, f"README.md: the {name} block is empty"
    return text


def test_speed_blocks_are_in_the_speed_section():
    doc = (ROOT / "README.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Speed (measured)"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    for name in BLOCKS:
        assert f"<!-- {name}:begin -->" in section, f"{name} block outside the Speed section"


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_speed_block_names_its_command(name):
    text = block(name)
    commands = COMMAND.findall(text)
    assert commands, f"README.md {name} block: no `python bench/....py ...` command"
    argv = shlex.split(commands[-1])
    while "=" in argv[0]:  # VAR=value prefixes
        argv.pop(0)
    assert argv[0] == "python" and argv[1] == f"bench/{BLOCKS[name]}", f"{name} block names {argv[1]}"
    script = ROOT / argv[1]
    assert script.is_file(), f"{argv[1]} does not exist"
    p = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    flags = [a.split("=")[0] for a in argv[2:] if a.startswith("--")]
    missing = [f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", p.stdout)]
    assert not missing, f"{argv[1]} --help does not accept {missing}"
    if name in STAMPED:
        assert re.search(r"Measured \d{4}-\d{2}-\d{2} \(UTC\) on .+, \d+ cores, (with|no) AVX-512; "
                         r"load average [\d.]+ [\d.]+ [\d.]+ on \d+ cores at the start, "
                         r"load average [\d.]+ [\d.]+ [\d.]+ on \d+ cores at the end", text), \
            f"{name} block: no date / machine / load line"


def test_a_flag_the_script_lacks_is_caught():
    """The check above can fail: an option bench_zelo.py does not have is not in its --help."""
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_zelo.py"), "--help"], capture_output=True,
                       text=True, cwd=ROOT)
    assert "--repeat" in p.stdout and "--write" in p.stdout
    assert not re.search(r"(?<![\w-])--no-such-option(?![\w-])", p.stdout)


@pytest.mark.parametrize("script", ["bench_zelo_cli", "bench_scaling"])
@pytest.mark.parametrize("no_write", [False, True])
def test_no_write_prints_and_writes_nothing(script, no_write, monkeypatch, capsys, tmp_path):
    """The scripts that write their README block on every run (bench_zelo_cli.py rewrote it at each run, even
    a trial one: session 22) write nothing with ``--no-write``; measured here with the commands, the data
    generation and the writer replaced (no benchmark runs)."""
    import importlib

    sys.path.insert(0, str(ROOT / "bench"))
    mod = importlib.import_module(script)
    written = []
    monkeypatch.setattr(mod.tempfile, "mkdtemp", lambda prefix="": str(tmp_path))
    monkeypatch.setattr(mod, "write", lambda path, nq, fmt="jsonl": (open(path, "w").close(), 400 * nq)[1])
    monkeypatch.setattr(mod, "run", lambda argv, env=None: (0.5, 100.0))
    monkeypatch.setattr(mod, "write_result", lambda *a, **k: written.append(a[0]))
    if script == "bench_scaling":
        monkeypatch.setattr(mod, "_linked", lambda base, rundir, n: [f"run{k}" for k in range(n)])
        monkeypatch.setattr(mod.subprocess, "run", lambda *a, **k: None)
    argv = [script, *(["--no-dask"] if script == "bench_scaling" else []), *(["--no-write"] if no_write else [])]
    monkeypatch.setattr(sys, "argv", argv)
    mod.main()
    out = capsys.readouterr().out
    assert "| 1,000 |" in out or "1,000 queries" in out
    assert written == ([] if no_write else [{"bench_zelo_cli": "zelo-cli", "bench_scaling": "scaling"}[script]])
    if script == "bench_zelo_cli":  # --ab too (its parameter `write` hid the data writer: a TypeError, session 24)
        (tmp_path / "other" / "bin").mkdir(parents=True)
        (tmp_path / "other" / "bin" / "zelo_fit").touch()
        monkeypatch.setattr(mod, "_cpu_run", lambda argv, env: (open(argv[-1], "w").close(), (0.5, 0.6))[1])
        monkeypatch.setattr(sys, "argv", [*argv, "--ab", str(tmp_path / "other"), "--repeat", "1"])
        mod.main()
        assert "| 1,000 | 400,000 | jsonl | 0.500 (0.500) | 0.500 (0.500) |" in capsys.readouterr().out
        assert written == ([] if no_write else ["zelo-cli", "zelo-cli"])
