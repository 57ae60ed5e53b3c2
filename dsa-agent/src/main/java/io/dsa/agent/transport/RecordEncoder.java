package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Outbound half of the record layer, below the frame encoder: turns each frame into one sealed
 * record ({@link WireFormat}). Installed by the handshake once the connection is authenticated,
 * for the rest of its life.
 *
 * <p>No copy in the common case: {@link FrameEncoder} leaves room for the record header before
 * the frame and for the tag after it, so the record is sealed in the frame's own buffer. A frame
 * without that room (a buffer from elsewhere) is copied once into a pooled record buffer. A
 * record that cannot be sealed (a JDK crypto fault) fails its write and closes the connection,
 * since the sequence would be lost. Runs on the channel's event loop.
 */
final class RecordEncoder extends ChannelOutboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(RecordEncoder.class);

    private final RecordProtection protection;

    RecordEncoder(RecordProtection protection) {
        this.protection = protection;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf frame)) {
            // Everything on an authenticated channel is a frame; anything else would bypass the seal.
            ReferenceCountUtil.release(msg);
            promise.setFailure(new IllegalArgumentException("record layer can only seal frames (ByteBuf), got "
                    + (msg == null ? "null" : msg.getClass().getName())));
            return;
        }
        if (!frame.isReadable()) {
            ctx.write(frame, promise); // an empty write (a flush marker) carries no frame
            return;
        }
        int frameLength = frame.readableBytes();
        ByteBuf record = hasRecordRoom(frame) ? frame : copyIntoRecordBuffer(ctx, frame);
        int headerIndex = record.readerIndex() - WireFormat.RECORD_HEADER_BYTES;
        record.setInt(headerIndex, frameLength + WireFormat.RECORD_TAG_BYTES);
        record.setIndex(headerIndex, headerIndex + WireFormat.RECORD_OVERHEAD_BYTES + frameLength);
        try {
            protection.seal(record, headerIndex, frameLength);
        } catch (RuntimeException e) {
            record.release();
            promise.setFailure(e);
            LOG.error("closing connection with {}: {}", ctx.channel().remoteAddress(), e.getMessage(), e);
            ctx.close();
            return;
        }
        ctx.write(record, promise);
    }

    /** @return whether the record can be sealed in {@code frame}'s own buffer, which only we hold */
    static boolean hasRecordRoom(ByteBuf frame) {
        return frame.readerIndex() >= WireFormat.RECORD_HEADER_BYTES
                && frame.capacity() - frame.writerIndex() >= WireFormat.RECORD_TAG_BYTES
                && frame.refCnt() == 1 && !frame.isReadOnly() && frame.nioBufferCount() == 1;
    }

    /** @return a new record buffer holding {@code frame} at the record's frame position; releases {@code frame} */
    private static ByteBuf copyIntoRecordBuffer(ChannelHandlerContext ctx, ByteBuf frame) {
        ByteBuf record = ctx.alloc().heapBuffer(frame.readableBytes() + WireFormat.RECORD_OVERHEAD_BYTES);
        record.setIndex(WireFormat.RECORD_HEADER_BYTES, WireFormat.RECORD_HEADER_BYTES);
        record.writeBytes(frame);
        frame.release();
        return record;
    }
}
