package io.dsa.agent.transport;

import io.dsa.agent.wire.PushMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;


/**
 * The one place that knows the byte layout of DSA frames and of the records that carry them.
 * All integers are big-endian.
 *
 * <p>A frame is one message:
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |        length: int32, bytes after this field (2 + body)       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | version: u8 = 2 |  type: u8     |  body: length - 2 bytes ... |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>The handshake's frames (CHALLENGE, HELLO, WELCOME, REFUSE) travel as they are. Once a
 * connection is authenticated, every frame travels sealed in exactly one record
 * ({@link RecordEncoder}, {@link RecordDecoder}, {@link RecordProtection}):
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |   record length: int32, bytes after this field (frame + 16)   |  header: additional data
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  the whole frame above: AES-256-GCM ciphertext (ENCRYPT)      |
 * |  or the frame in clear (MAC) ...                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  tag: 16 bytes, GCM tag (ENCRYPT); in MAC: frames < 4 KiB     |
 * |  HMAC-SHA256(hmacKey, seq | header | frame)[0..16), larger    |
 * |  ones the GCM tag of the frame, its ciphertext not sent       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The record's sequence number {@code seq} (int64, per direction, from 0 for each key) is never
 * sent: it makes the GCM nonce ({@code iv XOR seq}) or enters the HMAC ({@link MacRecordProtection}).
 *
 * <p>A HEARTBEAT frame (type 5, after authentication) carries one int32, the interval in
 * milliseconds at which the sender wants the peer's heartbeats ({@link HeartbeatMessage}), in
 * {@code [33, 1200000]}: the whole frame is {@code 00 00 00 06 | 02 | 05 | interval}, sealed like any other.
 *
 * <p>{@code type} is a {@link MessageType} code. Body fields, in record component order:
 * <ul>
 *   <li>{@code int}: int32; {@code long}: int64; {@code boolean}: u8 0 or 1;</li>
 *   <li>{@link TransportSecurity}: u8 code;</li>
 *   <li>{@code String}: int32 byte count + UTF-8 bytes (count -1 = null);</li>
 *   <li>{@code List<String>}: int32 count + that many strings (count -1 = null);</li>
 *   <li>{@code long[]}: int32 count + that many int64 (count -1 = null);</li>
 *   <li>{@code byte[]} (payload, nonce, key share, mac): int32 byte count + raw bytes (count -1 = null);</li>
 *   <li>{@link CoherenceMessage}: u8 op code, int32 arrayId, partition, source, destination,
 *       requester, then data as {@code byte[]}.</li>
 * </ul>
 * The supervision messages between a host and its agents' JVMs (codes 70..87, 95 and 96: records
 * implementing {@link AgentControlMessage} and their answers) follow the same rules; the ones that
 * carry only a request id are an int64. CLONE_ID (96), the answer to ALLOCATE_CLONE_ID (95), is an
 * int64 request id and an int32 clone id ({@code >= 0}).
 * A NODE_REQUEST (69) is a VM name, an int32 node id, the u8 type code of its step (one of the
 * supervision steps {@link HostCodecs#NODE_STEPS}) and that step's body as its own frame would
 * carry it. A HOST_STATUS (88) is an int64 request id, an int32 row count and per row: vm,
 * int32 node, host, agent, state, program (strings, never absent), int32 homed, cached and
 * nodes. ELEMENTS (89) is an int64 request id, int64 first index, u8 element type
 * ({@code io.dsa.ElementType} ordinal) and a {@code long[]} of the elements' bits. TRANSFER
 * (68) is int64 request id, int32 op, agentId, fromMonitor, {@code List<String>} vmHosts (never
 * absent), u8 cloning, int32 cloneId; TRANSFER_REPORT (90) is int64 request id, agentId,
 * fromMonitor, toMonitor, int64 pauseNanos, int64 bytes.
 * Each type's body is written and read by one {@link MessageCodec} (encode beside decode), found
 * through {@link MessageCodecs}; the field primitives are {@link WireFields}.
 * Every count is checked against the bytes left in the frame before anything is allocated, and a
 * frame must be consumed exactly: trailing bytes are an error.
 *
 * <p><b>Chunks.</b> A message whose body is larger than the sender's chunk size (for a
 * {@link CoherenceMessage}: whose partition data is; {@link TransportConfig#chunkBytes()}) travels
 * as consecutive {@link MessageType#CHUNK} frames, each carrying the next piece of that body, so
 * that small frames can be written between them and a message may exceed the frame limit:
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |        length: int32 (2 + 25 + piece bytes)                   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | version: u8 = 2 | type: u8 = 33 | inner type: u8 | arrayId:  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  ... int32 (COHERENCE: the message's; else -1)  | partition:  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  ... int32 (COHERENCE: the message's; else -1)  | total:      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  ... int64, bytes of the inner message's body (all pieces)    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |     | offset: int64, where this piece starts in that body     |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |     | piece: the body's bytes [offset, offset + piece) ...    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The inner body is laid out as that type's frame body would be; a COHERENCE body's first
 * {@value #COHERENCE_HEAD_BYTES} bytes (op to data count) are all in the first piece, so the
 * receiver knows the partition before its data arrives and copies each piece straight into the
 * array it names ({@link PartitionBuffers}). One chunked message is sent at a time per
 * connection: pieces come in order, from offset 0, without gap, overlap or anything past
 * {@code total}, and every chunk of a message repeats its inner type, ids and total; a chunk of
 * another message before the last piece is refused (see {@link ChunkAssembler}).
 *
 * <p><b>Shared bodies.</b> Between two nodes of one machine that agreed on a {@link SharedRing}
 * (SHARED_RING_OFFER (6): path, int64 capacity, token bytes; SHARED_RING_ANSWER (7): u8 accepted,
 * reason), a COHERENCE, DIFF or PUSH message whose body has at least
 * {@value SharedRing#MIN_BODY_BYTES} bytes may travel as a {@link MessageType#SHARED} frame (35)
 * instead: u8 inner type, int64 {@code from}, int32 length. The body, laid out as the inner type's
 * frame body would be, lies in the sender's ring at {@link SharedRing#placement}{@code (from,
 * length)}; the receiver decodes it there, as strictly as a frame's, and then releases it.
 *
 * <p>Stateless and thread-safe. Encoding and decoding do not allocate beyond the decoded values.
 */
