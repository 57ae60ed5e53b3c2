package io.dsa.agent.transport;

import io.dsa.coherence.CoherenceMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.Arrays;

/**
 * Puts chunked messages ({@link WireFormat}, "Chunks") back together on the receiving side of one
 * connection, one message at a time. A coherence message's data goes straight into the array its
 * {@link PartitionBuffers} names (asked once, when the first chunk has brought the message's
 * head), so a partition is copied once on this side however many chunks it takes; without such an
 * array the data is collected in an array that grows as its chunks arrive (a peer cannot make this
 * side hold more than twice what it sent). Any other message's body is kept as its chunks
 * themselves, retained, not copied, until the last one arrives and the message is decoded from
 * them: one copy of a large message (a diff, an image) on this side, its decoding.
 *
 * <p>Refused, each with a {@link CorruptedFrameException} naming what was wrong (the decoder
 * closes the connection): a chunk whose header is malformed; a first chunk not at offset 0, or a
 * coherence message's first chunk without its whole head, or whose head disagrees with its chunk
 * header (array, partition, a data count that is not the total less the head); a chunk of another
 * message, or of the same message with another total, before the current one is complete (two
 * chunked messages are never interleaved on one connection); a chunk that leaves a gap, overlaps
 * what arrived, is empty or ends past the total; and a whole frame that overtakes the message
 * being assembled although it must not ({@link #checkOvertaking}; a heartbeat always may).
 *
 * <p>Not thread-safe: the channel's event loop.
 */
final class ChunkAssembler {
    /** What a message that is not decoded into a named array starts with before its chunks arrive. */
    private static final int INITIAL_BYTES = 4 << 10;

    private final PartitionBuffers buffers;
    /** The message being assembled: its first chunk's header; null when none is. */
    private WireFormat.ChunkHeader current;
    /** Bytes of the current message's body received so far. */
    private long received;
    /** The current coherence message's head, and the array its data goes into. */
    private WireFormat.CoherenceHead head;
    private byte[] data;
    /** The current other message's body so far: its chunks, retained. */
    private CompositeByteBuf body;

    ChunkAssembler(PartitionBuffers buffers) {
        this.buffers = buffers;
    }

    /**
     * Takes one CHUNK frame's body (read completely).
     *
     * @return the whole message once this was its last chunk, else null
     * @throws CorruptedFrameException when the chunk does not continue the message being assembled as it must
     * @throws IndexOutOfBoundsException when the chunk is truncated
     */
    Object onChunk(ByteBuf chunk, ByteBufAllocator alloc) {
        WireFormat.ChunkHeader h = WireFormat.readChunkHeader(chunk);
        int piece = chunk.readableBytes();
        if (current == null) {
            if (h.offset() != 0) {
                throw new CorruptedFrameException("first chunk of a " + h.describe() + " at offset " + h.offset() + ", expected 0");
            }
        } else if (!current.sameMessage(h)) {
            throw new CorruptedFrameException("chunk of a " + h.describe() + " of " + h.total() + " bytes while a " + current.describe()
                    + " of " + current.total() + " bytes is at " + received + ": chunked messages are not interleaved");
        } else if (h.offset() != received) {
            throw new CorruptedFrameException("chunk at offset " + h.offset() + " of a " + h.describe() + " whose next byte is "
                    + received + ": " + (h.offset() < received ? "overlap" : "gap"));
        }
        if (piece == 0) {
            throw new CorruptedFrameException("empty chunk at offset " + h.offset() + " of a " + h.describe());
        }
        if (h.offset() + piece > h.total()) {
            throw new CorruptedFrameException("chunk [" + h.offset() + ", " + (h.offset() + piece) + ") of a " + h.describe()
                    + " ends past its total of " + h.total() + " bytes");
        }
        if (current == null) {
            start(h, chunk, alloc);
        }
        if (head != null) {
            long dataIndex = received + (piece - chunk.readableBytes()) - WireFormat.COHERENCE_HEAD_BYTES; // after the head
            grow((int) dataIndex + chunk.readableBytes());
            chunk.readBytes(data, (int) dataIndex, chunk.readableBytes()); // the receiving side's one copy
        } else {
            body.addComponent(true, chunk.readRetainedSlice(chunk.readableBytes()));
        }
        received += piece;
        return received == current.total() ? finish() : null;
    }

