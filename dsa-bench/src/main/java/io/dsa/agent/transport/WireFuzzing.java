package io.dsa.agent.transport;

import io.dsa.agent.AgentState;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AccumulateMessage;
import io.dsa.agent.wire.AccumulatedMessage;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AllocateCloneIdMessage;
import io.dsa.agent.wire.CloneIdMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AgentStatusMessage;
import io.dsa.agent.wire.AgentStatusQueryMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.StopVmMessage;
import io.dsa.agent.wire.WorkersQueryMessage;
import io.dsa.agent.wire.CountersQueryMessage;
import io.dsa.agent.wire.AgentRow;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.TransferReportMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.RetireMessage;
import io.dsa.agent.wire.SnapshotMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.TransferMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.CorruptedFrameException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The fuzz targets' door into the package-private wire format (this class lives in dsa-bench, in
 * the transport's package): real messages of every type for seed corpora, their frames, and a
 * body decode that checks what the format promises.
 */
public final class WireFuzzing {
    /** Buffers for the round trip: plain heap, not tracked by Netty's leak detector (released here). */
    private static final UnpooledByteBufAllocator PLAIN = new UnpooledByteBufAllocator(false, true);

    private WireFuzzing() {}

    /** @return the number of message types; a type index is in {@code [0, typeCount())} */
    public static int typeCount() { return MessageType.values().length; }

    /** @return the name of the type with index {@code index} */
    public static String typeName(int index) { return MessageType.values()[index].name(); }

    /**
     * @return the names of the supervision messages between a host and its job JVMs (codes AGENT_LAUNCH's to RETIRE's,
     *         then ALLOCATE_CLONE_ID and CLONE_ID), in code order
     */
    public static List<String> supervisionTypes() {
        return Arrays.stream(MessageType.values())
                .filter(t -> t.code() >= MessageType.AGENT_LAUNCH.code() && t.code() <= MessageType.RETIRE.code()
                        || t == MessageType.ALLOCATE_CLONE_ID || t == MessageType.CLONE_ID)
                .map(Enum::name).toList();
    }

    /** @return the index of the type named {@code name} */
    public static int typeIndex(String name) { return MessageType.valueOf(name).ordinal(); }

