#!/bin/sh
# Regenerate: aggregate/run_reference.sh /path/to/pref_eval-checkout   (run from tests/data/pref_eval_ref)
set -e
grep -v '^#' aggregate/cases.txt | while IFS='	' read -r name opts; do
  PYTHONHASHSEED=0 python3 "$1/pref_aggregate.py" $opts > "aggregate/$name.jsonl"
done
