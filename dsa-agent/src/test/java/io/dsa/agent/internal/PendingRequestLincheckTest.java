package io.dsa.agent.internal;

import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceEngine;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.dsa.coherence.PartitionStore;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the pending-request table: local worker threads that miss on one
 * partition call the node's {@link CoherenceEngine} under the runtime's engine lock, as
 * {@code AbstractSharedArray.awaitAccess} does; the engine's cache entry coalesces them, so one
 * request goes to the home however the misses interleave (a write miss during a read miss waits for
 * the shared copy, then upgrades). The network handler delivering the shared copy races with them.
 */
public class PendingRequestLincheckTest {
    private static final int ARRAY = 1;
    private static final int PARTITION = 0;
    private static final int HOME = 1;

    private final Object engineLock = new Object();
    private final Slot slot = new Slot(Access.NONE, null);
    private int requestsSent;
    private int upgradesSent;
    private final CoherenceEngine engine = new CoherenceEngine(0, 2, (a, p) -> HOME, new SlotStore(), this::send);

    /** The store of the one partition: the node's {@link Slot}, as the runtime's store does it. */
    private final class SlotStore implements PartitionStore {
        @Override
        public void setAccess(int arrayId, int partition, Access access) { slot.setAccess(access); }

        @Override
        public byte[] snapshot(int arrayId, int partition) { return slot.snapshot(8); }

        @Override
        public void install(int arrayId, int partition, byte[] data, Access access) { slot.install(data, access); }
    }

    private void send(CoherenceMessage m) {
        if (m.op() == CoherenceOp.GET_S) requestsSent++;
        if (m.op() == CoherenceOp.GET_M) upgradesSent++;
    }

    /** A worker's read miss: ask the engine under the lock unless the copy is already readable. */
    @Operation
    public void readMiss() {
        if (Slot.readable(slot.stamp)) return;
        synchronized (engineLock) {
            engine.request(ARRAY, PARTITION, Access.READ);
        }
    }

    /** The network handler delivers the home's answer to the (single) read request, if one was sent. */
    @Operation(nonParallelGroup = "handler")
    public void deliverSharedCopy() {
        synchronized (engineLock) {
            if (requestsSent == 1 && slot.access() == Access.NONE) {
                engine.onMessage(new CoherenceMessage(CoherenceOp.DATA_S, ARRAY, PARTITION, HOME, 0, 0, new byte[8]));
            }
        }
    }

    /** Requests sent so far; linearizable with one read request for any number of misses. */
    @Operation
    public int requests() {
        synchronized (engineLock) {
            return requestsSent + 10 * upgradesSent;
        }
    }

    /** The sequential specification: the first miss sends the one request; later misses coalesce. */
    public static class Sequential {
        private int sent;
        private boolean delivered;

        public void readMiss() { if (!delivered) sent = 1; }

        public void deliverSharedCopy() { if (sent == 1) delivered = true; }

        public int requests() { return sent; }
    }

    @Test
    @Timeout(120)
    void concurrentMissesOnOnePartitionSendOneRequest() {
        new ModelCheckingOptions()
                .sequentialSpecification(Sequential.class)
                .threads(3)
                .actorsPerThread(2)
                .iterations(8)
                .invocationsPerIteration(150)
                .check(PendingRequestLincheckTest.class);
    }
}