    private void start(WireFormat.ChunkHeader h, ByteBuf chunk, ByteBufAllocator alloc) {
        if (h.inner() == MessageType.COHERENCE) {
            if (chunk.readableBytes() < WireFormat.COHERENCE_HEAD_BYTES) {
                throw new CorruptedFrameException("first chunk of a " + h.describe() + " has " + chunk.readableBytes()
                        + " bytes, expected at least the " + WireFormat.COHERENCE_HEAD_BYTES + " of its head");
            }
            WireFormat.CoherenceHead m = WireFormat.readCoherenceHead(chunk);
            if (m.arrayId() != h.arrayId() || m.partition() != h.partition()) {
                throw new CorruptedFrameException("chunked COHERENCE message of array " + m.arrayId() + " partition " + m.partition()
                        + " in chunks of array " + h.arrayId() + " partition " + h.partition());
            }
            if (m.dataBytes() != h.total() - WireFormat.COHERENCE_HEAD_BYTES) {
                throw new CorruptedFrameException("chunked " + h.describe() + " of " + h.total() + " bytes has a data count of "
                        + m.dataBytes() + ", expected " + (h.total() - WireFormat.COHERENCE_HEAD_BYTES));
            }
            head = m;
            byte[] named = buffers.bufferFor(m.arrayId(), m.partition(), m.dataBytes());
            // no array of that size here to decode into: one that grows with what arrives, so a peer
            // cannot make us hold more than it sent (twice that at most)
            data = named != null && named.length == m.dataBytes() ? named : new byte[Math.min(m.dataBytes(), INITIAL_BYTES)];
        } else {
            body = alloc.compositeHeapBuffer(Integer.MAX_VALUE); // every chunk a component: never consolidated (copied)
        }
        current = h;
        received = 0;
    }

    /** Makes {@link #data} hold at least {@code bytes}, doubling, never past the message's data count. */
    private void grow(int bytes) {
        if (bytes <= data.length) return;
        data = Arrays.copyOf(data, Math.max(bytes, (int) Math.min(head.dataBytes(), 2L * data.length)));
    }

    private Object finish() {
        try {
            if (head != null) return head.message(data);
            Object message = WireFormat.readBody(current.inner(), body);
            if (body.isReadable()) {
                throw new CorruptedFrameException("chunked " + current.inner() + " message has " + body.readableBytes()
                        + " trailing bytes");
            }
            return message;
        } finally {
            reset();
        }
    }

    /**
     * Checks a message that arrived in one frame while a chunked message is being assembled: it
     * may have overtaken the chunked one only if the two have different ordering keys
     * ({@link OutboundMessage#sameOrder}).
     *
     * @throws CorruptedFrameException when it must not have
     */
    void checkOvertaking(MessageType type, Object message) {
        // a heartbeat is written at the socket end, past the sender's queues: it may come between
        // any two frames (a transfer held back by a full socket is when it is needed most)
        if (current == null || type == MessageType.HEARTBEAT) return;
        boolean same;
        if (type == MessageType.COHERENCE) {
            CoherenceMessage m = (CoherenceMessage) message;
            same = current.inner() == MessageType.COHERENCE && current.arrayId() == m.arrayId()
                    && current.partition() == m.partition();
        } else {
            same = true;   // a message not about a partition follows everything sent before it
        }
        if (same) {
            throw new CorruptedFrameException(type + " message inside a chunked " + current.describe() + " (at " + received
                    + " of " + current.total() + " bytes) that it must not overtake");
        }
    }

    /** @return a description of the message being assembled, or null if none is */
    String inProgress() {
        return current == null ? null : current.describe() + " (" + received + " of " + current.total() + " bytes)";
    }

    /** Drops the message being assembled, if any (the connection closed). */
    void reset() {
        if (body != null) {
            body.release();
            body = null;
        }
        current = null;
        head = null;
        data = null;
        received = 0;
    }
}
