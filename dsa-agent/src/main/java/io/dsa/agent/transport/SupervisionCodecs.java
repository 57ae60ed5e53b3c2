package io.dsa.agent.transport;

import static io.dsa.agent.transport.WireFields.readBoolean;
import static io.dsa.agent.transport.WireFields.readBytes;
import static io.dsa.agent.transport.WireFields.readLongs;
import static io.dsa.agent.transport.WireFields.readPresentStrings;
import static io.dsa.agent.transport.WireFields.readString;
import static io.dsa.agent.transport.WireFields.readStrings;
import static io.dsa.agent.transport.WireFields.writeBytes;
import static io.dsa.agent.transport.WireFields.writeIdAndInt;
import static io.dsa.agent.transport.WireFields.writeLongs;
import static io.dsa.agent.transport.WireFields.writeString;
import static io.dsa.agent.transport.WireFields.writeStrings;

import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AllocateCloneIdMessage;
import io.dsa.agent.wire.CloneIdMessage;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AgentStatusMessage;
import io.dsa.agent.wire.AgentStatusQueryMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.RetireMessage;
import io.dsa.agent.wire.SnapshotMessage;
import io.netty.buffer.ByteBuf;
import java.util.function.LongFunction;

/**
 * The codecs of the supervision messages between a host and its agents' JVMs (codes 70..87, 95, 96);
 * encode beside decode. The requests that carry only their id are one int64.
 */
final class SupervisionCodecs {
    private SupervisionCodecs() {}

    /** @return the codec of a request that carries only its id */
    private static <M extends AgentControlMessage> MessageCodec<M> idOnly(LongFunction<M> read) {
        return MessageCodec.of((m, out) -> out.writeLong(m.requestId()), (ByteBuf body) -> read.apply(body.readLong()));
    }

    static final MessageCodec<ConnectPeersMessage> CONNECT_PEERS = idOnly(ConnectPeersMessage::new);
    static final MessageCodec<AgentResumeMessage> AGENT_RESUME = idOnly(AgentResumeMessage::new);
    static final MessageCodec<HoldBarrierMessage> HOLD_BARRIER = idOnly(HoldBarrierMessage::new);
    static final MessageCodec<ReleaseBarrierMessage> RELEASE_BARRIER = idOnly(ReleaseBarrierMessage::new);
    static final MessageCodec<RetireMessage> RETIRE = idOnly(RetireMessage::new);
    static final MessageCodec<AllocateCloneIdMessage> ALLOCATE_CLONE_ID = idOnly(AllocateCloneIdMessage::new);

    static final MessageCodec<AgentLaunchMessage> AGENT_LAUNCH = MessageCodec.of((m, out) -> {
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
    }, body -> new AgentLaunchMessage(body.readLong(), body.readInt(), readString(body, "vmName"), body.readInt(),
            body.readInt(), body.readInt(), readString(body, "monitorAddress"), readString(body, "bindHost"),
            readString(body, "programClass"), readStrings(body, "args"), readStrings(body, "options"),
            readString(body, "jarPath")));

    static final MessageCodec<AgentRestoreMessage> AGENT_RESTORE = MessageCodec.of((m, out) -> {
        writeIdAndInt(m.requestId(), m.cloneId(), out);
        writeBytes(m.state(), out);
    }, body -> new AgentRestoreMessage(body.readLong(), body.readInt(), readBytes(body, "state")));

    static final MessageCodec<AgentStartedMessage> AGENT_STARTED = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.address(), out);
        out.writeBoolean(m.resumable());
    }, body -> new AgentStartedMessage(body.readLong(), readString(body, "address"), readBoolean(body, "resumable")));

    static final MessageCodec<AgentStatusQueryMessage> AGENT_STATUS_QUERY = MessageCodec.of(
            (m, out) -> writeIdAndInt(m.requestId(), m.detail(), out),
            body -> new AgentStatusQueryMessage(body.readLong(), body.readInt()));

    static final MessageCodec<AgentStatusMessage> AGENT_STATUS = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.homed());
        out.writeInt(m.cached());
        writeStrings(m.rows(), out);
    }, body -> new AgentStatusMessage(body.readLong(), body.readInt(), body.readInt(), readPresentStrings(body, "rows")));

    static final MessageCodec<ExpectMoveMessage> EXPECT_MOVE = MessageCodec.of(
            (m, out) -> writeIdAndInt(m.requestId(), m.movingNode(), out),
            body -> new ExpectMoveMessage(body.readLong(), body.readInt()));

    static final MessageCodec<AwaitMoveMessage> AWAIT_MOVE = MessageCodec.of(
            (m, out) -> writeIdAndInt(m.requestId(), m.movingNode(), out),
            body -> new AwaitMoveMessage(body.readLong(), body.readInt()));

    static final MessageCodec<CommitMoveMessage> COMMIT_MOVE = MessageCodec.of((m, out) -> {
        writeIdAndInt(m.requestId(), m.movingNode(), out);
        writeString(m.address(), out);
    }, body -> new CommitMoveMessage(body.readLong(), body.readInt(), readString(body, "address")));

    static final MessageCodec<AbandonMoveMessage> ABANDON_MOVE = MessageCodec.of(
            (m, out) -> writeIdAndInt(m.requestId(), m.movingNode(), out),
            body -> new AbandonMoveMessage(body.readLong(), body.readInt()));

    static final MessageCodec<AdmitCloneMessage> ADMIT_CLONE = MessageCodec.of(
            (m, out) -> writeIdAndInt(m.requestId(), m.cloneId(), out),
            body -> new AdmitCloneMessage(body.readLong(), body.readInt()));

    static final MessageCodec<CloneIdMessage> CLONE_ID = MessageCodec.of(
            (m, out) -> writeIdAndInt(m.requestId(), m.cloneId(), out),
            body -> new CloneIdMessage(body.readLong(), body.readInt()));

    static final MessageCodec<RegisterCloneMessage> REGISTER_CLONE = MessageCodec.of((m, out) -> {
        writeIdAndInt(m.requestId(), m.cloneId(), out);
        writeLongs(m.partitions(), out);
    }, body -> new RegisterCloneMessage(body.readLong(), body.readInt(), readLongs(body, "partitions")));

    static final MessageCodec<ReadArrayMessage> READ_ARRAY = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.name(), out);
        out.writeLong(m.from());
        out.writeLong(m.count());
    }, body -> new ReadArrayMessage(body.readLong(), readString(body, "name"), body.readLong(), body.readLong()));

    static final MessageCodec<SnapshotMessage> SNAPSHOT = MessageCodec.of(
            (m, out) -> writeIdAndInt(m.requestId(), m.cloneId(), out),
            body -> new SnapshotMessage(body.readLong(), body.readInt()));
}
