package io.flowtrace.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real service that lives as long as one test class: registered with {@code @RegisterExtension}
 * on a static field, JUnit's beforeAll starts it and afterAll closes it. Outside JUnit (a demo, a
 * benchmark) call {@link #start()} and {@link #close()} yourself.
 */
public interface ClassScopedService extends BeforeAllCallback, AfterAllCallback {

    /** Starts the service; a second call while it runs does nothing. */
    void start() throws Exception;

    /** Stops the service and deletes what it wrote; a second call does nothing. */
    void close() throws Exception;

    @Override
    default void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    default void afterAll(ExtensionContext context) throws Exception {
        close();
    }
}
