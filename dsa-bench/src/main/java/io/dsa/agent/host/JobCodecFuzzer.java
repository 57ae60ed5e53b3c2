package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.bench.fuzz.FuzzChecks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz target: {@link JobCodec#decode}, the job description a host receives from another host in
 * {@code beginTransfer}. Input: the bytes. Asserts: the only rejection is a {@link DsaException};
 * what decodes re-encodes to bytes that decode and encode the same again; the allocation bound.
 */
public final class JobCodecFuzzer {
    private JobCodecFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        FuzzChecks.decodeRoundTrip("JobCodec.decode", input, JobCodec::decode, j -> JobCodec.encode(j.message(), j.stopToken()),
                DsaException.class);
    }

    /** @return real job descriptions: with and without a monitor address, arguments, options and jar */
    public static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(JobCodec.encode(new HostJobMessage(7, "dsa", 1, 4, 2, "127.0.0.1:45677", "io.dsa.examples.InnerProduct",
                List.of("1024", "32"), List.of("barrier=TREE", "fanout=4", "proxy=FLOAT"),
                "PK\u0003\u0004 a jar".getBytes(StandardCharsets.UTF_8), 512L << 20, 2), "0123456789abcdef0123456789abcdef"));
        seeds.add(JobCodec.encode(new HostJobMessage(0, "vm-é", 0, 1, 1, null, "Main", List.of(), List.of(), new byte[0], 0, 0), ""));
        return seeds;
    }
}
