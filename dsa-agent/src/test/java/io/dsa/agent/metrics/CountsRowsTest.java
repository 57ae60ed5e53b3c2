package io.dsa.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A node's counts as rows ({@link CountsRows}) and as Prometheus counters ({@link DsaCollector}), hits counted or not. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CountsRowsTest {
    private static final ArrayCounts A = new ArrayCounts("a", 10, 20, 3, 4, 5, 6, 7, 8);

    private static NodeCounts node(int id, boolean hitsCounted) {
        return new NodeCounts("vm", id, 100, 200, 3, 4000, 0, 0, List.of(A), hitsCounted);
    }

    @Test
    void countsTravelAsRowsWhetherHitsAreCountedOrNot() {
        List<NodeCounts> sent = List.of(node(0, true), node(1, false));
        List<String> rows = sent.stream().flatMap(n -> CountsRows.format(n).stream()).toList();
        assertEquals(sent, CountsRows.parse(rows));
        assertTrue(rows.get(2).startsWith("N\tvm\t1\t100\t200\t3\t4000\t0\t0\t0"), rows.get(2));
    }

    /** Before: a node row without hitsCounted, from a host of an earlier build, would not parse. */
    @Test
    void rowsOfAnEarlierBuildAreOfNodesThatCountHits() {
        List<NodeCounts> got = CountsRows.parse(List.of("N\tvm\t2\t1\t2\t3\t4\t5\t6", "A\tvm\t2\ta\t10\t20\t3\t4\t5\t6\t7\t8"));
        assertEquals(List.of(new NodeCounts("vm", 2, 1, 2, 3, 4, 5, 6, List.of(A))), got);
        assertTrue(got.get(0).hitsCounted());
    }

    @Test
    void aHitsCountedFlagOtherThanZeroOrOneIsNamed() {
        DsaException e = assertThrows(DsaException.class, () -> CountsRows.parse(List.of("N\tvm\t2\t1\t2\t3\t4\t5\t6\t2")));
        assertTrue(e.getMessage().endsWith("hitsCounted 2 out of range [0, 1]"), e.getMessage());
        assertThrows(DsaException.class, () -> CountsRows.parse(List.of("N\tvm\t2\t1\t2\t3\t4\t5")), "five counts");
    }

    @Test
    void aNodeThatDoesNotCountHitsHasNoHitSeries() {
        List<MetricSnapshot> snapshots = new DsaCollector(() -> List.of(node(0, true), node(1, false))).collect().stream().toList();
        for (MetricSnapshot m : snapshots) {
            List<String> nodes = m.getDataPoints().stream().map(p -> p.getLabels().get("node")).toList();
            boolean hits = m.getMetadata().getName().endsWith("_hits");
            assertEquals(hits ? List.of("0") : List.of("0", "1"), nodes, m.getMetadata().getName());
        }
        assertTrue(snapshots.stream().anyMatch(m -> m.getMetadata().getName().equals("dsa_read_hits")), "the hit series of node 0");
        assertFalse(snapshots.isEmpty());
    }
}
