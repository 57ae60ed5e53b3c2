package io.dsa.coherence;

/** Where a {@link CoherenceEngine} sends messages to other nodes. Never called with a message to oneself. */
@FunctionalInterface
public interface Outbox {
    /** Sends {@code message} to {@code message.destination()}; messages between a pair of nodes arrive in order. */
    void send(CoherenceMessage message);
}
