package io.dsa.agent.wire;

import java.util.List;

/**
 * A host's answer to a request ({@link StopVmMessage}, {@link WorkersQueryMessage}, {@link CountersQueryMessage}, a
 * {@link NodeRequestMessage} step, a {@link TransferMessage}, a {@link JarQueryMessage}): ok or refused with the reason.
 *
 * @param requestId the request's id
 * @param ok whether the request succeeded
 * @param text on failure, why; on success, a summary (may be empty)
 * @param rows result rows: the lines of a {@link WorkersQueryMessage}, the counts of a {@link CountersQueryMessage}
 * @param payload result bytes (for {@code beginTransfer}: the job; for {@code transferAgent}: the
 *        agent's state; for a {@link JarQueryMessage}: 1 or 0); empty otherwise
 */
public record HostReplyMessage(long requestId, boolean ok, String text, List<String> rows, byte[] payload)
        implements WireMessage {}
