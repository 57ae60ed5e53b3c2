package io.dsa.agent.wire;

/**
 * Host to child: read {@code count} elements of array {@code name} from flat index {@code from}
 * through the agent (coherence protocol: held copies in place, others fetched from their homes).
 * Answered by a {@link HostReplyMessage} with one {@code index\tvalue} row per element, which the
 * host passes on unchanged.
 */
public record ReadArrayMessage(long requestId, String name, long from, long count) implements AgentControlMessage {}
