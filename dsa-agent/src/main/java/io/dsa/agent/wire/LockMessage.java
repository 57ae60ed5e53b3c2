package io.dsa.agent.wire;

/**
 * Lock protocol between a node and the lock's home: {@link #ACQUIRE}, {@link #GRANT}, {@link #RELEASE};
 * a timed-out acquire is withdrawn with {@link #CANCEL} (same request id), which the home answers
 * with {@link #CANCEL_ACK} if the request was still queued; otherwise its grant is already on the
 * way and answers the cancel: the requester then holds the lock (its tryLock returns true).
 */
public record LockMessage(int lockId, int op, int node, long requestId) implements WireMessage {
    public static final int ACQUIRE = 1;
    public static final int GRANT = 2;
    public static final int RELEASE = 3;
    public static final int CANCEL = 4;
    public static final int CANCEL_ACK = 5;
}
