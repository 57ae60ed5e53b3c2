package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
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
 * The record layer's cost per frame ({@link RecordProtection}): one record sealed and opened in
 * place, in a heap buffer (as the channel does) and in a direct one, in each {@link TransportSecurity} mode. The
 * frame bytes are what the socket sees; the key updates of a long connection are included at
 * their real rate (never, at these counts). In the transport's package because the record layer
 * is package-private (see {@link CodecBenchmark}).
 *
 * <pre>java -jar dsa-bench/target/benchmarks.jar RecordLayerBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RecordLayerBenchmark {
    /** Frame bytes: a small control message, an 8 KiB partition, a 128 KiB partition. */
    @Param({"64", "8192", "131072"})
    int bytes;

    @Param({"ENCRYPT", "MAC"})
    TransportSecurity security;

    /** Where the record is: a direct buffer (what a socket read gives) or a heap buffer (what the transport seals and opens in). */
    @Param({"heap", "direct"})
    String buffer;

    private RecordProtection sender;
    private RecordProtection receiver;
    private ByteBuf record;

    @Setup(Level.Trial)
    public void setUp() {
        byte[] secret = new byte[Hkdf.HASH_BYTES];
        new java.util.Random(7).nextBytes(secret);
        sender = RecordProtection.create(security, secret);
        receiver = RecordProtection.create(security, secret);
        int capacity = bytes + WireFormat.RECORD_OVERHEAD_BYTES;
        record = buffer.equals("heap") ? Unpooled.buffer(capacity) : Unpooled.directBuffer(capacity);
        record.writeInt(bytes + WireFormat.RECORD_TAG_BYTES).writeZero(bytes + WireFormat.RECORD_TAG_BYTES);
    }

    /** Seals a record and opens it again: the sender's and the receiver's work for one frame (the buffer ends as it began). */
    @Benchmark
    public boolean sealAndOpen() {
        sender.seal(record, 0, bytes);
        boolean authentic = receiver.open(record, 0, bytes);
        if (!authentic) throw new IllegalStateException("record did not open");
        return authentic;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        record.release();
    }
}
