package io.dsa.agent.wire;

/**
 * Host to child, at the safe point: register clone {@code cloneId} as a sharer of the partitions
 * it holds that are homed at this node.
 *
 * @param partitions one entry per partition the clone holds: array id in the high 32 bits,
 *        partition number in the low 32 bits (see {@link #pack})
 */
public record RegisterCloneMessage(long requestId, int cloneId, long[] partitions) implements AgentControlMessage {
    /** @return the entry of {@code partitions} for partition {@code partition} of array {@code arrayId} */
    public static long pack(int arrayId, int partition) { return (long) arrayId << 32 | (partition & 0xFFFF_FFFFL); }

    /** @return the array id of an entry */
    public static int arrayId(long entry) { return (int) (entry >>> 32); }

    /** @return the partition number of an entry */
    public static int partition(long entry) { return (int) entry; }
}
