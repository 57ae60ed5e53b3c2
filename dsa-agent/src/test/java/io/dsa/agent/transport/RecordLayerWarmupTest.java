package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RecordLayerWarmup}: its records round-trip in both modes, and a JVM starts it once, from
 * the first large record a protection seals. Whether the JIT then compiles the JDK's GCM is not
 * something a test can see: docs/runtime.md has the profile.
 */
@Timeout(120)
class RecordLayerWarmupTest {
    @Test
    void warmUpRecordsOpenInBothModes() {
        assertEquals(300 + 40, RecordLayerWarmup.run(300, 40));
    }

    @Test
    void aLargeRecordStartsTheWarmUpOnceAndItEnds() throws Exception {
        byte[] secret = new byte[Hkdf.HASH_BYTES];
        new Random(3).nextBytes(secret);
        RecordProtection p = RecordProtection.create(TransportSecurity.ENCRYPT, secret);
        int frame = RecordLayerWarmup.TRIGGER_FRAME_BYTES;
        ByteBuf record = Unpooled.buffer(frame + WireFormat.RECORD_OVERHEAD_BYTES);
        record.writeInt(frame + WireFormat.RECORD_TAG_BYTES).writeZero(frame + WireFormat.RECORD_TAG_BYTES);
        p.seal(record, 0, frame); // starts it, unless an earlier test of this JVM did
        record.release();
        assertNull(RecordLayerWarmup.startOnce(), "started already: by the large record or before it");
        Thread warmup = thread("dsa-record-warmup"); // null if it has ended already
        if (warmup != null) {
            assertTrue(warmup.isDaemon(), "a daemon: it never holds the JVM");
            warmup.join(100_000);
            assertFalse(warmup.isAlive(), "the warm-up thread ends");
        }
    }

    private static Thread thread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) return t;
        }
        return null;
    }
}
