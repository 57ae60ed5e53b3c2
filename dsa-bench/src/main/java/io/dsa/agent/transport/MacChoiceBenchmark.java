package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Which tag {@link TransportSecurity#MAC} puts on a record (sequence number, header and frame),
 * with the JDK's providers, on a heap buffer as the transport seals in: {@code transportMac} is
 * the transport's own code ({@link MacRecordProtection}: HMAC-SHA256 under
 * {@value MacRecordProtection#GCM_TAG_MIN_FRAME_BYTES} bytes, else the AES-GCM tag of the frame
 * encrypted into a scratch array); {@code hmacSha256} is HMAC-SHA256 at every size (the mode
 * before the GCM tag); {@code aesGmac} is GCM with the record as additional data and nothing to
 * encrypt, a fresh nonce per record as GCM requires. Run with {@code -prof gc}: on JDK 17 GMAC
 * buffers its additional data, so it allocates about twice the frame per record.
 *
 * <pre>java -jar dsa-bench/target/benchmarks.jar MacChoiceBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MacChoiceBenchmark {
    /** Frame bytes: a small control message, the smallest GCM-tagged frame, an 8 KiB partition, a 128 KiB chunk. */
    @Param({"64", "4096", "8192", "131072"})
    int bytes;

    private RecordProtection transportMac;
    private Mac hmac;
    private final byte[] sequenceBytes = new byte[Long.BYTES];
    private final byte[] hmacOut = new byte[32];
    private ByteBuf record;
    private Cipher gcm;
    private SecretKeySpec aesKey;
    private final byte[] iv = new byte[RecordProtection.IV_BYTES];
    private final byte[] nonce = new byte[RecordProtection.IV_BYTES];
    private final byte[] tag = new byte[WireFormat.RECORD_TAG_BYTES];
    private long sequence;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        byte[] secret = new byte[Hkdf.HASH_BYTES];
        new java.util.Random(7).nextBytes(secret);
        transportMac = RecordProtection.create(TransportSecurity.MAC, secret);
        hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(secret, "HmacSHA256"));
        record = Unpooled.buffer(bytes + WireFormat.RECORD_OVERHEAD_BYTES);
        record.writeInt(bytes + WireFormat.RECORD_TAG_BYTES).writeZero(bytes + WireFormat.RECORD_TAG_BYTES);
        gcm = Cipher.getInstance("AES/GCM/NoPadding");
        aesKey = new SecretKeySpec(secret, "AES");
    }

    /** The transport's MAC mode: HMAC-SHA256 or the GCM tag by frame size. */
    @Benchmark
    public ByteBuf transportMac() {
        transportMac.seal(record, 0, bytes);
        return record;
    }

    /** HMAC-SHA256 over sequence, header and frame at every size, as the MAC mode was before the GCM tag. */
    @Benchmark
    public byte[] hmacSha256() throws Exception {
        long s = sequence++;
        for (int i = 0; i < Long.BYTES; i++) {
            sequenceBytes[i] = (byte) (s >>> (8 * (Long.BYTES - 1 - i)));
        }
        hmac.update(sequenceBytes);
        hmac.update(record.array(), record.arrayOffset(), WireFormat.RECORD_HEADER_BYTES + bytes);
        hmac.doFinal(hmacOut, 0);
        return hmacOut;
    }

    /** The alternative: AES-GMAC (GCM, the record as additional data, nothing encrypted), a nonce per record. */
    @Benchmark
    public byte[] aesGmac() throws Exception {
        RecordProtection.nonce(iv, sequence++, nonce);
        gcm.init(Cipher.ENCRYPT_MODE, aesKey, new GCMParameterSpec(128, nonce));
        ByteBuffer aad = record.nioBuffer(0, WireFormat.RECORD_HEADER_BYTES + bytes);
        gcm.updateAAD(aad);
        gcm.doFinal(tag, 0);
        return tag;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        record.release();
    }
}
