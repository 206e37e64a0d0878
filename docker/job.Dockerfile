# The flowtrace job image: the official Flink image of the version the job is built against
# (pom.xml flink.version 2.2.1, Java 17) with the shaded job jar in /opt/flink/usrlib, where
# application mode (compose: standalone-job; Kubernetes operator: local:///opt/flink/usrlib/...) finds it.
# Build from the repository root: docker build -f docker/job.Dockerfile -t flowtrace/job:0.1.0 .
FROM maven:3.9.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . /src
RUN mvn -B -ntp -q -DskipTests -pl jobs -am package

FROM flink:2.2.1-scala_2.12-java17
# The Flink image ends with USER flink, and flink may not create /flink-data: root creates the
# directories, then the image goes back to flink (uid 9999, the FlinkDeployment's runAsUser).
# /flink-data: checkpoints and savepoints when a volume is mounted there (docker/compose.yaml).
USER root
RUN mkdir -p /opt/flink/usrlib /flink-data && chown flink:flink /opt/flink/usrlib /flink-data
USER flink
COPY --from=build --chown=flink:flink /src/jobs/target/flowtrace-job.jar /opt/flink/usrlib/flowtrace-job.jar
