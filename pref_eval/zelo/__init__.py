"""zELO: pairwise judgments -> Bradley-Terry scores -> graded qrels.

Modules:

* :mod:`.judgments` -- the in-memory judgment table and the ensemble-vote rule
  (the readers for every judgment file format are in :mod:`pref_eval.io.judgments`);
* :mod:`.fit` -- exact Bradley-Terry maximum likelihood (vectorised Newton);
* :mod:`.zbench_compat` -- zbench's own iteration, bit for bit;
* score files are read by :mod:`pref_eval.io.zelo_scores` and written by
  :mod:`pref_eval.output.zelo_scores`; graded qrels by :mod:`pref_eval.output.qrels`;
* :mod:`.bench_measures` -- zbench's three benchmark measures;
* :mod:`.pairs`, :mod:`.tournament`, :mod:`.simulate` -- choosing pairs.
"""
