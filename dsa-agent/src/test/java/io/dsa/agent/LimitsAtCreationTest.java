package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11 item 6 on real agents: partitions and messages larger than a frame travel in chunks
 * (before: dropped with a WARN, and the job hung), arrays whose home partitions cannot fit the heap
 * are refused at creation, and a failure report longer than a frame still fails the job.
 */
@Timeout(60)
class LimitsAtCreationTest {
    private static final int SMALL_FRAMES = DsaConfig.MIN_MAX_FRAME_BYTES;

    private static RunReport run(int nodes, int maxFrameBytes, DsaProgram program) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(1).maxFrameBytes(maxFrameBytes).build())) {
            return cluster.run(program);
        }
    }

    /** Every create form, every element type: accepted, and the partitions (16 KiB, frames of 4 KiB) cross in chunks. */
    @Test
    void everyCreateFormAcceptsAPartitionOverTheFrameLimitAndItsDataCrosses() {
        Map<String, String> refused = new ConcurrentHashMap<>();
        Map<String, Consumer<DsaNode>> forms = new java.util.LinkedHashMap<>();
        Map<Integer, io.dsa.SharedDoubleArray> d2s = new ConcurrentHashMap<>();
        forms.put("D2", n -> d2s.put(n.network().nodeId(), n.createSharedDoubleArray("D2", 64, 64, 32)));
        forms.put("D1", n -> n.createSharedDoubleArray("D1", 4096, 1024));
        forms.put("F2", n -> n.createSharedFloatArray("F2", 64, 64, 32));
        forms.put("F1", n -> n.createSharedFloatArray("F1", 4096, 2048));
        forms.put("I2", n -> n.createSharedIntArray("I2", 64, 64, 32));
        forms.put("I1", n -> n.createSharedIntArray("I1", 4096, 2048));
        forms.put("L2", n -> n.createSharedLongArray("L2", 64, 64, 32));
        forms.put("L1", n -> n.createSharedLongArray("L1", 4096, 1024));
        forms.put("S", n -> n.createSharedArray(ArraySpec.of("S", ElementType.DOUBLE, 64, 64, 16, 64, Distribution.BLOCK_CYCLIC)));
        run(2, SMALL_FRAMES, new DsaProgram() {
            @Override
            public void setup(DsaNode node) {
                for (Map.Entry<String, Consumer<DsaNode>> f : forms.entrySet()) {
                    try {
                        f.getValue().accept(node);
                        refused.put(node.network().nodeId() + f.getKey(), "accepted");
                    } catch (DsaException e) {
                        refused.put(node.network().nodeId() + f.getKey(), e.getMessage());
                    }
                }
            }

            @Override
            public void work(DsaWorker w) {
                // partition 0 of D2 is homed at node 0: node 1 writes it (a write miss), node 0 reads it back
                io.dsa.SharedDoubleArray d2 = d2s.get(w.nodeId());
                if (w.nodeId() == 1) {
                    for (int i = 0; i < 32; i++) d2.write(i, i, i + 0.5);
                }
                w.barrier();
                if (w.nodeId() == 0) {
                    for (int i = 0; i < 32; i++) {
                        if (d2.read(i, i) != i + 0.5) refused.put("read" + i, "D2[" + i + "][" + i + "] = " + d2.read(i, i));
                    }
                }
                w.barrier();
            }
        });
        for (int node = 0; node < 2; node++) {
            for (String name : forms.keySet()) assertEquals("accepted", refused.get(node + name), node + " " + name);
        }
        assertEquals(2 * forms.size(), refused.size(), refused.toString());
    }

    @Test
    void anArrayWhoseHomePartitionsCannotFitTheHeapIsRefusedNamingTheSizes() {
        // 8 TiB of doubles in 8 MiB partitions, all homed at the one node
        DsaException e = assertThrows(DsaException.class, () -> run(1, DsaConfig.DEFAULT_MAX_FRAME_BYTES, new DsaProgram() {
            @Override
            public void setup(DsaNode node) {
                node.createSharedDoubleArray("huge", 1 << 20, 1 << 20, 1 << 10);
            }

            @Override
            public void work(DsaWorker w) {}
        }));
        assertTrue(e.getMessage().contains("array 'huge': the partitions homed at node 0 hold 8796093022208 bytes, more than the "), e.getMessage());
        assertTrue(e.getMessage().contains(" bytes this node's heap can give them (max heap " + Runtime.getRuntime().maxMemory() + ", in use "),
                e.getMessage());
        // the failure carries the stack trace after the message (issue 15): the message's own end is inside
        assertTrue(e.getMessage().contains("); use more nodes, or a larger heap (-Xmx)"), e.getMessage());
    }

    /** Before: a frame over the limit was logged as a WARN and dropped; here the report line vanished and the job "succeeded". */
    @Test
    void aReportLineOverTheFrameLimitArrivesWhole() {
        RunReport report = run(3, SMALL_FRAMES, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                if (w.nodeId() == 2) w.node().report("x".repeat(5000));
                w.barrier();
            }
        });
        assertTrue(report.lines().stream().anyMatch(l -> l.contains("x".repeat(5000))), report.lines().toString());
    }

    /** Before: the failure report itself was over the limit and dropped, and the job hung until its timeout. */
    @Test
    void aFailureWithAMessageLongerThanAFrameStillFailsTheJob() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, SMALL_FRAMES, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                if (w.nodeId() == 1) throw new IllegalStateException("y".repeat(10_000));
                w.barrier();
            }
        }));
        assertTrue(e.getMessage().contains("yyy") && e.getMessage().contains(" more characters)"), e.getMessage().substring(0, 200));
    }

}
