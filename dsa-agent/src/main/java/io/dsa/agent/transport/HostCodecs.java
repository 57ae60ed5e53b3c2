package io.dsa.agent.transport;

import static io.dsa.agent.transport.WireFields.readBoolean;
import static io.dsa.agent.transport.WireFields.readBytes;
import static io.dsa.agent.transport.WireFields.readCount;
import static io.dsa.agent.transport.WireFields.readLongs;
import static io.dsa.agent.transport.WireFields.readPresentString;
import static io.dsa.agent.transport.WireFields.readPresentStrings;
import static io.dsa.agent.transport.WireFields.readString;
import static io.dsa.agent.transport.WireFields.readStrings;
import static io.dsa.agent.transport.WireFields.writeBytes;
import static io.dsa.agent.transport.WireFields.writeLongs;
import static io.dsa.agent.transport.WireFields.writeString;
import static io.dsa.agent.transport.WireFields.writeStrings;

import io.dsa.ElementType;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AgentRow;
import io.dsa.agent.wire.CountersQueryMessage;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.JarQueryMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.StopVmMessage;
import io.dsa.agent.wire.TransferMessage;
import io.dsa.agent.wire.TransferReportMessage;
import io.dsa.agent.wire.WorkersQueryMessage;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.EnumSet;
import java.util.Set;

/**
 * The codecs of the messages between launchers and hosts, and between hosts (codes 64, 65, 67..69, 88..94): jobs and their events, requests and replies, agent transfers; encode beside decode.
 */
final class HostCodecs {
    private HostCodecs() {}

    /** The steps a {@link NodeRequestMessage} may carry. */
    static final Set<MessageType> NODE_STEPS = EnumSet.of(MessageType.HOLD_BARRIER, MessageType.RELEASE_BARRIER,
            MessageType.EXPECT_MOVE, MessageType.AWAIT_MOVE, MessageType.COMMIT_MOVE, MessageType.ABANDON_MOVE,
            MessageType.ADMIT_CLONE, MessageType.REGISTER_CLONE, MessageType.READ_ARRAY, MessageType.ALLOCATE_CLONE_ID);

    /** Bytes of an {@link AgentRow} at the least: five string lengths and four int32. */
    private static final int MIN_ROW_BYTES = 5 * Integer.BYTES + 4 * Integer.BYTES;

    static final MessageCodec<HostJobMessage> HOST_JOB = MessageCodec.of((m, out) -> {
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
    }, body -> new HostJobMessage(body.readLong(), readString(body, "vmName"), body.readInt(), body.readInt(),
            body.readInt(), readString(body, "monitorAddress"), readString(body, "programClass"), readStrings(body, "args"),
            readStrings(body, "options"), readBytes(body, "jar"), body.readLong(), body.readInt()));

    static final MessageCodec<HostJobEventMessage> HOST_JOB_EVENT = MessageCodec.of((m, out) -> {
        out.writeLong(m.jobId());
        out.writeInt(m.nodeId());
        out.writeInt(m.event());
        writeString(m.text(), out);
        writeStrings(m.lines(), out);
        writeLongs(m.timings(), out);
    }, body -> new HostJobEventMessage(body.readLong(), body.readInt(), body.readInt(), readString(body, "text"),
            readStrings(body, "lines"), readLongs(body, "timings")));

