package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.transport.WireFuzzing;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.bench.fuzz.FuzzChecks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target: the 18 supervision messages between a host and the JVMs of its jobs (codes 70 to
 * 87). They travel over an authenticated connection between two processes of the same user, but a
 * job's JVM runs the job's code, so the host reads what it says as untrusted, and so does the
 * JVM. Each body is decoded as the frame decoder does, then goes through what its receiver checks
 * before acting: a launch's config and job options ({@link ChildAgent#config}), a restore's agent
 * state ({@link AgentState#decode}), a clone registration's partitions
 * ({@link ChildAgent#cloneSharers}), and the address of a started agent
 * ({@link AgentProcess#invalidStart}). Input: byte 0 picks the type (modulo 18), the rest is the
 * body.
 *
 * <p>Asserts: only the documented rejections (the wire's malformed/truncated; a
 * {@link DsaException} from the checks, or an {@link IllegalArgumentException} naming a config
 * value out of range from {@code DsaConfig.Builder.build()}); what decodes re-encodes stably; the
 * allocation bound.
 */
public final class SupervisionFuzzer {
    private static final List<String> TYPES = WireFuzzing.supervisionTypes();
    private static final byte[] SECRET = "fuzz-cluster-secret-0123456789ab".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private SupervisionFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length == 0) return;
        FuzzChecks.runBounded("supervision message " + type(input), input, SupervisionFuzzer::decode);
    }

    private static String type(byte[] input) {
        return TYPES.get((input[0] & 0xff) % TYPES.size());
    }

    private static void decode(byte[] input) {
        Object m = WireFuzzing.readBody(WireFuzzing.typeIndex(type(input)), Arrays.copyOfRange(input, 1, input.length));
        try {
            if (m instanceof AgentLaunchMessage launch) {
                try {
                    ChildAgent.config(launch, SECRET, TransportSecurity.ENCRYPT).build();
                } catch (IllegalArgumentException e) {
                    if (e.getMessage() == null) throw new AssertionError("config refused without a reason", e);
                }
            } else if (m instanceof AgentRestoreMessage restore) {
                AgentState.decode(restore.state());
            } else if (m instanceof RegisterCloneMessage registration) {
                ChildAgent.cloneSharers(registration);
            } else if (m instanceof AgentStartedMessage started) {
                AgentProcess.invalidStart(started);
            }
        } catch (DsaException e) {
            // the documented refusal: the receiver answers the request with it, or fails the call
        }
    }

    /** @return every supervision message as a host or a job's JVM writes it, behind its type byte */
    public static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        for (int i = 0; i < TYPES.size(); i++) seeds.add(WireFuzzing.prefixed(i, WireFuzzing.body(WireFuzzing.sample(TYPES.get(i)))));
        return seeds;
    }
}
