package io.dsa.agent.wire;

import java.util.List;

/**
 * A host's answer to a {@link HostRequestMessage} or {@link TransferMessage}.
 *
 * @param requestId the request's id
 * @param ok whether the request succeeded
 * @param text on failure, why; on success, a summary (may be empty)
 * @param rows result rows (for status: one tab-separated row per agent)
 * @param payload result bytes (for {@code beginTransfer}: the job; for {@code transferAgent}: the
 *        agent's state); empty otherwise
 */
public record HostReplyMessage(long requestId, boolean ok, String text, List<String> rows, byte[] payload)
        implements WireMessage {}
