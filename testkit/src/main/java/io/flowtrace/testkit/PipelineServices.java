package io.flowtrace.testkit;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The three real services of a pipeline ITCase, for the test class: a Kafka broker
 * ({@link KafkaBroker}), a PostgreSQL server ({@link Postgres}) and a Flink MiniCluster of one
 * TaskManager (Flink's {@link MiniClusterExtension}, whose per-test environment and
 * {@code @InjectMiniCluster} parameters this passes on). Started in that order, stopped in reverse,
 * every one stopped even when another fails to.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);
 * static final KafkaBroker KAFKA = SERVICES.kafka();
 * static final Postgres POSTGRES = SERVICES.postgres();
 * }</pre>
 */
public final class PipelineServices
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback, ParameterResolver {
    private final KafkaBroker kafka = new KafkaBroker();
    private final Postgres postgres = new Postgres();
    private final MiniClusterExtension flink;

    private PipelineServices(int taskManagers, int slotsPerTaskManager) {
        this.flink = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(taskManagers)
                .setNumberSlotsPerTaskManager(slotsPerTaskManager)
                .build());
    }

    /** One TaskManager with {@code slots} slots (the job's parallelism). */
    public static PipelineServices withSlots(int slots) {
        return new PipelineServices(1, slots);
    }

    /** {@code taskManagers} TaskManagers of {@code slotsEach} slots (tests that fail a TaskManager). */
    public static PipelineServices withTaskManagers(int taskManagers, int slotsEach) {
        return new PipelineServices(taskManagers, slotsEach);
    }

    public KafkaBroker kafka() {
        return kafka;
    }

    public Postgres postgres() {
        return postgres;
    }

    public MiniClusterExtension flink() {
        return flink;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        kafka.beforeAll(context);
        postgres.beforeAll(context);
        flink.beforeAll(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        flink.beforeEach(context);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        flink.afterEach(context);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            flink.afterAll(context);
        } finally {
            try {
                postgres.afterAll(context);
            } finally {
                kafka.afterAll(context);
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return flink.supportsParameter(parameter, context);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context)
            throws ParameterResolutionException {
        return flink.resolveParameter(parameter, context);
    }
}
