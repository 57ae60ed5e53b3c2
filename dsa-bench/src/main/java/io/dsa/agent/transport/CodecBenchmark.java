package io.dsa.agent.transport;

import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
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
 * The real frame codec of the transport ({@link FrameEncoder}, {@link FrameDecoder} over
 * {@link WireFormat}) on a coherence DATA_S message with a partition payload and on a payload-less
 * GET_S. It lives in dsa-bench but in the transport's package, because the codec is package-private
 * (the class path has no module boundaries); nothing in dsa-agent depends on it. The decoder's
 * channel context is only used when it rejects a frame, which these valid frames never are.
 *
 * <pre>java -jar dsa-bench/target/benchmarks.jar CodecBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {
    /** Payload bytes of the DATA_S message: none (a GET_S), 8 KiB, 128 KiB. */
    @Param({"0", "8192", "131072"})
    int bytes;

    private final FrameEncoder encoder = new FrameEncoder(Integer.MAX_VALUE);
    private final FrameDecoder decoder = new FrameDecoder(Integer.MAX_VALUE, false);
    private final List<Object> decoded = new ArrayList<>(1);
    private CoherenceMessage message;
    private ByteBuf out;
    private ByteBuf frame;

    @Setup(Level.Trial)
    public void setUp() {
        message = bytes == 0 ? new CoherenceMessage(CoherenceOp.GET_S, 1, 2, 1, 0, 1, null)
                : new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 0, 1, 1, new byte[bytes]);
        out = Unpooled.directBuffer(bytes + 64);
        frame = Unpooled.directBuffer(bytes + 64);
        encoder.encode(null, message, frame);
    }

    /** Encodes the message into a reused buffer (the pipeline's buffer allocation excluded). */
    @Benchmark
    public int encode() {
        out.clear();
        encoder.encode(null, message, out);
        return out.writerIndex();
    }

    /** Decodes the encoded frame into a message (allocates the message and its payload array, as the receiver keeps them). */
    @Benchmark
    public Object decode() {
        frame.readerIndex(0);
        decoded.clear();
        decoder.decode(null, frame, decoded);
        return decoded.get(0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        out.release();
        frame.release();
    }
}
