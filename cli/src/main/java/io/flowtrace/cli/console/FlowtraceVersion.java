package io.flowtrace.cli.console;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * What {@code -V}/{@code --version} prints on every command: the version the build wrote into
 * {@code version.properties} (agent/pom.xml filters it from the project's version), so it cannot
 * drift from the POM the way a version string in an annotation did.
 */
public final class FlowtraceVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"flowtrace " + version()};
    }

    /** The project's version, or "unknown" when the build's resource is missing (an IDE's own build). */
    static String version() {
        try (InputStream in = FlowtraceVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
