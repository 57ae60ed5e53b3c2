package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ended nodes a host remembers: their status rows, and the stop tokens they ran under, for {@link FinishedJobs#KEEP_MS}. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FinishedJobsTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final FinishedJobs finished = new FinishedJobs(now::get);

    private static byte[] token(String t) { return t.getBytes(StandardCharsets.US_ASCII); }

    @Test
    void anEndedNodesTokenIsKnownForItsVmOnlyAndUntilItIsForgotten() {
        finished.add("vm", 0, 2, "127.0.0.2:7000", "FAILED", "P", "token-a");
        assertTrue(finished.endedWithToken("vm", token("token-a")));
        assertFalse(finished.endedWithToken("vm", token("token-b")), "another token");
        assertFalse(finished.endedWithToken("other", token("token-a")), "the same token of another VM");
        assertFalse(finished.endedWithToken("vm", token("token-")), "a prefix of the token");

        now.addAndGet(FinishedJobs.KEEP_MS);
        assertTrue(finished.endedWithToken("vm", token("token-a")), "kept for KEEP_MS");
        now.incrementAndGet();
        assertFalse(finished.endedWithToken("vm", token("token-a")), "forgotten after KEEP_MS, with its row");
        assertEquals(0, finished.rows("vm").size());
    }

    @Test
    void rowsAreTheEndedNodesOfTheVmOldestFirst() {
        finished.add("vm", 1, 2, "127.0.0.3:7000", "DONE", "P", "t1");
        finished.add("other", 0, 1, "127.0.0.3:7000", "STOPPED", "Q", "t2");
        finished.add("vm", 0, 2, "127.0.0.3:7000", "DONE", "P", "t1");
        assertEquals(2, finished.rows("vm").size());
        assertEquals(3, finished.rows(null).size());
        assertEquals(1, finished.rows("vm").get(0).node());
    }
}
