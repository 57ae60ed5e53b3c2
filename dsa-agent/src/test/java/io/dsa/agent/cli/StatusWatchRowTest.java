package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.agent.metrics.ArrayCounts;
import io.dsa.agent.metrics.NodeCounts;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A node's row in {@code dsa status --watch}'s table. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StatusWatchRowTest {
    private static final List<ArrayCounts> ARRAYS = List.of(new ArrayCounts("a", 10, 20, 3, 4, 5, 6, 7, 8),
            new ArrayCounts("b", 1, 2, 30, 40, 50, 60, 70, 80));

    @Test
    void hitsAndMissesAreSummedOverTheArrays() {
        NodeCounts n = new NodeCounts("vm", 1, 100, 200, 0, 0, 0, 0, ARRAYS, true);
        assertEquals(List.of("vm", "1", "33", "77", "55", "66", "100", "200"), List.of(StatusCommand.watchRow(n)));
    }

    /** Before: a node run with --no-hit-counts showed 0 hits, as if nothing had hit. */
    @Test
    void aNodeThatDoesNotCountHitsSaysSo() {
        NodeCounts n = new NodeCounts("vm", 1, 100, 200, 0, 0, 0, 0, ARRAYS, false);
        assertEquals(List.of("vm", "1", "not counted", "77", "55", "66", "100", "200"), List.of(StatusCommand.watchRow(n)));
    }
}