final class WireFormat {
    /**
     * The protocol version this build speaks: 2 since the handshake agrees on keys and frames travel in records,
     * 3 since a write that covers a partition asks for it without data (coherence op GET_M_OVERWRITE),
     * 4 since the bodies of large messages between nodes of one machine may lie in a shared ring (SHARED).
     */
    static final int VERSION = 4;
    /** Bytes of the length field. */
    static final int LENGTH_FIELD_BYTES = 4;
    /** Bytes of version and type, counted by the length field. */
    static final int HEADER_BYTES = 2;
    /** Bytes before the body: length, version, type. */
    static final int PREFIX_BYTES = LENGTH_FIELD_BYTES + HEADER_BYTES;
    /** Length of handshake nonces and HMAC-SHA256 tags. */
    static final int NONCE_BYTES = 32;
    /** Length of a handshake key share: a raw X25519 public key. */
    static final int KEY_SHARE_BYTES = 32;
    /** Bytes of a record's header: its length field. */
    static final int RECORD_HEADER_BYTES = 4;
    /** Bytes of a record's tag. */
    static final int RECORD_TAG_BYTES = 16;
    /** Bytes a record adds to the frame it carries. */
    static final int RECORD_OVERHEAD_BYTES = RECORD_HEADER_BYTES + RECORD_TAG_BYTES;
    /** Largest frame (length field value) accepted before a connection is authenticated. */
    static final int MAX_HANDSHAKE_FRAME_BYTES = 1024;

