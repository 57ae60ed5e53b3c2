package io.dsa.agent.wire;

/**
 * A control-plane message between agents. The transport encodes these and
 * {@link io.dsa.coherence.CoherenceMessage}s; nothing else crosses the wire. Records here hold
 * only primitives, strings, lists of strings and primitive arrays, so the binary layout is explicit.
 */
public interface WireMessage {}