    /**
     * @return one realistic message of every type, in type order (handshake types first). The
     *         switch has no default branch: a message type added to {@link MessageType} fails the
     *         build here until it has a sample, so no type is fuzzed from random bodies only.
     */
    public static List<Object> samples() {
        byte[] nonce = filled(WireFormat.NONCE_BYTES, 0x5a);
        byte[] share = filled(WireFormat.KEY_SHARE_BYTES, 0x2b);
        byte[] mac = filled(WireFormat.NONCE_BYTES, 0x6d);
        byte[] partition = new byte[64];
        for (int i = 0; i < partition.length; i++) partition[i] = (byte) i;
        long[] arrayParams = {0, 64, 64, 16, 16, 0, 0};
        List<Object> all = new ArrayList<>();
        for (MessageType t : MessageType.values()) {
            if (t.messageClass() == null) continue;   // no message of its own: a piece of another's frame, or where its body lies
            all.add(switch (t) {
                case CHUNK -> throw new AssertionError("skipped above");
                case CHALLENGE -> new ChallengeMessage(WireFormat.VERSION, TransportSecurity.ENCRYPT, nonce);
                case HELLO -> new HelloMessage(WireFormat.VERSION, "dsa", 3, TransportSecurity.ENCRYPT, nonce, share, mac);
                case WELCOME -> new WelcomeMessage(0, share, mac);
                case REFUSE -> new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED);
                case HEARTBEAT -> new HeartbeatMessage(1_000);
                case SHARED_RING_OFFER -> new SharedRingOffer("/dev/shm/dsa-lane-1-2-3/ring", 8 << 20, filled(SharedRing.TOKEN_BYTES, 0x3c));
                case SHARED_RING_ANSWER -> new SharedRingAnswer(false, "shared rings are off here");
                case SHARED -> throw new AssertionError("skipped above");
                case JOIN -> new JoinMessage(1, "127.0.0.1", 45678);
                case VIEW -> new ViewMessage(2, List.of("127.0.0.1:45677", "127.0.0.1:45678"));
                case REGISTER -> new RegisterMessage(7, RegisterMessage.ARRAY, "A", arrayParams);
                case REGISTERED -> new RegisteredMessage(7, 3, 1, "");
                case DEFINE -> new DefineMessage(RegisterMessage.ARRAY, 3, 1, "A", arrayParams);
                case VAR_OP -> new VarOpMessage(9, 2, VarOpMessage.GET_AND_ADD, 5, 0);
                case VAR_RESULT -> new VarResultMessage(9, 42, true);
                case ACCUMULATE -> new AccumulateMessage(10, 3, 5, 0, 2, 1, 2, new byte[16]);
                case ACCUMULATED -> new AccumulatedMessage(10, "");
                case DIFF -> new DiffMessage(10, 3, 5, new long[] {DiffMessage.run(0, 1), DiffMessage.run(2, 1)}, new byte[16]);
                case DIFF_APPLIED -> new DiffAppliedMessage(10, "");
                case PUSH -> new io.dsa.agent.wire.PushMessage(10, 3, new long[] {io.dsa.agent.wire.PushMessage.part(5, 16)}, null,
                        new byte[16]);
                case BUDDY_COPY -> new io.dsa.agent.wire.BuddyCopyMessage(100, 1, new byte[] {1, 2, 3});
                case LANE_REQUEST -> new io.dsa.agent.wire.LaneRequestMessage(2);
                case LANE_OFFER -> new io.dsa.agent.wire.LaneOfferMessage("/tmp/dsa-lane-x/l", new byte[32]);
                case BARRIER_ARRIVE -> new BarrierArriveMessage(0, 12, 1, 2, new long[] {3, 4});
                case BARRIER_RELEASE -> new BarrierReleaseMessage(0, 12, new long[] {7});
                case LOCK -> new LockMessage(1, LockMessage.ACQUIRE, 2, 11);
                case REPORT -> new ReportMessage(1, "inner product 1024: ok");
                case STATUS -> new StatusMessage(1, StatusMessage.FAILED, "node 1 failed: boom");
                case COHERENCE -> new CoherenceMessage(CoherenceOp.DATA_S, 3, 5, 1, 2, 2, partition);
                case HOST_JOB -> new HostJobMessage(1, "dsa", 0, 2, 2, "127.0.0.1:45677", "io.dsa.examples.InnerProduct",
                        List.of("1024", "32"), List.of("barrier=TREE", "fanout=4"), "PK\u0003\u0004 jar".getBytes(StandardCharsets.UTF_8),
                        256L << 20, 1);
                case HOST_JOB_EVENT -> new HostJobEventMessage(1, 0, HostJobEventMessage.DONE, "", List.of("result 42"),
                        new long[] {1_000_000, 2_000_000});
                case HOST_STATUS_QUERY -> new HostStatusQueryMessage(5, "dsa");
                case STOP_VM -> new StopVmMessage(5, "dsa", "00112233445566778899aabbccddeeff");
                case WORKERS_QUERY -> new WorkersQueryMessage(5, "dsa");
                case COUNTERS_QUERY -> new CountersQueryMessage(5, null);
                case JAR_QUERY -> new io.dsa.agent.wire.JarQueryMessage(5, filled(32, 0x3c));
                case HOST_REPLY -> new HostReplyMessage(5, true, "",
                        List.of("node 0 thread 1 (local 1): at global barrier 0 epoch 12"), new byte[] {1, 2, 3});
                case NODE_REQUEST -> new NodeRequestMessage("dsa", 1, new RegisterCloneMessage(5, 5,
                        new long[] {RegisterCloneMessage.pack(3, 0), RegisterCloneMessage.pack(4, 2)}));
                case HOST_STATUS -> new HostStatusMessage(5, List.of(new AgentRow("dsa", 0, "127.0.0.1:7000", "127.0.0.1:45677",
                        "RUNNING", "io.dsa.examples.InnerProduct", 4, 1, 2)));
                case ELEMENTS -> new ElementsMessage(26, 0, io.dsa.ElementType.DOUBLE.ordinal(),
                        new long[] {Double.doubleToRawLongBits(1.5), Double.doubleToRawLongBits(-3.0E-7)});
                case TRANSFER -> new TransferMessage(6, TransferMessage.TRANSFER_AGENT, "dsa/1", "127.0.0.1:7000", List.of(),
                        false, 5);
                case TRANSFER_REPORT -> new TransferReportMessage(6, "dsa/1", "127.0.0.1:7000", "127.0.0.1:7001", 12_345_678, 1 << 20);
                case AGENT_LAUNCH -> new AgentLaunchMessage(11, AgentLaunchMessage.RUN, "dsa", 1, 4, 2, "127.0.0.1:45677",
                        "127.0.0.1", "io.dsa.examples.InnerProduct", List.of("1024", "32"),
                        List.of("barrier=TREE", "fanout=4", "proxy=FLOAT", "startupTimeoutMs=30000", "maxFrameBytes=1048576",
                                "hosts=127.0.0.1:7000,127.0.0.1:7001"),
                        "/tmp/dsa-host-7000/job-dsa-1/program.jar");
                case AGENT_RESTORE -> new AgentRestoreMessage(12, 5, agentState());
                case CONNECT_PEERS -> new ConnectPeersMessage(13);
                case AGENT_RESUME -> new AgentResumeMessage(14);
                case AGENT_STARTED -> new AgentStartedMessage(15, "127.0.0.1:45680", true);
                case AGENT_STATUS_QUERY -> new AgentStatusQueryMessage(16);
                case AGENT_STATUS -> new AgentStatusMessage(17, 3, 5);
                case HOLD_BARRIER -> new HoldBarrierMessage(18);
                case RELEASE_BARRIER -> new ReleaseBarrierMessage(19);
                case EXPECT_MOVE -> new ExpectMoveMessage(20, 2);
                case AWAIT_MOVE -> new AwaitMoveMessage(21, 2);
                case COMMIT_MOVE -> new CommitMoveMessage(22, 2, "127.0.0.1:45690");
                case ABANDON_MOVE -> new AbandonMoveMessage(23, 2);
                case ADMIT_CLONE -> new AdmitCloneMessage(24, 5);
                case REGISTER_CLONE -> new RegisterCloneMessage(25, 5,
                        new long[] {RegisterCloneMessage.pack(3, 0), RegisterCloneMessage.pack(3, 1), RegisterCloneMessage.pack(4, 2)});
                case READ_ARRAY -> new ReadArrayMessage(26, "A", 0, 16);
                case SNAPSHOT -> new SnapshotMessage(27, -1);
                case RETIRE -> new RetireMessage(28);
                case ALLOCATE_CLONE_ID -> new AllocateCloneIdMessage(29);
                case CLONE_ID -> new CloneIdMessage(29, 5);
            });
        }
        return all;
    }

    /**
     * @return a real agent state, as a move or a clone carries it: a home partition with a
     *         directory entry and data, a cached copy, a home without data, a variable, a barrier
     */
    public static byte[] agentState() {
        byte[] data = new byte[32];
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 7);
        AgentState.ArrayImage array = new AgentState.ArrayImage(3, "A", new long[] {0, 8, 8, 4, 4, 0, 0}, List.of(
                new AgentState.PartitionImage(0, AgentState.ROLE_HOME, 1, -1, new int[] {0, 2}, data),
                new AgentState.PartitionImage(2, AgentState.ROLE_CACHE, 1, -1, new int[0], data.clone()),
                new AgentState.PartitionImage(3, AgentState.ROLE_HOME, 0, -1, new int[0], null)));
        return new AgentState(1, "dsa", 12, 3, 2, List.of("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"),
                List.of(array), List.of(new AgentState.VariableImage(4, Double.doubleToLongBits(2.5))),
                new AgentState.BarrierImage(12, 12, 12, 0, 30, Map.of(5, 2L))).encode();
    }

    private static byte[] filled(int length, int value) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) value);
        return b;
    }

    /** @return the sample of the type named {@code type} (see {@link #samples()}) */
    public static Object sample(String type) {
        return samples().stream().filter(m -> MessageType.of(m).name().equals(type)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no sample of type " + type));
    }

    /** @return {@code message}'s whole frame (length, version, type, body) */
    public static byte[] frame(Object message) {
        ByteBuf out = PLAIN.heapBuffer();
        try {
            WireFormat.writeFrame(MessageType.of(message), message, out);
            return bytes(out);
        } finally {
            out.release();
        }
    }

    /** @return {@code message}'s body, without length, version and type */
    public static byte[] body(Object message) {
        byte[] frame = frame(message);
        return Arrays.copyOfRange(frame, WireFormat.PREFIX_BYTES, frame.length);
    }

    /** @return {@code rest} behind the byte {@code first}: a target's control byte and its stream or body */
    public static byte[] prefixed(int first, byte[] rest) {
        byte[] input = new byte[rest.length + 1];
        input[0] = (byte) first;
        System.arraycopy(rest, 0, input, 1, rest.length);
        return input;
    }

    /** @return whether the type with index {@code index} belongs to the handshake */
    public static boolean handshakeType(int index) { return MessageType.values()[index].handshake(); }

    /**
     * Decodes {@code body} as the body of a frame of type {@code typeIndex}, as the frame decoder
     * does, and checks the format's promises: the only rejections are
     * {@link CorruptedFrameException} (malformed) and {@link IndexOutOfBoundsException}
     * (truncated); a body that decodes completely re-encodes to a frame that decodes to the same
     * encoding (no value is decoded that the encoder writes differently).
     *
     * @return the message, or null when the body was rejected or has trailing bytes
     * @throws AssertionError when a promise is broken (any other exception passes through as is)
     */
    public static Object readBody(int typeIndex, byte[] body) {
        MessageType type = MessageType.values()[typeIndex];
        if (type.messageClass() == null) return null;   // a piece of another message's frame, or where its body lies: the frame decoder's
        ByteBuf in = Unpooled.wrappedBuffer(body);
        Object message;
        try {
            message = WireFormat.readBody(type, in);
        } catch (CorruptedFrameException | IndexOutOfBoundsException e) {
            return null;
        }
        if (message == null || MessageType.of(message) != type) {
            throw new AssertionError(type + " body decoded to " + message);
        }
        if (in.isReadable()) return null;   // the frame decoder refuses trailing bytes
        byte[] once = body(message);
        Object again = WireFormat.readBody(type, Unpooled.wrappedBuffer(once));
        byte[] twice = body(again);
        if (!Arrays.equals(once, twice)) {
            throw new AssertionError(type + " does not round-trip: " + message + " encodes to " + once.length
                    + " bytes that decode to " + again);
        }
        return message;
    }

    private static byte[] bytes(ByteBuf buf) {
        byte[] b = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), b);
        return b;
    }
}