    /** Bytes of a chunk's header in its frame body: inner type, arrayId, partition, total, offset. */
    static final int CHUNK_HEADER_BYTES = 1 + Integer.BYTES + Integer.BYTES + Long.BYTES + Long.BYTES;
    /** Bytes of a COHERENCE body before its data: op, arrayId, partition, source, destination, requester, data count. */
    static final int COHERENCE_HEAD_BYTES = 1 + 5 * Integer.BYTES + Integer.BYTES;
    /** The arrayId and partition of a chunk of a message that is not about a partition. */
    static final int NO_PARTITION = -1;
    /**
     * Largest body a chunked message may have (and the largest partition data a COHERENCE
     * message may carry): what one Java array can hold.
     */
    static final int MAX_CHUNKED_BODY_BYTES = Integer.MAX_VALUE - 8;

    /** Bytes of a SHARED frame's body: inner type, from, length. */
    static final int SHARED_BODY_BYTES = 1 + Long.BYTES + Integer.BYTES;

    /** Smallest chunk size: below it the chunk header would cost more than 5% of the bytes moved. */
    static final int MIN_CHUNK_BYTES = 512;

    private static final int DEFAULT_SIZE_HINT = 128;

    /**
     * @return {@code chunkBytes}, lowered if needed so that every frame of a message sent with it
     *         fits {@code maxFrameBytes}: a CHUNK frame's first piece carries a coherence head beside
     *         {@code chunkBytes} of data
     */
    static int chunkBytesWithin(int chunkBytes, int maxFrameBytes) {
        return Math.min(chunkBytes, maxFrameBytes - HEADER_BYTES - CHUNK_HEADER_BYTES - COHERENCE_HEAD_BYTES);
    }

    private WireFormat() {}

