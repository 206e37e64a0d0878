package io.flowtrace.jobs.config;

import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.report.FlowRowPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The job's configuration: the {@link JobOption}s plus pass-through Kafka client properties
 * ({@code kafka.*}). Immutable and serializable, so operators may hold it.
 */
public final class JobConfig implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final String KAFKA_PREFIX = "kafka.";
    /**
     * Options whose values are secrets, by name: any key containing one of these words (sasl.jaas.config,
     * ssl.key.password, ssl.keystore.key, ...private.key.passphrase, tokens). Erring on the side of
     * masking: a harmless value whose name happens to contain "key" is masked too.
     */
    private static final Pattern SECRET_KEY =
            Pattern.compile("(?i)(password|passphrase|secret|token|key|jaas|credential)");
    /** Names that say where a secret is kept (a file, a variable, a store's path), not the secret: shown. */
    private static final Pattern SECRET_REFERENCE = Pattern.compile("(?i)([-.]file|-env|\\.location)$");
    /** A password inside a URL: {@code ?password=...} / {@code &password=...} / {@code ;password=...} and {@code user:pass@}. */
    private static final Pattern URL_PASSWORD_PARAMETER =
            Pattern.compile("(?i)([?&;](?:[a-z]*password|pwd|passphrase)=)[^&;]*");

    private static final Pattern URL_USER_INFO = Pattern.compile("(//[^/@:\\s]*:)[^/@\\s]*@");
    static final String MASK = "******";
    static final String CONFIG_FILE = "config";
    static final String HELP = "help";

    private final Map<String, String> values;

    private JobConfig(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** Defaults, overridden by the {@code --config} file, overridden by the command line. */
    public static JobConfig fromArgs(String... args) {
        Map<String, String> cli = parseArgs(args);
        Map<String, String> merged = new HashMap<>();
        String file = cli.get(CONFIG_FILE);
        if (file != null) {
            merged.putAll(readProperties(Path.of(file)));
        }
        merged.putAll(cli);
        merged.remove(CONFIG_FILE);
        return of(merged);
    }

    /** From explicit values (tests); unknown keys other than {@code kafka.*} are refused. */
    public static JobConfig of(Map<String, String> overrides) {
        Map<String, String> all = new HashMap<>();
        for (JobOption o : JobOption.values()) {
            all.put(o.key(), o.defaultValue());
        }
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            if (!all.containsKey(e.getKey())
                    && !e.getKey().startsWith(KAFKA_PREFIX)
                    && !e.getKey().equals(HELP)) {
                throw new IllegalArgumentException("unknown option --" + e.getKey() + " (see --help)");
            }
            all.put(e.getKey(), e.getValue());
        }
        return new JobConfig(all);
    }

    public static boolean wantsHelp(String... args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    /** The {@code --help} text: every option and its default. */
    public static String usage() {
        StringBuilder out = new StringBuilder("flink run flowtrace-job.jar [--config FILE] [--option value ...]\n\n");
        out.append(String.format(
                Locale.ROOT,
                "  %-32s %s%n",
                "--config FILE",
                "properties file of option=value lines (command line wins)"));
        for (JobOption o : JobOption.values()) {
            out.append(String.format(
                    Locale.ROOT,
                    "  %-32s %s (default: %s)%n",
                    "--" + o.key() + " VALUE",
                    o.description(),
                    o.defaultValue().isEmpty() ? "unset" : o.defaultValue()));
        }
        out.append(String.format(
                Locale.ROOT,
                "  %-32s %s%n",
                "--kafka.<property> VALUE",
                "any Kafka client property for sources and sinks, e.g. --kafka.security.protocol SASL_SSL"));
        return out.toString();
    }

    public String get(JobOption option) {
        return values.get(option.key());
    }

    public long getLong(JobOption option) {
        try {
            return Long.parseLong(get(option).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + option.key() + " must be a number, got '" + get(option) + "'", e);
        }
    }

    public int getInt(JobOption option) {
        return Math.toIntExact(getLong(option));
    }

    /** The option as an int from {@code min} to {@code max}, else one line naming the option. */
    public int getInt(JobOption option, int min, int max) {
        long v = getLong(option);
        if (v < min || v > max) {
            throw new IllegalArgumentException("--" + option.key() + " must be " + min + " to " + max + ", got " + v);
        }
        return (int) v;
    }

    public boolean getBoolean(JobOption option) {
        String v = get(option).trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException(
                    "--" + option.key() + " must be true or false, got '" + get(option) + "'");
        }
        return v.equals("true");
    }

    public Duration getMillis(JobOption option) {
        return Duration.ofMillis(getLong(option));
    }

    /** The {@code kafka.*} pass-through client properties, prefix removed. */
    public Properties kafkaProperties() {
        Properties props = new Properties();
        values.forEach((k, v) -> {
            if (k.startsWith(KAFKA_PREFIX)) {
                props.setProperty(k.substring(KAFKA_PREFIX.length()), v);
            }
        });
        return props;
    }

    /** Which flow versions get a flow_summary row (flow-rows, flow-rows-sample, notable-setup-ms). */
    public FlowRowPolicy flowRowPolicy() {
        double sample;
        try {
            sample = Double.parseDouble(get(JobOption.FLOW_ROWS_SAMPLE).strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--flow-rows-sample must be a fraction from 0 to 1, got '" + get(JobOption.FLOW_ROWS_SAMPLE) + "'",
                    e);
        }
        return new FlowRowPolicy(
                FlowRowPolicy.Rows.parse(get(JobOption.FLOW_ROWS)),
                sample,
                getLong(JobOption.NOTABLE_SETUP_MS) * 1000.0);
    }

    /** Core's analyser tunables with this job's flow timeouts and segment bound. */
    public AnalyzerConfig analyzerConfig() {
        AnalyzerConfig timeouts = AnalyzerConfig.DEFAULTS.withIdleTimeouts(
                getLong(JobOption.IDLE_TIMEOUT_S) * 1_000_000_000L,
                getLong(JobOption.HALF_OPEN_TIMEOUT_S) * 1_000_000_000L);
        // checked here too, so that the message names the option the user typed, not core's field
        int segments = getInt(JobOption.MAX_SEGMENTS_PER_DIRECTION, 1, AnalyzerConfig.MAX_SEGMENTS_PER_DIRECTION);
        return timeouts.withMaxSegmentsPerDirection(segments);
    }

    /** The PostgreSQL password: from the file if given, else from the environment variable, else none. */
    public String jdbcPassword() {
        String file = get(JobOption.JDBC_PASSWORD_FILE);
        if (!file.isEmpty()) {
            try {
                return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8).stream()
                        .findFirst()
                        .orElse("")
                        .strip();
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read --jdbc-password-file " + file, e);
            }
        }
        String env = get(JobOption.JDBC_PASSWORD_ENV);
        return env.isEmpty() ? null : System.getenv(env);
    }

    /**
     * The effective values, for the start-up log. The PostgreSQL password is never among them (only
     * the file or variable that holds it); options whose name says secret ({@link #SECRET_KEY}: SASL
     * JAAS configuration, key and store passwords, passphrases, inline keys, tokens) and passwords inside
     * URLs ({@code --jdbc-url ...?password=...}, {@code user:pass@}) are shown as {@value #MASK}.
     */
    public Map<String, String> describe() {
        Map<String, String> out = new TreeMap<>(values);
        out.replaceAll(JobConfig::masked);
        return out;
    }

    /** One option's value as the start-up log shows it. */
    static String masked(String key, String value) {
        if (SECRET_KEY.matcher(key).find() && !SECRET_REFERENCE.matcher(key).find()) {
            return MASK;
        }
        String v = URL_PASSWORD_PARAMETER.matcher(value).replaceAll("$1" + MASK);
        return URL_USER_INFO.matcher(v).replaceAll("$1" + MASK + "@");
    }

    private static Map<String, String> parseArgs(String[] args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || a.length() == 2) {
                throw new IllegalArgumentException("expected --option, got '" + a + "' (see --help)");
            }
            String key = a.substring(2);
            int eq = key.indexOf('=');
            if (eq > 0) {
                out.put(key.substring(0, eq), key.substring(eq + 1));
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                out.put(key, args[++i]);
            } else {
                out.put(key, "true"); // a bare flag, e.g. --bounded
            }
        }
        return out;
    }

    private static Map<String, String> readProperties(Path file) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --config " + file, e);
        }
        Map<String, String> out = new HashMap<>();
        p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k).strip()));
        return out;
    }
}
