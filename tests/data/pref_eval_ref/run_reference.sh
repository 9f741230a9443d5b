#!/bin/sh
# Regenerate the reference outputs: run_reference.sh /path/to/pref_eval-checkout-at-60e3203
# (diazf/pref_eval before the 2024 vector cache, graded RPP). Run from this folder.
#
# NAME.jsonl: pref_eval.py on CASE/qrels (queries deliberately not in id order).
# NAME.sorted-summary.jsonl: the summary lines ("qid": "all") of pref_eval.py on the same qrels with
# its lines stably sorted by query id: pref_eval.py sums the per-query values in qrels order, zelo_eval
# in query-id order (so that its summaries do not depend on the order of the qrels lines).
set -e
REF=$1
grep -v '^#' cases.txt | while IFS='	' read -r name case opts; do
  runs=$(ls "$case"/input.* | sort)
  PYTHONHASHSEED=0 python3 "$REF/pref_eval.py" -R "$case/qrels" $opts $runs > "$case/$name.jsonl"
  LC_ALL=C sort -s -k1,1 "$case/qrels" > "$case/qrels.sorted.tmp"
  PYTHONHASHSEED=0 python3 "$REF/pref_eval.py" -R "$case/qrels.sorted.tmp" $opts $runs \
    | grep '^{"qid": "all"' > "$case/$name.sorted-summary.jsonl" || true
  rm -f "$case/qrels.sorted.tmp"
done
