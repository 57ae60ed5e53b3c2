package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Encodes wire messages, coherence messages and handshake records into frames
 * ({@link WireFormat}). The buffer is sized up front for payload-carrying messages, so a
 * partition's bytes are copied exactly once, from the message's array into the frame.
 * A frame larger than the peer would accept fails that write (the connection stays open).
 *
 * <p>Every frame buffer leaves {@link WireFormat#RECORD_HEADER_BYTES} free before the frame and
 * {@link WireFormat#RECORD_TAG_BYTES} after it, so that the {@link RecordEncoder} seals the record
 * in the same buffer instead of copying the frame (the frame is the buffer's readable bytes).
 */
final class FrameEncoder extends MessageToByteEncoder<Object> {
    private final int maxFrameBytes;

    FrameEncoder(int maxFrameBytes) {
        super(Object.class);
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    public boolean acceptOutboundMessage(Object msg) {
        return MessageType.of(msg) != null;
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, Object msg, boolean preferDirect) {
        int size = WireFormat.sizeHint(MessageType.of(msg), msg) + WireFormat.RECORD_OVERHEAD_BYTES;
        ByteBuf out = preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
        return out.setIndex(WireFormat.RECORD_HEADER_BYTES, WireFormat.RECORD_HEADER_BYTES);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Object msg, ByteBuf out) {
        write(msg, out);
    }

    /**
     * Encodes {@code msg} into a new frame now, on the calling thread: for a message whose payload
     * array is only lent until {@link Connection#send} returns.
     *
     * @throws EncoderException if the frame exceeds the limit (nothing is then allocated)
     */
    ByteBuf encodeNow(ByteBufAllocator alloc, Object msg) {
        ByteBuf out = alloc.ioBuffer(WireFormat.sizeHint(MessageType.of(msg), msg) + WireFormat.RECORD_OVERHEAD_BYTES);
        out.setIndex(WireFormat.RECORD_HEADER_BYTES, WireFormat.RECORD_HEADER_BYTES);
        try {
            write(msg, out);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    private void write(Object msg, ByteBuf out) {
        MessageType type = MessageType.of(msg);
        int start = out.writerIndex();
        WireFormat.writeFrame(type, msg, out);
        int length = out.writerIndex() - start - WireFormat.LENGTH_FIELD_BYTES;
        if (length > maxFrameBytes) {
            out.writerIndex(start);
            throw new EncoderException(type + " frame of " + length + " bytes exceeds the limit of "
                    + maxFrameBytes + " bytes");
        }
    }
}
