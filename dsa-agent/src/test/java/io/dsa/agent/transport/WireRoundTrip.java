package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Test helper for fake networks outside this package: passes a message through the real frame
 * encoder and decoder, as a connection does, and returns the decoded copy. No Netty type appears
 * in its signature. Thread-safe (each thread decodes on its own channel).
 */
public final class WireRoundTrip {
    private static final FrameEncoder ENCODER = new FrameEncoder(TransportConfig.DEFAULT_MAX_FRAME_BYTES);
    private static final ThreadLocal<EmbeddedChannel> DECODER = new ThreadLocal<>();

    private WireRoundTrip() {}

    /**
     * @return {@code message} encoded into a frame and decoded again: an equal message that shares
     *         no array with it
     * @throws IllegalArgumentException if the message is not a wire or coherence message, or the
     *         decoder refuses its frame
     */
    public static Object copy(Object message) {
        MessageType type = MessageType.of(message);
        if (type == null || type.handshake()) {
            throw new IllegalArgumentException("cannot send " + (message == null ? "null" : message.getClass().getName())
                    + ": expected a WireMessage record or a CoherenceMessage");
        }
        ByteBuf frame = ENCODER.encodeNow(UnpooledByteBufAllocator.DEFAULT, message);
        EmbeddedChannel decoder = DECODER.get();
        if (decoder == null || !decoder.isOpen()) {
            decoder = new EmbeddedChannel(new FrameDecoder(TransportConfig.DEFAULT_MAX_FRAME_BYTES, false));
            DECODER.set(decoder);
        }
        decoder.writeInbound(frame);
        Object decoded = decoder.readInbound();
        if (decoded == null || decoder.readInbound() != null) {
            decoder.close();
            throw new IllegalArgumentException("the frame decoder refused the frame of " + type + " (see the log)");
        }
        return decoded;
    }
}
