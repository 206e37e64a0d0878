package io.flowtrace.jobs.flow;

import io.flowtrace.core.net.VantagePoint;
import java.util.HashMap;
import java.util.Map;

/**
 * The live flows of each vantage point on one subtask of the flow function, bounded by
 * {@code --max-flows-per-vantage}: one vantage (or whoever writes records under its name) cannot fill
 * the state with flows. {@link #admit} counts a flow whose state is created, {@link #ended} one whose
 * state is cleared; a new flow over the bound is not admitted (the function sends its record to the
 * dead letters). No Flink here.
 *
 * <p>The counts live in memory, not in state: after a restore from a checkpoint they start at zero,
 * and the restored flows that end do not take a count below zero. So after a restore a vantage may
 * briefly hold up to twice the bound, never less than it (docs/reliability.md, "Security").
 */
final class VantageFlowLimit {
    private final int maxFlowsPerVantage;
    private final Map<VantagePoint, int[]> live = new HashMap<>();

    VantageFlowLimit(int maxFlowsPerVantage) {
        if (maxFlowsPerVantage < 1) {
            throw new IllegalArgumentException("max flows per vantage must be at least 1, got " + maxFlowsPerVantage);
        }
        this.maxFlowsPerVantage = maxFlowsPerVantage;
    }

    int max() {
        return maxFlowsPerVantage;
    }

    /** Counts a new flow of {@code vantage} and returns true, or returns false when the vantage holds the most already. */
    boolean admit(VantagePoint vantage) {
        int[] n = live.computeIfAbsent(vantage, v -> new int[1]);
        if (n[0] >= maxFlowsPerVantage) {
            return false;
        }
        n[0]++;
        return true;
    }

    /** A flow of {@code vantage} ended (its state cleared). */
    void ended(VantagePoint vantage) {
        int[] n = live.get(vantage);
        if (n == null) {
            return; // a flow restored from a checkpoint, never counted here
        }
        if (--n[0] <= 0) {
            live.remove(vantage);
        }
    }

    /** Live flows of {@code vantage} counted on this subtask. */
    int live(VantagePoint vantage) {
        int[] n = live.get(vantage);
        return n == null ? 0 : n[0];
    }
}
