"""``zelo_trec``'s back end: trec_eval 10 semantics end to end.

* :mod:`.run` -- :func:`~pref_eval.trec_eval.run.run_trec` (options → trec_eval's text), ``-R qrels``;
* :mod:`.prefs` -- ``-R prefs``, ``qrels_prefs`` and ``qrels_jg``;
* :mod:`.zscores` -- ``-Z zscores_file``: reading the file and converting per-query values.
"""
