#!/bin/sh
# Regenerate the reference outputs: run_reference.sh /path/to/pref_eval-checkout-at-60e3203
# (diazf/pref_eval before the 2024 vector cache, graded RPP). Run from this folder.
set -e
REF=$1
grep -v '^#' cases.txt | while IFS='	' read -r name case opts; do
  runs=$(ls "$case"/input.* | sort)
  PYTHONHASHSEED=0 python3 "$REF/pref_eval.py" -R "$case/qrels" $opts $runs > "$case/$name.jsonl"
done
