package io.dsa.agent.wire;

import java.util.List;

/**
 * A host's answer to a {@link HostStatusQueryMessage}: one row per agent it serves or
 * recently ended, as explicit fields (no text to re-parse). A refusal comes as a
 * {@link HostReplyMessage} instead.
 *
 * @param requestId the request's id
 * @param rows the agents, never null
 */
public record HostStatusMessage(long requestId, List<AgentRow> rows) implements WireMessage {
    public HostStatusMessage {
        rows = List.copyOf(rows);
    }
}
