package io.dsa.examples;

import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Test-only programs that go wrong on purpose or hold for a test; child nodes load them by class name. */
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

    /**
     * Jacobi (the same arguments, iterations, report and bitwise check) whose node 0 worker 0 waits,
     * before the global barrier it calls at epoch {@link #HOLD_EPOCH}, until the test opens
     * {@link #release}: a node killed after a checkpoint before that epoch is killed mid-run however
     * slow the machine, with few iterations. Only node 0 holds, and node 0 of {@code dsa run} runs in
     * the launcher's JVM, the test's; a restarted VM finds the latch open. The result does not
     * depend on the hold.
     */
    public static final class HeldJacobi extends Jacobi {
        /** Node 0 holds here: after the checkpoints at epochs 10 and 20 of a run that takes one every 10. */
        static final long HOLD_EPOCH = 20;
        /** Opened by the test; open unless a test closed it. */
        static volatile CountDownLatch release = new CountDownLatch(0);

        public HeldJacobi() {}

        @Override
        public void work(DsaWorker worker) {
            super.work(worker.nodeId() == 0 && worker.threadId() == 0 ? held(worker) : worker);
        }

        // The worker, whose barrier() first waits for the release at HOLD_EPOCH.
        private static DsaWorker held(DsaWorker worker) {
            return (DsaWorker) Proxy.newProxyInstance(DsaWorker.class.getClassLoader(), new Class<?>[] {DsaWorker.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("barrier") && worker.epoch() == HOLD_EPOCH && !release.await(240, TimeUnit.SECONDS)) {
                            throw new DsaException("not released within 240 s at epoch " + HOLD_EPOCH);
                        }
                        try {
                            return method.invoke(worker, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
