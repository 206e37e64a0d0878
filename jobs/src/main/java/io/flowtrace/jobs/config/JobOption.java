package io.flowtrace.jobs.config;

/**
 * Every option of the job, with its default: {@code --help} prints this list, docs/job.md
 * documents it. Given as {@code --name value} on the command line or {@code name=value} in the
 * {@code --config} properties file (the command line wins). Client properties for Kafka
 * (security, SASL, TLS...) pass through as {@code kafka.<client property>}.
 */
public enum JobOption {
    BOOTSTRAP_SERVERS("bootstrap-servers", "localhost:9092", "Kafka bootstrap servers"),
    PACKETS_TOPIC("packets-topic", "flowtrace.packets", "input topic of PacketEvent records"),
    CONNTRACK_TOPIC(
            "conntrack-topic",
            "flowtrace.conntrack",
            "input topic of ConntrackEvent and ConntrackLoss records (told apart by schema fingerprint)"),
    CONNTRACK_INPUT("conntrack-input", "true", "consume the conntrack topic and write conntrack budgets"),
    FLOWS_TOPIC("flows-topic", "flowtrace.flows", "output topic of FlowRecord"),
    TCP_EVENTS_TOPIC("tcp-events-topic", "flowtrace.tcp-events", "output topic of TcpEvent"),
    SERVICE_WINDOWS_TOPIC("service-windows-topic", "flowtrace.service-windows", "output topic of ServiceWindow"),
    VANTAGE_WINDOWS_TOPIC("vantage-windows-topic", "flowtrace.vantage-windows", "output topic of VantageWindow"),
    CONNTRACK_BUDGETS_TOPIC(
            "conntrack-budgets-topic", "flowtrace.conntrack-budgets", "output topic of ConntrackBudget"),
    DEAD_LETTERS_TOPIC("dead-letters-topic", "flowtrace.dead-letters", "output topic of DeadLetter"),
    OPENVPN_SESSIONS_TOPIC(
            "openvpn-sessions-topic", "flowtrace.openvpn-sessions", "output topic of OpenVpnSessionRecord"),
    OPENVPN_SERVER_WINDOWS_TOPIC(
            "openvpn-server-windows-topic", "flowtrace.openvpn-server-windows", "output topic of OpenVpnServerWindow"),
    OPENVPN_KAFKA_OUTPUT(
            "openvpn-kafka-output",
            "false",
            "with kafka-output, also write OpenVPN sessions and server windows to their topics (create them first)"),
    GROUP_ID("group-id", "flowtrace-job", "Kafka consumer group id (offsets are committed on checkpoints)"),
    START_OFFSETS(
            "start-offsets",
            "committed",
            "where to start without a checkpoint: committed (falls back to earliest), earliest, latest, or timestamp:<epoch ms>"),
    BOUNDED("bounded", "false", "stop at the offsets that are latest at start (replays, tests)"),
    KAFKA_OUTPUT("kafka-output", "true", "write the output records to the Kafka output topics"),
    TRANSACTIONAL_ID_PREFIX(
            "transactional-id-prefix",
            "flowtrace",
            "prefix of the exactly-once KafkaSink transactional ids (unique per job on a cluster)"),
    TRANSACTION_TIMEOUT_MS(
            "transaction-timeout-ms",
            "900000",
            "Kafka transaction timeout; must not exceed the broker's transaction.max.timeout.ms (default 15 min)"),
    POSTGRES_OUTPUT("postgres-output", "true", "write the output records to PostgreSQL"),
    JDBC_URL("jdbc-url", "jdbc:postgresql://localhost:5432/flowtrace", "PostgreSQL JDBC URL"),
    JDBC_USER("jdbc-user", "flowtrace", "PostgreSQL user"),
    JDBC_PASSWORD_ENV(
            "jdbc-password-env",
            "FLOWTRACE_JDBC_PASSWORD",
            "environment variable holding the PostgreSQL password (unset: no password)"),
    JDBC_PASSWORD_FILE(
            "jdbc-password-file", "", "file holding the PostgreSQL password (first line); wins over jdbc-password-env"),
    JDBC_INIT_SCHEMA(
            "jdbc-init-schema",
            "true",
            "apply every migration of deploy/sql/migrations.list (idempotent) when the job starts"),
    JDBC_BATCH_SIZE("jdbc-batch-size", "500", "rows per JDBC batch"),
    JDBC_BATCH_INTERVAL_MS("jdbc-batch-interval-ms", "1000", "longest wait before a partial JDBC batch is written"),
    JDBC_OWN_THREAD(
            "jdbc-own-thread",
            "true",
            "run each PostgreSQL sink as a task of its own (not chained to the operator before it), so its executeBatch does not stop the flow analysis; false: chained, in the analysis thread"),
    JDBC_MAX_RETRIES(
            "jdbc-max-retries",
            "3",
            "immediate retries of a failed JDBC batch inside the JDBC connector (a statement error); an outage is ridden out by jdbc-outage-tolerance-ms"),
    JDBC_OUTAGE_TOLERANCE_MS(
            "jdbc-outage-tolerance-ms",
            "60000",
            "how long a PostgreSQL sink keeps retrying while the database is unreachable (backoff jdbc-retry-initial-ms doubling to jdbc-retry-max-ms, each attempt logged) before it fails the job, which the restart strategy restarts"),
    JDBC_RETRY_INITIAL_MS(
            "jdbc-retry-initial-ms", "500", "first wait before a PostgreSQL sink retries during an outage"),
    JDBC_RETRY_MAX_MS(
            "jdbc-retry-max-ms", "10000", "longest wait between a PostgreSQL sink's retries during an outage"),
    CHECKPOINT_INTERVAL_MS(
            "checkpoint-interval-ms",
            "30000",
            "checkpoint interval; Kafka output becomes visible to read_committed consumers at each checkpoint"),
    CHECKPOINT_DIR("checkpoint-dir", "", "checkpoint storage URI (empty: the cluster's execution.checkpointing.dir)"),
    STATE_BACKEND("state-backend", "", "hashmap or rocksdb (empty: the cluster's state.backend.type)"),
    RESTART_STRATEGY(
            "restart-strategy",
            "exponential-delay",
            "exponential-delay (waits restart-delay-ms, doubling up to restart-max-delay-ms; the count starts over after an hour without failure) or fixed-delay (restart-delay-ms every time)"),
    RESTART_ATTEMPTS(
            "restart-attempts",
            "30",
            "restarts before the job fails for good (exponential-delay: since the last reset; 0: never restart)"),
    RESTART_DELAY_MS("restart-delay-ms", "1000", "delay before a restart (exponential-delay: the first one)"),
    RESTART_MAX_DELAY_MS("restart-max-delay-ms", "60000", "exponential-delay: longest delay between restarts"),
    PARALLELISM("parallelism", "0", "job parallelism (0: the cluster default)"),
    PLAN_ONLY(
            "plan-only",
            "false",
            "build the job graph and print its vertices, then exit without running it or connecting to Kafka or PostgreSQL (checks that the jar and the options are complete)"),
    IDLE_TIMEOUT_S(
            "idle-timeout-s", "300", "an established flow without packets for this long ends as idle (event time)"),
    HALF_OPEN_TIMEOUT_S("half-open-timeout-s", "30", "a flow that never completed its handshake ends this much sooner"),
    UPDATE_INTERVAL_S("update-interval-s", "10", "event-time interval of the upserts of a live flow"),
    FLOW_ROWS(
            "flow-rows",
            "all",
            "which flows get PostgreSQL flow_summary rows: all, notable (retransmissions, RTO, premature slow-start exit, SYN retries, reset, setup above notable-setup-ms) or none; every flow stays on the Kafka flows topic and in the windows"),
    FLOW_ROWS_SAMPLE(
            "flow-rows-sample",
            "0",
            "with flow-rows notable or none, also write this fraction (0 to 1) of the flows, chosen by a hash of the flow key and instance (the same flows on every run)"),
    NOTABLE_SETUP_MS(
            "notable-setup-ms",
            "500",
            "flow-rows notable: a setup (first SYN to the handshake ACK) longer than this makes a flow notable"),
    OUT_OF_ORDERNESS_MS(
            "watermark-out-of-orderness-ms",
            "2000",
            "bounded out-of-orderness of capture times within a Kafka partition"),
    IDLENESS_MS(
            "watermark-idleness-ms",
            "60000",
            "a partition without records for this long stops holding back the watermark (a quiet agent)"),
    MAX_FUTURE_MS(
            "watermark-max-future-ms",
            "300000",
            "a capture time further than this ahead of the job's clock never moves a watermark (agents' clock skew; a forged record)"),
    DEAD_LETTER_MAX_RAW_BYTES(
            "dead-letter-max-raw-bytes",
            "65536",
            "a dead letter keeps at most this many bytes of the raw record (its reason then gives the original length)"),
    DEAD_LETTERS_PER_SECOND(
            "dead-letters-per-second",
            "100",
            "dead letters each job subtask writes a second (a burst of ten seconds' worth first); more are dropped and counted (deadLettersDropped)"),
    MAX_SEGMENTS_PER_DIRECTION(
            "max-segments-per-direction",
            "8192",
            "unacknowledged segments a flow keeps per direction (1-32768; analyze keeps 32768): with more the oldest is dropped and counted (the report's state overflows); bounds a flow's state"),
    MAX_FLOWS_PER_VANTAGE(
            "max-flows-per-vantage",
            "1000000",
            "live flows of one vantage point on one subtask of the flow function; the record of a new flow over it is a VALIDATE dead letter, counted (flowsOverVantageLimit)"),
    RESERVOIR_SIZE("reservoir-size", "1024", "flows sampled per window for percentiles (exact below this count)"),
    CONNTRACK_RECEIVE_BUFFER_BYTES(
            "conntrack-receive-buffer-bytes",
            "2097152",
            "SO_RCVBUF the conntrack listener requests (conntrackd default 2 MiB; the kernel doubles it): ENOBUFS risk is computed for it"),
    CONNTRACK_DRAIN_LATENCY_MS(
            "conntrack-drain-latency-ms",
            "100",
            "longest time the conntrack listener goes without reading: buffer needed = largest truesize sum in such an interval"),
    CONNTRACK_SHORT_WINDOW_MS(
            "conntrack-short-window-ms",
            "0",
            "an extra conntrack budget window shorter than 1 s (1-999 ms, e.g. 100) for bursts shorter than a second; 0 = none"),
    CONNTRACK_WINDOW_MAX_SAMPLES(
            "conntrack-window-max-samples",
            "1000000",
            "conntrack samples kept per vantage and minute for the budget windows; more are dropped and counted (bounded state)"),
    CONNTRACK_JOIN(
            "conntrack-join",
            "true",
            "join conntrack entries with flow instances by tuple (table flow_conntrack); needs conntrack-input"),
    CONNTRACK_JOIN_WAIT_MS(
            "conntrack-join-wait-ms",
            "180000",
            "event time a final flow waits for its conntrack DESTROY, and a destroyed entry for its flows (TCP TIME_WAIT is 120 s)"),
    CONNTRACK_JOIN_IDLE_MS(
            "conntrack-join-idle-ms",
            "3600000",
            "event time a live flow or conntrack entry without news stays in the join's state"),
    CONNTRACK_JOIN_SLACK_MS(
            "conntrack-join-slack-ms",
            "2000",
            "tolerance between conntrack start/stop and the flow's capture times when matching instances"),
    CONNTRACK_JOIN_MAX_PER_KEY(
            "conntrack-join-max-per-key",
            "16",
            "most flow instances and most conntrack entries the join keeps per tuple (port reuse); the oldest go first"),
    CONNTRACK_KERNEL_FEATURES(
            "conntrack-kernel-features",
            "stock",
            "kernel features for the estimate and truesize: stock[,acct=..,timestamp=..,labels=..,secctx=<len>,nat=..,mark=..,zones=..,event-timestamp=..]");

    private final String key;
    private final String defaultValue;
    private final String description;

    JobOption(String key, String defaultValue, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    public String key() {
        return key;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }
}
