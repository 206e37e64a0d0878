package io.flowtrace.testkit.cluster;

import java.util.List;

/** The JVM options every process of a Flink cluster needs, as a distribution's config.yaml and docs give them. */
public final class FlinkJvmOptions {
    private FlinkJvmOptions() {}

    /** env.java.opts.all of Flink 2.x's config.yaml: "These parameters are required for Java 17 support." */
    public static final List<String> JAVA_17 = List.of(
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    /**
     * Avro allocates whatever length a record claims before reading it; these caps belong in every
     * TaskManager's env.java.opts (docs/reliability.md, "Hostile input").
     */
    public static final List<String> AVRO_LIMITS = List.of(
            "-Dorg.apache.avro.limits.bytes.maxLength=8388608",
            "-Dorg.apache.avro.limits.string.maxLength=8388608",
            "-Dorg.apache.avro.limits.collectionItems.maxLength=1048576");

    /**
     * Pekko's classic remoting waits 10 s for its transport to listen (Remoting.start); Flink's
     * {@code pekko.startup-timeout} sets {@code pekko.remote.startup-timeout}, a key classic remoting does
     * not read, so on a 2-core machine at load 30-50 the JobManager and TaskManagers of a TLS cluster
     * died with "Could not create actor system ... Futures timed out after [10000 milliseconds]". The
     * actor system's configuration falls back to com.typesafe.config.ConfigFactory.load, where a system property applies.
     */
    public static final List<String> PEKKO_STARTUP = List.of("-Dpekko.remote.classic.startup-timeout=60s");
}
