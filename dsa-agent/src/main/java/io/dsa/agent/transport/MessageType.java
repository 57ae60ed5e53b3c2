package io.dsa.agent.transport;

import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AccumulateMessage;
import io.dsa.agent.wire.AccumulatedMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AgentStatusMessage;
import io.dsa.agent.wire.AgentStatusQueryMessage;
import io.dsa.agent.wire.AllocateCloneIdMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.BuddyCopyMessage;
import io.dsa.agent.wire.CloneIdMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.CountersQueryMessage;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.JarQueryMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LaneOfferMessage;
import io.dsa.agent.wire.LaneRequestMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.PushMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.RetireMessage;
import io.dsa.agent.wire.SnapshotMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.StopVmMessage;
import io.dsa.agent.wire.TransferMessage;
import io.dsa.agent.wire.TransferReportMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.agent.wire.WorkersQueryMessage;
import io.dsa.coherence.CoherenceMessage;

import java.util.HashMap;
import java.util.Map;

/**
 * The message type code of every frame: one code per message class. The constructor checks that
 * codes are in range and unique, so a duplicated code fails at class initialisation rather than
 * on the wire. Handshake types are only legal before a connection is authenticated; the others
 * only after. {@link #CHUNK} and {@link #SHARED} have no message class: one carries a piece of a
 * message of another type, the other says where such a message's body lies.
 */
enum MessageType {
    CHALLENGE(1, ChallengeMessage.class, true),
    HELLO(2, HelloMessage.class, true),
    WELCOME(3, WelcomeMessage.class, true),
    REFUSE(4, RefuseMessage.class, true),
    /** Transport liveness, after authentication; consumed by {@link HeartbeatHandler}. */
    HEARTBEAT(5, HeartbeatMessage.class, false),
    /** A {@link SharedRing} offered to a peer on the same machine; consumed by the {@link ConnectionHandler}. */
    SHARED_RING_OFFER(6, SharedRingOffer.class, false),
    /** The answer to a {@link #SHARED_RING_OFFER}; consumed by the {@link ConnectionHandler}. */
    SHARED_RING_ANSWER(7, SharedRingAnswer.class, false),

    JOIN(10, JoinMessage.class, false),
    VIEW(11, ViewMessage.class, false),
    REGISTER(12, RegisterMessage.class, false),
    REGISTERED(13, RegisteredMessage.class, false),
    DEFINE(14, DefineMessage.class, false),
    VAR_OP(15, VarOpMessage.class, false),
    VAR_RESULT(16, VarResultMessage.class, false),
    BARRIER_ARRIVE(17, BarrierArriveMessage.class, false),
    BARRIER_RELEASE(18, BarrierReleaseMessage.class, false),
    LOCK(19, LockMessage.class, false),
    REPORT(20, ReportMessage.class, false),
    STATUS(21, StatusMessage.class, false),
    ACCUMULATE(24, AccumulateMessage.class, false),
    ACCUMULATED(25, AccumulatedMessage.class, false),
    DIFF(26, DiffMessage.class, false),
    DIFF_APPLIED(27, DiffAppliedMessage.class, false),
    BUDDY_COPY(28, BuddyCopyMessage.class, false),
    LANE_REQUEST(29, LaneRequestMessage.class, false),
    LANE_OFFER(30, LaneOfferMessage.class, false),

    COHERENCE(32, CoherenceMessage.class, false),
    /** Not a message of its own: one chunk of a large message ({@link WireFormat}, "Chunks"). */
    CHUNK(33, null, false),
    PUSH(34, PushMessage.class, false),
    /**
     * Not a message of its own: a COHERENCE, DIFF or PUSH message whose body lies in the
     * connection's {@link SharedRing} ({@link WireFormat}, "Shared bodies").
     */
    SHARED(35, null, false),

