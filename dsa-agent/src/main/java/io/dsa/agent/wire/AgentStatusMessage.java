package io.dsa.agent.wire;

import java.util.List;

/**
 * Child to host: the answer to an {@link AgentStatusQueryMessage}.
 *
 * @param homed partitions (of all arrays) homed at the node
 * @param cached partitions homed elsewhere of which it holds a valid copy
 * @param rows what the query's detail asked for (empty for {@link AgentStatusQueryMessage#COUNTS_ONLY})
 */
public record AgentStatusMessage(long requestId, int homed, int cached, List<String> rows) implements WireMessage {
    public AgentStatusMessage {
        rows = List.copyOf(rows);
    }

    /** An answer without rows. */
    public AgentStatusMessage(long requestId, int homed, int cached) { this(requestId, homed, cached, List.of()); }
}
