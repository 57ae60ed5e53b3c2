package io.dsa.agent.wire;

/**
 * Job lifecycle between nodes and the monitor.
 *
 * @param code {@link #DONE} (node's workers finished), {@link #FAILED} (a worker threw; text
 *        says what), {@link #ABORT} (monitor to all: the job failed, release every waiter),
 *        {@link #FINISHED} (monitor to all: every node is done, shut down),
 *        {@link #WORKERS_QUERY} (monitor to all: where are your workers? text: the query's number),
 *        {@link #WORKERS} (node to monitor: the query's number, a newline, then one line per
 *        unfinished worker saying what it waits for),
 *        {@link #CHECKPOINT_QUIESCE} (monitor to a node: answer once your coherence is quiescent; text: the epoch),
 *        {@link #CHECKPOINT_WRITE} (monitor to a node: take your state, answer, then write your checkpoint file and answer again; text: the epoch),
 *        {@link #CHECKPOINTED} (node to monitor: text {@code "<epoch> <round> [<bytes> <crc32c hex>]"}, round 1, 2 or 6 (file written);
 *        round 3, a buddy copy kept: {@code "<epoch> 3 <node> <bytes> <crc32c hex>"}; round 4: the manifest written),
 *        {@link #CHECKPOINT_COMMIT} (monitor to a node, checkpoints on hosts: write this manifest, the text, into your host's directory)
 */
public record StatusMessage(int node, int code, String text) implements WireMessage {
    public static final int DONE = 1;
    public static final int FAILED = 2;
    public static final int ABORT = 3;
    public static final int FINISHED = 4;
    public static final int WORKERS_QUERY = 5;
    public static final int WORKERS = 6;
    public static final int CHECKPOINT_QUIESCE = 7;
    public static final int CHECKPOINT_WRITE = 8;
    public static final int CHECKPOINTED = 9;
    public static final int CHECKPOINT_COMMIT = 10;
}
