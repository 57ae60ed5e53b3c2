package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The AES-GCM warm-up: its records round-trip as the record layer's do, and it runs only where C2 compiles. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GcmWarmUpTest {
    @Test
    void itsRecordsAreSealedAndOpenedWithTheirTagsCheckedBothWays() throws Exception {
        // an opened record whose tag does not match throws: so every record, sealed whole or in steps, came back intact
        assertEquals(64, GcmWarmUp.run(64));
    }

    @Test
    void itRunsOnlyWhereC2Compiles() {
        assertTrue(GcmWarmUp.c2Runs(List.of()));
        assertTrue(GcmWarmUp.c2Runs(List.of("-Xmx1g", "-XX:TieredStopAtLevel=4")));
        assertTrue(GcmWarmUp.c2Runs(List.of("-XX:-TieredCompilation")), "C2 alone");
        assertFalse(GcmWarmUp.c2Runs(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")), "C1 only, as the tests' child JVMs");
        assertFalse(GcmWarmUp.c2Runs(List.of("-Xint")));
        assertTrue(GcmWarmUp.c2Runs(List.of("-XX:TieredStopAtLevel=1", "-XX:TieredStopAtLevel=4")), "the last one counts");
    }
}
