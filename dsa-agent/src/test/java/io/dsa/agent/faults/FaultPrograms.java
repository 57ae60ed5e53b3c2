package io.dsa.agent.faults;

import io.dsa.CacheState;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedIntArray;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Programs that run until a fault stops them, for the fault tests (in this JVM, or by class name in `dsa node` processes). */
public final class FaultPrograms {
    private FaultPrograms() {}

    /**
     * Runs until the job fails: in every round each worker writes one element of a partition that
     * moves round the VM (so exclusive ownership travels between nodes), then all meet at the
     * global barrier. Array {@code "A"}: 1-D, {@value #LENGTH} ints in partitions of
     * {@value #PARTITION}, BLOCK. In this JVM, {@link #ARRAYS} holds each node's handle (by node id)
     * and {@link #ROUNDS} counts node 0's rounds, so a test sees the job running and every node's
     * cache states.
     */
    public static final class Churn implements DsaProgram {
        static final int LENGTH = 64;
        static final int PARTITION = 4;
        static final Map<Integer, SharedIntArray> ARRAYS = new ConcurrentHashMap<>();
        static final AtomicLong ROUNDS = new AtomicLong();

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
                if (w.threadId() == 0) ROUNDS.incrementAndGet();
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
