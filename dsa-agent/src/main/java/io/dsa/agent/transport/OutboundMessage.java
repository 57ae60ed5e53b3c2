package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;

/**
 * One message on its way out, already encoded: a whole frame, or the {@link MessageType#CHUNK}
 * frames of a message too large for one ({@link WireFormat}, "Chunks"). Every frame buffer leaves
 * room for its record, as {@link FrameEncoder} makes them. The {@link OutboundScheduler} takes its
 * frames one by one; whatever it has not taken is released by {@link #release()}.
 *
 * <p>The message's <em>ordering key</em> says which messages it must not overtake or be overtaken
 * by: a coherence message is keyed by its array and partition, every other message by one common
 * key (see {@link #sameOrder}). Not thread-safe: made by the sender, then owned by the channel's
 * event loop.
 */
final class OutboundMessage {
    private final MessageType type;
    private final boolean aboutPartition;
    private final int arrayId;
    private final int partition;
    /** The whole frame, until taken; null for a chunked message. */
    private ByteBuf whole;
    /** The chunk frames, each set to null when taken; null for a whole frame. */
    private final ByteBuf[] chunks;
    private int next;

    private OutboundMessage(MessageType type, boolean aboutPartition, int arrayId, int partition, ByteBuf whole, ByteBuf[] chunks) {
        this.type = type;
        this.aboutPartition = aboutPartition;
        this.arrayId = arrayId;
        this.partition = partition;
        this.whole = whole;
        this.chunks = chunks;
    }

    /** @return a message that travels in one frame, keyed by {@code arrayId}/{@code partition} when {@code aboutPartition} */
    static OutboundMessage whole(MessageType type, boolean aboutPartition, int arrayId, int partition, ByteBuf frame) {
        return new OutboundMessage(type, aboutPartition, arrayId, partition, frame, null);
    }

    /** @return a message that travels in {@code frames} (CHUNK frames, in order; at least one) */
    static OutboundMessage chunked(MessageType type, boolean aboutPartition, int arrayId, int partition, ByteBuf[] frames) {
        return new OutboundMessage(type, aboutPartition, arrayId, partition, null, frames);
    }

    /** @return whether the message travels in chunks (a bulk transfer) */
    boolean chunked() { return chunks != null; }

    /** @return the message's type (for a chunked one, the type of the message the chunks carry) */
    MessageType type() { return type; }

    /**
     * @param later a message sent after this one
     * @return whether {@code later} must stay behind this message: it is not about a partition
     *         (barriers, collectives, locks, variables, status and host messages follow everything
     *         sent before them: a barrier arrival must not overtake the data its sender sent before
     *         it, or a barrier could complete, and a migration snapshot the nodes, while a
     *         write-back is still on the way), or both are about the same partition of the same array
     */
    boolean sameOrder(OutboundMessage later) {
        return !later.aboutPartition
                || (aboutPartition && arrayId == later.arrayId && partition == later.partition);
    }

    /** @return the next frame to write, which the caller now owns */
    ByteBuf takeFrame() {
        if (chunks == null) {
            ByteBuf f = whole;
            whole = null;
            return f;
        }
        ByteBuf f = chunks[next];
        chunks[next++] = null;
        return f;
    }

    /** @return whether every frame was taken */
    boolean done() { return chunks == null ? whole == null : next == chunks.length; }

    /** @return frames not taken yet */
    int framesLeft() { return chunks == null ? (whole == null ? 0 : 1) : chunks.length - next; }

    /** Releases the frames not taken; idempotent. */
    void release() {
        if (chunks == null) {
            if (whole != null) whole.release();
            whole = null;
            return;
        }
        while (next < chunks.length) {
            chunks[next].release();
            chunks[next++] = null;
        }
    }

    @Override
    public String toString() {
        return (chunked() ? "chunked " : "") + type + (aboutPartition ? " of array " + arrayId + " partition " + partition : "")
                + (chunked() ? " (" + framesLeft() + " of " + chunks.length + " chunks left)" : "");
    }
}
