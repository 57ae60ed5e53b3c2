package io.dsa.agent.wire;

/**
 * Home to one of its sharers when an owner-computes scope closes in update mode (docs/consistency.md,
 * "Owner computes pushed to its sharers"): the new bytes of some partitions of array
 * {@code arrayId} homed at the sender, which the sharer writes into its copies. Each of
 * {@code parts} is {@link #part}: a partition in the high 32 bits, its byte count (the whole
 * partition, little-endian in the array's element type) in the low 32. On the wire the partitions'
 * bytes follow one another in the order of {@code parts}.
 *
 * <p>A sender names each partition's own array in {@code sources} (the codec copies the first
 * byte count of each into the frame, so nothing is copied before); a decoded message has all of
 * them in {@code values}, one after another, and {@code sources} null. Answered with a
 * {@link DiffAppliedMessage} of the same request id, unless the id is {@link #NO_ANSWER}: a home
 * asks for an answer to its last push to a sharer only, since a sharer handles a home's pushes in
 * the order they were sent.
 */
public record PushMessage(long requestId, int arrayId, long[] parts, byte[][] sources, byte[] values) implements WireMessage {
    /** The request id of a push its sender wants no answer to. */
    public static final long NO_ANSWER = 0;

    /** A sender's push: the partitions' bytes still in their own arrays. */
    public PushMessage(long requestId, int arrayId, long[] parts, byte[][] sources) {
        this(requestId, arrayId, parts, sources, null);
    }

    /** @return a part naming partition {@code partition} and its {@code bytes} */
    public static long part(int partition, int bytes) { return (long) partition << 32 | (bytes & 0xFFFF_FFFFL); }

    /** @return the partition of part {@code part} */
    public static int partition(long part) { return (int) (part >> 32); }

    /** @return the byte count of part {@code part} */
    public static int bytes(long part) { return (int) part; }

    /** @return the bytes the parts add up to: the values' length on the wire */
    public long valueBytes() {
        long total = 0;
        for (long p : parts) total += bytes(p);
        return total;
    }

    @Override
    public String toString() {
        return "Push(" + requestId + ", array " + arrayId + ", " + parts.length + " partitions, " + valueBytes() + " bytes)";
    }
}
