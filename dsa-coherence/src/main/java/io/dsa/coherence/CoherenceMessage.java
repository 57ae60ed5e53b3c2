package io.dsa.coherence;

/**
 * One coherence protocol message about one partition.
 *
 * @param op the message type
 * @param arrayId the array, as numbered by the monitor's registry
 * @param partition the partition of that array
 * @param source the sending node
 * @param destination the receiving node
 * @param requester the node whose request this message serves (for forwards, invalidations and
 *        replies; equals {@code source} for GET_S/GET_M)
 * @param data partition bytes (little-endian primitives, row-major), or {@code null} when the
 *        message carries none. Ownership passes with the message: the sender must not touch the
 *        array after sending, the receiver may keep it.
 */
public record CoherenceMessage(CoherenceOp op, int arrayId, int partition, int source, int destination,
                               int requester, byte[] data) {
    public CoherenceMessage {
        if (op == null) throw new IllegalArgumentException("op is null");
        if (data != null && !op.mayCarryData()) {
            throw new IllegalArgumentException(op + " cannot carry data");
        }
    }

    @Override
    public String toString() {
        return op + "[" + arrayId + ":" + partition + " " + source + "->" + destination + " req " + requester
                + (data == null ? "" : " " + data.length + "B") + "]";
    }
}
