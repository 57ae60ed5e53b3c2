package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Test helper for fake networks outside this package: passes a message through the real frame
 * encoder and decoder, as a connection does, and returns the decoded copy. No Netty type appears
 * in its signature. Thread-safe (each thread decodes on its own channel).
 */
public final class WireRoundTrip {
    private static final FrameEncoder ENCODER = new FrameEncoder(TransportConfig.DEFAULT_MAX_FRAME_BYTES);

    private WireRoundTrip() {}

    /**
     * @return {@code message} encoded into a frame and decoded again: an equal message that shares
     *         no array with it
     * @throws IllegalArgumentException if the message is not a wire or coherence message, or the
     *         decoder refuses its frame
     */
    public static Object copy(Object message) {
        return decode(encode(message), PartitionBuffers.ALLOCATE);
    }

    /**
     * @return {@code message}'s frame, as the sender's encoder writes it before a send returns
     * @throws IllegalArgumentException if the message is not a wire or coherence message
     */
    public static byte[] encode(Object message) {
        MessageType type = MessageType.of(message);
        if (type == null || type.handshake()) {
            throw new IllegalArgumentException("cannot send " + (message == null ? "null" : message.getClass().getName())
                    + ": expected a WireMessage record or a CoherenceMessage");
        }
        ByteBuf frame = ENCODER.encodeNow(UnpooledByteBufAllocator.DEFAULT, message);
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            return bytes;
        } finally {
            frame.release();
        }
    }

    /**
     * @return the message of {@code frame}, decoded as a receiving connection does, its partition
     *         bytes into the array {@code buffers} names
     * @throws IllegalArgumentException if the decoder refuses the frame
     */
    public static Object decode(byte[] frame, PartitionBuffers buffers) {
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(TransportConfig.DEFAULT_MAX_FRAME_BYTES, false, buffers));
        decoder.writeInbound(Unpooled.wrappedBuffer(frame));
        Object decoded = decoder.readInbound();
        if (decoded == null || decoder.readInbound() != null) {
            decoder.close();
            throw new IllegalArgumentException("the frame decoder refused a frame of " + frame.length + " bytes (see the log)");
        }
        decoder.finish();
        return decoded;
    }

    /**
     * @return the name of {@code message}'s type on the wire ({@code "COHERENCE"}, {@code "BARRIER_ARRIVE"},
     *         {@code "HEARTBEAT"}, ...)
     * @throws IllegalArgumentException if the message is not a wire, coherence or heartbeat message
     */
    public static String typeName(Object message) {
        MessageType type = MessageType.of(message);
        if (type == null) throw new IllegalArgumentException("no wire type for " + (message == null ? "null" : message.getClass().getName()));
        return type.name();
    }

    /** @return a heartbeat asking the peer for one frame every {@code intervalMs} at least, as the failure detector sends */
    public static Object heartbeat(int intervalMs) { return new HeartbeatMessage(intervalMs); }

    /** @return the interval a heartbeat asks for, in milliseconds, or -1 if {@code message} is no heartbeat */
    public static int heartbeatIntervalMs(Object message) {
        return message instanceof HeartbeatMessage h ? h.intervalMs() : -1;
    }
}
