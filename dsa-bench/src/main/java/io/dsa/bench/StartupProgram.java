package io.dsa.bench;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;

/**
 * The program of {@code dsa bench startup}: {@link #setup} records when the formed VM first runs
 * program code on this node ({@link #formedAt}, read by the bench for node 0 in its own JVM), then
 * creates a 512 x 512 and a 1024 x 1024 shared double array of 64 x 64 partitions, timing each.
 * Thread 0 reports {@code "create CREATE512_NS CREATE1024_NS"}, each the MAX over nodes. Argument:
 * a run tag that makes the array names unique.
 */
public final class StartupProgram implements DsaProgram {
    /** {@link System#nanoTime()} when setup began on the last node 0 that ran in this JVM. */
    static volatile long formedAt;

    private long create512;
    private long create1024;

    /** Creates the program. */
    public StartupProgram() {}

    @Override
    public void setup(DsaNode node) {
        long t0 = System.nanoTime();
        if (node.network().nodeId() == 0) formedAt = t0;
        String tag = node.args().isEmpty() ? "" : node.args().get(0);
        node.createSharedDoubleArray("s512" + tag, 512, 512, 64);
        long t1 = System.nanoTime();
        node.createSharedDoubleArray("s1024" + tag, 1024, 1024, 64);
        long t2 = System.nanoTime();
        create512 = t1 - t0;
        create1024 = t2 - t1;
    }

    @Override
    public void work(DsaWorker worker) {
        double a = worker.allReduce((double) create512, ReduceOp.MAX);
        double b = worker.allReduce((double) create1024, ReduceOp.MAX);
        if (worker.threadId() == 0) worker.node().report("create " + a + " " + b);
    }
}
