#!/bin/sh
# Run one libFuzzer harness for a bounded time (a CTest fuzz.* test, and
# run.sh): run_one.sh HARNESS SEED_DIR WORK_DIR SECONDS
# New inputs go to WORK_DIR/<harness>/corpus (the committed seeds stay as
# they are); a finding is written to WORK_DIR/<harness>/artifacts and makes
# the run fail.
set -eu
harness=$1 seeds=$2 work=$3/$(basename "$1") seconds=$4
mkdir -p "$work/corpus" "$work/artifacts"
exec nice -n 10 "$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    "$work/corpus" "$seeds"
