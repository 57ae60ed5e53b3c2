package io.dsa.bench.fuzz;

import io.dsa.agent.host.HostMessageFuzzer;
import io.dsa.agent.host.HostReplyFuzzer;
import io.dsa.agent.host.JobCodecFuzzer;
import io.dsa.agent.host.SupervisionFuzzer;
import io.dsa.agent.internal.MonitorMessageFuzzer;
import io.dsa.agent.transport.FrameDecoderFuzzer;
import io.dsa.agent.transport.HandshakeFuzzer;
import io.dsa.agent.transport.PreAuthFrameDecoderFuzzer;
import io.dsa.agent.transport.RecordDecoderFuzzer;
import io.dsa.agent.transport.WireBodyFuzzer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Every decoder that reads bytes from outside the node, as a fuzz target: a class with Jazzer's
 * {@code public static void fuzzerTestOneInput(byte[])} and seed inputs made from real messages.
 * The JUnit {@code @FuzzTest}s and {@code dsa bench fuzz} both run these.
 */
public enum FuzzTarget {
    /** The record layer of an authenticated connection and the frame decoder behind it, with known keys. */
    RECORDS("records", RecordDecoderFuzzer.class, RecordDecoderFuzzer::fuzzerTestOneInput, RecordDecoderFuzzer::seeds),
    /** The frame decoder after authentication (every message type), behind the record layer. */
    FRAMES("frames", FrameDecoderFuzzer.class, FrameDecoderFuzzer::fuzzerTestOneInput, FrameDecoderFuzzer::seeds),
    /** The frame decoder before authentication (handshake frames, 1 KiB at most). */
    PRE_AUTH_FRAMES("pre-auth-frames", PreAuthFrameDecoderFuzzer.class, PreAuthFrameDecoderFuzzer::fuzzerTestOneInput,
            PreAuthFrameDecoderFuzzer::seeds),
    /** {@code WireFormat.readBody} per message type. */
    WIRE_BODIES("wire-bodies", WireBodyFuzzer.class, WireBodyFuzzer::fuzzerTestOneInput, WireBodyFuzzer::seeds),
    /** The handshake handler (acceptor and dialer) fed arbitrary bytes. */
    HANDSHAKE("handshake", HandshakeFuzzer.class, HandshakeFuzzer::fuzzerTestOneInput, HandshakeFuzzer::seeds),
    /** Host requests, replies, jobs, job events and transfers with the host's field parsers. */
    HOST_MESSAGES("host-messages", HostMessageFuzzer.class, HostMessageFuzzer::fuzzerTestOneInput, HostMessageFuzzer::seeds),
    /** The 20 supervision messages between a host and its job JVMs, with their receivers' checks. */
    SUPERVISION("supervision", SupervisionFuzzer.class, SupervisionFuzzer::fuzzerTestOneInput, SupervisionFuzzer::seeds),
    /** The rows of host replies: status rows, transfer reports, read rows. */
    HOST_REPLIES("host-replies", HostReplyFuzzer.class, HostReplyFuzzer::fuzzerTestOneInput, HostReplyFuzzer::seeds),
    /** VIEW, DEFINE, REGISTER and JOIN with the checks of their fields (addresses, array specs, parameters). */
    MONITOR_MESSAGES("monitor-messages", MonitorMessageFuzzer.class, MonitorMessageFuzzer::fuzzerTestOneInput,
            MonitorMessageFuzzer::seeds),
    /** The job description hosts exchange ({@code JobCodec}). */
    JOB_CODEC("job-codec", JobCodecFuzzer.class, JobCodecFuzzer::fuzzerTestOneInput, JobCodecFuzzer::seeds),
    /** Migration and clone state ({@code AgentState.decode}). */
    AGENT_STATE("agent-state", AgentStateFuzzer.class, AgentStateFuzzer::fuzzerTestOneInput, AgentStateFuzzer::seeds);

    private final String id;
    private final Class<?> targetClass;
    private final Consumer<byte[]> target;
    private final Supplier<List<byte[]>> seeds;

    FuzzTarget(String id, Class<?> targetClass, Consumer<byte[]> target, Supplier<List<byte[]>> seeds) {
        this.id = id;
        this.targetClass = targetClass;
        this.target = target;
        this.seeds = seeds;
    }

    /** @return the name on the command line and in the report, e.g. {@code frames} */
    public String id() { return id; }

    /** @return the class Jazzer runs ({@code --target_class}) */
    public Class<?> targetClass() { return targetClass; }

    /** Runs the target on one input, on the calling thread; throws what the target throws. */
    public void run(byte[] input) { target.accept(input); }

    /** @return the seed inputs, made fresh from real messages */
    public List<byte[]> seeds() { return seeds.get(); }

    /** @return the name of the target's {@code DecoderFuzzTest} method (and inputs directory), e.g. {@code preAuthFrames} */
    public String testMethod() {
        StringBuilder b = new StringBuilder();
        for (String part : id.split("-")) b.append(b.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        return b.toString();
    }

    /**
     * Writes every target's seeds to {@code DIR/<testMethod>/seed-NN}: how the seeds under
     * {@code src/test/resources/io/dsa/bench/fuzz/DecoderFuzzTestInputs} were made (rerun it when the
     * wire format changes).
     *
     * @param args {@code DIR}
     */
    public static void main(String[] args) throws IOException {
        for (FuzzTarget t : values()) t.writeSeeds(Path.of(args[0]).resolve(t.testMethod()));
    }

    /** Writes the seeds to {@code dir/seed-NN}, creating {@code dir}. */
    public void writeSeeds(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<byte[]> all = seeds();
        for (int i = 0; i < all.size(); i++) Files.write(dir.resolve(String.format(Locale.ROOT, "seed-%02d", i)), all.get(i));
    }

    /** @return the target named {@code id} */
    public static FuzzTarget byId(String id) {
        for (FuzzTarget t : values()) if (t.id.equals(id)) return t;
        throw new IllegalArgumentException("no fuzz target '" + id + "'; known: " + java.util.Arrays.stream(values()).map(FuzzTarget::id).toList());
    }
}
