#!/usr/bin/env bash
# The benchmark harness: flowtrace against its peers on the same inputs in the same run, the core's
# per-packet cost, the job and the agents; regenerates the marked blocks of docs/BENCHMARKS.md.
#   bench/run.sh [--quick] [--sections offline,core,job,agent] [--reps N] [--no-write]
# Needs Java 17, Maven, tcptrace, tshark (capinfos), GNU time, python3. Inputs go to
# $FLOWTRACE_BENCH_DIR (default /tmp/flowtrace-bench) and are reused by the next run.
set -euo pipefail
exec python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/harness.py" "$@"
