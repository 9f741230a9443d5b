"""Writers for evaluation results: trec_eval text, TSV/CSV, JSON lines."""
