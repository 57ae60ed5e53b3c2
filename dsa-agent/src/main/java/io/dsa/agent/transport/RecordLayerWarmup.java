package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Gets the JIT to compile the JDK's AES-GCM before a job's first bulk transfer. The JDK 17 uses
 * its AES and CLMUL intrinsics for GCM only from C2-compiled callers, and C2 compiles them after
 * thousands of records; until then a 128 KiB record is sealed and opened at about 0.07 GB/s, 50
 * times slower than after (docs/runtime.md, "Where a 1 MiB partition's time goes"). So the first
 * record of {@value #TRIGGER_FRAME_BYTES} bytes or more that a JVM seals or opens (bulk data is
 * coming; a CLI's status query never gets here) starts, once, a background thread that
 * seals and opens {@value #SMALL_RECORDS} small {@code ENCRYPT} records (cheap even while
 * interpreted, and enough calls for C2), then {@value #LARGE_RECORDS} {@code MAC} records of
 * {@link MacRecordProtection#GCM_TAG_MIN_FRAME_BYTES} bytes (its GCM tag path), under a random
 * key of its own: about 0.2 s of one core, measured in a plain loop on the build machine. It touches
 * no connection and no shared state; records that fail to open would be a JDK fault and end it
 * with a warning.
 */
final class RecordLayerWarmup {
    private static final Logger LOG = LoggerFactory.getLogger(RecordLayerWarmup.class);
    /** Small ENCRYPT records sealed and opened: past C2's invocation thresholds for the GCM path. */
    static final int SMALL_RECORDS = 10_000;
    /** MAC records of the smallest GCM-tagged size sealed and opened, once GCM is compiled. */
    static final int LARGE_RECORDS = 1_000;
    private static final int SMALL_FRAME_BYTES = 64;
    /** Frames of at least this many bytes start the warm-up: partition data. */
    static final int TRIGGER_FRAME_BYTES = MacRecordProtection.GCM_TAG_MIN_FRAME_BYTES;
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private RecordLayerWarmup() {}

    /**
     * Starts the warm-up thread unless this JVM already did. Thread-safe.
     *
     * @return the thread started, or null if one was started before
     */
    static Thread startOnce() {
        if (!STARTED.compareAndSet(false, true)) return null;
        Thread t = new Thread(() -> {
            try {
                run(SMALL_RECORDS, LARGE_RECORDS);
            } catch (RuntimeException e) {
                LOG.warn("record layer warm-up stopped: {}", e.toString());
            }
        }, "dsa-record-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
        return t;
    }

    /**
     * Seals and opens {@code small} ENCRYPT records of {@value #SMALL_FRAME_BYTES} bytes, then
     * {@code large} MAC records of {@link MacRecordProtection#GCM_TAG_MIN_FRAME_BYTES} bytes.
     *
     * @return the records opened, {@code small + large}
     * @throws IllegalStateException if a record did not open (a JDK fault)
     */
    static int run(int small, int large) {
        byte[] secret = new byte[Hkdf.HASH_BYTES];
        new SecureRandom().nextBytes(secret);
        return roundTrips(TransportSecurity.ENCRYPT, secret, SMALL_FRAME_BYTES, small)
                + roundTrips(TransportSecurity.MAC, secret, MacRecordProtection.GCM_TAG_MIN_FRAME_BYTES, large);
    }

    private static int roundTrips(TransportSecurity security, byte[] secret, int frameBytes, int records) {
        RecordProtection sender = RecordProtection.create(security, secret);
        RecordProtection receiver = RecordProtection.create(security, secret);
        ByteBuf record = Unpooled.buffer(frameBytes + WireFormat.RECORD_OVERHEAD_BYTES);
        try {
            record.writeInt(frameBytes + WireFormat.RECORD_TAG_BYTES).writeZero(frameBytes + WireFormat.RECORD_TAG_BYTES);
            for (int i = 0; i < records; i++) {
                sender.seal(record, 0, frameBytes);
                if (!receiver.open(record, 0, frameBytes)) {
                    throw new IllegalStateException(security + " warm-up record " + i + " of " + frameBytes + " bytes did not open");
                }
            }
            return records;
        } finally {
            record.release();
        }
    }
}