    HOST_JOB(64, HostJobMessage.class, false),
    HOST_JOB_EVENT(65, HostJobEventMessage.class, false),
    // 66 was HOST_REQUEST (an op code and a text target): now one record per operation, 91..94
    HOST_REPLY(67, HostReplyMessage.class, false),
    TRANSFER(68, TransferMessage.class, false),
    NODE_REQUEST(69, NodeRequestMessage.class, false),
    HOST_STATUS(88, HostStatusMessage.class, false),
    ELEMENTS(89, ElementsMessage.class, false),
    TRANSFER_REPORT(90, TransferReportMessage.class, false),
    HOST_STATUS_QUERY(91, HostStatusQueryMessage.class, false),
    STOP_VM(92, StopVmMessage.class, false),
    WORKERS_QUERY(93, WorkersQueryMessage.class, false),
    COUNTERS_QUERY(94, CountersQueryMessage.class, false),

    // a host and the child JVM that runs one of its agents (supervision)
    AGENT_LAUNCH(70, AgentLaunchMessage.class, false),
    AGENT_RESTORE(71, AgentRestoreMessage.class, false),
    CONNECT_PEERS(72, ConnectPeersMessage.class, false),
    AGENT_RESUME(73, AgentResumeMessage.class, false),
    AGENT_STARTED(74, AgentStartedMessage.class, false),
    AGENT_STATUS_QUERY(75, AgentStatusQueryMessage.class, false),
    AGENT_STATUS(76, AgentStatusMessage.class, false),
    HOLD_BARRIER(77, HoldBarrierMessage.class, false),
    RELEASE_BARRIER(78, ReleaseBarrierMessage.class, false),
    EXPECT_MOVE(79, ExpectMoveMessage.class, false),
    AWAIT_MOVE(80, AwaitMoveMessage.class, false),
    COMMIT_MOVE(81, CommitMoveMessage.class, false),
    ABANDON_MOVE(82, AbandonMoveMessage.class, false),
    ADMIT_CLONE(83, AdmitCloneMessage.class, false),
    REGISTER_CLONE(84, RegisterCloneMessage.class, false),
    READ_ARRAY(85, ReadArrayMessage.class, false),
    SNAPSHOT(86, SnapshotMessage.class, false),
    RETIRE(87, RetireMessage.class, false),
    ALLOCATE_CLONE_ID(95, AllocateCloneIdMessage.class, false),
    CLONE_ID(96, CloneIdMessage.class, false),
    JAR_QUERY(97, JarQueryMessage.class, false);

    /** Codes fit the frame's uint8 type field. */
    static final int MAX_CODE = 255;

    private static final MessageType[] BY_CODE = new MessageType[MAX_CODE + 1];
    private static final Map<Class<?>, MessageType> BY_CLASS = new HashMap<>();

    static {
        for (MessageType type : values()) {
            if (BY_CODE[type.code] != null) {
                throw new IllegalStateException("duplicate message type code " + type.code + ": "
                        + BY_CODE[type.code] + ", " + type);
            }
            BY_CODE[type.code] = type;
            if (type.messageClass != null && BY_CLASS.put(type.messageClass, type) != null) {
                throw new IllegalStateException("message class " + type.messageClass.getName()
                        + " has two type codes");
            }
        }
    }

    private final int code;
    private final Class<?> messageClass;
    private final boolean handshake;

    MessageType(int code, Class<?> messageClass, boolean handshake) {
        if (code <= 0 || code > MAX_CODE) {
            throw new IllegalArgumentException("message type code " + code + " out of range [1, " + MAX_CODE + "]");
        }
        this.code = code;
        this.messageClass = messageClass;
        this.handshake = handshake;
    }

    /** @return the wire code, in {@code [1, 255]} */
    int code() { return code; }

    /** @return whether this type belongs to the handshake (legal only before authentication) */
    boolean handshake() { return handshake; }

    /** @return the record class this type carries; null for {@link #CHUNK} and {@link #SHARED} */
    Class<?> messageClass() { return messageClass; }

    /** @return the type with wire code {@code code}, or {@code null} if none */
    static MessageType fromCode(int code) {
        return code > 0 && code <= MAX_CODE ? BY_CODE[code] : null;
    }

    /** @return the type of {@code message}, or {@code null} when the wire does not know its class */
    static MessageType of(Object message) {
        return message == null ? null : BY_CLASS.get(message.getClass());
    }
}
