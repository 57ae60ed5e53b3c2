package io.dsa.agent.transport;

import io.dsa.coherence.CoherenceMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
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
 * Frames are heap buffers: the JDK's AES-GCM seals a record faster on an array than on a direct
 * buffer by more than the socket's copy of a heap buffer into a direct one costs
 * ({@code RecordLayerBenchmark}; docs/runtime.md, "Bulk transfers").
 */
final class FrameEncoder extends MessageToByteEncoder<Object> {
    private final int maxFrameBytes;
    private final int chunkBytes;

    /** An encoder whose messages go in chunks as large as {@code maxFrameBytes} allows, up to the default chunk size. */
    FrameEncoder(int maxFrameBytes) {
        this(maxFrameBytes, WireFormat.chunkBytesWithin(TransportConfig.DEFAULT_CHUNK_BYTES, maxFrameBytes));
    }

    /**
     * @param maxFrameBytes the largest frame (length field value) written
     * @param chunkBytes the largest body (a coherence message: partition data) sent in one frame,
     *        and the bytes of each chunk of a larger one; at most
     *        {@link WireFormat#chunkBytesWithin}{@code (chunkBytes, maxFrameBytes)}
     */
    FrameEncoder(int maxFrameBytes, int chunkBytes) {
        super(Object.class);
        if (chunkBytes < WireFormat.MIN_CHUNK_BYTES || chunkBytes != WireFormat.chunkBytesWithin(chunkBytes, maxFrameBytes)) {
            throw new IllegalArgumentException("chunk of " + chunkBytes + " bytes does not fit frames of " + maxFrameBytes
                    + " bytes: expected [" + WireFormat.MIN_CHUNK_BYTES + ", "
                    + WireFormat.chunkBytesWithin(Integer.MAX_VALUE, maxFrameBytes) + "]");
        }
        this.maxFrameBytes = maxFrameBytes;
        this.chunkBytes = chunkBytes;
    }

