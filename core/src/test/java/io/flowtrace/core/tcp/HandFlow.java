package io.flowtrace.core.tcp;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.testing.Conversation;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection written by hand for the rule tests (AckRulesTest, RetransmissionRulesTest): the
 * analyser under test, its events and a writer of its packets. Client segments are 100 bytes each,
 * segment k starting at relative sequence 1 + 100 k.
 */
final class HandFlow {
    static final long C = 1000;
    static final long S = 5000;

    final List<TcpFlowEvent> events = new ArrayList<>();
    final TcpFlowAnalyzer analyzer;
    final Conversation tcp;

    HandFlow(AnalyzerConfig config) {
        analyzer = new TcpFlowAnalyzer(
                new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
                new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
                false,
                config);
        tcp = new Conversation(p -> analyzer.onPacket(p, events::add));
    }

    HandFlow() {
        this(AnalyzerConfig.DEFAULTS);
    }

    /** SYN at 0, SYN-ACK at 9,999 µs, ACK at 10,000 µs (IPv4 ids 1, 2, 3): a handshake RTT of 10 ms. */
    HandFlow open() {
        tcp.handshake(0, 9_999, C, S);
        return this;
    }

    /** Client data segment k (100 bytes) at {@code micros} with IPv4 id {@code ipId} (-1: none, as IPv6). */
    void data(long micros, int k, int ipId) {
        tcp.client(micros).seq(C + 1 + 100L * k).ack(S + 1).len(100).ipId(ipId).send();
    }

    /** Client data segment k (100 bytes) at {@code micros}, without an IPv4 id. */
    void data(long micros, int k) {
        data(micros, k, -1);
    }

    /** A pure ACK from the server of the first {@code segments} client segments. */
    void ack(long micros, int segments) {
        tcp.server(micros).seq(S + 1).ack(C + 1 + 100L * segments).send();
    }

    /** As {@link #ack}, with one SACK block over client segments {@code from} to {@code to - 1}. */
    void sack(long micros, int segments, int from, int to) {
        tcp.server(micros)
                .seq(S + 1)
                .ack(C + 1 + 100L * segments)
                .sack(C + 1 + 100L * from, C + 1 + 100L * to)
                .send();
    }

    TcpDirectionStats c2s() {
        return analyzer.clientToServer();
    }

    TcpDirectionStats s2c() {
        return analyzer.serverToClient();
    }

    /** The data half's events: lost segments, reordering, retransmissions, RTO backoff. */
    List<TcpFlowEvent> dataEvents() {
        return events.stream()
                .filter(e -> e instanceof TcpFlowEvent.LostSegment
                        || e instanceof TcpFlowEvent.Reordering
                        || e instanceof TcpFlowEvent.Retransmission
                        || e instanceof TcpFlowEvent.RtoBackoff)
                .toList();
    }

    List<TcpFlowEvent.Retransmission> retransmissions() {
        return of(TcpFlowEvent.Retransmission.class);
    }

    List<TcpFlowEvent.ZeroWindow> zeroWindows() {
        return of(TcpFlowEvent.ZeroWindow.class);
    }

    private <E extends TcpFlowEvent> List<E> of(Class<E> kind) {
        return events.stream().filter(kind::isInstance).map(kind::cast).toList();
    }
}
