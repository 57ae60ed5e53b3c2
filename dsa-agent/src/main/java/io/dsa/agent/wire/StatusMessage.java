package io.dsa.agent.wire;

/**
 * Job lifecycle between nodes and the monitor.
 *
 * @param code {@link #DONE} (node's workers finished), {@link #FAILED} (a worker threw; text
 *        says what), {@link #ABORT} (monitor to all: the job failed, release every waiter),
 *        {@link #FINISHED} (monitor to all: every node is done, shut down)
 */
public record StatusMessage(int node, int code, String text) implements WireMessage {
    public static final int DONE = 1;
    public static final int FAILED = 2;
    public static final int ABORT = 3;
    public static final int FINISHED = 4;
}
