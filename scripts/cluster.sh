#!/usr/bin/env bash
# A real multi-process pipeline on this machine (docs/operations.md, "Run the pipeline on a real
# cluster locally"): a Kafka KRaft broker, PostgreSQL and a Flink 2.2 standalone session cluster
# (JobManager + TaskManagers, each its own JVM, from Flink's jars on Maven Central), all on 127.0.0.1.
#   scripts/cluster.sh up [--ha] [TASKMANAGERS] [SLOTS]   start (default 2 TaskManagers, 1 slot each);
#                                   --ha: a ZooKeeper server too, Flink with ZooKeeper high availability,
#                                   and a JobManager that dies is replaced (it recovers the running jobs)
#   scripts/cluster.sh status       addresses, PIDs, registered TaskManagers
#   scripts/cluster.sh flink ARGS...  Flink's CLI against it (run -d, list, stop --drain ...)
#   scripts/cluster.sh down         stop every process it started, by PID
# State and logs: ${FLOWTRACE_CLUSTER_HOME:-target/cluster} under the repository. Maven runs only when
# a jar is missing or a source is newer; FLOWTRACE_CLUSTER_NO_BUILD=1 never runs it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="${FLOWTRACE_CLUSTER_HOME:-$here/target/cluster}"
env_file="$home/cluster.env"

# What `up` runs: the job jar, Flink's lib/ and the harness (testkit's jar and the class path its build
# wrote). Maven runs only when one of them is missing or a source is newer (first run, after a change);
# FLOWTRACE_CLUSTER_NO_BUILD=1 never runs it (the jars must be there).
built() {
    local stamp="$here/testkit/target/cluster.classpath"
    [[ -f "$here/jobs/target/flowtrace-job.jar" && -d "$here/cluster/target/flink-lib" && -f "$stamp" ]] \
        && ls "$here"/testkit/target/flowtrace-testkit-*.jar >/dev/null 2>&1 || return 1
    [[ -n "${FLOWTRACE_CLUSTER_NO_BUILD:-}" ]] && return 0
    local newer
    newer="$(find "$here"/{core,schemas,jobs,testkit,cluster}/src "$here"/pom.xml "$here"/{core,schemas,jobs,testkit,cluster}/pom.xml \
        -type f \( -newer "$stamp" -o -newer "$here/jobs/target/flowtrace-job.jar" \) -print -quit 2>/dev/null || true)"
    [[ -z "$newer" ]]
}

build() {
    if built; then
        return 0
    fi
    if [[ -n "${FLOWTRACE_CLUSTER_NO_BUILD:-}" ]]; then
        echo "cluster: FLOWTRACE_CLUSTER_NO_BUILD is set but the jars are not built (mvn -DskipTests -pl cluster,jobs,testkit -am package)" >&2
        exit 1
    fi
    command -v mvn >/dev/null || { echo "cluster: the jars are not built and Maven (mvn) is not installed" >&2; exit 1; }
    echo "cluster: building the job jar, Flink's lib/ and the harness (mvn package -DskipTests)..." >&2
    (cd "$here" && mvn -q -B -ntp -DskipTests -pl cluster,jobs,testkit -am package) >"$home/build.log" 2>&1 \
        || { echo "cluster: build failed; see $home/build.log" >&2; exit 1; }
    # a jar whose bytes did not change keeps its time: without this every later run would build again
    touch -- "$here/jobs/target/flowtrace-job.jar" "$here/testkit/target/cluster.classpath"
}

load_env() {
    [[ -f "$env_file" ]] || { echo "cluster: not running (no $env_file)" >&2; exit 1; }
    # shellcheck disable=SC1090
    source "$env_file"
}

alive() { kill -0 "$1" 2>/dev/null; }

