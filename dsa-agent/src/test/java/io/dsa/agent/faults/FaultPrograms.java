package io.dsa.agent.faults;

import io.dsa.CacheState;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedIntArray;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/** Programs that run until a fault stops them, for the fault tests (in this JVM, or by class name in `dsa node` processes). */
public final class FaultPrograms {
    private FaultPrograms() {}

    /**
     * Runs until the job fails: in every round each worker writes one element of a partition that
     * moves round the VM (so exclusive ownership travels between nodes), then all meet at the
     * global barrier. Array {@code "A"}: 1-D, {@value #LENGTH} ints in partitions of
     * {@value #PARTITION}, BLOCK. In this JVM, {@link #ARRAYS} holds each node's handle (by node id)
     * and {@link #countRounds} counts node 0's rounds, so a test sees the job running and every
     * node's cache states.
     */
    public static final class Churn implements DsaProgram {
        static final int LENGTH = 64;
        static final int PARTITION = 4;
        static final Map<Integer, SharedIntArray> ARRAYS = new ConcurrentHashMap<>();
        private static volatile Rounds rounds = new Rounds(Long.MAX_VALUE);

        private SharedIntArray a;

        public Churn() {}

        @Override
        public void setup(DsaNode node) {
            a = node.createSharedIntArray("A", LENGTH, PARTITION);
            ARRAYS.put(node.network().nodeId(), a);
        }

        @Override
        public void work(DsaWorker w) {
            int partitions = LENGTH / PARTITION;
            for (long round = 0; ; round++) {
                int p = (int) ((w.threadId() + round) % partitions);
                a.write(p * PARTITION + w.localThreadId() % PARTITION, (int) round);
                w.barrier();
                if (w.threadId() == 0) rounds.count();
            }
        }

        /** Counts node 0's rounds from 0 on. @return the count, to wait until it reaches {@code awaited}: the sign that the job runs */
        static Rounds countRounds(long awaited) {
            Rounds r = new Rounds(awaited);
            rounds = r;
            return r;
        }

        /** Node 0's rounds, counted towards a number a test waits for. */
        static final class Rounds {
            private final long awaited;
            private final AtomicLong done = new AtomicLong();
            private final CompletableFuture<Void> reached = new CompletableFuture<>();

            private Rounds(long awaited) { this.awaited = awaited; }

            private void count() {
                if (done.incrementAndGet() >= awaited) reached.complete(null);
            }

            /**
             * Waits until the rounds reach the number awaited or one of {@code runs} ends.
             *
             * @return whether the rounds reached it
             * @throws AssertionError if neither happens within {@code timeoutS}
             */
            boolean awaitReachedOrEnd(List<? extends CompletableFuture<?>> runs, long timeoutS) throws InterruptedException, ExecutionException {
                List<CompletableFuture<?>> ends = new ArrayList<>(List.of(reached));
                for (CompletableFuture<?> run : runs) ends.add(run.handle((result, failure) -> null));   // a failed run ends the wait too
                try {
                    CompletableFuture.anyOf(ends.toArray(CompletableFuture[]::new)).get(timeoutS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError("the job did not reach round " + awaited + " within " + timeoutS + " s");
                }
                return reached.isDone();
            }
        }

        /** @return the partitions that more than one node of {@link #ARRAYS} holds EXCLUSIVE right now, as text, or empty */
        static String doublyExclusive(int nodes) {
            StringBuilder found = new StringBuilder();
            for (int p = 0; p < LENGTH / PARTITION; p++) {
                int holders = 0;
                StringBuilder who = new StringBuilder();
                for (int n = 0; n < nodes; n++) {
                    SharedIntArray arr = ARRAYS.get(n);
                    if (arr != null && arr.cacheState(p) == CacheState.EXCLUSIVE) {
                        holders++;
                        who.append(' ').append(n);
                    }
                }
                if (holders > 1) found.append("partition ").append(p).append(" exclusive at nodes").append(who).append("; ");
            }
            return found.toString();
        }
    }
}
