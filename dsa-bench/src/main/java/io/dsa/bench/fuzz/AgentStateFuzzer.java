package io.dsa.bench.fuzz;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.agent.transport.WireFuzzing;
import java.util.List;
import java.util.Map;

/**
 * Fuzz target: {@link AgentState#decode}, the migration and clone state a host receives from
 * another host. Input: the bytes. Asserts: the only rejection is a {@link DsaException}; what
 * decodes re-encodes to bytes that decode and encode the same again; the allocation bound.
 */
public final class AgentStateFuzzer {
    private AgentStateFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        FuzzChecks.decodeRoundTrip("AgentState.decode", input, AgentState::decode, AgentState::encode, DsaException.class);
    }

    /** @return real states: a home with a directory entry and data, a cached copy, variables, barriers; and an empty one */
    public static List<byte[]> seeds() {
        AgentState empty = new AgentState(0, "vm", 0, 1, 1, List.of("127.0.0.1:9"), List.of(), List.of(),
                new AgentState.BarrierImage(0, 0, 0, 0, 0, Map.of()));
        return List.of(WireFuzzing.agentState(), empty.encode());
    }
}
