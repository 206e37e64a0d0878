package io.flowtrace.testkit.cluster;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the Flink distribution's lib/ (cluster/target/flink-lib, built by the cluster module from
 * Maven Central) and the job jar (jobs/target/flowtrace-job.jar) are: system properties
 * {@code flowtrace.flinkLib} and {@code flowtrace.jobJar}, set by jobs/pom.xml for the ITCases and
 * by scripts/cluster.sh.
 */
public record FlinkDistribution(Path lib, Path jobJar) {

    public static FlinkDistribution fromSystemProperties() {
        Path lib = Path.of(required("flowtrace.flinkLib"));
        Path jar = Path.of(required("flowtrace.jobJar"));
        if (!Files.isDirectory(lib)) {
            throw new IllegalStateException(
                    lib + " is missing: build the cluster module first (mvn -pl cluster package)");
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar + " is missing: build the jobs module first (mvn -pl jobs -am package)");
        }
        return new FlinkDistribution(
                lib.toAbsolutePath().normalize(), jar.toAbsolutePath().normalize());
    }

    /** lib/* as a classpath, as Flink's bin/ scripts build it. */
    public String classpath() {
        return lib + File.separator + "*";
    }

    private static String required(String property) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("system property " + property + " is not set");
        }
        return v;
    }
}