    static final MessageCodec<HostStatusQueryMessage> HOST_STATUS_QUERY = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.vmName(), out);
    }, body -> new HostStatusQueryMessage(body.readLong(), readString(body, "vmName")));

    static final MessageCodec<StopVmMessage> STOP_VM = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.vmName(), out);
        writeString(m.stopToken(), out);
        writeLongs(m.keep(), out);
    }, body -> new StopVmMessage(body.readLong(), readString(body, "vmName"), readString(body, "stopToken"), readLongs(body, "keep")));

    static final MessageCodec<JarQueryMessage> JAR_QUERY = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeBytes(m.digest(), out);
    }, body -> new JarQueryMessage(body.readLong(), readBytes(body, "digest")));

    static final MessageCodec<WorkersQueryMessage> WORKERS_QUERY = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.vmName(), out);
    }, body -> new WorkersQueryMessage(body.readLong(), readString(body, "vmName")));

    static final MessageCodec<CountersQueryMessage> COUNTERS_QUERY = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.vmName(), out);
    }, body -> new CountersQueryMessage(body.readLong(), readString(body, "vmName")));

    static final MessageCodec<HostReplyMessage> HOST_REPLY = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeBoolean(m.ok());
        writeString(m.text(), out);
        writeStrings(m.rows(), out);
        writeBytes(m.payload(), out);
    }, body -> new HostReplyMessage(body.readLong(), readBoolean(body, "ok"), readString(body, "text"),
            readStrings(body, "rows"), readBytes(body, "payload")));

    static final MessageCodec<TransferMessage> TRANSFER = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.op());
        writeString(m.agentId(), out);
        writeString(m.fromMonitor(), out);
        writeStrings(m.vmHosts(), out);
        out.writeBoolean(m.cloning());
        out.writeInt(m.cloneId());
    }, body -> new TransferMessage(body.readLong(), body.readInt(), readString(body, "agentId"),
            readString(body, "fromMonitor"), readPresentStrings(body, "vmHosts"), readBoolean(body, "cloning"), body.readInt()));

    static final MessageCodec<TransferReportMessage> TRANSFER_REPORT = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.agentId(), out);
        writeString(m.fromMonitor(), out);
        writeString(m.toMonitor(), out);
        out.writeLong(m.pauseNanos());
        out.writeLong(m.bytes());
    }, body -> new TransferReportMessage(body.readLong(), readString(body, "agentId"), readString(body, "fromMonitor"),
            readString(body, "toMonitor"), body.readLong(), body.readLong()));

    /** vmName, nodeId, the step's type code, then the step's body as its own frame would carry it. */
    static final MessageCodec<NodeRequestMessage> NODE_REQUEST = new MessageCodec<>() {
        @Override
        public void write(NodeRequestMessage m, ByteBuf out) {
            MessageType step = MessageType.of(m.step());
            if (!NODE_STEPS.contains(step)) {
                throw new IllegalArgumentException("node request step " + m.step().getClass().getSimpleName()
                        + ", expected one of " + NODE_STEPS);
            }
            writeString(m.vmName(), out);
            out.writeInt(m.nodeId());
            out.writeByte(step.code());
            MessageCodecs.of(step).write(m.step(), out);
        }

        @Override
        public NodeRequestMessage read(ByteBuf body, PartitionBuffers buffers) {
            String vm = readPresentString(body, "vmName");
            int node = body.readInt();
            int code = body.readUnsignedByte();
            MessageType step = MessageType.fromCode(code);
            if (step == null || !NODE_STEPS.contains(step)) {
                throw new CorruptedFrameException("node request step type code " + code
                        + (step == null ? " (unknown)" : " (" + step + ")") + ", expected one of " + NODE_STEPS);
            }
            return new NodeRequestMessage(vm, node, (AgentControlMessage) MessageCodecs.of(step).read(body, buffers));
        }
    };

    static final MessageCodec<HostStatusMessage> HOST_STATUS = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.rows().size());
        for (AgentRow r : m.rows()) {
            writeString(r.vm(), out);
            out.writeInt(r.node());
            writeString(r.host(), out);
            writeString(r.agent(), out);
            writeString(r.state(), out);
            writeString(r.program(), out);
            out.writeInt(r.homed());
            out.writeInt(r.cached());
            out.writeInt(r.nodes());
        }
    }, body -> {
        long id = body.readLong();
        int count = readCount(body, "rows", MIN_ROW_BYTES);
        if (count < 0) throw new CorruptedFrameException("rows absent (count -1), expected a list");
        AgentRow[] rows = new AgentRow[count];
        for (int i = 0; i < count; i++) {
            rows[i] = new AgentRow(readPresentString(body, "vm"), body.readInt(), readPresentString(body, "host"),
                    readPresentString(body, "agent"), readPresentString(body, "state"), readPresentString(body, "program"),
                    body.readInt(), body.readInt(), body.readInt());
        }
        return new HostStatusMessage(id, java.util.Arrays.asList(rows));
    });

    static final MessageCodec<ElementsMessage> ELEMENTS = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeLong(m.from());
        out.writeByte(m.elementType());
        writeLongs(m.bits(), out);
    }, body -> {
        long id = body.readLong();
        long from = body.readLong();
        if (from < 0) throw new CorruptedFrameException("elements from index " + from + ", expected >= 0");
        int type = body.readUnsignedByte();
        if (type >= ElementType.values().length) {
            throw new CorruptedFrameException("element type " + type + " out of range [0, " + ElementType.values().length + ")");
        }
        long[] bits = readLongs(body, "elements");
        if (bits == null) throw new CorruptedFrameException("elements absent (count -1), expected an array");
        return new ElementsMessage(id, from, type, bits);
    });
}
