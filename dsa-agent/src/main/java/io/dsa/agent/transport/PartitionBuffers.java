package io.dsa.agent.transport;

/**
 * Where the partition bytes of an arriving coherence message are decoded. The frame decoder asks
 * on the connection's I/O thread when a frame of a coherence message that carries data has
 * arrived whole, before the message is handed on: the receiver may name its own array for the
 * partition (the runtime names the partition's slot while the node's workers have no access to
 * it), so the bytes are copied once, from the received buffer into the place they stay, and no
 * array is allocated per transfer.
 */
@FunctionalInterface
public interface PartitionBuffers {
    /** Always a new array. */
    PartitionBuffers ALLOCATE = (arrayId, partition, bytes) -> null;

    /**
     * @param bytes the partition's length on the wire
     * @return an array of exactly {@code bytes} bytes the decoder may overwrite, or null for a new
     *         one (an array of another length is ignored too). The bytes are written even if the
     *         message is then refused as malformed.
     */
    byte[] bufferFor(int arrayId, int partition, int bytes);
}
