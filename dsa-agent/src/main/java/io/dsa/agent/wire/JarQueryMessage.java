package io.dsa.agent.wire;

/**
 * Launcher to host: does the host keep the program jar whose SHA-256 is {@code digest} (from an
 * earlier job that shipped it)? Answered by a {@link HostReplyMessage}, ok, whose
 * payload is one byte: 1 if the host keeps it, 0 if not; refused for a digest that is not 32 bytes. A
 * launcher that is told 1 submits the job with an empty jar and the job option {@code jarDigest=HEX}
 * (docs/hosts.md, "Program jars kept by the hosts"), so the jar is not shipped again.
 *
 * @param requestId the sender's id of this request
 * @param digest the SHA-256 of the jar's bytes (32 bytes)
 */
public record JarQueryMessage(long requestId, byte[] digest) implements WireMessage {}
