package io.dsa.examples;

import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import java.util.concurrent.CountDownLatch;

/** Test-only programs that go wrong on purpose; child nodes load them by class name. */
final class TestPrograms {
    private TestPrograms() {}

    /**
     * Thread 5 (node 2 at 2 threads per node) throws; the others wait in a barrier. Each node
     * prints a line in setup, to show child output is forwarded.
     */
    public static final class FailingProgram implements DsaProgram {
        public FailingProgram() {}

        @Override
        public void setup(DsaNode node) {
            System.out.println("setup on node " + node.network().nodeId());
            System.out.flush();
        }

        @Override
        public void work(DsaWorker worker) {
            if (worker.threadId() == 5) throw new DsaException("deliberate failure on thread 5");
            worker.barrier();
        }
    }

    /** The last thread never arrives at the barrier: the job can only end by timeout. */
    public static final class HangingProgram implements DsaProgram {
        public HangingProgram() {}

        @Override
        public void work(DsaWorker worker) throws InterruptedException {
            if (worker.threadId() == worker.node().network().getGlobalThreadCount() - 1) {
                new CountDownLatch(1).await();
            }
            worker.barrier();
        }
    }
}
