#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh SECONDS — build the libFuzzer targets with clang into build-fuzz/ and fuzz each one for
# SECONDS (default 60) starting from tests/fuzz/corpus/<target>/ (env BF_FUZZ_SEED, default 1).
#
# New interesting inputs go to build-fuzz/corpus/<target>/ (the committed corpus stays as it is);
# a crash, leak or timeout leaves build-fuzz/artifacts/<target>/crash-* and makes the script fail:
# copy that file into tests/fuzz/corpus/<target>/ (named after what broke) so every later run —
# and `ctest -L fuzz` — replays it as a regression test.
set -eu

secs=${1:-60}
# A fixed seed makes a run repeatable: the same binary and corpus mutate the same way, so a
# failure in CI reproduces here with the same BF_FUZZ_SEED. Use another seed to explore.
seed=${BF_FUZZ_SEED:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# BF_FUZZ_BUILD: the build folder (make check: build/fuzz, so nothing is written beside the
# sources); default build-fuzz/ at the top, as before.
build="${BF_FUZZ_BUILD:-$root/build-fuzz}"
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

if grep -q 'add_subdirectory(tests/fuzz)' "$root/CMakeLists.txt"; then
    src="$root"
    bin="$build/tests/fuzz"
else
    # The top level does not include tests/fuzz yet: wrap it in a tiny project that does.
    src="$build/wrapper"
    bin="$build/fuzz"
    mkdir -p "$src"
    cat > "$src/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.18)
project(bulkfleet_fuzz_wrapper C)
add_subdirectory("$root" bulkfleet)
add_subdirectory("$root/tests/fuzz" fuzz)
EOT
fi

mkdir -p "$build"
if ! { cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DBF_FUZZ=ON \
           -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$san" &&
       cmake --build "$build" -j"${JOBS:-$(nproc)}" --target fuzz_scenario fuzz_template fuzz_bulkresp fuzz_sample; } \
       >"$build/build.log" 2>&1; then
    tail -40 "$build/build.log" >&2
    echo "run.sh: build failed (needs clang and libclang-rt-14-dev); see $build/build.log" >&2
    exit 3
fi

# fuzz_one TARGET — fuzz TARGET for $secs s; what it prints goes to $build/TARGET.report (shown
# in target order once all are done), its status to $build/TARGET.status
fuzz_one() {
    t=$1
    mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
    {
        echo "run.sh: $t for ${secs}s"
        if ! "$bin/$t" -seed="$seed" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
                -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" \
                $( [ -f "$here/$t.dict" ] && echo "-dict=${BF_FUZZ_DICT:-$here/$t.dict}" ) \
                "$build/corpus/$t" "$here/corpus/$t" 2>"$build/$t.log"; then
            echo "run.sh: $t FAILED; see $build/$t.log and $build/artifacts/$t/"
            # The report's first lines say what broke (the property or the sanitizer's error and
            # its top frames); the tail names the input that did it.
            grep -n -m1 -A24 -E "fuzz property violated|ERROR: |runtime error|deadly signal" \
                "$build/$t.log" || true
            tail -8 "$build/$t.log"
            for a in "$build/artifacts/$t"/*; do
                [ -f "$a" ] || continue
                echo "run.sh: input $a (base64):"
                head -c 4096 "$a" | base64
            done
            echo 1 > "$build/$t.status"
        else
            grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/$t.log" || true
            echo 0 > "$build/$t.status"
        fi
    } > "$build/$t.report" 2>&1
}

# The targets run side by side, as many at once as there are cores (JOBS, default nproc): each
# is one process on a core of its own, so it gets its $secs s of fuzzing as when run alone, and
# the tier takes about ceil(4 / cores) x $secs s instead of 4 x $secs s.
targets="fuzz_scenario fuzz_template fuzz_bulkresp fuzz_sample"
jobs=${JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
running=0
for t in $targets; do
    rm -f "$build/$t.status" "$build/$t.report"
    fuzz_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait
status=0
for t in $targets; do
    cat "$build/$t.report" >&2
    [ "$(cat "$build/$t.status" 2>/dev/null)" = 0 ] || status=1
done
exit $status
