package io.dsa.agent.transport;

import io.dsa.agent.wire.LockMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * The round trip of a small message (a LOCK request and its GRANT, as a barrier's arrival and
 * release would go) between two transports over loopback while the answering side streams
 * partitions of {@code bytes} to the asking side on the same connection, two in flight at a time:
 * what a barrier pays for a bulk transfer under way (docs/runtime.md, "Bulk transfers"). Uses the
 * public transport API only, so the same class measures an older build too.
 *
 * <pre>java -jar dsa-bench/target/benchmarks.jar SmallMessageUnderBulk
 * dsa bench jmh --include SmallMessageUnderBulkBenchmark</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SmallMessageUnderBulkBenchmark {
    /** The partitions streamed meanwhile: 4 MiB, or none (the small message alone). */
    @Param({"4194304", "0"})
    int bytes;

    @Param({"ENCRYPT", "MAC"})
    TransportSecurity security;

    private static final int IN_FLIGHT = 2;

    private Transport server;
    private Transport client;
    private Connection toServer;
    private final BlockingQueue<Long> grants = new LinkedBlockingQueue<>(); // one per request: none is lost if it beats the poll
    private final AtomicLong requests = new AtomicLong();
    private volatile boolean streaming;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        byte[] secret = "bench-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);
        byte[] partition = new byte[Math.max(bytes, 1)];
        server = Transport.start(TransportConfig.builder().vmName("bench").nodeId(0).secret(secret).security(security).build(),
                (connection, message) -> {
                    if (message instanceof LockMessage l) {
                        connection.send(new LockMessage(l.lockId(), LockMessage.GRANT, l.node(), l.requestId()));
                    } else {
                        CoherenceMessage get = (CoherenceMessage) message;
                        connection.send(new CoherenceMessage(CoherenceOp.DATA_S, get.arrayId(), get.partition(), 0, 1, 1, partition));
                    }
                });
        byte[][] slots = new byte[IN_FLIGHT][partition.length];
        client = Transport.start(TransportConfig.builder().vmName("bench").nodeId(1).secret(secret).security(security).build(),
                new InboundHandler() {
                    @Override
                    public void onMessage(Connection connection, Object message) {
                        if (message instanceof LockMessage) {
                            grants.offer(System.nanoTime());
                        } else if (streaming) {
                            request(connection); // the next partition, so that IN_FLIGHT stay in flight
                        }
                    }

                    @Override
                    public byte[] bufferFor(int arrayId, int partition, int length) { return slots[partition % IN_FLIGHT]; }
                });
        toServer = client.connect("127.0.0.1", server.boundAddress().getPort()).get(10, TimeUnit.SECONDS);
        streaming = bytes > 0;
        if (streaming) {
            for (int i = 0; i < IN_FLIGHT; i++) request(toServer);
        }
    }

    private void request(Connection c) {
        c.send(new CoherenceMessage(CoherenceOp.GET_S, 1, (int) (requests.getAndIncrement() % IN_FLIGHT), 1, 0, 1, null));
    }

    /** One small request and its answer, while the partitions stream the other way. */
    @Benchmark
    public long smallRoundTrip() throws InterruptedException {
        toServer.send(new LockMessage(1, LockMessage.ACQUIRE, 1, 7));
        Long answered = grants.poll(30, TimeUnit.SECONDS);
        if (answered == null) throw new IllegalStateException("no answer within 30 s");
        return answered;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        streaming = false;
        client.close();
        server.close();
    }
}
