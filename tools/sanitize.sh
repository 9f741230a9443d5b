#!/usr/bin/env bash
# Memory-safety check of pref_eval's two C extensions (pref_eval/_jsonl.c, pref_eval/_kernels.c).
#
# Copies the checkout (tracked files as they are in the work tree) to a temporary folder, builds
# both extensions there with AddressSanitizer and UndefinedBehaviorSanitizer, and runs the tests that
# reach them with the sanitizer runtimes preloaded into Python. PYTHONMALLOC=malloc sends Python's
# own allocations (PyMem_*, bytes, bytearray) to malloc, so that ASan sees them too. Any report stops
# the test process (halt_on_error / abort) and the script fails. The checkout's own build is untouched.
#
#   tools/sanitize.sh                      # the default test files below (~10 CPU-minutes)
#   tools/sanitize.sh tests/test_x.py -k y # other pytest arguments
#   SANITIZE_SLOW=1 tools/sanitize.sh      # also the tests marked slow of those files
#
# Needs gcc (or CC) with libasan/libubsan. Not run by CI: it takes minutes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-gcc}
ASAN=$("$CC" -print-file-name=libasan.so)
UBSAN=$("$CC" -print-file-name=libubsan.so)
for lib in "$ASAN" "$UBSAN"; do
    [ -e "$lib" ] || { echo "sanitize.sh: $CC has no $(basename "$lib") (install its sanitizer runtime)" >&2; exit 2; }
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/pref_eval_sanitize.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
COPY="$TMP/pref_eval"
mkdir "$COPY"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$COPY" 2>/dev/null) || true
# tests read the development data folder as ../shared
[ -e "$ROOT/../shared" ] && ln -s "$(cd "$ROOT/../shared" && pwd)" "$TMP/shared"

FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
(cd "$COPY" && CC="$CC" CFLAGS="$FLAGS" LDFLAGS="-fsanitize=address,undefined" \
    python setup.py -q build_ext --inplace --force >"$TMP/build.log" 2>&1) || { cat "$TMP/build.log" >&2; exit 2; }
for m in _jsonl _kernels; do
    so=$(ls "$COPY"/pref_eval/$m.*.so 2>/dev/null | head -1)
    if [ -z "$so" ] || ! nm -D "$so" | grep -q __asan_; then
        cat "$TMP/build.log" >&2
        echo "sanitize.sh: pref_eval.$m was not built with the sanitizers" >&2
        exit 2
    fi
done

DEFAULT_TESTS=(
    tests/test_jsonl_scanner.py tests/test_zelo_ckernels.py tests/test_zelo_kernels.py
    tests/test_aggregate_reader.py tests/test_aggregate_repeated_lines.py tests/test_zelo_fast_readers.py
    tests/test_zelo_formats.py tests/test_zelo_streamed_reader.py tests/test_zelo_fit.py
    tests/test_zelo_fit_odd_inputs.py tests/test_fit_edges.py tests/test_zelo_scores_writer.py
    tests/test_output_writers.py tests/test_fuzz_inputs.py tests/test_io_malformed.py tests/test_one_reader.py
    tests/test_zelo_cli_fit.py tests/test_run_columns.py tests/test_pref_output.py tests/test_pref_properties.py
    tests/test_perquery_scanned.py
)
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=("${DEFAULT_TESTS[@]}")
MARK=()
[ -n "${SANITIZE_SLOW:-}" ] && MARK=(-m "slow or not slow")

cd "$COPY"
export LD_PRELOAD="$ASAN:$UBSAN${LD_PRELOAD:+:$LD_PRELOAD}"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export PYTHONMALLOC=malloc PYTHONPATH="$COPY" PREF_EVAL_SANITIZED=1
# the extensions that run are the sanitized ones of the copy
python -c "import pref_eval._jsonl as j, pref_eval._kernels as k; assert j.__file__.startswith('$COPY') and k.__file__.startswith('$COPY'), (j.__file__, k.__file__)"
# a child Python started with a cleared environment loads the sanitized extension without the
# preloaded runtime and stops ("ASan runtime does not come first"): not a finding; it measures memory
python -m pytest -q -p no:cacheprovider "${MARK[@]}" "${ARGS[@]}" \
    --deselect tests/test_zelo_streamed_reader.py::test_memory_zelo_fit_grows_by_the_compact_columns
