package io.dsa.bench.fuzz;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import java.util.ArrayList;
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
        byte[] data = new byte[32];
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 7);
        AgentState.ArrayImage array = new AgentState.ArrayImage(3, "A", new long[] {0, 8, 8, 4, 4, 0, 0}, List.of(
                new AgentState.PartitionImage(0, AgentState.ROLE_HOME, 1, -1, new int[] {0, 2}, data),
                new AgentState.PartitionImage(2, AgentState.ROLE_CACHE, 1, -1, new int[0], data.clone()),
                new AgentState.PartitionImage(3, AgentState.ROLE_HOME, 0, -1, new int[0], null)));
        AgentState full = new AgentState(1, "dsa", 12, 3, 2, List.of("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"),
                List.of(array), List.of(new AgentState.VariableImage(4, Double.doubleToLongBits(2.5))),
                new AgentState.BarrierImage(12, 12, 12, 0, 30, Map.of(5, 2L)));
        AgentState empty = new AgentState(0, "vm", 0, 1, 1, List.of("127.0.0.1:9"), List.of(), List.of(),
                new AgentState.BarrierImage(0, 0, 0, 0, 0, Map.of()));
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(full.encode());
        seeds.add(empty.encode());
        return seeds;
    }
}
