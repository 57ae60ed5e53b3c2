package io.dsa.agent;

import static io.dsa.agent.LocalRuns.check;
import static io.dsa.agent.LocalRuns.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import io.dsa.SharedDouble;
import io.dsa.SharedFloat;
import io.dsa.SharedInteger;
import io.dsa.SharedLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Shared-variable accumulate, timed locks and votes, over real agents in this JVM. */
@Timeout(60)
class SyncFeaturesTest {


    @Test
    void accumulateAppliesEveryOpAtTheHomeAndReturnsThePreviousValue() {
        run(2, 2, w -> {
            int me = w.threadId();
            for (ReduceOp op : ReduceOp.values()) {
                SharedLong l = w.node().createSharedLong("l" + op, op == ReduceOp.PROD || op == ReduceOp.AND ? -1L : op == ReduceOp.MIN ? Long.MAX_VALUE : 0L);
                SharedInteger i = w.node().createSharedInteger("i" + op, op == ReduceOp.PROD ? 1 : op == ReduceOp.AND ? -1 : op == ReduceOp.MIN ? Integer.MAX_VALUE : 0);
                long lv = op == ReduceOp.PROD ? 3 : 1L << (me + 1);
                l.accumulate(lv, op);
                i.accumulate((int) lv, op);
                w.barrier();
                long expectL = op == ReduceOp.PROD || op == ReduceOp.AND ? -1L : op == ReduceOp.MIN ? Long.MAX_VALUE : 0L;
                int expectI = op == ReduceOp.PROD ? 1 : op == ReduceOp.AND ? -1 : op == ReduceOp.MIN ? Integer.MAX_VALUE : 0;
                for (int t = 0; t < 4; t++) {
                    long v = op == ReduceOp.PROD ? 3 : 1L << (t + 1);
                    expectL = op.apply(expectL, v);
                    expectI = (int) op.apply((long) expectI, v);
                }
                check(l.get() == expectL, "long " + op + ": " + l.get() + " != " + expectL);
                check(i.get() == expectI, "int " + op + ": " + i.get() + " != " + expectI);
                w.barrier();
                if (me == 0) {
                    long before = l.get();
                    check(l.accumulate(0, op) == before, "accumulate returns the previous value");
                }
                if (op.ordinal() <= ReduceOp.PROD.ordinal()) {
                    SharedDouble d = w.node().createSharedDouble("d" + op, op == ReduceOp.PROD ? 1.0 : op == ReduceOp.MIN ? 100.0 : 0.0);
                    SharedFloat f = w.node().createSharedFloat("f" + op, op == ReduceOp.PROD ? 1f : op == ReduceOp.MIN ? 100f : 0f);
                    double dv = me + 2; // exact in binary, so the order of application does not matter
                    d.accumulate(dv, op);
                    f.accumulate((float) dv, op);
                    w.barrier();
                    double expectD = op == ReduceOp.PROD ? 1.0 : op == ReduceOp.MIN ? 100.0 : 0.0;
                    for (int t = 0; t < 4; t++) expectD = op.apply(expectD, t + 2);
                    check(d.get() == expectD, "double " + op + ": " + d.get() + " != " + expectD);
                    check(f.get() == (float) expectD, "float " + op + ": " + f.get() + " != " + expectD);
                } else {
                    SharedDouble d = w.node().createSharedDouble("d" + op, 1.0);
                    try {
                        d.accumulate(1.0, op);
                        throw new AssertionError("bitwise accumulate on a double did not throw");
                    } catch (DsaException expected) {
                        check(expected.getMessage().contains(op.name()), expected.getMessage());
                    }
                }
                w.barrier();
            }
        });
    }

    @Test
    void tryLockTimesOutWhileHeldAndSucceedsAfterUnlock() {
        run(2, 2, w -> {
            io.dsa.DsaLock lock = w.node().createLock("L");
            SharedInteger phase = w.node().createSharedInteger("phase", 0);
            io.dsa.SharedLongArray a = w.node().createSharedLongArray("A", 4, 4);
            if (w.threadId() == 3) {
                lock.lock();
                phase.set(1);
                w.barrier(); // the others time out while this thread holds it
                w.barrier();
                lock.unlock();
                w.barrier();
            } else {
                w.barrier();
                long t0 = System.nanoTime();
                check(!lock.tryLock(100, java.util.concurrent.TimeUnit.MILLISECONDS), "tryLock succeeded while held");
                check(System.nanoTime() - t0 >= 90_000_000L, "tryLock returned before its timeout");
                w.barrier();
                w.barrier();
            }
            // after unlock (and withdrawn requests), every worker gets it: timed and untimed
            check(lock.tryLock(10, java.util.concurrent.TimeUnit.SECONDS), "tryLock failed on a free lock");
            a.write(0, a.read(0) + 1);
            lock.unlock();
            for (int k = 0; k < 20; k++) {
                if (lock.tryLock(1, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    a.write(1, a.read(1) + 1);
                    lock.unlock();
                }
                lock.lock();
                a.write(2, a.read(2) + 1);
                lock.unlock();
            }
            w.barrier();
            check(a.read(0) == 4, "count under tryLock " + a.read(0));
            check(a.read(2) == 80, "count under lock after timed-out requests " + a.read(2));
            if (lock.tryLock(5, java.util.concurrent.TimeUnit.SECONDS)) lock.unlock(); else throw new AssertionError("lock unusable");
        });
    }

    @Test
    void oneNodeOneThreadUnderEveryBarrierKind() {
        for (BarrierKind kind : BarrierKind.values()) {
            for (ProxyMode proxy : ProxyMode.values()) {
                DsaConfig config = DsaConfig.builder().barrier(kind).proxy(proxy).build();
                try (DsaCluster cluster = DsaCluster.local(config)) {
                    cluster.run(w -> {
                        for (int k = 0; k < 20; k++) w.barrier();
                        check(w.allReduce(2.5, ReduceOp.SUM) == 2.5 && w.scan(3L, ReduceOp.PROD) == 3L, "collectives");
                        check(w.first(false) == 1 && w.first(true) == 0 && w.count(true) == 1, "votes");
                        check(w.allGather(4L).length == 1 && w.broadcast(1.5, 0) == 1.5, "gather");
                        w.node().createBarrier("solo", 1).await();
                        w.node().localBarrier().await();
                    });
                }
            }
        }
    }

    @Test
    void groupBarrierPartiesMismatchNamesBothValues() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, w -> {
            w.node().createBarrier("B", w.nodeId() == 0 ? 2 : 3);
            w.barrier();
        }));
        String text = e.getMessage();
        assertTrue(text.contains("barrier 'B' already exists with 2 parties, requested 3")
                || text.contains("barrier 'B' already exists with 3 parties, requested 2"), text);
    }
}
