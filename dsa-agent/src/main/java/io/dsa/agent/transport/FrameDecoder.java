package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Splits the byte stream into frames ({@link WireFormat}) and decodes each into its message
 * record. Before authentication ({@code handshakePhase}) only handshake types and small frames
 * are accepted; afterwards only the others.
 *
 * <p>Any violation (length out of range, wrong version, unknown or out-of-phase type, malformed
 * or truncated body, trailing bytes) discards all further input and closes the connection,
 * leaving the reason in {@link #CLOSE_REASON} for the connection's {@code onDisconnected}.
 * Nothing is thrown into the pipeline. After authentication the reason is logged here (WARN,
 * naming the peer); before it, the {@link HandshakeHandler} reports it, since an acceptor's
 * unauthenticated connections are logged with a rate limit ({@link PendingHandshakes}).
 *
 * <p>Decoding reads the body in place from the cumulation buffer: no copies beyond the decoded
 * values. A coherence message's partition bytes go into the array its {@link PartitionBuffers}
 * names (the receiver's own), else into a new one the receiver owns; other payloads' arrays are
 * allocated here. A message that arrives in chunks is put together by a {@link ChunkAssembler}
 * (a partition's chunks straight into that array) and handed on when its last chunk arrived.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    /** Why the transport closed a channel, when it did so because of the peer. */
    static final AttributeKey<Throwable> CLOSE_REASON = AttributeKey.valueOf(FrameDecoder.class, "closeReason");

    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

    private final int maxFrameBytes;
    private final boolean handshakePhase;
    private final PartitionBuffers buffers;
    private final ChunkAssembler chunks;
    /** The peer's shared ring, once this side mapped it; null before (a SHARED frame is then refused). */
    private SharedRing.Reader ring;
    private boolean rejected;

    /**
     * @param maxFrameBytes the largest length field value accepted
     * @param handshakePhase whether the connection is still unauthenticated
     */
    FrameDecoder(int maxFrameBytes, boolean handshakePhase) {
        this(maxFrameBytes, handshakePhase, PartitionBuffers.ALLOCATE);
    }

    /** @param buffers where coherence messages' partition bytes are decoded */
    FrameDecoder(int maxFrameBytes, boolean handshakePhase, PartitionBuffers buffers) {
        this.maxFrameBytes = maxFrameBytes;
        this.handshakePhase = handshakePhase;
        this.buffers = buffers;
        this.chunks = new ChunkAssembler(buffers);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (rejected) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < WireFormat.LENGTH_FIELD_BYTES) {
            return;
        }
        int start = in.readerIndex();
        int length = in.getInt(start);
        if (length < WireFormat.HEADER_BYTES || length > maxFrameBytes) {
            reject(ctx, in, "frame length " + length + " out of range [" + WireFormat.HEADER_BYTES + ", "
                    + maxFrameBytes + "]");
            return;
        }
        int readable = in.readableBytes();
        if (readable > WireFormat.LENGTH_FIELD_BYTES) {
            // Check the version as soon as it arrives rather than waiting for a large frame.
            int version = in.getUnsignedByte(start + WireFormat.LENGTH_FIELD_BYTES);
            if (version != WireFormat.VERSION) {
                reject(ctx, in, "protocol version " + version + ", expected " + WireFormat.VERSION
                        + (handshakePhase ? ": the peer runs a DSA build of another protocol version" : ""));
                return;
            }
        }
        if (readable < WireFormat.LENGTH_FIELD_BYTES + length) {
            return;
        }
        int code = in.getUnsignedByte(start + WireFormat.LENGTH_FIELD_BYTES + 1);
        MessageType type = MessageType.fromCode(code);
        if (type == null) {
            reject(ctx, in, "unknown message type code " + code);
            return;
        }
        if (type.handshake() != handshakePhase) {
            reject(ctx, in, handshakePhase ? type + " message before the handshake completed"
                    : "handshake message " + type + " after the handshake completed");
            return;
        }
        ByteBuf body = in.slice(start + WireFormat.PREFIX_BYTES, length - WireFormat.HEADER_BYTES);
        Object message;
        try {
            if (type == MessageType.CHUNK) {
                message = chunks.onChunk(body, ctx.alloc());
            } else if (type == MessageType.SHARED) {
                message = readShared(body);
            } else {
                message = WireFormat.readBody(type, body, buffers);
                chunks.checkOvertaking(type, message);
            }
        } catch (IndexOutOfBoundsException e) {
            reject(ctx, in, "truncated " + type + " frame of " + length + " bytes");
            return;
        } catch (RuntimeException e) {
            reject(ctx, in, "malformed " + type + " frame: " + e.getMessage());
            return;
        }
        if (body.isReadable()) {
            reject(ctx, in, type + " frame has " + body.readableBytes() + " trailing bytes");
            return;
        }
        in.skipBytes(WireFormat.LENGTH_FIELD_BYTES + length);
        if (message != null) out.add(message);
    }

    /** Decodes SHARED frames from now on, their bodies from {@code ring}; on the channel's event loop. */
    void sharedRing(SharedRing.Reader ring) { this.ring = ring; }

    /** @return whether this decoder reads a shared ring */
    boolean hasSharedRing() { return ring != null; }

    // A message whose body lies in the peer's ring: decoded there (partition bytes straight into their array), then released.
    private Object readShared(ByteBuf frameBody) {
        if (ring == null) throw new CorruptedFrameException("SHARED frame on a connection without a shared ring");
        int code = frameBody.readUnsignedByte();
        MessageType inner = MessageType.fromCode(code);
        if (inner == null || !WireFormat.sharedBodyType(inner)) {
            throw new CorruptedFrameException("SHARED frame of inner type code " + code + ", expected one of "
                    + MessageType.COHERENCE.code() + ", " + MessageType.DIFF.code() + ", " + MessageType.PUSH.code());
        }
        long from = frameBody.readLong();
        int length = frameBody.readInt();
        ByteBuf body = ring.body(from, length);
        Object message;
        try {
            message = WireFormat.readBody(inner, body, buffers);
            if (body.isReadable()) {
                throw new CorruptedFrameException(inner + " body in the shared ring has " + body.readableBytes() + " trailing bytes");
            }
        } finally {
            body.release();
        }
        ring.release(from, length);
        chunks.checkOvertaking(inner, message);
        return message;
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        String partial = chunks.inProgress();
        if (partial != null && !rejected) {
            reject(ctx, in, "connection ended inside a chunked " + partial);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        chunks.reset();
    }

    private void reject(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        rejected = true;
        in.skipBytes(in.readableBytes());
        if (handshakePhase) {
            ctx.channel().attr(CLOSE_REASON).setIfAbsent(new CorruptedFrameException(reason));
            ctx.close();
        } else {
            closeFor(ctx, reason);
        }
    }

    /**
     * Closes an authenticated connection because of what its peer sent: logs a WARN naming the
     * peer and {@code reason}, and leaves the reason in {@link #CLOSE_REASON}.
     */
    static void closeFor(ChannelHandlerContext ctx, String reason) {
        LOG.warn("closing connection with {}: {}", HandshakeHandler.format(ctx.channel().remoteAddress()), reason);
        ctx.channel().attr(CLOSE_REASON).setIfAbsent(new CorruptedFrameException(reason));
        ctx.close();
    }
}
