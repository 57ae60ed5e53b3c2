package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Inbound half of the record layer, below the frame decoder: cuts the byte stream into records
 * ({@link WireFormat}), opens each in place in the cumulation buffer and passes on its frame as a
 * slice of that buffer (no copy), which the {@link FrameDecoder} behind it decodes.
 *
 * <p>Records are opened in a heap buffer: the bytes a read brings (direct, from the socket) are
 * copied into the heap cumulation, because the JDK's AES-GCM opens a record faster on an array
 * than on a direct buffer by more than the copy costs ({@code RecordLayerBenchmark}; docs/runtime.md,
 * "Bulk transfers"). The cumulation is sized for the whole record under way (up to
 * {@value #MAX_AHEAD_BYTES} bytes, or as many as have arrived, beyond what has arrived), so a
 * chunk's record is copied once, not once per doubling.
 *
 * <p>A record whose length is out of range, that fails to open (injected, replayed, reordered,
 * truncated or altered on the way: all look the same here), or that does not hold exactly one
 * frame closes the connection with one logged reason; nothing after it is opened or decoded.
 * A connection that ends inside a record is reported the same way. Runs on the channel's event
 * loop.
 */
final class RecordDecoder extends ByteToMessageDecoder {
    /** Most bytes the cumulation is sized for beyond those that arrived: what a forged record length can make us hold. */
    static final int MAX_AHEAD_BYTES = 1 << 20;

    private final RecordProtection protection;
    private final int minSealedBytes = WireFormat.PREFIX_BYTES + WireFormat.RECORD_TAG_BYTES;
    private final long maxSealedBytes;
    private long recordsOpened;
    private boolean rejected;

    /** @param maxFrameBytes the largest frame length field accepted, as for {@link FrameDecoder} */
    RecordDecoder(RecordProtection protection, int maxFrameBytes) {
        this.protection = protection;
        this.maxSealedBytes = (long) WireFormat.LENGTH_FIELD_BYTES + maxFrameBytes + WireFormat.RECORD_TAG_BYTES;
        setCumulator(this::cumulate);
    }

    /**
     * The cumulator ({@link ByteToMessageDecoder.Cumulator}): adds {@code in} to the heap
     * cumulation and releases {@code in}; in place if the cumulation is ours alone and has room,
     * else into a new heap buffer (the old cumulation is then released) sized by {@link #capacityFor}.
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation == in) { // the same buffer twice, retained twice: Netty's cumulators release it once
            in.release();
            return cumulation;
        }
        try {
            int incoming = in.readableBytes();
            if (cumulation.hasArray() && cumulation.refCnt() == 1 && !cumulation.isReadOnly()
                    && cumulation.writableBytes() >= incoming) {
                cumulation.writeBytes(in);
                return cumulation;
            }
            ByteBuf heap = alloc.heapBuffer(capacityFor(cumulation.readableBytes() + (long) incoming, recordBytesUnderWay(cumulation, in)));
            heap.writeBytes(cumulation).writeBytes(in);
            cumulation.release();
            return heap;
        } finally {
            in.release();
        }
    }

    /**
     * @return the capacity of a new cumulation holding {@code arrived} bytes whose first record is
     *         {@code record} bytes long (0: not known yet): room for that record, but never more
     *         than {@value #MAX_AHEAD_BYTES} or {@code arrived} bytes (whichever is more) beyond what
     *         arrived, so a forged length costs little and a long record is copied a few times at most
     */
    static int capacityFor(long arrived, long record) {
        long ahead = Math.max(MAX_AHEAD_BYTES, arrived);
        return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(arrived, Math.min(record, arrived + ahead)));
    }

    /** @return the length of the record that starts the bytes so far (header included), or 0 if its header has not arrived */
    private static long recordBytesUnderWay(ByteBuf cumulation, ByteBuf in) {
        int have = cumulation.readableBytes();
        if (have + (long) in.readableBytes() < WireFormat.RECORD_HEADER_BYTES) return 0;
        long length = 0;
        for (int i = 0; i < WireFormat.RECORD_HEADER_BYTES; i++) {
            int b = i < have ? cumulation.getUnsignedByte(cumulation.readerIndex() + i) : in.getUnsignedByte(in.readerIndex() + i - have);
            length = length << 8 | b;
        }
        return WireFormat.RECORD_HEADER_BYTES + length;
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