    /**
     * Writes one whole frame for {@code message} of type {@code type} at the writer index.
     *
     * @throws IllegalArgumentException when the message does not fit the format (e.g. a body over 2 GiB)
     */
    static void writeFrame(MessageType type, Object message, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0); // patched below
        out.writeByte(VERSION);
        out.writeByte(type.code());
        writeBody(type, message, out);
        out.setInt(start, out.writerIndex() - start - LENGTH_FIELD_BYTES);
    }

    /** @return a good initial buffer size for {@code message}'s frame: exact for payload-carrying types (a partition's data, a diff) */
    static int sizeHint(MessageType type, Object message) {
        if (type == MessageType.COHERENCE) {
            byte[] data = ((CoherenceMessage) message).data();
            return PREFIX_BYTES + COHERENCE_HEAD_BYTES + (data == null ? 0 : data.length);
        }
        if (type == MessageType.DIFF) {
            // request id, array, partition, op, the runs with their count, the values with theirs (ClusterCodecs.DIFF)
            io.dsa.agent.wire.DiffMessage m = (io.dsa.agent.wire.DiffMessage) message;
            long runs = m.runs() == null ? 0 : m.runs().length;
            long values = m.values() == null ? 0 : m.scattered() && m.runs() != null ? m.packedBytes() : m.values().length;
            long bytes = PREFIX_BYTES + Long.BYTES + 3 * Integer.BYTES + Integer.BYTES + runs * Long.BYTES + Integer.BYTES + values;
            return (int) Math.min(bytes, MAX_CHUNKED_BODY_BYTES);
        }
        if (type == MessageType.PUSH) {
            // request id, array, the parts with their count, the values with theirs (ClusterCodecs.PUSH)
            PushMessage m = (PushMessage) message;
            long parts = m.parts() == null ? 0 : m.parts().length;
            long bytes = PREFIX_BYTES + Long.BYTES + Integer.BYTES + Integer.BYTES + parts * Long.BYTES + Integer.BYTES
                    + (m.parts() == null ? 0 : m.valueBytes());
            return (int) Math.min(bytes, MAX_CHUNKED_BODY_BYTES);
        }
        return DEFAULT_SIZE_HINT;
    }

    private static void writeBody(MessageType type, Object message, ByteBuf out) {
        if (type.messageClass() == null) throw new IllegalArgumentException("no body layout for " + type);
        MessageCodecs.of(type).write(message, out);
    }

    /**
     * Reads the body of a frame of type {@code type}. {@code body} must hold exactly the body: the
     * caller checks that it is consumed completely.
     *
     * @throws CorruptedFrameException when the body is malformed (with what and where)
     * @throws IndexOutOfBoundsException when the body is truncated
     */
    static Object readBody(MessageType type, ByteBuf body) {
        return readBody(type, body, PartitionBuffers.ALLOCATE);
    }

    /**
     * As {@link #readBody(MessageType, ByteBuf)}, decoding a coherence message's partition bytes
     * into the array {@code buffers} names for it, if any.
     */
    static Object readBody(MessageType type, ByteBuf body, PartitionBuffers buffers) {
        return MessageCodecs.of(type).read(body, buffers);
    }

    /** The COHERENCE codec: the head ({@link #writeCoherenceHead}), then the data bytes, copied once each way. */
    static final MessageCodec<CoherenceMessage> COHERENCE = new MessageCodec<>() {
        @Override
        public void write(CoherenceMessage m, ByteBuf out) {
            writeCoherenceHead(m, out);
            if (m.data() != null) out.writeBytes(m.data()); // the payload's one copy
        }

        @Override
        public CoherenceMessage read(ByteBuf body, PartitionBuffers buffers) {
            return readCoherence(body, buffers);
        }
    };

    private static CoherenceMessage readCoherence(ByteBuf body, PartitionBuffers buffers) {
        CoherenceHead head = readCoherenceHead(body);
        int count = head.dataBytes();
        if (count > body.readableBytes()) {
            throw new CorruptedFrameException("data count " + count + " needs at least " + count + " bytes, "
                    + body.readableBytes() + " left in frame");
        }
        byte[] data = count < 0 ? null : head.dataArray(buffers);
        if (data != null) body.readBytes(data); // the receiving side's one copy
        return head.message(data);
    }

    /**
     * The fields of a COHERENCE body before its data bytes.
     *
     * @param dataBytes the data count: -1 for no data
     */
    record CoherenceHead(CoherenceOp op, int arrayId, int partition, int source, int destination, int requester,
                         int dataBytes) {
        /** @return the array the data is decoded into: the one {@code buffers} names if it has the right length, else a new one */
        byte[] dataArray(PartitionBuffers buffers) {
            byte[] named = buffers.bufferFor(arrayId, partition, dataBytes);
            return named != null && named.length == dataBytes ? named : new byte[dataBytes];
        }

        /** @return the message with {@code data} (null, or the array of {@link #dataArray}) */
        CoherenceMessage message(byte[] data) {
            return new CoherenceMessage(op, arrayId, partition, source, destination, requester, data);
        }
    }

    /** Writes a COHERENCE body's first {@value #COHERENCE_HEAD_BYTES} bytes: everything but the data bytes. */
    static void writeCoherenceHead(CoherenceMessage m, ByteBuf out) {
        out.writeByte(m.op().code());
        out.writeInt(m.arrayId());
        out.writeInt(m.partition());
        out.writeInt(m.source());
        out.writeInt(m.destination());
        out.writeInt(m.requester());
        out.writeInt(m.data() == null ? -1 : m.data().length);
    }

    /**
     * Reads a COHERENCE body's first {@value #COHERENCE_HEAD_BYTES} bytes.
     *
     * @throws CorruptedFrameException for an unknown op, a negative count other than -1, or data on an op without
     */
    static CoherenceHead readCoherenceHead(ByteBuf body) {
        int code = body.readUnsignedByte();
        CoherenceOp op = CoherenceOp.fromCode(code);
        if (op == null) {
            throw new CorruptedFrameException("unknown coherence op code " + code);
        }
        CoherenceHead head = new CoherenceHead(op, body.readInt(), body.readInt(), body.readInt(), body.readInt(),
                body.readInt(), body.readInt());
        if (head.dataBytes() < -1) {
            throw new CorruptedFrameException("data count " + head.dataBytes() + " negative, expected >= -1");
        }
        if (head.dataBytes() >= 0 && !op.mayCarryData()) {
            throw new CorruptedFrameException("coherence op " + op + " carries " + head.dataBytes() + " data bytes, expected none");
        }
        return head;
    }

    // ---- chunks

    /** Writes a whole SHARED frame at the writer index: its body of {@code length} bytes lies in the ring after {@code from}. */
    static void writeSharedFrame(ByteBuf out, MessageType inner, long from, int length) {
        out.writeInt(HEADER_BYTES + SHARED_BODY_BYTES);
        out.writeByte(VERSION);
        out.writeByte(MessageType.SHARED.code());
        out.writeByte(inner.code());
        out.writeLong(from);
        out.writeInt(length);
    }

    /** @return whether a message of {@code type} may travel with its body in a shared ring */
    static boolean sharedBodyType(MessageType type) {
        return type == MessageType.COHERENCE || type == MessageType.DIFF || type == MessageType.PUSH;
    }

    /**
     * Writes a whole chunk frame's start at the writer index: length, version, type {@link MessageType#CHUNK}
     * and the chunk header; the caller writes the {@code pieceBytes} bytes of the piece after it.
     */
    static void writeChunkStart(ByteBuf out, MessageType inner, int arrayId, int partition, long total, long offset,
                                int pieceBytes) {
        out.writeInt(HEADER_BYTES + CHUNK_HEADER_BYTES + pieceBytes);
        out.writeByte(VERSION);
        out.writeByte(MessageType.CHUNK.code());
        out.writeByte(inner.code());
        out.writeInt(arrayId);
        out.writeInt(partition);
        out.writeLong(total);
        out.writeLong(offset);
    }

    /**
     * A chunk's header.
     *
     * @param inner the chunked message's type (never a handshake type or CHUNK)
     * @param total bytes of the chunked message's body
     * @param offset where this chunk's piece starts in that body
     */
    record ChunkHeader(MessageType inner, int arrayId, int partition, long total, long offset) {
        /** @return whether {@code other} belongs to the same message as this chunk (same type, ids and total) */
        boolean sameMessage(ChunkHeader other) {
            return inner == other.inner && arrayId == other.arrayId && partition == other.partition && total == other.total;
        }

        String describe() {
            return inner == MessageType.COHERENCE ? "COHERENCE message of array " + arrayId + " partition " + partition
                    : inner + " message";
        }
    }

    /**
     * Reads a chunk's header from a CHUNK body (the piece follows it).
     *
     * @throws CorruptedFrameException when the inner type is unknown, a handshake type or CHUNK,
     *         the ids do not fit the inner type, or total and offset are out of range
     */
    static ChunkHeader readChunkHeader(ByteBuf body) {
        int code = body.readUnsignedByte();
        MessageType inner = MessageType.fromCode(code);
        if (inner == null || inner.handshake() || inner.messageClass() == null) {
            throw new CorruptedFrameException("chunk of message type code " + code
                    + (inner == null ? " (unknown)" : " (" + inner + ")") + ", expected a message type after the handshake");
        }
        ChunkHeader h = new ChunkHeader(inner, body.readInt(), body.readInt(), body.readLong(), body.readLong());
        if (inner != MessageType.COHERENCE && (h.arrayId() != NO_PARTITION || h.partition() != NO_PARTITION)) {
            throw new CorruptedFrameException("chunk of a " + inner + " message names array " + h.arrayId() + " partition "
                    + h.partition() + ", expected " + NO_PARTITION + " for both");
        }
        long min = inner == MessageType.COHERENCE ? COHERENCE_HEAD_BYTES : 1;
        long max = inner == MessageType.COHERENCE ? COHERENCE_HEAD_BYTES + (long) MAX_CHUNKED_BODY_BYTES : MAX_CHUNKED_BODY_BYTES;
        if (h.total() < min || h.total() > max) {
            throw new CorruptedFrameException("chunked " + h.describe() + " of " + h.total() + " bytes out of range ["
                    + min + ", " + max + "]");
        }
        if (h.offset() < 0 || h.offset() >= h.total()) {
            throw new CorruptedFrameException("chunk at offset " + h.offset() + " of a " + h.describe() + " of " + h.total()
                    + " bytes, expected [0, " + h.total() + ")");
        }
        return h;
    }
}
