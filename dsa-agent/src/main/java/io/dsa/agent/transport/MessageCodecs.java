package io.dsa.agent.transport;

/**
 * The table from {@link MessageType} to its {@link MessageCodec}: every type but
 * {@link MessageType#CHUNK} and {@link MessageType#SHARED} (which carry a piece of another message,
 * or say where its body lies) has one, checked when the class initialises. A lookup is an array
 * read: nothing is allocated.
 */
final class MessageCodecs {
    private static final MessageCodec<?>[] BY_ORDINAL = new MessageCodec<?>[MessageType.values().length];

    static {
        put(MessageType.CHALLENGE, HandshakeCodecs.CHALLENGE);
        put(MessageType.HELLO, HandshakeCodecs.HELLO);
        put(MessageType.WELCOME, HandshakeCodecs.WELCOME);
        put(MessageType.REFUSE, HandshakeCodecs.REFUSE);
        put(MessageType.HEARTBEAT, HandshakeCodecs.HEARTBEAT);
        put(MessageType.SHARED_RING_OFFER, HandshakeCodecs.SHARED_RING_OFFER);
        put(MessageType.SHARED_RING_ANSWER, HandshakeCodecs.SHARED_RING_ANSWER);

        put(MessageType.JOIN, ClusterCodecs.JOIN);
        put(MessageType.VIEW, ClusterCodecs.VIEW);
        put(MessageType.REGISTER, ClusterCodecs.REGISTER);
        put(MessageType.REGISTERED, ClusterCodecs.REGISTERED);
        put(MessageType.DEFINE, ClusterCodecs.DEFINE);
        put(MessageType.VAR_OP, ClusterCodecs.VAR_OP);
        put(MessageType.VAR_RESULT, ClusterCodecs.VAR_RESULT);
        put(MessageType.BARRIER_ARRIVE, ClusterCodecs.BARRIER_ARRIVE);
        put(MessageType.BARRIER_RELEASE, ClusterCodecs.BARRIER_RELEASE);
        put(MessageType.LOCK, ClusterCodecs.LOCK);
        put(MessageType.REPORT, ClusterCodecs.REPORT);
        put(MessageType.STATUS, ClusterCodecs.STATUS);
        put(MessageType.ACCUMULATE, ClusterCodecs.ACCUMULATE);
        put(MessageType.ACCUMULATED, ClusterCodecs.ACCUMULATED);
        put(MessageType.DIFF, ClusterCodecs.DIFF);
        put(MessageType.DIFF_APPLIED, ClusterCodecs.DIFF_APPLIED);
        put(MessageType.PUSH, ClusterCodecs.PUSH);
        put(MessageType.BUDDY_COPY, CheckpointCodecs.BUDDY_COPY);
        put(MessageType.LANE_REQUEST, ClusterCodecs.LANE_REQUEST);
        put(MessageType.LANE_OFFER, ClusterCodecs.LANE_OFFER);

        put(MessageType.COHERENCE, WireFormat.COHERENCE);

        put(MessageType.HOST_JOB, HostCodecs.HOST_JOB);
        put(MessageType.HOST_JOB_EVENT, HostCodecs.HOST_JOB_EVENT);
        put(MessageType.HOST_REPLY, HostCodecs.HOST_REPLY);
        put(MessageType.TRANSFER, HostCodecs.TRANSFER);
        put(MessageType.NODE_REQUEST, HostCodecs.NODE_REQUEST);
        put(MessageType.HOST_STATUS, HostCodecs.HOST_STATUS);
        put(MessageType.ELEMENTS, HostCodecs.ELEMENTS);
        put(MessageType.TRANSFER_REPORT, HostCodecs.TRANSFER_REPORT);
        put(MessageType.HOST_STATUS_QUERY, HostCodecs.HOST_STATUS_QUERY);
        put(MessageType.STOP_VM, HostCodecs.STOP_VM);
        put(MessageType.JAR_QUERY, HostCodecs.JAR_QUERY);
        put(MessageType.WORKERS_QUERY, HostCodecs.WORKERS_QUERY);
        put(MessageType.COUNTERS_QUERY, HostCodecs.COUNTERS_QUERY);

        put(MessageType.AGENT_LAUNCH, SupervisionCodecs.AGENT_LAUNCH);
        put(MessageType.AGENT_RESTORE, SupervisionCodecs.AGENT_RESTORE);
        put(MessageType.CONNECT_PEERS, SupervisionCodecs.CONNECT_PEERS);
        put(MessageType.AGENT_RESUME, SupervisionCodecs.AGENT_RESUME);
        put(MessageType.AGENT_STARTED, SupervisionCodecs.AGENT_STARTED);
        put(MessageType.AGENT_STATUS_QUERY, SupervisionCodecs.AGENT_STATUS_QUERY);
        put(MessageType.AGENT_STATUS, SupervisionCodecs.AGENT_STATUS);
        put(MessageType.HOLD_BARRIER, SupervisionCodecs.HOLD_BARRIER);
        put(MessageType.RELEASE_BARRIER, SupervisionCodecs.RELEASE_BARRIER);
        put(MessageType.EXPECT_MOVE, SupervisionCodecs.EXPECT_MOVE);
        put(MessageType.AWAIT_MOVE, SupervisionCodecs.AWAIT_MOVE);
        put(MessageType.COMMIT_MOVE, SupervisionCodecs.COMMIT_MOVE);
        put(MessageType.ABANDON_MOVE, SupervisionCodecs.ABANDON_MOVE);
        put(MessageType.ADMIT_CLONE, SupervisionCodecs.ADMIT_CLONE);
        put(MessageType.ALLOCATE_CLONE_ID, SupervisionCodecs.ALLOCATE_CLONE_ID);
        put(MessageType.CLONE_ID, SupervisionCodecs.CLONE_ID);
        put(MessageType.REGISTER_CLONE, SupervisionCodecs.REGISTER_CLONE);
        put(MessageType.READ_ARRAY, SupervisionCodecs.READ_ARRAY);
        put(MessageType.SNAPSHOT, SupervisionCodecs.SNAPSHOT);
        put(MessageType.RETIRE, SupervisionCodecs.RETIRE);

        for (MessageType type : MessageType.values()) {
            if (type.messageClass() != null && BY_ORDINAL[type.ordinal()] == null) {
                throw new IllegalStateException("message type " + type + " has no codec");
            }
        }
    }

    private MessageCodecs() {}

    private static void put(MessageType type, MessageCodec<?> codec) {
        if (BY_ORDINAL[type.ordinal()] != null) throw new IllegalStateException("message type " + type + " has two codecs");
        BY_ORDINAL[type.ordinal()] = codec;
    }

    /**
     * @return the codec of {@code type}'s body
     * @throws IllegalArgumentException for {@link MessageType#CHUNK}, which is a piece of a message ({@link ChunkAssembler}),
     *         and {@link MessageType#SHARED}, which says where a message's body lies ({@link SharedRing})
     */
    @SuppressWarnings("unchecked")
    static MessageCodec<Object> of(MessageType type) {
        MessageCodec<?> codec = BY_ORDINAL[type.ordinal()];
        if (codec == null) throw new IllegalArgumentException("a " + type + " frame carries another message's body: see "
                + (type == MessageType.CHUNK ? "ChunkAssembler" : "SharedRing"));
        return (MessageCodec<Object>) codec;
    }
}
