#!/usr/bin/env bash
# bench/sink-paths.sh - the sinks' PostgreSQL write paths on the same rows (docs/BENCHMARKS.md
# "### Sink write paths"): builds bench and what it needs (no install), then runs
# io.flowtrace.bench.job.SinkPaths on bench's full classpath against testkit's embedded PostgreSQL.
#
# Usage: bench/sink-paths.sh [--rows 20000] [--batch 500] [--runs 3]
# Lines starting with SINKPATHS are the results; everything else is log.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -ntp -q -o -pl bench -am package -DskipTests \
  dependency:build-classpath -Dmdep.outputFile=target/job-bench.classpath >/dev/null
CP="bench/target/classes:$(cat bench/target/job-bench.classpath)"
exec java -Xmx1g -Dlog4j2.level=WARN -cp "$CP" io.flowtrace.bench.job.SinkPaths "$@"
