package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.transport.WireFuzzing;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.TransferMessage;
import io.dsa.bench.fuzz.FuzzChecks;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz target: the messages between launchers and hosts and between hosts (HOST_JOB,
 * HOST_JOB_EVENT, STOP_VM, HOST_REPLY, TRANSFER, NODE_REQUEST, HOST_STATUS_QUERY, WORKERS_QUERY,
 * COUNTERS_QUERY, JAR_QUERY), decoded as the frame decoder
 * does and then through the checks a host applies to their fields before acting: the check of a
 * job ({@link HostedJob#invalid}), the new address of a move's commit
 ({@link HostRequests#commitAddress}). A NODE_REQUEST's step and a TRANSFER's hosts, cloning
 * mark and clone id are typed fields: the codec checks them.
 * Input: byte 0 picks the type (modulo 10), the rest is the body.
 *
 * <p>Asserts: only the documented rejections (the wire's malformed/truncated, the checks'
 * {@link DsaException}); what decodes re-encodes stably; the allocation bound.
 */
public final class HostMessageFuzzer {
    private static final String[] TYPES = {"HOST_JOB", "HOST_JOB_EVENT", "STOP_VM", "HOST_REPLY", "TRANSFER", "NODE_REQUEST",
            "HOST_STATUS_QUERY", "WORKERS_QUERY", "COUNTERS_QUERY", "JAR_QUERY"};

    private HostMessageFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length == 0) return;
        FuzzChecks.runBounded("host message " + TYPES[(input[0] & 0xff) % TYPES.length], input, HostMessageFuzzer::decode);
    }

    private static void decode(byte[] input) {
        int type = WireFuzzing.typeIndex(TYPES[(input[0] & 0xff) % TYPES.length]);
        Object m = WireFuzzing.readBody(type, java.util.Arrays.copyOfRange(input, 1, input.length));
        try {
            if (m instanceof HostJobMessage job) {
                HostedJob.invalid(job);
            } else if (m instanceof NodeRequestMessage r && r.step() instanceof CommitMoveMessage commit) {
                HostRequests.commitAddress(commit);
            }
        } catch (DsaException e) {
            // the documented refusal: the host answers the request with a refusal naming it
        }
    }

    /** @return real host messages of each type; node steps and transfer payloads among them */
    public static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        for (int i = 0; i < TYPES.length; i++) seeds.add(WireFuzzing.prefixed(i, WireFuzzing.body(WireFuzzing.sample(TYPES[i]))));
        seeds.add(WireFuzzing.prefixed(5, WireFuzzing.body(new NodeRequestMessage("dsa", 1,
                new CommitMoveMessage(10, 2, "127.0.0.1:45690")))));
        seeds.add(WireFuzzing.prefixed(5, WireFuzzing.body(new NodeRequestMessage("dsa", 1, new AbandonMoveMessage(11, 2)))));
        seeds.add(WireFuzzing.prefixed(5, WireFuzzing.body(new NodeRequestMessage("dsa", 1, new ReadArrayMessage(12, "A", 0, 16)))));
        seeds.add(WireFuzzing.prefixed(4, WireFuzzing.body(new TransferMessage(9, TransferMessage.BEGIN_TRANSFER, "dsa/0",
                "127.0.0.1:1", List.of(), true, -1))));
        seeds.add(WireFuzzing.prefixed(4, WireFuzzing.body(new TransferMessage(9, TransferMessage.REQUEST_TRANSFER, "dsa/0",
                "127.0.0.1:1", List.of("127.0.0.1:1", "127.0.0.1:2"), false, -1))));
        return seeds;
    }
}
