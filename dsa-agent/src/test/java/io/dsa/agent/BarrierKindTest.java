package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.DsaBarrier;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Every {@link BarrierKind} x {@link ProxyMode}: barrier ordering and bit-identical collectives. */
@Timeout(60)
class BarrierKindTest {
    private static final int ROUNDS = 200;

    static Stream<Arguments> configs() {
        List<Arguments> all = new ArrayList<>();
        for (BarrierKind k : BarrierKind.values()) {
            for (ProxyMode p : ProxyMode.values()) {
                all.add(Arguments.of(k, p, 4, 2, 2));
                all.add(Arguments.of(k, p, 1, 4, 4));
                all.add(Arguments.of(k, p, 5, 1, 2));
            }
        }
        return all.stream();
    }

    static void run(BarrierKind kind, ProxyMode proxy, int nodes, int threads, int fanout, DsaProgram program) {
        DsaConfig config = DsaConfig.builder().nodes(nodes).threadsPerNode(threads).barrier(kind).proxy(proxy)
                .barrierFanout(fanout).build();
        try (DsaCluster cluster = DsaCluster.local(config)) {
            cluster.run(program);
        }
    }

    /** Busy work of random length, so threads arrive in random orders (no sleeping). */
    private static long busy() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int n = r.nextInt(2000);
        long x = 0;
        for (int i = 0; i < n; i++) x += i * 31L ^ x;
        if (r.nextInt(4) == 0) Thread.yield();
        return x;
    }

    @ParameterizedTest(name = "{0} {1} {2}x{3}")
    @MethodSource("configs")
    void nobodyPassesABarrierBeforeEveryoneArrived(BarrierKind kind, ProxyMode proxy, int nodes, int threads, int fanout) {
        int total = nodes * threads;
        AtomicIntegerArray arrived = new AtomicIntegerArray(total);
        AtomicLong sink = new AtomicLong();
        run(kind, proxy, nodes, threads, fanout, w -> {
            int me = w.threadId();
            for (int k = 1; k <= ROUNDS; k++) {
                sink.addAndGet(busy());
                arrived.set(me, k);
                if (k % 3 == 0) {
                    double v = 0.1 * (me + 1) * k;
                    double sum = w.allReduce(v, ReduceOp.SUM);
                    double expect = 0;
                    for (int t = 0; t < total; t++) expect += 0.1 * (t + 1) * k;
                    if (Double.doubleToRawLongBits(sum) != Double.doubleToRawLongBits(expect)) {
                        throw new AssertionError("allReduce " + sum + " != " + expect + " at thread " + me);
                    }
                    double scan = w.scan(v, ReduceOp.SUM);
                    double prefix = 0;
                    for (int t = 0; t <= me; t++) prefix += 0.1 * (t + 1) * k;
                    if (scan != prefix) throw new AssertionError("scan " + scan + " != " + prefix);
                    long root = k % total;
                    long b = w.broadcast(me == root ? 1000L + k : -1L, (int) root);
                    if (b != 1000L + k) throw new AssertionError("broadcast " + b);
                } else {
                    w.barrier();
                }
                for (int t = 0; t < total; t++) {
                    int seen = arrived.get(t);
                    if (seen < k) {
                        throw new AssertionError("thread " + me + " passed barrier " + k + " while thread " + t
                                + " was before it (at " + seen + ")");
                    }
                }
            }
        });
        for (int t = 0; t < total; t++) assertEquals(ROUNDS, arrived.get(t));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("configs")
    void severalGroupBarriersAtOnce(BarrierKind kind, ProxyMode proxy, int nodes, int threads, int fanout) {
        int total = nodes * threads;
        if (total < 4) return;
        AtomicIntegerArray arrived = new AtomicIntegerArray(total);
        run(kind, proxy, nodes, threads, fanout, w -> {
            int me = w.threadId();
            int group = me % 2;
            int parties = (total + 1 - group) / 2;
            DsaBarrier b = w.node().createBarrier("g" + group, parties);
            for (int k = 1; k <= 50; k++) {
                busy();
                arrived.set(me, k);
                b.await();
                for (int t = group; t < total; t += 2) {
                    if (arrived.get(t) < k) throw new AssertionError("group " + group + " thread " + me + " passed " + k
                            + " before thread " + t);
                }
            }
            w.barrier();
        });
    }

    @ParameterizedTest(name = "{0} {1} {2}x{3}")
    @MethodSource("configs")
    void votesAndAllGather(BarrierKind kind, ProxyMode proxy, int nodes, int threads, int fanout) {
        int total = nodes * threads;
        run(kind, proxy, nodes, threads, fanout, w -> {
            int me = w.threadId();
            for (int k = 0; k < 10; k++) {
                int pick = k % (total + 1); // k == total: nobody votes
                boolean flag = me >= pick && pick < total;
                int expectCount = pick < total ? total - pick : 0;
                if (w.count(flag) != expectCount) throw new AssertionError("count at thread " + me);
                if (w.first(flag) != (pick < total ? pick : total)) throw new AssertionError("first at thread " + me);
                if (w.any(flag) != (expectCount > 0)) throw new AssertionError("any");
                if (w.all(flag) != (expectCount == total)) throw new AssertionError("all");
                double[] d = w.allGather(me * 0.5 + k);
                long[] l = w.allGather((long) me * k);
                if (d.length != total || l.length != total) throw new AssertionError("allGather length");
                for (int t = 0; t < total; t++) {
                    if (d[t] != t * 0.5 + k || l[t] != (long) t * k) throw new AssertionError("allGather[" + t + "]");
                }
                l[0] = -1; // each worker owns its result
            }
            if (!w.all(true) || w.any(false) || w.first(false) != total) throw new AssertionError("trivial votes");
        });
    }
}
