"""zelo_pairs: choose the pairs to judge (random cycles; Clarke's tournament)."""
from __future__ import annotations

import click

from .common import Log, output_stream, output_streams, run_main
from .param_types import SEED, Finite
from .options import quiet_option


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def command():
    """Choose document pairs to judge.

    \b
    zelo_pairs cycles --dataset DS.jsonl --cycles 4 --seed 1 > pairs.jsonl
    zelo_pairs init --state S.json --qrels graded.qrels [--k 5 --p 7 --f 9]
    zelo_pairs next --state S.json > batch.txt      (pairs still to judge)
    zelo_pairs add  --state S.json -J judgments     (any zelo_fit format)
    zelo_pairs status --state S.json                 (stage, pairs outstanding, stages left)
    zelo_pairs result --state S.json [--qrels graded.qrels]
    """


def request_header(layout: str) -> str:
    """First line of a request file: a comment naming it, so that no reader takes it for judgments."""
    from ..io.judgments import REQUEST_MARK

    return f"{REQUEST_MARK} (pairs to judge, not judgments): {layout}\n"


def _read_queries(dataset, run, depth, docs):
    from ..errors import UsageError
    from ..io.judgments import read_zbench_dataset

    given = [x for x in (dataset, run, docs) if x]
    if len(given) != 1:
        raise UsageError("give exactly one of --dataset, --run, --docs")
    if dataset:
        return read_zbench_dataset(dataset)
    if run:
        import numpy as np

        from ..io.runs import read_run

        r = read_run(run)
        qid = r.qid  # expanded once (linear in run lines)
        order = np.lexsort((r.docno, -r.score, qid))  # score desc, docno asc within qid
        qs, ds = qid[order], r.docno[order]
        heads = np.flatnonzero(np.concatenate([[True], qs[1:] != qs[:-1]])) if len(qs) else np.zeros(0, int)
        ends = np.append(heads[1:], len(qs))
        out: list[tuple[str, list[str]]] = []
        for h, e in zip(heads.tolist(), ends.tolist(), strict=True):
            e = e if depth is None else min(e, h + depth)
            out.append((qs[h].decode("utf-8", "replace"), [d.decode("utf-8", "replace") for d in ds[h:e].tolist()]))
        return out
    from ..io.candidates import read_candidates

    return read_candidates(docs)


@command.command("cycles")
@click.option("--dataset", default=None, metavar="JSONL", help="zbench QueryDocuments JSONL.")
@click.option("--run", default=None, metavar="RUN", help="TREC run: candidates = top --depth by score.")
@click.option("--depth", type=click.IntRange(min=1), default=None, help="With --run: documents per query (default all).")
@click.option("--docs", default=None, metavar="FILE", help="'qid docno' lines, in candidate order.")
@click.option("--cycles", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--no-duplicates", is_flag=True, help="Skip a pair already drawn for the query.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use only the first N documents per query.")
@click.option("--compat", type=click.Choice(["zbench"]), default=None,
              help="Python random.Random(seed).shuffle, as zbench after random.seed(seed).")
@click.option("--output-format", type=click.Choice(["jsonl", "tsv"]), default="jsonl", show_default=True)
@click.option("-o", "--output", default=None)
@quiet_option()
def cycles_cmd(dataset, run, depth, docs, cycles, seed, no_duplicates, limit, compat, output_format, output, quiet):
    """Random cycles (zbench): each document is in 2 x CYCLES pairs."""
    import json

    from ..errors import UsageError
    from ..zelo.pairs import random_cycles

    if cycles < 1:
        raise UsageError("--cycles must be >= 1")
    queries = _read_queries(dataset, run, depth, docs)
    pairs = random_cycles(queries, cycles, seed, dedup=no_duplicates, limit=limit, compat=compat)
    with output_stream(output) as out:
        if output_format == "tsv" and pairs:
            out.write(request_header("qid<TAB>docA<TAB>docB"))
        for q, a, b in pairs:
            if output_format == "jsonl":
                out.write(json.dumps({"qid": q, "doc_a": a, "doc_b": b}) + "\n")
            else:
                out.write(f"{q}\t{a}\t{b}\n")
    Log("zelo_pairs", quiet).info(f"{len(pairs)} pairs for {len(queries)} queries")
    return 0


def _load(state):
    from ..zelo.pair_state import load_state

    return load_state(state)  # the strategy the state declares (tournament, adaptive)


def _save(state, t):
    with output_stream(state) as out:
        out.write(t.to_json())


@command.command("init")
@click.option("--state", required=True, metavar="FILE", help="JSON state file to create.")
@click.option("--qrels", required=True, metavar="FILE", help="Graded qrels (the pool: grade > 0).")
@click.option("--strategy", type=click.Choice(["tournament", "adaptive"]), default="tournament", show_default=True,
              help="Clarke et al.'s tournament, or the adaptive double elimination (zelo_simulate adaptive).")
@click.option("--k", type=click.IntRange(min=1), default=None, help="Tournament: depth of top documents required (5).")
@click.option("--p", type=click.IntRange(min=1), default=None,
              help="Tournament: first-stage pairings per document (7).")
@click.option("--f", type=click.IntRange(min=1), default=None, help="Tournament: first-stage pooling threshold (9).")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--final-phase", is_flag=True, default=None, help="Tournament: Yan et al.'s extra final phase: judge "
              "every final-pool pair a second time; result from both rounds.")
