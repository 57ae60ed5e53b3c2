package io.dsa.agent.transport;

import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AccumulateMessage;
import io.dsa.agent.wire.AccumulatedMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AgentStatusMessage;
import io.dsa.agent.wire.AgentStatusQueryMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.RetireMessage;
import io.dsa.agent.wire.SnapshotMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostRequestMessage;
import io.dsa.agent.wire.TransferMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

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
 * |  tag: 16 bytes, GCM tag (ENCRYPT) or                          |
 * |  HMAC-SHA256(key, seq | header | frame)[0..16) (MAC)          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The record's sequence number {@code seq} (int64, per direction, from 0 for each key) is never
 * sent: it makes the GCM nonce ({@code iv XOR seq}) or enters the MAC.
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
 * The supervision messages between a host and its agents' JVMs (codes 70..87, records
 * implementing {@link AgentControlMessage} and their answers) follow the same rules; the ones that
 * carry only a request id are an int64.
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
 * <p>Stateless and thread-safe. Encoding and decoding do not allocate beyond the decoded values.
 */
final class WireFormat {
    /** The protocol version this build speaks: 2 since the handshake agrees on keys and frames travel in records. */
    static final int VERSION = 2;
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

    /** @return a good initial buffer size for {@code message}'s frame: exact for payload-carrying types */
    static int sizeHint(MessageType type, Object message) {
        if (type == MessageType.COHERENCE) {
            byte[] data = ((CoherenceMessage) message).data();
            return PREFIX_BYTES + COHERENCE_HEAD_BYTES + (data == null ? 0 : data.length);
        }
        return DEFAULT_SIZE_HINT;
    }

