package io.dsa.agent.wire;

/** Lock protocol between a node and the lock's home: {@link #ACQUIRE}, {@link #GRANT}, {@link #RELEASE}. */
public record LockMessage(int lockId, int op, int node, long requestId) implements WireMessage {
    public static final int ACQUIRE = 1;
    public static final int GRANT = 2;
    public static final int RELEASE = 3;
}
