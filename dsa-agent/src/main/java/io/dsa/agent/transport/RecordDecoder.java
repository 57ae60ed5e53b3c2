package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Inbound half of the record layer, below the frame decoder: cuts the byte stream into records
 * ({@link WireFormat}), opens each in place in the cumulation buffer and passes on its frame as a
 * slice of that buffer (no copy), which the {@link FrameDecoder} behind it decodes.
 *
 * <p>A record whose length is out of range, that fails to open (injected, replayed, reordered,
 * truncated or altered on the way: all look the same here), or that does not hold exactly one
 * frame closes the connection with one logged reason; nothing after it is opened or decoded.
 * A connection that ends inside a record is reported the same way. Runs on the channel's event
 * loop.
 */
final class RecordDecoder extends ByteToMessageDecoder {
    private final RecordProtection protection;
    private final int minSealedBytes = WireFormat.PREFIX_BYTES + WireFormat.RECORD_TAG_BYTES;
    private final long maxSealedBytes;
    private long recordsOpened;
    private boolean rejected;

    /** @param maxFrameBytes the largest frame length field accepted, as for {@link FrameDecoder} */
    RecordDecoder(RecordProtection protection, int maxFrameBytes) {
        this.protection = protection;
        this.maxSealedBytes = (long) WireFormat.LENGTH_FIELD_BYTES + maxFrameBytes + WireFormat.RECORD_TAG_BYTES;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (rejected) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < WireFormat.RECORD_HEADER_BYTES) {
            return;
        }
        int start = in.readerIndex();
        int sealedLength = in.getInt(start);
        if (sealedLength < minSealedBytes || sealedLength > maxSealedBytes) {
            reject(ctx, in, "record " + recordsOpened + " length " + sealedLength + " out of range ["
                    + minSealedBytes + ", " + maxSealedBytes + "]");
            return;
        }
        if (in.readableBytes() < WireFormat.RECORD_HEADER_BYTES + sealedLength) {
            return;
        }
        int frameLength = sealedLength - WireFormat.RECORD_TAG_BYTES;
        boolean authentic;
        try {
            authentic = protection.open(in, start, frameLength);
        } catch (RuntimeException e) { // not the peer's doing, but the sequence is lost: this connection ends
            reject(ctx, in, "record " + recordsOpened + " could not be opened: " + e);
            return;
        }
        if (!authentic) {
            reject(ctx, in, "record " + recordsOpened + " of " + sealedLength + " bytes failed authentication"
                    + " (injected, replayed, reordered, truncated or altered on the way)");
            return;
        }
        int frameIndex = start + WireFormat.RECORD_HEADER_BYTES;
        int innerLength = in.getInt(frameIndex);
        if (innerLength != frameLength - WireFormat.LENGTH_FIELD_BYTES) {
            reject(ctx, in, "record " + recordsOpened + " holds " + frameLength + " frame bytes but a frame of length "
                    + innerLength + ": expected exactly one frame per record");
            return;
        }
        recordsOpened++;
        out.add(in.retainedSlice(frameIndex, frameLength));
        in.skipBytes(WireFormat.RECORD_HEADER_BYTES + sealedLength);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decode(ctx, in, out);
        if (!rejected && in.isReadable()) {
            String expected = in.readableBytes() >= WireFormat.RECORD_HEADER_BYTES
                    ? " of " + (WireFormat.RECORD_HEADER_BYTES + (long) in.getInt(in.readerIndex())) : "";
            reject(ctx, in, "connection ended inside record " + recordsOpened + " (" + in.readableBytes() + expected
                    + " bytes)");
        }
    }

    private void reject(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        rejected = true;
        in.skipBytes(in.readableBytes());
        FrameDecoder.closeFor(ctx, reason);
    }
}
