"""A track organizer's day, session 23 (k32): the per-topic table to read (``-o topics-text|topics-markdown|
topics-latex``, ``--digits``), formats a mode cannot write refused, the pool's contributions per group. Oracles:
the TSV table (itself checked against pandas and hand-worked AP in test_track_batch / test_track_runs) with
Python's own rounding, hand-worked values, pandas computed live."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from cli_harness import ROOT, run_inproc
from test_track_batch import FOURTH, _files
from test_track_runs import AP

RUNS = ["good.run", "other.run", "third.run", "fourth.run"]
ARGV = ["-R", "q.txt", "-m", "map", "-m", "num_rel_ret", "-m", "P@2", "-Q"]


def _ws(tmp_path: Path) -> Path:
    ws = _files(tmp_path)
    (ws / "fourth.run").write_text(FOURTH)
    return ws


def _tsv(ws: Path, extra: list[str]) -> list[list[str]]:
    res = run_inproc("zelo_eval", [*ARGV, *extra, "-o", "topics", *RUNS], ws)
    assert res.returncode == 0, res.stderr
    return list(csv.reader(io.StringIO(res.stdout.decode()), delimiter="\t"))


def _rounded(cell: str, digits: int, measure: str) -> str:
    """A TSV cell as the table to read must print it: counts (num_rel_ret) as written, the rest at ``digits``."""
    if cell == "" or measure == "num_rel_ret":
        return cell if "." not in cell or not cell.endswith(".0") else cell[:-2]
    return f"{float(cell):.{digits}f}"


def _cells(fmt: str, text: str) -> list[list[str]]:
    lines = text.split("\n\n")[0].splitlines() if fmt != "topics-latex" else text.splitlines()
    if fmt == "topics-text":
        return [ln.split() for ln in lines]
    if fmt == "topics-markdown":
        return [[c.strip() for c in ln.strip("|").split("|")] for k, ln in enumerate(lines) if k != 1]
    body = [ln for ln in lines if ln.endswith(" \\\\") and not ln.startswith("\\caption")]
    return [[c.strip() for c in ln[:-3].split("&")] for ln in body]


@pytest.mark.parametrize("fmt", ["topics-text", "topics-markdown", "topics-latex"])
@pytest.mark.parametrize("digits", [None, 2])
def test_topics_tables_to_read_hold_the_tsv_table_rounded(tmp_path, fmt, digits):
    """Every cell of the readable table is the TSV table's cell at --digits decimals (default 4); counts stay
    integers; a run lacking a topic (fourth.run, topic 2, without -c) is an empty cell (text: read by position)."""
    ws = _ws(tmp_path)
    d = ["--digits", str(digits)] if digits is not None else []
    for extra in (["-c"], []):
        tsv = _tsv(ws, extra)
        res = run_inproc("zelo_eval", [*ARGV, *extra, "-o", fmt, *d, *RUNS], ws)
        assert res.returncode == 0, res.stderr
        text = res.stdout.decode()
        got = _cells(fmt, text)
        assert got[0] == tsv[0] if fmt != "topics-latex" else [c.replace("\\_", "_") for c in got[0]] == tsv[0]
        want = [r[:3] + [_rounded(c, digits or 4, r[1]) for c in r[3:]] for r in tsv[1:]]
        if fmt == "topics-text":  # an empty cell is spaces: compare the non-empty cells in order
            want = [[c for c in r if c != ""] for r in want]
        if fmt == "topics-latex":
            got = [[r[0], r[1].replace("\\_", "_"), *r[2:]] for r in got]
        assert got[1:] == want, (fmt, extra)
        ap1 = next(r for r in got if r[:2] == ["1", "map"])
        assert ap1[6] == f"{AP['good.run']['1']:.{digits or 4}f}"  # hand-worked AP 5/6
        assert ("upper median" in text) is False and "mean of the two middle values" in text


def test_topics_text_upper_median_legend_and_markdown_escape(tmp_path):
    ws = _ws(tmp_path)
    res = run_inproc("zelo_eval", [*ARGV, "-c", "-o", "topics-markdown", "--median", "upper", "--name",
                                   "good.run=a|b_", *RUNS], ws)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.decode().splitlines()
    assert lines[0] == "| qid | measure | runs | min | median | max | a\\|b\\_ | other.run | third.run | fourth.run |"
    assert "NIST's upper median" in lines[-1]
    # topic 1, -c: AP 5/6, 1, 1/4, 1 -> upper median 1 (test_track_batch's hand-worked row)
    assert "| 1 | map | 4 | 0.2500 | 1.0000 | 1.0000 | 0.8333 | 1.0000 | 0.2500 | 1.0000 |" in lines


def test_digits_honoured_in_the_runs_x_measures_table_and_refused_elsewhere(tmp_path):
    ws = _ws(tmp_path)
    two = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "text", "--digits", "2", *RUNS[:2]], ws)
    assert two.returncode == 0 and "0.67" in two.stdout.decode()  # good.run: (5/6 + 1/2) / 2
    assert "0.6667" not in two.stdout.decode()
    for fmt in ("tsv", "topics", "topics-csv", "trec"):
        res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", fmt, "--digits", "2", *RUNS[:2]], ws)
        assert res.returncode == 2 and res.stdout == b""
        assert res.stderr == ("zelo_eval: --digits applies to -o text|markdown|latex|topics-text|topics-markdown|"
                              f"topics-latex (tables to read), not to -o {fmt} (full precision)\n")


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "wide-csv"])
def test_runs_x_measures_formats_refused_with_preference_measures(tmp_path, fmt):
    """Was: the preference mode wrote its long CSV table under -o text|markdown|latex|wide-csv (ignored)."""
    ws = _ws(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "rpp", "-o", fmt, *RUNS[:2]], ws)
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr.startswith(f"zelo_eval: -o {fmt} is a runs x measures table of trec_eval measures (metric "
                                 "mode); preference measures between runs as a table: zelo_compare -R QRELS")


@pytest.mark.parametrize("fmt", ["text", "wide-csv", "topics-text"])
def test_tables_refused_with_a_zelo_score_file(tmp_path, fmt):
    """Was: a KeyError traceback (the runs x measures formats) with a zELO score file as -R. Since session 28 the
    runs x measures tables are written (zbench's measures; one run refused as in metric mode), the topics tables
    refused."""
    (tmp_path / "z.tsv").write_text("qid\tdocno\tscore\tse\n1\ta\t0.5\t0.1\n1\tb\t-0.5\t0.1\n")
    (tmp_path / "r.run").write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    (tmp_path / "s.run").write_text("1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n")
    ok = run_inproc("zelo_eval", ["-R", "z.tsv", "-o", "tsv", "r.run"], tmp_path)
    assert ok.returncode == 0, ok.stderr  # the file is read as a score file
    res = run_inproc("zelo_eval", ["-R", "z.tsv", "-o", fmt, "r.run"], tmp_path)
    assert res.returncode == 2 and res.stdout == b""
    if fmt.startswith("topics"):
        assert res.stderr == (f"zelo_eval: -o {fmt} applies to metric mode (trec_eval measures), not to a zELO "
                              "score file (z.tsv)\n")
        return
    assert res.stderr == "zelo_eval: need at least two runs to compare\n"  # as in metric mode
    two = run_inproc("zelo_eval", ["-R", "z.tsv", "-o", fmt, "-m", "zacc", "r.run", "s.run"], tmp_path)
    assert two.returncode == 0 and two.stderr == "", two.stderr
    want = b"a,r.run,1.0,\nb,s.run,0.0,\n" if fmt == "wide-csv" else b"a  r.run  1.0000\nb  s.run  0.0000\n"
    assert want in two.stdout  # r.run orders a above b as the scores do (zacc 1), s.run the other way (0)


# -- zelo_pairs pool --contributions --groups / --group-sep: a team's runs counted together (TREC overviews' "unique
#    relevant documents contributed by the group")

from test_track_batch import POOL_QRELS_REL  # noqa: E402
from test_track_runs import POOL_A, POOL_B  # noqa: E402


def _pool_ws(tmp_path: Path) -> Path:
    (tmp_path / "a.run").write_text(POOL_A)
    (tmp_path / "b.run").write_text(POOL_B)
    (tmp_path / "c.run").write_text(POOL_A.replace(" a\n", " c\n"))  # team X's second run: a.run's documents
    (tmp_path / "q.txt").write_text(POOL_QRELS_REL)
    (tmp_path / "teams.txt").write_text("# run tag, group\na X\n\nb Y\nc X\nunused Z\n")
    return tmp_path


def _report(ws: Path, extra: list[str]) -> list[str]:
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--qrels", "q.txt", "--contributions", "c.tsv", "-o",
                                    "p.txt", "-Q", *extra, "a.run", "b.run", "c.run"], ws)
    assert res.returncode == 0, res.stderr
    return (ws / "c.tsv").read_text().splitlines()


def test_pool_contributions_per_group_hand_worked(tmp_path):
    """Depth 2: a.run and c.run (group X) pool (1 d1) (1 d9) (2 e1); b.run (Y) (1 d1) (1 d2) (2 e1) (2 e2) (3 x)
    (10 y). Per run a.run and c.run hold nothing alone (each other's copy); per group X holds d9 alone, Y d2, e2,
    x, y; relevant (grade >= 1) d2 and x, both Y's alone."""
    ws = _pool_ws(tmp_path)
    assert _report(ws, [])[1:3] == ["a.run\t3\t0\t0\t0", "b.run\t6\t4\t2\t2"]
    want = ["group\truns\tpooled\tunique\trelevant\tunique_relevant", "X\t2\t3\t1\t0\t0", "Y\t1\t6\t4\t2\t2",
            "all\t3\t7\t5\t2\t2"]
    assert _report(ws, ["--groups", "teams.txt"]) == want
    (ws / "b.run").write_text(POOL_B.replace(" b\n", " X_b\n"))  # by the tag's prefix: Y_a, Y_c and X_b
    (ws / "a.run").write_text(POOL_A.replace(" a\n", " Y_a\n"))
    (ws / "c.run").write_text(POOL_A.replace(" a\n", " Y_c\n"))
    assert _report(ws, ["--group-sep", "_"]) == [want[0], "Y\t2\t3\t1\t0\t0", "X\t1\t6\t4\t2\t2", want[3]]


@pytest.mark.parametrize(("extra", "says"), [
    (["--groups", "teams.txt", "--group-sep", "_"], "--groups and --group-sep are two ways to name the groups: "
                                                     "give one"),
    (["--group-sep", "_", "--no-contributions"], "--group-sep applies to --contributions (the report per group)"),
    (["--groups", "teams.txt", "--no-contributions"], "--groups applies to --contributions (the report per group)"),
    (["--group-sep", ""], "--group-sep: expected a non-empty separator without white space (a run tag holds none), "
                          "got ''"),
    (["--groups", "bad.txt"], "bad.txt:2: expected 2 fields (RUNTAG GROUP), got 3"),
    (["--groups", "twice.txt"], "twice.txt:3: run tag 'a' given twice (first on line 1)"),
    (["--groups", "few.txt"], "few.txt: no group for run tag 'b' of b.run (expected a line 'b GROUP')"),
    (["--groups", "empty.txt"], "empty.txt: no RUNTAG GROUP line (expected the group of each run, by run tag)"),
])
def test_pool_groups_refused(tmp_path, extra, says):
    ws = _pool_ws(tmp_path)
    (ws / "bad.txt").write_text("a X\nb Y Z\n")
    (ws / "twice.txt").write_text("a X\nb Y\na Y\n")
    (ws / "few.txt").write_text("a X\nc X\n")
    (ws / "empty.txt").write_text("# nothing\n")
    argv = ["pool", "--depth", "2", "-Q", "-o", "p.txt"]
    if "--no-contributions" in extra:
        extra = [x for x in extra if x != "--no-contributions"]
    else:
        argv += ["--contributions", "c.tsv"]
    res = run_inproc("zelo_pairs", [*argv, *extra, "a.run", "b.run", "c.run"], ws)
    assert res.returncode == 2 and res.stderr == f"zelo_pairs: {says}\n"
    assert not (ws / "p.txt").exists() and not (ws / "c.tsv").exists()


@pytest.mark.slow  # pandas' import: ~1.5 s
@pytest.mark.parametrize(("depth", "level"), [(1, 1), (10, 1), (40, 1), (10, 2), (40, 3), (10, 0)])
def test_pool_contributions_per_group_equal_pandas(tmp_path, depth, level):
    """The shipped runs and two more (copies with some documents changed) in three groups, against pandas: each
    run's top N in trec_eval's order (score descending, docno descending), distinct (group, qid, docno), a document
    unique when one group holds it, relevant when the qrels grade it >= -l (session 24: -l; 1 before)."""
    import pandas as pd

    names = {"bm25.run": "uw_bm25", "dense.run": "uw_dense", "rerank.run": "cmu_rr"}
    paths = []
    for k, (f, tag) in enumerate(names.items()):
        lines = (ROOT / "runs" / f).read_text().splitlines()
        (tmp_path / f).write_text("".join(" ".join([*ln.split()[:5], tag]) + "\n" for ln in lines))
        paths.append(f)
        if k < 2:  # a copy with every 7th document renamed and scores shifted: team "ms"
            (tmp_path / f"x{f}").write_text("".join(
                " ".join([p[0], p[1], p[2] + ("x" if i % 7 == 0 else ""), p[3], str(float(p[4]) + (i % 5) * 0.01),
                          f"ms_{k}"]) + "\n" for i, p in enumerate(ln.split() for ln in lines)))
            paths.append(f"x{f}")
    (tmp_path / "q.qrels").write_text((ROOT / "qrels" / "dl19-sample.qrels").read_text())
    res = run_inproc("zelo_pairs", ["pool", "--depth", str(depth), "--qrels", "q.qrels", "--contributions",
                                    "c.tsv", "--group-sep", "_", "-o", "/dev/null", "-Q", "-l", str(level), *paths],
                     tmp_path)
    assert res.returncode == 0, res.stderr
    got = pd.read_csv(tmp_path / "c.tsv", sep="\t", dtype={"group": str})
    frames = []
    for p in paths:
        d = pd.read_csv(tmp_path / p, sep=r"\s+", header=None, names=["qid", "q0", "docno", "rank", "score", "tag"],
                        dtype={"qid": str, "docno": str})
        d = d.sort_values(["qid", "score", "docno"], ascending=[True, False, False]).groupby("qid").head(depth)
        frames.append(d.assign(group=d.tag.str.split("_").str[0]))
    top = pd.concat(frames)[["group", "qid", "docno"]].drop_duplicates()
    holders = top.groupby(["qid", "docno"]).group.nunique().rename("holders").reset_index()
    qrels = pd.read_csv(tmp_path / "q.qrels", sep=r"\s+", header=None, names=["qid", "it", "docno", "grade"],
                        dtype={"qid": str, "docno": str})
    rel = qrels[qrels.grade >= level][["qid", "docno"]].assign(rel=True)
    top = top.merge(holders, on=["qid", "docno"]).merge(rel, on=["qid", "docno"], how="left")
    top["rel"] = top.rel.fillna(False).astype(bool)
    top["unique"] = top.holders == 1
    want = top.groupby("group", sort=False).agg(pooled=("docno", "size"), unique=("unique", "sum"),
                                                relevant=("rel", "sum"))
    want["unique_relevant"] = (top.unique & top.rel).groupby(top.group, sort=False).sum()
    want["runs"] = pd.Series([p for p in names.values()] + ["ms_0", "ms_1"]).str.split("_").str[0].value_counts()
    assert list(got.group[:-1]) == ["uw", "ms", "cmu"]
    for g in ("uw", "ms", "cmu"):
        row = got[got.group == g].iloc[0]
        assert [int(row[c]) for c in ("runs", "pooled", "unique", "relevant", "unique_relevant")] == \
            [int(want.loc[g, c]) for c in ("runs", "pooled", "unique", "relevant", "unique_relevant")], g
    pool = top.drop_duplicates(["qid", "docno"])
    assert [int(x) for x in got.iloc[-1, 1:]] == [5, len(pool), int(pool.unique.sum()), int(pool.rel.sum()),
                                                  int((pool.unique & pool.rel).sum())]


def test_topics_table_legend_says_all_only_with_its_rows(tmp_path):
    """The legend named the 'all' rows under -n too (no such row), and called a count's sum a mean."""
    ws = _ws(tmp_path)
    for extra, has in (([], True), (["-n"], False)):
        res = run_inproc("zelo_eval", [*ARGV, *extra, "-o", "topics-text", *RUNS], ws)
        legend = res.stdout.decode().splitlines()[-1]
        assert res.returncode == 0 and legend.startswith("Per topic and measure: min, median and max")
        assert ("topic all: each run's summary value (the mean over the topics; a count such as num_rel_ret: the "
                "sum)" in legend) is has
        assert any(ln.startswith("all ") for ln in res.stdout.decode().splitlines()) is has


def test_zelo_score_mode_warns_a_run_lacking_queries(tmp_path):
    """Was silent: a run answering one of two queries was averaged over it alone (zbench's rule, kept) without a
    word, while metric mode warns. Hand-worked: query 1 ranked as zELO orders it, zndcg 1."""
    (tmp_path / "z.tsv").write_text("qid\tdocno\tscore\tse\n1\ta\t0.5\t0.1\n1\tb\t-0.5\t0.1\n2\tc\t1\t0.1\n"
                                    "2\td\t0\t0.1\n")
    (tmp_path / "r.run").write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    (tmp_path / "s.run").write_text("1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n2 Q0 c 1 2 s\n2 Q0 d 2 1 s\n")
    res = run_inproc("zelo_eval", ["-R", "z.tsv", "-m", "zndcg", "-o", "tsv", "r.run", "s.run"], tmp_path)
    assert res.returncode == 0
    assert res.stdout.decode().splitlines()[1:] == ["r.run\tall\tzndcg\t1.0", "s.run\tall\tzndcg\t1.0"]
    assert res.stderr == ("zelo_eval: warning: r.run: run lacks 1 of 2 queries of z.tsv; its means are over the 1 "
                          "it has (zbench's rule)\n")
    quiet = run_inproc("zelo_eval", ["-R", "z.tsv", "-m", "zndcg", "-o", "tsv", "-Q", "r.run"], tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_orderings_of_a_long_table_with_runid_rows(tmp_path):
    """`zelo_compare --orderings` of the organizer's table (`-M official -o tsv`: trec_eval's `runid` rows, a text
    value) stopped at the first `runid` row ('expected a number as value'); they are skipped. Oracle: the same
    table without its runid rows (grep), and Kendall's tau-b by hand: map orders other > good > fourth > third, P@2
    other > the three tied, so 3 concordant pairs, 3 tied in B only: 3 / sqrt(6 * 3) = 0.7071."""
    ws = _ws(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-c", "-M", "official", "-m", "P@2", "-o", "tsv", "-Q", *RUNS], ws)
    assert res.returncode == 0 and b"\trunid\t" in res.stdout
    (ws / "a.tsv").write_bytes(res.stdout)
    (ws / "b.tsv").write_bytes(b"".join(ln for ln in res.stdout.splitlines(True) if b"\trunid\t" not in ln))
    argv = ["--orderings", "a.tsv", "a.tsv", "--key-a", "map", "--key-b", "P@2", "-o", "csv"]
    got = run_inproc("zelo_compare", argv, ws)
    want = run_inproc("zelo_compare", [*[x.replace("a.tsv", "b.tsv") for x in argv]], ws)
    assert got.returncode == want.returncode == 0, (got.stderr, want.stderr)
    assert got.stdout == want.stdout and b"systems,4\n" in got.stdout
    assert b"kendall_tau_b,0.7071\n" in got.stdout and b"swapped_pairs,0 of 6\n" in got.stdout


@pytest.mark.parametrize("fmt", ["topics", "topics-csv"])
def test_zelo_compare_per_topic_table_given_as_per_query_values_says_so(tmp_path, fmt):
    ws = _ws(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-c", "-m", "map", "-o", fmt, "-Q", *RUNS], ws)
    (ws / "t.txt").write_bytes(res.stdout)
    got = run_inproc("zelo_compare", ["-P", "t.txt", "-m", "map", "--tests", "t"], ws)
    assert got.returncode == 2 and got.stdout == b""
    assert got.stderr == ("zelo_compare: t.txt:1: expected a header line with columns run, qid, measure, value "
                          "(missing run, value); this is zelo_eval's per-topic table (-o topics: a column per run): "
                          "write the per-query table with `zelo_eval -R QRELS -q -o tsv ...`\n")
