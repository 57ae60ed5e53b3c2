package io.dsa.agent;

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
 * Issue 11 item 6 on real agents: arrays whose partitions cannot cross the wire or whose home
 * partitions cannot fit the heap are refused at creation, and a message that cannot be sent fails
 * the job with the reason instead of hanging it.
 */
@Timeout(60)
class LimitsAtCreationTest {
    private static final int SMALL_FRAMES = DsaConfig.MIN_MAX_FRAME_BYTES;

    private static RunReport run(int nodes, int maxFrameBytes, DsaProgram program) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(1).maxFrameBytes(maxFrameBytes).build())) {
            return cluster.run(program);
        }
    }

    /** Every create form, every element type: refused with the partition's shape, bytes and the limit. */
    @Test
    void everyCreateFormRefusesAPartitionOverTheFrameLimit() {
        Map<String, String> refused = new ConcurrentHashMap<>();
        Map<String, Consumer<DsaNode>> forms = new java.util.LinkedHashMap<>();
        forms.put("D2", n -> n.createSharedDoubleArray("D2", 64, 64, 32));
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
                node.createSharedDoubleArray("fits", 64, 64, 16);   // 2 KiB partitions: the VM goes on
            }

            @Override
            public void work(DsaWorker w) {}
        });
        Map<String, String> shapes = Map.of("D2", "32 x 32 DOUBLE", "D1", "1024 DOUBLE", "F2", "32 x 32 FLOAT", "F1", "2048 FLOAT",
                "I2", "32 x 32 INT", "I1", "2048 INT", "L2", "32 x 32 LONG", "L1", "1024 LONG", "S", "16 x 64 DOUBLE");
        for (int node = 0; node < 2; node++) {
            for (String name : forms.keySet()) {
                String m = refused.get(node + name);
                assertTrue(m.startsWith("array '" + name + "': a partition of " + shapes.get(name) + " elements holds "), m);
                assertTrue(m.contains("exceeds the transport's limit of 4096 bytes (max frame bytes); use smaller partitions, or raise"
                        + " the limit to at least "), m);
            }
        }
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
    void aReportLineOverTheFrameLimitFailsTheJobWithTheReasonInsteadOfVanishing() {
        DsaException e = assertThrows(DsaException.class, () -> run(3, SMALL_FRAMES, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                if (w.nodeId() == 2) w.node().report("x".repeat(5000));
                w.barrier();
            }
        }));
        assertTrue(e.getMessage().contains("node 2 cannot send REPORT to node 0 at ") && e.getMessage().endsWith(
                ": REPORT frame of 5010 bytes exceeds the limit of 4096 bytes"), e.getMessage());
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
