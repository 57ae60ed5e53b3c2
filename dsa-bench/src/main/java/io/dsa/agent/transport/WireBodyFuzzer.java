package io.dsa.agent.transport;

import io.dsa.bench.fuzz.FuzzChecks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target: {@code WireFormat.readBody} for every {@link MessageType}, the body decoder behind
 * the frame decoder, without the framing in front of it. Input: byte 0 picks the type (modulo the
 * number of types), the rest is the body. Asserts what {@link WireFuzzing#readBody} checks (only
 * the documented exceptions; what decodes re-encodes stably) and the allocation bound.
 */
public final class WireBodyFuzzer {
    private WireBodyFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length == 0) return;
        int type = (input[0] & 0xff) % WireFuzzing.typeCount();
        FuzzChecks.runBounded("WireFormat.readBody(" + WireFuzzing.typeName(type) + ")", input,
                in -> WireFuzzing.readBody(type, Arrays.copyOfRange(in, 1, in.length)));
    }

    /** @return the body of a real message of every type, behind its type byte */
    public static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        for (Object m : WireFuzzing.samples()) seeds.add(WireFuzzing.prefixed(MessageType.of(m).ordinal(), WireFuzzing.body(m)));
        return seeds;
    }
}
