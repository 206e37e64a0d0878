package io.flowtrace.jobs.deploy;

import io.flowtrace.agent.conntrack.ConntrackEventSink;
import io.flowtrace.agent.conntrack.CtnetlinkSource;
import io.flowtrace.core.conntrack.ConntrackMessage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The conntrack agent's netlink source on its own, for CapabilitiesITCase to start under setpriv:
 * opens it as {@code agent conntrack --source netlink --rcvbuf N} does, prints the effective receive
 * buffer, reads events until {@code seconds} pass or {@code wanted} arrived, prints their count.
 * Usage: CtnetlinkProbe RCVBUF SECONDS WANTED. Exit 2 when the socket cannot be set up.
 */
public final class CtnetlinkProbe {
    private CtnetlinkProbe() {}

    public static void main(String[] args) throws Exception {
        int rcvbuf = Integer.parseInt(args[0]);
        long deadline = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        long wanted = Long.parseLong(args[2]);
        AtomicLong events = new AtomicLong();
        try (CtnetlinkSource source = CtnetlinkSource.open(rcvbuf, CtnetlinkSource.GROUPS_NEW_UPDATE_DESTROY)) {
            System.out.println("rcvbuf " + source.effectiveRcvbuf());
            System.out.flush(); // the test starts the traffic when it reads this line
            ConntrackEventSink sink = new ConntrackEventSink() {
                @Override
                public void event(ConntrackMessage event) {
                    events.incrementAndGet();
                }
            };
            source.run(sink, () -> System.nanoTime() < deadline && events.get() < wanted);
        } catch (java.io.IOException e) {
            System.out.println("error " + e.getMessage());
            System.exit(2);
        }
        System.out.println("events " + events.get());
    }
}
