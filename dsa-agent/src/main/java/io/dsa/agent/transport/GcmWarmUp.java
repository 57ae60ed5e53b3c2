package io.dsa.agent.transport;

import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets the JDK's AES-GCM compiled before a JVM's bulk traffic pays for it (docs/runtime.md,
 * "Warming AES-GCM up"). JDK 17 runs GCM's carry-less multiply and AES counter mode as CPU
 * instructions (intrinsics) only from C2-compiled callers, and C2 compiles them only after
 * thousands of records: until then a 128 KiB record is sealed and opened at about 3 ms a pair
 * instead of 0.05 ms, and a JVM that moves partitions spends most of its first second on it. So
 * at the first record of {@value #BULK_BYTES} bytes or more, a daemon thread of its own seals and
 * opens {@value #RECORDS} records of {@value #RECORD_BYTES} bytes with a throwaway key (about
 * 0.15 s of one core), once per JVM, which is enough for C2 to compile the paths the records
 * take. A host's job JVMs start it when they start ({@link Transport#warmUpRecordCiphers}), most of
 * them as spares before any job needs them. Skipped where C2 does not run ({@code -Xint}, {@code -XX:TieredStopAtLevel} below 4) and
 * with {@code -D}{@value #PROPERTY}{@code =false}. Thread-safe.
 */
final class GcmWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(GcmWarmUp.class);
    /** Records of at least this many bytes start the warm-up. */
    static final int BULK_BYTES = 4096;
    /** Records sealed and opened by the warm-up. */
    static final int RECORDS = 10_000;
    /** Bytes of each of its records. */
    static final int RECORD_BYTES = 512;
    /** The system property that turns the warm-up off ({@code false}). */
    static final String PROPERTY = "dsa.gcmWarmUp";

    /** Whether the warm-up started in this JVM: read by every bulk record, set by the first. */
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private GcmWarmUp() {}

    /** A record of {@code frameLength} bytes is sealed or opened: starts the warm-up once per JVM if it is a bulk one. */
    static void recordOf(int frameLength) {
        if (frameLength < BULK_BYTES || STARTED.get()) return;
        startOnce();
    }

    /** Starts the warm-up now, unless it started before in this JVM ({@link Transport#warmUpRecordCiphers}). */
    static void startOnce() {
        if (!STARTED.compareAndSet(false, true)) return;
        Thread warmUp = new Thread(GcmWarmUp::warmUpIfWorthIt, "dsa-gcm-warm-up");
        warmUp.setDaemon(true);
        warmUp.start();
    }

    private static void warmUpIfWorthIt() {
        if ("false".equals(System.getProperty(PROPERTY))) return;
        long start = System.nanoTime();
        try {
            if (!c2Runs(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())) return;
            run(RECORDS);
            LOG.debug("AES-GCM warmed up: {} records of {} bytes sealed and opened in {} ms", RECORDS, RECORD_BYTES,
                    (System.nanoTime() - start) / 1_000_000);
        } catch (GeneralSecurityException | RuntimeException | LinkageError e) {
            // no management module, a JDK without the cipher: the records are then only slower, as without the warm-up
            LOG.debug("AES-GCM warm-up stopped: {}", e.toString());
        }
    }

    /** @return whether C2 compiles in a JVM started with {@code arguments}: not with -Xint, nor a tiered stop below level 4 */
    static boolean c2Runs(List<String> arguments) {
        boolean runs = true;
        for (String a : arguments) {
            if (a.equals("-Xint")) runs = false;
            if (a.startsWith("-XX:TieredStopAtLevel=")) {
                try {
                    runs = Integer.parseInt(a.substring("-XX:TieredStopAtLevel=".length()).trim()) >= 4;
                } catch (NumberFormatException e) {
                    runs = true;   // the JVM itself refuses such an option at start
                }
            }
        }
        return runs;
    }

    /**
     * Seals and opens {@code records} records of {@link #RECORD_BYTES} bytes as the record layer does
     * ({@link RecordGcm}: a fresh nonce and a 4-byte header as additional data each, in place in
     * a heap array); every other record is sealed in steps of a quarter of it, as the MAC mode
     * computes its tags ({@link MacRecordProtection}). Each record opened checks its tag.
     *
     * @return the records sealed and opened
     * @throws GeneralSecurityException if the JDK refuses one, or an opened record's tag does not match
     */
    static int run(int records) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        SecretKeySpec key = new SecretKeySpec(new byte[32], "AES");   // throwaway: nothing it seals leaves this thread
        byte[] header = new byte[WireFormat.RECORD_HEADER_BYTES];
        byte[] nonce = new byte[RecordProtection.IV_BYTES];
        byte[] record = new byte[RECORD_BYTES + WireFormat.RECORD_TAG_BYTES];
        for (int r = 0; r < records; r++) {
            for (int i = 0; i < 8; i++) nonce[nonce.length - 1 - i] = (byte) (r >>> (8 * i));
            record[r % RECORD_BYTES] ^= 1;
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(WireFormat.RECORD_TAG_BYTES * 8, nonce));
            cipher.updateAAD(header);
            int sealed;
            if (r % 2 == 0) {
                sealed = cipher.doFinal(record, 0, RECORD_BYTES, record, 0);
            } else {
                int step = RECORD_BYTES / 4;
                sealed = 0;
                for (int at = 0; at < RECORD_BYTES - step; at += step) sealed += cipher.update(record, at, step, record, at);
                sealed += cipher.doFinal(record, RECORD_BYTES - step, step, record, RECORD_BYTES - step);
            }
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(WireFormat.RECORD_TAG_BYTES * 8, nonce));
            cipher.updateAAD(header);
            cipher.doFinal(record, 0, sealed, record, 0);   // AEADBadTagException if the tag does not match
        }
        return records;
    }
}
