# The capture agents (flowtrace agent packets | conntrack) with tcpdump (live capture: --iface) and
# conntrack-tools (the conntrack -E source). Live capture needs the host's network namespace and, as
# root (this image's user), CAP_NET_RAW plus CAP_SETUID and CAP_SETGID for tcpdump (it switches to user
# tcpdump after opening the capture), CAP_NET_ADMIN for the ctnetlink event groups: one set per
# container in deploy/k8s/50-agent-daemonset.yaml.
# Build from the repository root: docker build -f docker/agent.Dockerfile -t flowtrace/agent:0.1.0 .
FROM maven:3.9.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . /src
# The agents run as commands of the one command line (module cli: docs/architecture.md says why).
RUN mvn -B -ntp -q -DskipTests -pl cli -am package \
    && mkdir -p /out \
    && cp "$(ls cli/target/flowtrace-cli-*.jar | grep -v -- '-tests' | head -n 1)" /out/flowtrace-cli.jar \
    && cp -r cli/target/lib /out/lib

FROM eclipse-temurin:17.0.20.1_1-jre-jammy
RUN apt-get update \
    && apt-get install -y --no-install-recommends tcpdump conntrack \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/flowtrace/spool \
    && chown 10001:10001 /var/lib/flowtrace/spool
COPY --from=build /out/ /opt/flowtrace/
# Give --spool-dir a directory under /var/lib/flowtrace and make that a volume (compose) or a
# hostPath (DaemonSet), so a restarted agent replays what it spooled. The directory belongs to uid 10001,
# the user compose's replaying agents run as (a new named volume copies the owner); the DaemonSet's
# agents run as root (capabilities) on a hostPath.
ENTRYPOINT ["java", "-XX:+UseParallelGC", "-cp", "/opt/flowtrace/flowtrace-cli.jar:/opt/flowtrace/lib/*", "io.flowtrace.cli.FlowtraceCli"]
CMD ["--help"]