case "${1:-}" in
up)
    if [[ -f "$env_file" ]] && (source "$env_file"; alive "$SUPERVISOR_PID"); then
        echo "cluster: already up ($env_file)" >&2
        exit 0
    fi
    shift
    ha=""
    if [[ "${1:-}" == "--ha" ]]; then
        ha="ha"
        shift
    fi
    mkdir -p "$home"
    rm -f "$env_file"
    build
    testkit_jar="$(ls "$here"/testkit/target/flowtrace-testkit-*.jar | sed -n 1p)"
    nohup java -Xmx256m -Dflowtrace.flinkLib="$here/cluster/target/flink-lib" \
        -Dflowtrace.jobJar="$here/jobs/target/flowtrace-job.jar" \
        -cp "$testkit_jar:$(cat "$here/testkit/target/cluster.classpath")" io.flowtrace.testkit.cluster.LocalCluster \
        "$home" "${1:-2}" "${2:-1}" $ha >"$home/supervisor.log" 2>&1 &
    echo $! >"$home/supervisor.pid"
    for _ in $(seq 1 300); do
        [[ -f "$env_file" ]] && break
        alive "$(cat "$home/supervisor.pid")" || { echo "cluster: start failed; see $home/supervisor.log" >&2; exit 1; }
        sleep 1
    done
    [[ -f "$env_file" ]] || { echo "cluster: not up after 300 s; see $home/supervisor.log" >&2; exit 1; }
    cat "$env_file"
    ;;
status)
    load_env
    for p in SUPERVISOR_PID KAFKA_PID ZOOKEEPER_PID JOBMANAGER_PID; do
        [[ -n "${!p:-}" ]] || continue   # ZOOKEEPER_PID only with --ha
        if alive "${!p}"; then echo "$p=${!p} alive"; else echo "$p=${!p} DEAD"; fi
    done
    for p in $TASKMANAGER_PIDS; do
        if alive "$p"; then echo "TASKMANAGER $p alive"; else echo "TASKMANAGER $p DEAD"; fi
    done
    echo "Kafka $KAFKA_BOOTSTRAP, PostgreSQL $JDBC_URL (user $JDBC_USER), Flink $FLINK_REST"
    # SASL_SSL with SCRAM-SHA-512 only: the client properties (password included) are in 0600 files
    echo "Kafka takes SASL_SSL/SCRAM-SHA-512 only (user flowtrace, broker certificate $KAFKA_CERT):"
    echo "  agent: ./flowtrace agent packets --kafka-config $KAFKA_CLIENT_CONFIG --agent-id ID ... CAPTURE"
    echo "  job:   ./flowtrace cluster flink run -d jobs/target/flowtrace-job.jar --config $KAFKA_JOB_CONFIG ..."
    if [[ -n "${ZOOKEEPER_QUORUM:-}" ]]; then
        # SASL sessions only: Flink's processes log in with this JAAS file (0600), in FLINK_JAVA_OPTS
        echo "ZooKeeper $ZOOKEEPER_QUORUM (SASL login required; JAAS Client section in $ZOOKEEPER_JAAS)"
    fi
    # REST wants the run's client certificate; its password goes to curl on stdin, never on a command line
    pw="$(sed -n 's/^security\.ssl\.rest\.keystore-password: //p' "$FLINK_CONF_DIR/config.yaml")"
    printf 'cert-type = "P12"\ncert = "%s:%s"\ncacert = "%s"\n' "$FLINK_TLS_KEYSTORE" "$pw" "$FLINK_TLS_CERT" \
        | curl -fsS -K - "$FLINK_REST/overview" && echo
    ;;
flink)
    load_env
    shift
    # What a distribution's bin/flink runs: CliFrontend on lib/, FLINK_CONF_DIR, the Java 17 options.
    # shellcheck disable=SC2086
    FLINK_CONF_DIR="$FLINK_CONF_DIR" exec java $FLINK_JAVA_OPTS -cp "$FLINK_LIB/*" org.apache.flink.client.cli.CliFrontend "$@"
    ;;
down)
    [[ -f "$home/supervisor.pid" ]] || { echo "cluster: not running" >&2; exit 0; }
    pid="$(cat "$home/supervisor.pid")"
    if alive "$pid"; then
        kill -TERM "$pid"
        for _ in $(seq 1 90); do alive "$pid" || break; sleep 1; done
        alive "$pid" && { echo "cluster: supervisor $pid still alive after 90 s" >&2; exit 1; }
    fi
    rm -f "$home/supervisor.pid" "$env_file"
    echo "cluster: stopped"
    ;;
*)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
