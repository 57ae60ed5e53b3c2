package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
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
 * Why {@link TransportSecurity#MAC} uses HMAC-SHA256/128 rather than AES-GMAC: the tag of one
 * record (sequence number, header and frame) both ways, on the same direct buffer, with the JDK's
 * providers. {@code hmacSha256} is the transport's own code ({@link HmacRecordProtection});
 * {@code aesGmac} is GCM with the record as additional data and nothing to encrypt, a fresh
 * nonce per record as GCM requires. Run with {@code -prof gc}: on JDK 17 GMAC buffers its
 * additional data, so it allocates about twice the frame per record.
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
    /** Frame bytes: a small control message, an 8 KiB partition, a 128 KiB partition. */
    @Param({"64", "8192", "131072"})
    int bytes;

    private RecordProtection hmac;
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
        hmac = RecordProtection.create(TransportSecurity.MAC, secret);
        record = Unpooled.directBuffer(bytes + WireFormat.RECORD_OVERHEAD_BYTES);
        record.writeInt(bytes + WireFormat.RECORD_TAG_BYTES).writeZero(bytes + WireFormat.RECORD_TAG_BYTES);
        gcm = Cipher.getInstance("AES/GCM/NoPadding");
        aesKey = new SecretKeySpec(secret, "AES");
    }

    /** The transport's MAC mode: HMAC-SHA256 over sequence, header and frame, truncated to 128 bits. */
    @Benchmark
    public ByteBuf hmacSha256() {
        hmac.seal(record, 0, bytes);
        return record;
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
