"""zELO: pairwise judgments -> Bradley-Terry scores -> graded qrels.

Modules:

* :mod:`.judgments` -- the in-memory judgment table and the ensemble-vote rule;
* :mod:`.formats` -- readers for every judgment file format (autodetected);
* :mod:`.fit` -- exact Bradley-Terry maximum likelihood (vectorised Newton);
* :mod:`.zbench_compat` -- zbench's own iteration, bit for bit;
* :mod:`.scores_io` -- the ``qid docno score se`` TSV and zbench JSONL;
* :mod:`.qrels_out` -- scores -> graded qrels;
* :mod:`.bench_measures` -- zbench's three benchmark measures;
* :mod:`.pairs`, :mod:`.tournament`, :mod:`.simulate` -- choosing pairs.
"""
