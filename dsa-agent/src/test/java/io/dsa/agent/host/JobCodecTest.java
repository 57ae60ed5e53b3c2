package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.wire.HostJobMessage;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The job description of beginTransfer: round trip, and refusal of other versions and of garbage. */
@org.junit.jupiter.api.Timeout(value = 30, unit = java.util.concurrent.TimeUnit.SECONDS)
class JobCodecTest {
    private static final HostJobMessage JOB = new HostJobMessage(42, "jacobi", 3, 4, 2, "127.0.0.2:4100",
            "io.dsa.examples.Jacobi", List.of("256", "π"), List.of("barrier=TREE", "fanout=4"), new byte[] {'P', 'K', 0, -1},
            64L << 20, 3);
    private static final String TOKEN = "00112233445566778899aabbccddeeff";

    @Test
    void roundTripsEveryField() {
        JobCodec.Job decoded = JobCodec.decode(JobCodec.encode(JOB, TOKEN));
        HostJobMessage back = decoded.message();
        assertEquals(TOKEN, decoded.stopToken());
        assertEquals(JOB.heapBytes(), back.heapBytes());
        assertEquals(JOB.cpus(), back.cpus());
        assertEquals(JOB.jobId(), back.jobId());
        assertEquals(JOB.vmName(), back.vmName());
        assertEquals(JOB.nodeId(), back.nodeId());
        assertEquals(JOB.nodes(), back.nodes());
        assertEquals(JOB.threadsPerNode(), back.threadsPerNode());
        assertEquals(JOB.monitorAddress(), back.monitorAddress());
        assertEquals(JOB.programClass(), back.programClass());
        assertEquals(JOB.args(), back.args());
        assertEquals(JOB.options(), back.options());
        assertArrayEquals(JOB.jar(), back.jar());
        HostJobMessage node0 = new HostJobMessage(1, "v", 0, 1, 1, null, "P", List.of(), List.of(), new byte[0], 0, 0);
        assertEquals(null, JobCodec.decode(JobCodec.encode(node0, "")).message().monitorAddress());
    }

    @Test
    void anUnknownVersionIsRefusedNamingBoth() {
        byte[] bytes = JobCodec.encode(JOB, TOKEN);
        bytes[0] = 9;
        DsaException e = assertThrows(DsaException.class, () -> JobCodec.decode(bytes));
        assertEquals("job description version 9 is unknown; this host reads version 2", e.getMessage());
    }

    @Test
    void truncatedOrPaddedBytesAreRefused() {
        byte[] bytes = JobCodec.encode(JOB, TOKEN);
        for (int cut = 1; cut < bytes.length; cut++) {
            byte[] part = Arrays.copyOf(bytes, cut);
            assertThrows(DsaException.class, () -> JobCodec.decode(part), "cut at " + cut);
        }
        byte[] padded = Arrays.copyOf(bytes, bytes.length + 1);
        assertTrue(assertThrows(DsaException.class, () -> JobCodec.decode(padded)).getMessage().contains("trailing"));
    }
}