    private static void writeBody(MessageType type, Object message, ByteBuf out) {
        switch (type) {
            case CHALLENGE -> {
                ChallengeMessage m = (ChallengeMessage) message;
                out.writeInt(m.version());
                out.writeByte(m.security().code());
                writeBytes(m.nonce(), out);
            }
            case HELLO -> {
                HelloMessage m = (HelloMessage) message;
                out.writeInt(m.version());
                writeString(m.vmName(), out);
                out.writeInt(m.nodeId());
                out.writeByte(m.security().code());
                writeBytes(m.nonce(), out);
                writeBytes(m.keyShare(), out);
                writeBytes(m.mac(), out);
            }
            case WELCOME -> {
                WelcomeMessage m = (WelcomeMessage) message;
                out.writeInt(m.nodeId());
                writeBytes(m.keyShare(), out);
                writeBytes(m.mac(), out);
            }
            case REFUSE -> writeString(((RefuseMessage) message).reason(), out);
            case HEARTBEAT -> out.writeInt(((HeartbeatMessage) message).intervalMs());
            case JOIN -> {
                JoinMessage m = (JoinMessage) message;
                out.writeInt(m.nodeId());
                writeString(m.host(), out);
                out.writeInt(m.port());
            }
            case VIEW -> {
                ViewMessage m = (ViewMessage) message;
                out.writeInt(m.threadsPerNode());
                writeStrings(m.addresses(), out);
            }
            case REGISTER -> {
                RegisterMessage m = (RegisterMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.kind());
                writeString(m.name(), out);
                writeLongs(m.params(), out);
            }
            case REGISTERED -> {
                RegisteredMessage m = (RegisteredMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.objectId());
                out.writeInt(m.home());
                writeString(m.error(), out);
            }
            case DEFINE -> {
                DefineMessage m = (DefineMessage) message;
                out.writeInt(m.kind());
                out.writeInt(m.objectId());
                out.writeInt(m.home());
                writeString(m.name(), out);
                writeLongs(m.params(), out);
            }
            case VAR_OP -> {
                VarOpMessage m = (VarOpMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.varId());
                out.writeInt(m.op());
                out.writeLong(m.a());
                out.writeLong(m.b());
            }
            case VAR_RESULT -> {
                VarResultMessage m = (VarResultMessage) message;
                out.writeLong(m.requestId());
                out.writeLong(m.value());
                out.writeBoolean(m.success());
            }
            case ACCUMULATE -> {
                AccumulateMessage m = (AccumulateMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.arrayId());
                out.writeInt(m.partition());
                out.writeInt(m.op());
                out.writeInt(m.base());
                out.writeInt(m.rows());
                out.writeInt(m.cols());
                writeBytes(m.values(), out);
            }
            case ACCUMULATED -> {
                AccumulatedMessage m = (AccumulatedMessage) message;
                out.writeLong(m.requestId());
                writeString(m.error(), out);
            }
            case DIFF -> {
                DiffMessage m = (DiffMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.arrayId());
                out.writeInt(m.partition());
                writeLongs(m.runs(), out);
                writeBytes(m.values(), out);
            }
            case DIFF_APPLIED -> {
                DiffAppliedMessage m = (DiffAppliedMessage) message;
                out.writeLong(m.requestId());
                writeString(m.error(), out);
            }
            case BARRIER_ARRIVE -> {
                BarrierArriveMessage m = (BarrierArriveMessage) message;
                out.writeInt(m.barrierId());
                out.writeLong(m.generation());
                out.writeInt(m.node());
                out.writeInt(m.arrivals());
                writeLongs(m.values(), out);
            }
            case BARRIER_RELEASE -> {
                BarrierReleaseMessage m = (BarrierReleaseMessage) message;
                out.writeInt(m.barrierId());
                out.writeLong(m.generation());
                writeLongs(m.values(), out);
            }
            case LOCK -> {
                LockMessage m = (LockMessage) message;
                out.writeInt(m.lockId());
                out.writeInt(m.op());
                out.writeInt(m.node());
                out.writeLong(m.requestId());
            }
            case REPORT -> {
                ReportMessage m = (ReportMessage) message;
                out.writeInt(m.node());
                writeString(m.text(), out);
            }
            case STATUS -> {
                StatusMessage m = (StatusMessage) message;
                out.writeInt(m.node());
                out.writeInt(m.code());
                writeString(m.text(), out);
            }
            case HOST_JOB -> {
                HostJobMessage m = (HostJobMessage) message;
                out.writeLong(m.jobId());
                writeString(m.vmName(), out);
                out.writeInt(m.nodeId());
                out.writeInt(m.nodes());
                out.writeInt(m.threadsPerNode());
                writeString(m.monitorAddress(), out);
                writeString(m.programClass(), out);
                writeStrings(m.args(), out);
                writeStrings(m.options(), out);
                writeBytes(m.jar(), out);
                out.writeLong(m.heapBytes());
                out.writeInt(m.cpus());
            }
            case HOST_JOB_EVENT -> {
                HostJobEventMessage m = (HostJobEventMessage) message;
                out.writeLong(m.jobId());
                out.writeInt(m.nodeId());
                out.writeInt(m.event());
                writeString(m.text(), out);
                writeStrings(m.lines(), out);
                writeLongs(m.timings(), out);
            }
            case HOST_REQUEST -> {
                HostRequestMessage m = (HostRequestMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.op());
                writeString(m.vmName(), out);
                out.writeInt(m.nodeId());
                writeString(m.target(), out);
            }
            case HOST_REPLY -> {
                HostReplyMessage m = (HostReplyMessage) message;
                out.writeLong(m.requestId());
                out.writeBoolean(m.ok());
                writeString(m.text(), out);
                writeStrings(m.rows(), out);
                writeBytes(m.payload(), out);
            }
            case TRANSFER -> {
                TransferMessage m = (TransferMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.op());
                writeString(m.agentId(), out);
                writeString(m.fromMonitor(), out);
                writeBytes(m.payload(), out);
            }
            // supervision: requests that carry only their id share one layout
            case CONNECT_PEERS, AGENT_RESUME, HOLD_BARRIER, RELEASE_BARRIER, RETIRE ->
                    out.writeLong(((AgentControlMessage) message).requestId());
            case AGENT_LAUNCH -> {
                AgentLaunchMessage m = (AgentLaunchMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.mode());
                writeString(m.vmName(), out);
                out.writeInt(m.nodeId());
                out.writeInt(m.nodes());
                out.writeInt(m.threadsPerNode());
                writeString(m.monitorAddress(), out);
                writeString(m.bindHost(), out);
                writeString(m.programClass(), out);
                writeStrings(m.args(), out);
                writeStrings(m.options(), out);
                writeString(m.jarPath(), out);
            }
            case AGENT_RESTORE -> {
                AgentRestoreMessage m = (AgentRestoreMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.cloneId());
                writeBytes(m.state(), out);
            }
            case AGENT_STARTED -> {
                AgentStartedMessage m = (AgentStartedMessage) message;
                out.writeLong(m.requestId());
                writeString(m.address(), out);
                out.writeBoolean(m.resumable());
            }
            case AGENT_STATUS -> {
                AgentStatusMessage m = (AgentStatusMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.homed());
                out.writeInt(m.cached());
                writeStrings(m.rows(), out);
            }
            case AGENT_STATUS_QUERY -> {
                AgentStatusQueryMessage m = (AgentStatusQueryMessage) message;
                out.writeLong(m.requestId());
                out.writeInt(m.detail());
            }
            case EXPECT_MOVE -> writeIdAndInt(((ExpectMoveMessage) message).requestId(), ((ExpectMoveMessage) message).movingNode(), out);
            case AWAIT_MOVE -> writeIdAndInt(((AwaitMoveMessage) message).requestId(), ((AwaitMoveMessage) message).movingNode(), out);
            case ABANDON_MOVE -> writeIdAndInt(((AbandonMoveMessage) message).requestId(), ((AbandonMoveMessage) message).movingNode(), out);
            case ADMIT_CLONE -> writeIdAndInt(((AdmitCloneMessage) message).requestId(), ((AdmitCloneMessage) message).cloneId(), out);
            case SNAPSHOT -> writeIdAndInt(((SnapshotMessage) message).requestId(), ((SnapshotMessage) message).cloneId(), out);
            case COMMIT_MOVE -> {
                CommitMoveMessage m = (CommitMoveMessage) message;
                writeIdAndInt(m.requestId(), m.movingNode(), out);
                writeString(m.address(), out);
            }
            case REGISTER_CLONE -> {
                RegisterCloneMessage m = (RegisterCloneMessage) message;
                writeIdAndInt(m.requestId(), m.cloneId(), out);
                writeLongs(m.partitions(), out);
            }
            case READ_ARRAY -> {
                ReadArrayMessage m = (ReadArrayMessage) message;
                out.writeLong(m.requestId());
                writeString(m.name(), out);
                out.writeLong(m.from());
                out.writeLong(m.count());
            }
            case COHERENCE -> {
                CoherenceMessage m = (CoherenceMessage) message;
                writeCoherenceHead(m, out);
                if (m.data() != null) out.writeBytes(m.data()); // the payload's one copy
            }
            default -> throw new IllegalArgumentException("no body layout for " + type);
        }
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
        return switch (type) {
            case CHALLENGE -> new ChallengeMessage(body.readInt(), readSecurity(body), readBytes(body, "nonce"));
            case HELLO -> new HelloMessage(body.readInt(), readString(body, "vmName"), body.readInt(), readSecurity(body),
                    readBytes(body, "nonce"), readBytes(body, "keyShare"), readBytes(body, "mac"));
            case WELCOME -> new WelcomeMessage(body.readInt(), readBytes(body, "keyShare"), readBytes(body, "mac"));
            case REFUSE -> new RefuseMessage(readString(body, "reason"));
            case HEARTBEAT -> new HeartbeatMessage(readHeartbeatInterval(body));
            case JOIN -> new JoinMessage(body.readInt(), readString(body, "host"), body.readInt());
            case VIEW -> new ViewMessage(body.readInt(), readStrings(body, "addresses"));
            case REGISTER -> new RegisterMessage(body.readLong(), body.readInt(), readString(body, "name"),
                    readLongs(body, "params"));
            case REGISTERED -> new RegisteredMessage(body.readLong(), body.readInt(), body.readInt(),
                    readString(body, "error"));
            case DEFINE -> new DefineMessage(body.readInt(), body.readInt(), body.readInt(),
                    readString(body, "name"), readLongs(body, "params"));
            case VAR_OP -> new VarOpMessage(body.readLong(), body.readInt(), body.readInt(), body.readLong(),
                    body.readLong());
            case VAR_RESULT -> new VarResultMessage(body.readLong(), body.readLong(), readBoolean(body, "success"));
            case ACCUMULATE -> new AccumulateMessage(body.readLong(), body.readInt(), body.readInt(), body.readInt(),
                    body.readInt(), body.readInt(), body.readInt(), readBytes(body, "values"));
            case ACCUMULATED -> new AccumulatedMessage(body.readLong(), readString(body, "error"));
            case DIFF -> new DiffMessage(body.readLong(), body.readInt(), body.readInt(), readLongs(body, "runs"),
                    readBytes(body, "values"));
            case DIFF_APPLIED -> new DiffAppliedMessage(body.readLong(), readString(body, "error"));
            case BARRIER_ARRIVE -> new BarrierArriveMessage(body.readInt(), body.readLong(), body.readInt(),
                    body.readInt(), readLongs(body, "values"));
            case BARRIER_RELEASE -> new BarrierReleaseMessage(body.readInt(), body.readLong(),
                    readLongs(body, "values"));
            case LOCK -> new LockMessage(body.readInt(), body.readInt(), body.readInt(), body.readLong());
            case REPORT -> new ReportMessage(body.readInt(), readString(body, "text"));
            case STATUS -> new StatusMessage(body.readInt(), body.readInt(), readString(body, "text"));
            case HOST_JOB -> new HostJobMessage(body.readLong(), readString(body, "vmName"), body.readInt(),
                    body.readInt(), body.readInt(), readString(body, "monitorAddress"), readString(body, "programClass"),
                    readStrings(body, "args"), readStrings(body, "options"), readBytes(body, "jar"), body.readLong(),
                    body.readInt());
            case HOST_JOB_EVENT -> new HostJobEventMessage(body.readLong(), body.readInt(), body.readInt(),
                    readString(body, "text"), readStrings(body, "lines"), readLongs(body, "timings"));
            case HOST_REQUEST -> new HostRequestMessage(body.readLong(), body.readInt(), readString(body, "vmName"),
                    body.readInt(), readString(body, "target"));
            case HOST_REPLY -> new HostReplyMessage(body.readLong(), readBoolean(body, "ok"), readString(body, "text"),
                    readStrings(body, "rows"), readBytes(body, "payload"));
            case TRANSFER -> new TransferMessage(body.readLong(), body.readInt(), readString(body, "agentId"),
                    readString(body, "fromMonitor"), readBytes(body, "payload"));
            case AGENT_LAUNCH -> new AgentLaunchMessage(body.readLong(), body.readInt(), readString(body, "vmName"),
                    body.readInt(), body.readInt(), body.readInt(), readString(body, "monitorAddress"),
                    readString(body, "bindHost"), readString(body, "programClass"), readStrings(body, "args"),
                    readStrings(body, "options"), readString(body, "jarPath"));
            case AGENT_RESTORE -> new AgentRestoreMessage(body.readLong(), body.readInt(), readBytes(body, "state"));
            case CONNECT_PEERS -> new ConnectPeersMessage(body.readLong());
            case AGENT_RESUME -> new AgentResumeMessage(body.readLong());
            case AGENT_STARTED -> new AgentStartedMessage(body.readLong(), readString(body, "address"),
                    readBoolean(body, "resumable"));
            case AGENT_STATUS_QUERY -> new AgentStatusQueryMessage(body.readLong(), body.readInt());
            case AGENT_STATUS -> new AgentStatusMessage(body.readLong(), body.readInt(), body.readInt(),
                    readPresentStrings(body, "rows"));
            case HOLD_BARRIER -> new HoldBarrierMessage(body.readLong());
            case RELEASE_BARRIER -> new ReleaseBarrierMessage(body.readLong());
            case EXPECT_MOVE -> new ExpectMoveMessage(body.readLong(), body.readInt());
            case AWAIT_MOVE -> new AwaitMoveMessage(body.readLong(), body.readInt());
            case COMMIT_MOVE -> new CommitMoveMessage(body.readLong(), body.readInt(), readString(body, "address"));
            case ABANDON_MOVE -> new AbandonMoveMessage(body.readLong(), body.readInt());
            case ADMIT_CLONE -> new AdmitCloneMessage(body.readLong(), body.readInt());
            case REGISTER_CLONE -> new RegisterCloneMessage(body.readLong(), body.readInt(), readLongs(body, "partitions"));
            case READ_ARRAY -> new ReadArrayMessage(body.readLong(), readString(body, "name"), body.readLong(), body.readLong());
            case SNAPSHOT -> new SnapshotMessage(body.readLong(), body.readInt());
            case RETIRE -> new RetireMessage(body.readLong());
            case COHERENCE -> readCoherence(body, buffers);
            case CHUNK -> throw new IllegalArgumentException("a CHUNK frame is one piece of a message: see ChunkAssembler");
        };
    }

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
        if (inner == null || inner.handshake() || inner == MessageType.CHUNK) {
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

    // ---- field primitives

    private static void writeIdAndInt(long requestId, int value, ByteBuf out) {
        out.writeLong(requestId);
        out.writeInt(value);
    }

    static void writeString(String s, ByteBuf out) {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        int bytes = out.writeCharSequence(s, StandardCharsets.UTF_8);
        out.setInt(lengthIndex, bytes);
    }

    static String readString(ByteBuf in, String field) {
        int bytes = readCount(in, field, 1);
        if (bytes < 0) {
            return null;
        }
        String s = in.toString(in.readerIndex(), bytes, StandardCharsets.UTF_8);
        in.skipBytes(bytes);
        return s;
    }

    static void writeStrings(List<String> list, ByteBuf out) {
        if (list == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(list.size());
        for (int i = 0; i < list.size(); i++) {
            writeString(list.get(i), out);
        }
    }

    static List<String> readStrings(ByteBuf in, String field) {
        int count = readCount(in, field, Integer.BYTES);
        if (count < 0) {
            return null;
        }
        String[] strings = new String[count];
        for (int i = 0; i < count; i++) {
            strings[i] = readString(in, field + "[" + i + "]");
        }
        return Arrays.asList(strings);
    }

    /**
     * {@link #readStrings} for a list that is never absent and holds no absent string (a record
     * that copies it refuses nulls).
     *
     * @throws CorruptedFrameException for a count or a string length of -1 (absent)
     */
    static List<String> readPresentStrings(ByteBuf in, String field) {
        List<String> strings = readStrings(in, field);
        if (strings == null) throw new CorruptedFrameException(field + " absent (count -1), expected a list");
        for (int i = 0; i < strings.size(); i++) {
            if (strings.get(i) == null) throw new CorruptedFrameException(field + "[" + i + "] absent (length -1), expected a string");
        }
        return strings;
    }

    static void writeLongs(long[] values, ByteBuf out) {
        if (values == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(values.length);
        for (long v : values) {
            out.writeLong(v);
        }
    }

    static long[] readLongs(ByteBuf in, String field) {
        int count = readCount(in, field, Long.BYTES);
        if (count < 0) {
            return null;
        }
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = in.readLong();
        }
        return values;
    }

    static void writeBytes(byte[] bytes, ByteBuf out) {
        if (bytes == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(bytes.length);
        out.writeBytes(bytes);
    }

    static byte[] readBytes(ByteBuf in, String field) {
        int count = readCount(in, field, 1);
        if (count < 0) {
            return null;
        }
        byte[] bytes = new byte[count];
        in.readBytes(bytes);
        return bytes;
    }

    static TransportSecurity readSecurity(ByteBuf in) {
        int code = in.readUnsignedByte();
        TransportSecurity security = TransportSecurity.fromCode(code);
        if (security == null) {
            throw new CorruptedFrameException("unknown transport security code " + code + ", expected one of "
                    + Arrays.stream(TransportSecurity.values()).map(t -> t.code() + " (" + t + ")").toList());
        }
        return security;
    }

    static boolean readBoolean(ByteBuf in, String field) {
        int b = in.readUnsignedByte();
        if (b > 1) {
            throw new CorruptedFrameException(field + " is " + b + ", expected 0 or 1");
        }
        return b == 1;
    }

    private static int readHeartbeatInterval(ByteBuf body) {
        int ms = body.readInt();
        if (ms < HeartbeatMessage.MIN_INTERVAL_MS || ms > HeartbeatMessage.MAX_INTERVAL_MS) {
            throw new CorruptedFrameException("heartbeat interval " + ms + " ms out of range [" + HeartbeatMessage.MIN_INTERVAL_MS
                    + ", " + HeartbeatMessage.MAX_INTERVAL_MS + "]");
        }
        return ms;
    }

    /**
     * Reads an int32 count of elements of at least {@code minElementBytes} each and checks it
     * against the bytes left, so a forged count cannot make us allocate.
     *
     * @return the count, or -1 for null
     */
    private static int readCount(ByteBuf in, String field, int minElementBytes) {
        int count = in.readInt();
        if (count < -1) {
            throw new CorruptedFrameException(field + " count " + count + " negative, expected >= -1");
        }
        if (count > 0 && (long) count * minElementBytes > in.readableBytes()) {
            throw new CorruptedFrameException(field + " count " + count + " needs at least "
                    + (long) count * minElementBytes + " bytes, " + in.readableBytes() + " left in frame");
        }
        return count;
    }
}
