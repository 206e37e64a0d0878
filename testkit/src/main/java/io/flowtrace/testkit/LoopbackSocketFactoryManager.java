package io.flowtrace.testkit;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.PreboundSocketFactoryManager;
import org.apache.kafka.server.ServerSocketFactory;

/**
 * KafkaClusterTestKit's socket manager, bound to the loopback address. The test kit pre-binds the
 * controller's listener before the node starts (the quorum needs its port in the configuration) and
 * its {@code PreboundSocketFactoryManager} binds {@code new InetSocketAddress(0)}: the wildcard
 * address, so the controller of every test and demo broker was reachable from the network. This one
 * binds 127.0.0.1 for the pre-bound sockets and for every listener the node opens later (the broker's
 * {@code localhost:0} one included), and keeps a listener's port for a restart, as the original does.
 */
final class LoopbackSocketFactoryManager extends PreboundSocketFactoryManager {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final Map<Integer, Map<String, ServerSocketChannel>> sockets = new HashMap<>();
    private boolean closed;

    /**
     * Puts a loopback manager into a test-kit builder. The builder creates its manager in a private
     * final field and offers no setter (Kafka 4.2.0); the field name is checked so that a Kafka upgrade
     * that renames it fails here, loudly, instead of silently listening on every interface again.
     */
    static void install(KafkaClusterTestKit.Builder builder) {
        try {
            Field f = KafkaClusterTestKit.Builder.class.getDeclaredField("socketFactoryManager");
            f.setAccessible(true);
            ((PreboundSocketFactoryManager) f.get(builder)).close();
            f.set(builder, new LoopbackSocketFactoryManager());
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot bind the Kafka test kit to loopback (KafkaClusterTestKit.Builder"
                            + ".socketFactoryManager changed?): " + e,
                    e);
        }
    }

    @Override
    public synchronized int getOrCreatePortForListener(int node, String listener) throws IOException {
        if (closed) {
            throw new IllegalStateException("socket manager closed");
        }
        Map<String, ServerSocketChannel> ofNode = sockets.computeIfAbsent(node, n -> new HashMap<>());
        ServerSocketChannel channel = ofNode.get(listener);
        if (channel == null) {
            channel =
                    ServerSocketFactory.INSTANCE.openServerSocket(listener, new InetSocketAddress(LOOPBACK, 0), -1, -1);
            ofNode.put(listener, channel);
        }
        return channel.socket().getLocalPort();
    }

    @Override
    public synchronized ServerSocketChannel getSocketForListenerAndMarkAsUsed(int node, String listener) {
        return sockets.getOrDefault(node, Map.of()).get(listener);
    }

    @Override
    public synchronized ServerSocketFactory getOrCreateSocketFactory(int node) {
        return (listener, address, backlog, receiveBuffer) -> {
            ServerSocketChannel pre = getSocketForListenerAndMarkAsUsed(node, listener);
            if (pre != null && pre.isOpen()) {
                return pre;
            }
            int port = pre != null ? pre.socket().getLocalPort() : address.getPort();
            return ServerSocketFactory.INSTANCE.openServerSocket(
                    listener, new InetSocketAddress(LOOPBACK, port), backlog, receiveBuffer);
        };
    }

    @Override
    public synchronized void close() throws Exception {
        closed = true;
        for (Map<String, ServerSocketChannel> ofNode : sockets.values()) {
            for (ServerSocketChannel c : ofNode.values()) {
                c.close();
            }
        }
        sockets.clear();
        super.close();
    }
}