    @Override
    public boolean acceptOutboundMessage(Object msg) {
        return MessageType.of(msg) != null;
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, Object msg, boolean preferDirect) {
        int size = WireFormat.sizeHint(MessageType.of(msg), msg) + WireFormat.RECORD_OVERHEAD_BYTES;
        ByteBuf out = ctx.alloc().heapBuffer(size); // sealed in place: the JDK's AES-GCM is fastest on arrays
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
        ByteBuf out = alloc.heapBuffer(WireFormat.sizeHint(MessageType.of(msg), msg) + WireFormat.RECORD_OVERHEAD_BYTES);
        out.setIndex(WireFormat.RECORD_HEADER_BYTES, WireFormat.RECORD_HEADER_BYTES);
        try {
            write(msg, out);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    /**
     * Encodes {@code msg} now, on the calling thread, into the frames it travels in: one frame, or,
     * when its body (a coherence message: its partition data) exceeds the chunk size, CHUNK frames
     * of that many bytes each ({@link WireFormat}, "Chunks"). Either way a partition's bytes are
     * copied once, from the message's array into the frames, and every frame has room for its record.
     *
     * @throws EncoderException if the message is larger than any message may be (nothing is then allocated)
     */
    OutboundMessage encode(ByteBufAllocator alloc, Object msg) {
        return encode(alloc, msg, null);
    }

    /**
     * As {@link #encode(ByteBufAllocator, Object)}, but a COHERENCE, DIFF or PUSH message whose body
     * has at least {@value SharedRing#MIN_BODY_BYTES} bytes goes into {@code ring}, if it has room,
     * and only a {@link MessageType#SHARED} frame naming where is returned ({@link WireFormat},
     * "Shared bodies"): the body is copied once, into the ring, and is not sealed.
     *
     * @param ring the connection's shared ring, or null for none
     */
    OutboundMessage encode(ByteBufAllocator alloc, Object msg, SharedRing.Writer ring) {
        MessageType type = MessageType.of(msg);
        if (ring != null) {
            OutboundMessage shared = shared(alloc, type, msg, ring);
            if (shared != null) return shared;
        }
        if (msg instanceof CoherenceMessage m) {
            byte[] data = m.data();
            if (data != null && data.length > chunkBytes) {
                return OutboundMessage.chunked(type, true, m.arrayId(), m.partition(), coherenceChunks(alloc, m));
            }
            return OutboundMessage.whole(type, true, m.arrayId(), m.partition(), encodeNow(alloc, msg));
        }
        int hint = WireFormat.sizeHint(type, msg);
        if ((type == MessageType.DIFF || type == MessageType.PUSH) && hint - WireFormat.PREFIX_BYTES > chunkBytes
                && hint < WireFormat.MAX_CHUNKED_BODY_BYTES) {
            // a diff's or a push's size is known exactly (sizeHint): its body is written straight into its chunk frames
            return OutboundMessage.chunked(type, false, WireFormat.NO_PARTITION, WireFormat.NO_PARTITION,
                    bodyIntoChunks(alloc, type, msg, hint - WireFormat.PREFIX_BYTES));
        }
        ByteBuf frame = alloc.heapBuffer(hint + WireFormat.RECORD_OVERHEAD_BYTES);
        frame.setIndex(WireFormat.RECORD_HEADER_BYTES, WireFormat.RECORD_HEADER_BYTES);
        try {
            WireFormat.writeFrame(type, msg, frame);
        } catch (RuntimeException e) {
            frame.release();
            throw new EncoderException(type + " message cannot be encoded: " + e.getMessage(), e);
        }
        int body = frame.readableBytes() - WireFormat.PREFIX_BYTES;
        if (body <= chunkBytes) {
            return OutboundMessage.whole(type, false, WireFormat.NO_PARTITION, WireFormat.NO_PARTITION, frame);
        }
        try {
            return OutboundMessage.chunked(type, false, WireFormat.NO_PARTITION, WireFormat.NO_PARTITION,
                    bodyChunks(alloc, type, frame.slice(frame.readerIndex() + WireFormat.PREFIX_BYTES, body)));
        } finally {
            frame.release();
        }
    }

    /** @return whether a message's body goes through a shared ring when the connection has one with room */
    static boolean wantsRing(MessageType type, Object msg) {
        if (!WireFormat.sharedBodyType(type)) return false;
        long body = (long) WireFormat.sizeHint(type, msg) - WireFormat.PREFIX_BYTES;
        return body >= SharedRing.MIN_BODY_BYTES && body < WireFormat.MAX_CHUNKED_BODY_BYTES - WireFormat.PREFIX_BYTES;
    }

    /** @return {@code msg} as a SHARED frame with its body written into {@code ring}, or null if it goes inline */
    private static OutboundMessage shared(ByteBufAllocator alloc, MessageType type, Object msg, SharedRing.Writer ring) {
        if (!wantsRing(type, msg)) return null;
        int length = WireFormat.sizeHint(type, msg) - WireFormat.PREFIX_BYTES;   // exact for these types (sizeHint)
        long from = ring.reserve(length);
        if (from < 0) return null;
        ByteBuf body = ring.body(from, length);
        try {
            MessageCodecs.of(type).write(msg, body);
            if (body.writerIndex() != length) {
                throw new EncoderException(type + " message encoded in " + body.writerIndex() + " bytes, expected " + length);
            }
        } catch (RuntimeException e) {
            // the reserved bytes will never be released: the ring is done, later bodies go inline
            ring.close();
            throw e instanceof EncoderException ? e : new EncoderException(type + " message cannot be encoded: " + e.getMessage(), e);
        } finally {
            body.release();
        }
        ring.published();
        ByteBuf frame = alloc.heapBuffer(WireFormat.RECORD_OVERHEAD_BYTES + WireFormat.PREFIX_BYTES + WireFormat.SHARED_BODY_BYTES);
        frame.setIndex(WireFormat.RECORD_HEADER_BYTES, WireFormat.RECORD_HEADER_BYTES);
        WireFormat.writeSharedFrame(frame, type, from, length);
        return msg instanceof CoherenceMessage m
                ? OutboundMessage.whole(type, true, m.arrayId(), m.partition(), frame)
                : OutboundMessage.whole(type, false, WireFormat.NO_PARTITION, WireFormat.NO_PARTITION, frame);
    }

    /** @return the CHUNK frames of {@code m}: its head in the first, then its data, {@code chunkBytes} per frame */
    private ByteBuf[] coherenceChunks(ByteBufAllocator alloc, CoherenceMessage m) {
        byte[] data = m.data();
        long total = WireFormat.COHERENCE_HEAD_BYTES + (long) data.length;
        ByteBuf[] frames = new ByteBuf[(data.length + chunkBytes - 1) / chunkBytes];
        int dataIndex = 0;
        try {
            for (int i = 0; i < frames.length; i++) {
                int dataBytes = Math.min(chunkBytes, data.length - dataIndex);
                int piece = dataBytes + (i == 0 ? WireFormat.COHERENCE_HEAD_BYTES : 0);
                long offset = i == 0 ? 0 : WireFormat.COHERENCE_HEAD_BYTES + (long) dataIndex;
                ByteBuf f = chunkFrame(alloc, MessageType.COHERENCE, m.arrayId(), m.partition(), total, offset, piece);
                frames[i] = f;
                if (i == 0) WireFormat.writeCoherenceHead(m, f);
                f.writeBytes(data, dataIndex, dataBytes); // the payload's one copy
                dataIndex += dataBytes;
            }
        } catch (RuntimeException e) {
            releaseAll(frames);
            throw e;
        }
        return frames;
    }

    /** @return the CHUNK frames of a message of {@code type} whose encoded body is {@code body} (not released) */
    private ByteBuf[] bodyChunks(ByteBufAllocator alloc, MessageType type, ByteBuf body) {
        int total = body.readableBytes();
        ByteBuf[] frames = new ByteBuf[(total + chunkBytes - 1) / chunkBytes];
        try {
            for (int i = 0; i < frames.length; i++) {
                int offset = i * chunkBytes;
                int piece = Math.min(chunkBytes, total - offset);
                frames[i] = chunkFrame(alloc, type, WireFormat.NO_PARTITION, WireFormat.NO_PARTITION, total, offset, piece);
                frames[i].writeBytes(body, body.readerIndex() + offset, piece);
            }
        } catch (RuntimeException e) {
            releaseAll(frames);
            throw e;
        }
        return frames;
    }

    /**
     * @return the CHUNK frames of {@code msg}, whose body is exactly {@code total} bytes, written by its
     *         codec straight into the frames (through a composite of their bodies' slices): the values
     *         of a large message copied once, with no frame of the whole message in between
     * @throws EncoderException if the codec wrote another number of bytes (nothing is then left allocated)
     */
    private ByteBuf[] bodyIntoChunks(ByteBufAllocator alloc, MessageType type, Object msg, int total) {
        ByteBuf[] frames = new ByteBuf[(total + chunkBytes - 1) / chunkBytes];
        int[] pieces = new int[frames.length];
        CompositeByteBuf body = alloc.compositeHeapBuffer(frames.length);
        try {
            for (int i = 0; i < frames.length; i++) {
                pieces[i] = Math.min(chunkBytes, total - i * chunkBytes);
                frames[i] = chunkFrame(alloc, type, WireFormat.NO_PARTITION, WireFormat.NO_PARTITION, total, (long) i * chunkBytes, pieces[i]);
                body.addComponent(false, frames[i].retainedSlice(frames[i].writerIndex(), pieces[i])); // its length counts
            }
            try {
                MessageCodecs.of(type).write(msg, body);
            } catch (RuntimeException e) {
                throw new EncoderException(type + " message cannot be encoded: " + e.getMessage(), e);
            }
            if (body.writerIndex() != total) {
                throw new EncoderException(type + " message encoded in " + body.writerIndex() + " bytes, expected " + total);
            }
            for (int i = 0; i < frames.length; i++) frames[i].writerIndex(frames[i].writerIndex() + pieces[i]);
        } catch (RuntimeException e) {
            releaseAll(frames);
            throw e;
        } finally {
            body.release();
        }
        return frames;
    }

    private static ByteBuf chunkFrame(ByteBufAllocator alloc, MessageType inner, int arrayId, int partition, long total,
                                      long offset, int piece) {
        ByteBuf f = alloc.heapBuffer(WireFormat.RECORD_OVERHEAD_BYTES + WireFormat.PREFIX_BYTES + WireFormat.CHUNK_HEADER_BYTES + piece);
        f.setIndex(WireFormat.RECORD_HEADER_BYTES, WireFormat.RECORD_HEADER_BYTES);
        WireFormat.writeChunkStart(f, inner, arrayId, partition, total, offset, piece);
        return f;
    }

    private static void releaseAll(ByteBuf[] frames) {
        for (ByteBuf f : frames) {
            if (f != null) f.release();
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
