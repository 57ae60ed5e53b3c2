package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.transport.TransportSecurity;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Partitions larger than the frame limit (issue 11 item 6): they travel in chunks, so an array
 * whose partitions are 16 times {@code maxFrameBytes} is read and written across nodes like any other.
 */
@Timeout(120)
class LargePartitionsTest {
    private static final int MAX_FRAME_BYTES = 4096;
    private static final int NODES = 3;
    /** 8,192 doubles: 64 KiB per partition, 16 times the frame limit. */
    private static final int PARTITION = 8192;

    private static double value(int index, int round) { return index * 0.5 + round * 1e6; }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void partitionsLargerThanTheFrameLimitAreReadAndWrittenAcrossNodes(TransportSecurity security) {
        DsaConfig config = DsaConfig.builder().nodes(NODES).threadsPerNode(1).maxFrameBytes(MAX_FRAME_BYTES)
                .transportSecurity(security).build();
        try (DsaCluster cluster = DsaCluster.local(config)) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedDoubleArray a = w.node().createSharedDoubleArray("big", NODES * PARTITION, PARTITION);
                    int me = w.nodeId();
                    int next = (me + 1) % NODES;
                    int mine = a.partitionOf(0, me * PARTITION);
                    int theirs = a.partitionOf(0, next * PARTITION);
                    double[] buf = new double[PARTITION];
                    for (int i = 0; i < PARTITION; i++) buf[i] = value(me * PARTITION + i, 0);
                    a.writePartition(mine, buf);
                    w.barrier();
                    // a read miss: the neighbour's partition arrives in chunks (DATA_S, or OWNER_DATA then DATA_S)
                    double[] got = new double[PARTITION];
                    a.readPartition(theirs, got);
                    for (int i = 0; i < PARTITION; i++) check(next * PARTITION + i, 0, got[i]);
                    w.barrier();
                    // a write miss on a partition shared by others: invalidations, then DATA_M with chunks
                    for (int i = 0; i < PARTITION; i++) buf[i] = value(next * PARTITION + i, 1);
                    a.writePartition(theirs, buf);
                    w.barrier();
                    // the home reads its partition back from the writer (FWD_GET_S, OWNER_DATA in chunks)
                    a.readPartition(mine, got);
                    for (int i = 0; i < PARTITION; i++) check(me * PARTITION + i, 1, got[i]);
                    // a region across all three partitions
                    double[] all = new double[NODES * PARTITION];
                    a.read(0, 0, 1, NODES * PARTITION, all);
                    for (int i = 0; i < all.length; i++) check(i, 1, all[i]);
                    w.barrier();
                }
            });
        }
    }

    private static void check(int index, int round, double got) {
        assertEquals(value(index, round), got, "element " + index + " after round " + round);
    }
}
