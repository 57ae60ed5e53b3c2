package io.dsa.bench.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The decoders that read bytes from outside a node, as Jazzer fuzz tests (targets in
 * {@link FuzzTarget}). In the build's {@code fuzz} Surefire execution each {@code @FuzzTest} runs
 * in regression mode: on the empty input and the inputs under
 * {@code src/test/resources/io/dsa/bench/fuzz/DecoderFuzzTestInputs/<method>/} (seeds from real
 * messages written by {@link FuzzTarget#main}, and every input a fuzzing run found a bug with).
 * With {@code -Djazzer.fuzz=1} and one test selected it fuzzes that target instead (see
 * docs/fuzzing.md). Each execution of an input has a timeout: a decoder that hangs fails.
 */
@Tag("jazzer")
class DecoderFuzzTest {
    // fuzzing mode only (a regression run takes milliseconds); below the @Timeout, which JUnit also applies to a whole fuzzing run
    private static final String BUDGET = "20s";

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void records(byte[] input) { FuzzTarget.RECORDS.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void frames(byte[] input) { FuzzTarget.FRAMES.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void preAuthFrames(byte[] input) { FuzzTarget.PRE_AUTH_FRAMES.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void wireBodies(byte[] input) { FuzzTarget.WIRE_BODIES.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void handshake(byte[] input) { FuzzTarget.HANDSHAKE.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void hostMessages(byte[] input) { FuzzTarget.HOST_MESSAGES.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void supervision(byte[] input) { FuzzTarget.SUPERVISION.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void hostReplies(byte[] input) { FuzzTarget.HOST_REPLIES.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void monitorMessages(byte[] input) { FuzzTarget.MONITOR_MESSAGES.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void jobCodec(byte[] input) { FuzzTarget.JOB_CODEC.run(input); }

    @FuzzTest(maxDuration = BUDGET)
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void agentState(byte[] input) { FuzzTarget.AGENT_STATE.run(input); }

    /** The seeds made fresh from today's encoders pass every target (the checked-in copies may be older). */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyTargetAcceptsItsSeeds() {
        for (FuzzTarget t : FuzzTarget.values()) {
            List<byte[]> seeds = t.seeds();
            assertFalse(seeds.isEmpty(), t.id());
            for (byte[] seed : seeds) t.run(seed);
        }
    }
}
