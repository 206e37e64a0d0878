package io.flowtrace.jobs.conntrack;

import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.jobs.join.CtFacts;
import java.util.Objects;

/**
 * What the budget windows need of one record of the conntrack topic, sized once in the source
 * ({@code ConntrackEvents.size}): an event (kind NEW/UPDATE/DESTROY with its exact, estimated and
 * truesize bytes) or a loss report (kind {@link #LOSS}, {@link #enobufs}). A Flink POJO (public
 * fields, no-arg constructor): window state is serialized without Kryo and stays ~60 bytes per event.
 */
public final class ConntrackSample {
    public static final byte NEW = 0;
    public static final byte UPDATE = 1;
    public static final byte DESTROY = 2;
    public static final byte LOSS = 3;

    public String agentId;
    public String interfaceName;
    /** Core's event time (kernel event timestamp, else receive time), ns since the epoch. */
    public long timeNs;

    public byte kind;
    public int exactBytes;
    public int estimatedBytes;
    public int truesizeBytes;
    /** ENOBUFS count of a loss report; 0 for events. */
    public long enobufs;
    /** Read from a raw netlink socket, which sees ENOBUFS (a window of only text-source events observes none). */
    public boolean netlinkSource;
    /**
     * What the conntrack ↔ flow join needs of a TCP event (tuples, status, lifetime, counters); null
     * for loss reports and non-TCP events. Not part of equality; the budget windows drop it
     * before their state ({@link #withoutJoin}).
     */
    public CtFacts join;

    public ConntrackSample() {}

    public static ConntrackSample event(
            String agentId,
            String interfaceName,
            long timeNs,
            byte kind,
            int exactBytes,
            int estimatedBytes,
            int truesizeBytes,
            boolean netlinkSource) {
        ConntrackSample s = new ConntrackSample();
        s.agentId = agentId;
        s.interfaceName = interfaceName;
        s.timeNs = timeNs;
        s.kind = kind;
        s.exactBytes = exactBytes;
        s.estimatedBytes = estimatedBytes;
        s.truesizeBytes = truesizeBytes;
        s.netlinkSource = netlinkSource;
        return s;
    }

    public static ConntrackSample loss(String agentId, String interfaceName, long timeNs, long enobufs) {
        ConntrackSample s = event(agentId, interfaceName, timeNs, LOSS, 0, 0, 0, true);
        s.enobufs = enobufs;
        return s;
    }

    /** This sample without its join facts (what budget windows keep). */
    public ConntrackSample withoutJoin() {
        if (join == null) {
            return this;
        }
        ConntrackSample s =
                event(agentId, interfaceName, timeNs, kind, exactBytes, estimatedBytes, truesizeBytes, netlinkSource);
        s.enobufs = enobufs;
        return s;
    }

    /** The vantage string budgets are keyed and reported by: "agent/interface". */
    public String vantage() {
        return VantagePoint.text(agentId, interfaceName);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConntrackSample s
                && timeNs == s.timeNs
                && kind == s.kind
                && exactBytes == s.exactBytes
                && estimatedBytes == s.estimatedBytes
                && truesizeBytes == s.truesizeBytes
                && enobufs == s.enobufs
                && netlinkSource == s.netlinkSource
                && Objects.equals(agentId, s.agentId)
                && Objects.equals(interfaceName, s.interfaceName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(agentId, interfaceName, timeNs, kind, exactBytes);
    }

    @Override
    public String toString() {
        return vantage() + "@" + timeNs + " kind " + kind + " " + exactBytes + "/" + estimatedBytes + "/"
                + truesizeBytes + (kind == LOSS ? " enobufs " + enobufs : "");
    }
}
