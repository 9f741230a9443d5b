"""The README opens with two commands; the second is what CI runs. This runs the
first one's job (without the pip install, which CI has just done) and checks its
per-query map, nDCG@10 and P@10 against ir-measures (pytrec_eval) computed live."""
import re
import shlex
import subprocess
import sys

from conftest import ROOT  # noqa: E402


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


def test_ci_runs_the_slow_checks_the_suite_leaves_out():
    """The README's test command is the suite without the checks marked slow (setup.cfg's addopts); CI runs
    those too, after it (the guide: long checks go behind a marker that CI still runs)."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert cfg["tool:pytest"]["addopts"].strip() == '-m "not slow"'
    ci = (ROOT / ".ci/run").read_text().splitlines()
    main = next(i for i, ln in enumerate(ci) if readme_commands()[1] in ln)
    assert any(ln.strip() == "pytest -q -n 2 -m slow" for ln in ci[main + 1:])
    # a failure anywhere in the README's && list stops CI red (set -e alone does not act inside a list)
    assert ci[main].strip().startswith(readme_commands()[1] + " || exit 1")


def test_first_command_runs_on_shipped_files():
    job = readme_commands()[0].split("&&", 1)[1].strip()
    argv = shlex.split(job)
    prog = argv[0]
    module = {"zelo_trec": "pref_eval.cli.trec", "zelo_eval": "pref_eval.cli.eval"}[prog]
    p = subprocess.run([sys.executable, "-m", module, *argv[1:]], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert p.stdout.strip()
    if prog == "zelo_trec" and "-q" in argv:
        _check_against_ir_measures(argv, p.stdout)


def _check_against_ir_measures(argv, stdout):
    import pytest

    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = argv[-2], argv[-1]
    ours = {}
    for line in stdout.splitlines():
        name, qid, value = line.split("\t")
        ours[(name.strip(), qid)] = value
    qr = list(ir_measures.read_trec_qrels(str(ROOT / qrels)))
    rn = list(ir_measures.read_trec_run(str(ROOT / run)))
    checked = 0
    for m in ir_measures.iter_calc([ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 10], qr, rn):
        name = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}[str(m.measure)]
        if (name, m.query_id) in ours:
            assert ours[(name, m.query_id)] == f"{m.value:6.4f}", (name, m.query_id)
            checked += 1
    assert checked >= 8


def test_command_table_names_every_command():
    """The README's "Commands" table lists every console script of setup.cfg (zelo_plot was missing)."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    lines = cfg["options.entry_points"]["console_scripts"].strip().splitlines()
    scripts = {ln.split("=", 1)[0].strip() for ln in lines}
    text = (ROOT / "README.md").read_text()
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`([a-z_]+)`", table))
    assert scripts - listed == set()
