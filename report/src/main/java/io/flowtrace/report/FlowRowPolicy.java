package io.flowtrace.report;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Which versions of a flow the job writes to PostgreSQL's {@code flow_summary} (docs/job.md, "Flow
 * rows in PostgreSQL"): every flow, the notable ones, or none, plus a deterministic sample. Every
 * flow stays on the Kafka flows topic and in the windows whatever the policy; this decides only the
 * row (and the {@code report} JSON built for it).
 *
 * <p>A flow is notable when it has a retransmission, an RTO retransmission, a premature slow-start
 * exit, a SYN or SYN-ACK retry, ended with a reset, or took longer than {@code notableSetupUs} to set
 * up. A per-service p99 of the setup time is not known when a flow ends (the service window that
 * would give it closes later), so the setup rule is a fixed threshold. The signals are the
 * catalogue's fields ({@link FlowFields}), so "notable" means what the columns and the report say.
 *
 * <p>The sample: a flow instance is sampled when the CRC-32C (RFC 3720) of its canonical key and
 * instance, as an unsigned 32-bit number, is below {@code sample × 2^32}; the same flows on every run,
 * restart and machine. Under {@link Rows#NOTABLE} and {@link Rows#NONE} the sampled flows are written
 * too.
 *
 * @param rows which flows are written
 * @param sample fraction of the flow instances written in addition, 0 to 1
 * @param notableSetupUs setup time (µs) above which a flow is notable
 */
public record FlowRowPolicy(Rows rows, double sample, double notableSetupUs) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Every flow's rows: what the job wrote before the policy existed. */
    public static final FlowRowPolicy ALL = new FlowRowPolicy(Rows.ALL, 0, 0);

    public enum Rows {
        ALL,
        NOTABLE,
        NONE;

        /** The option's value: {@code all}, {@code notable} or {@code none}. */
        public static Rows parse(String text) {
            for (Rows r : values()) {
                if (r.name().toLowerCase(Locale.ROOT).equals(text.strip())) {
                    return r;
                }
            }
            throw new IllegalArgumentException("--flow-rows must be all, notable or none, got '" + text + "'");
        }
    }

    public FlowRowPolicy {
        if (rows == null) {
            throw new IllegalArgumentException("flow rows policy missing");
        }
        if (!(sample >= 0 && sample <= 1)) {
            throw new IllegalArgumentException("--flow-rows-sample must be a fraction from 0 to 1, got " + sample);
        }
        if (!(notableSetupUs >= 0)) {
            throw new IllegalArgumentException("--notable-setup-ms must not be negative, got " + notableSetupUs / 1000);
        }
    }

    /** Whether this version of the flow instance is written (its row and report JSON built). */
    public boolean writes(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        return switch (rows) {
            case ALL -> true;
            case NOTABLE -> Signals.of(flow).notable(notableSetupUs) || sampled(key, instance, sample);
            case NONE -> sampled(key, instance, sample);
        };
    }

    /** Whether the instance is in the sample of {@code fraction} of all instances (class comment). */
    public static boolean sampled(FlowKey key, long instance, double fraction) {
        if (fraction <= 0) {
            return false;
        }
        if (fraction >= 1) {
            return true;
        }
        CRC32C crc = new CRC32C();
        crc.update((key.canonical() + " " + instance).getBytes(StandardCharsets.UTF_8));
        return crc.getValue() < (long) (fraction * 0x1_0000_0000L);
    }

    /**
     * What makes a flow notable, read from the analyser through the catalogue's fields.
     *
     * @param retransmittedPackets both directions' retransmitted_packets
     * @param rtoRetransmits both directions' retransmits.rto
     * @param prematureSlowStartExit either direction's slow_start.premature
     * @param synRetries setup.syn_retransmits + setup.synack_retransmits
     * @param reset the flow ended with a RST ({@code end} = rst)
     * @param setupUs setup.setup_us, NaN without a completed handshake
     */
    public record Signals(
            long retransmittedPackets,
            long rtoRetransmits,
            boolean prematureSlowStartExit,
            long synRetries,
            boolean reset,
            double setupUs) {

        public static Signals of(TcpFlowAnalyzer flow) {
            FlowSubject s = new FlowSubject(null, 0, flow);
            long retransmitted = 0;
            long rto = 0;
            boolean premature = false;
            for (FlowField.Side side : FlowField.Side.values()) {
                s.side(side);
                retransmitted += integer(FlowFields.RETRANSMITTED_PACKETS, s);
                rto += integer(FlowFields.RETRANSMITS.get(0), s);
                premature |= ((FlowField.BoolValue) FlowFields.PREMATURE.value())
                        .of()
                        .test(s);
            }
            long syn = integer(FlowFields.SYN_RETRANSMITS, s) + integer(FlowFields.SYNACK_RETRANSMITS, s);
            boolean reset = "rst"
                    .equals(((FlowField.TextValue) FlowFields.END.value()).of().apply(s));
            double setup =
                    ((FlowField.DecimalValue) FlowFields.SETUP_US.value()).of().applyAsDouble(s);
            return new Signals(retransmitted, rto, premature, syn, reset, setup);
        }

        /** Whether any signal holds; the setup rule only for a setup time above the threshold. */
        public boolean notable(double setupThresholdUs) {
            return retransmittedPackets > 0
                    || rtoRetransmits > 0
                    || prematureSlowStartExit
                    || synRetries > 0
                    || reset
                    || setupUs > setupThresholdUs; // false for NaN
        }

        private static long integer(FlowField field, FlowSubject s) {
            return ((FlowField.LongValue) field.value()).of().applyAsLong(s);
        }
    }
}
