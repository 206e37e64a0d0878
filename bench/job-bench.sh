#!/usr/bin/env bash
# bench/job-bench.sh - the job benchmark (docs/BENCHMARKS.md "## Job"): builds bench and what it needs
# (no install), then runs io.flowtrace.bench.job.JobBench on bench's full classpath in one JVM with
# an in-process Kafka broker, an embedded PostgreSQL and a local Flink MiniCluster per run.
#
# Usage: bench/job-bench.sh [JobBench options, e.g. --packets 1000000 --runs 5 --rate 100000]
# Lines starting with JOBBENCH are the results; everything else is log.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -ntp -q -o -pl bench -am package -DskipTests \
  dependency:build-classpath -Dmdep.outputFile=target/job-bench.classpath >/dev/null
CP="bench/target/classes:$(cat bench/target/job-bench.classpath)"
exec java -Xmx3g -XX:+UseParallelGC -Dlog4j2.level=WARN -cp "$CP" io.flowtrace.bench.job.JobBench "$@"
