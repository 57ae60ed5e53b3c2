package io.dsa.agent.internal;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a node's inbound messages by type to the one handler registered for it. A message no
 * handler takes is logged at WARN the first time its type arrives and at DEBUG afterwards, so a
 * confused or hostile peer cannot flood the log. Handlers run on the calling thread (the I/O
 * thread, or a worker sending to its own node) and must not block.
 */
final class MessageRouter {
    private static final Logger LOG = LoggerFactory.getLogger(MessageRouter.class);

    /** Handles one message type. */
    @FunctionalInterface
    interface Handler<T> {
        /** @param from the sending node */
        void on(int from, T message);
    }

    private final int nodeId;
    private final Map<Class<?>, Handler<Object>> handlers = new ConcurrentHashMap<>();
    private final Set<Class<?>> warned = ConcurrentHashMap.newKeySet();

    MessageRouter(int nodeId) { this.nodeId = nodeId; }

    /**
     * Registers the handler of messages of exactly {@code type}.
     *
     * @throws IllegalStateException if {@code type} has a handler already
     */
    @SuppressWarnings("unchecked")
    <T> void on(Class<T> type, Handler<? super T> handler) {
        if (handlers.putIfAbsent(type, (Handler<Object>) handler) != null) {
            throw new IllegalStateException("node " + nodeId + " registered a second handler for " + type.getSimpleName());
        }
    }

    /** Hands {@code message} from node {@code from} to its type's handler. */
    void route(int from, Object message) {
        Handler<Object> h = handlers.get(message.getClass());
        if (h == null) {
            unexpected(from, message);
        } else {
            h.on(from, message);
        }
    }

    /**
     * A message this node does not take (unknown type, or a content its handler leaves to another
     * node's role): dropped and logged.
     *
     * @return whether it was the first of its type (logged at WARN)
     */
    boolean unexpected(int from, Object message) {
        Class<?> type = message.getClass();
        if (warned.add(type)) {
            LOG.warn("node {} ignored unexpected {} from node {} (more of this type are logged at DEBUG)", nodeId,
                    type.getSimpleName(), from);
            return true;
        }
        LOG.debug("node {} ignored unexpected {} from node {}", nodeId, type.getSimpleName(), from);
        return false;
    }
}