@click.option("--lead", type=Finite(min=0.5), default=None, help="Adaptive: a match ends at this lead (2).")
@click.option("--max-per-pair", type=click.IntRange(min=1), default=None,
              help="Adaptive: judgments of one pair at most (6).")
@click.option("--force", is_flag=True, help="Overwrite an existing state file.")
def init_cmd(state, qrels, strategy, k, p, f, seed, final_phase, lead, max_per_pair, force):
    """Start Clarke's pruning tournament (or the adaptive strategy) from graded qrels."""
    import os

    from ..errors import UsageError
    from ..io.qrels import graded_documents
    from ..zelo.tournament import Tournament

    if os.path.exists(state) and not force:
        raise UsageError(f"{state} exists (use --force to start over)")
    own = {"tournament": {"k": k, "p": p, "f": f, "final-phase": final_phase},
           "adaptive": {"lead": lead, "max-per-pair": max_per_pair}}
    other = "adaptive" if strategy == "tournament" else "tournament"
    wrong = [name for name, v in own[other].items() if v is not None]
    if wrong:
        raise UsageError(f"--{wrong[0]} does not apply to --strategy {strategy}")
    if strategy == "adaptive":
        from ..zelo.adaptive_session import AdaptiveSession

        params = {"lead": 2.0 if lead is None else lead, "max_per_pair": 6 if max_per_pair is None else max_per_pair}
        t = AdaptiveSession(seed, params)
    else:
        t = Tournament(5 if k is None else k, 7 if p is None else p, 9 if f is None else f, seed, bool(final_phase))
    for topic, grades in graded_documents(qrels).items():
        t.add_topic(topic, grades)
    _save(state, t)
    return 0


@command.command("next")
@click.option("--state", required=True, metavar="FILE")
@click.option("-o", "--output", default=None, help="Requests 'topic docA docB' (default stdout).")
def next_cmd(state, output):
    """Print the pairs still to judge (none when the tournament is over)."""
    from ..zelo.pair_state import next_batch

    t = _load(state)
    req = next_batch(t)  # adaptive: a new batch number (the same pair may be asked again)
    # the left/right draw advances the seeded stream: the state and the
    # requests are written together, or neither is
    with output_streams(state, output) as (st, out):
        st.write(t.to_json())
        if req:  # nothing at all once the tournament is over (scripts test for an empty file)
            out.write(request_header("topic docA docB"))
        for tp, a, b in req:
            out.write(f"{tp} {a} {b}\n")
    return 0


@command.command("add")
@click.option("--state", required=True, metavar="FILE")
@click.option("-J", "--judgments", "judgments", multiple=True, required=True)
@click.option("--format", "fmt", default=None)
@quiet_option()
def add_cmd(state, judgments, fmt, quiet):
    """Add a batch of judgments (any number of batches per stage)."""
    from ..io.textfile import display_name, read_input_bytes
    from ..zelo.pair_state import add_batch

    t = _load(state)
    log = Log("zelo_pairs", quiet)
    for path in judgments:
        summary = add_batch(t, read_input_bytes(path, what="judgment file"), display_name(path), fmt)
        if summary is None:
            log.warn(f"{path}: this batch was already added (identical content); nothing changed")
            continue
        if summary["duplicate"] or summary["unrequested"]:
            ex = t.last_ignored
            log.warn(f"{path}: ignored {summary['duplicate']} judgments of pairs already judged in this stage and "
                     f"{summary['unrequested']} of pairs not requested in the current stage"
                     + (f" (e.g. {ex})" if ex else "") + f"; {summary['used']} used")
    _save(state, t)
    left = len(t.outstanding())
    log.info(f"{t.comparisons} judgments used; {left} pairs outstanding")
    return 0


@command.command("status")
@click.option("--state", required=True, metavar="FILE")
def status_cmd(state):
    """Per topic: stage, pool, pairs judged / requested, stages left at least; then a total line."""
    import sys

    t = _load(state)
    rows = t.status()
    sys.stdout.write("topic\tstage\tpool\tjudged\tpairs\toutstanding\tstages_left\n")
    for r in rows:
        sys.stdout.write("\t".join(str(x) for x in r) + "\n")
    out = sum(r[5] for r in rows)
    done = sum(r[1] == "done" for r in rows)
    sys.stdout.write(f"# {len(rows)} topics, {done} done; {out} pairs outstanding; "
                     f"{t.comparisons} judgments used, {t.ignored} ignored\n")
    return 0


@command.command("result")
@click.option("--state", required=True, metavar="FILE")
@click.option("--qrels", default=None, metavar="FILE", help="Print prefj-style preference qrels instead.")
def result_cmd(state, qrels):
    """Per finished topic: 'topic docno wins' of the top set (or preference qrels)."""
    import sys

    from ..output.zelo_scores import fmt_float
    from ..io.qrels import graded_documents

    t = _load(state)
    if qrels:
        for tp, d, v in t.prefs_qrels(graded_documents(qrels)):
            sys.stdout.write(f"{tp} Q0 {d} {fmt_float(v)}\n")
        return 0
    for tp, st in t.topics.items():
        if st["phase"] == "done":
            for d, v in sorted((st["result"] or {}).items(), key=lambda x: -x[1]):
                sys.stdout.write(f"{tp} {d} {fmt_float(v)}\n")
    return 0


def main(argv=None):
    run_main(command, "zelo_pairs", argv)


if __name__ == "__main__":
    main()
