package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.transport.WireFuzzing;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.bench.fuzz.FuzzChecks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target: the rows of host replies, as their readers parse them: the status rows that
 * {@code dsa status}, {@code dsa read} and a host locating a VM's nodes read
 * ({@link StatusRow#parseAll}), the transfer report of a migration or clone
 * ({@link RemoteAgentMonitor#report(List)}), and the element rows of a read
 * ({@link ElementRow#parseAll}). Input: byte 0 picks the reader (modulo 3), the rest is a
 * HOST_REPLY body, decoded as the frame decoder does.
 *
 * <p>Asserts: only the documented rejections (the wire's malformed/truncated, the parsers'
 * {@link DsaException}); a row that parses formats to a row that parses to the same value (no
 * second meaning); the allocation bound.
 */
public final class HostReplyFuzzer {
    private static final String[] READERS = {"status rows", "transfer report", "read rows"};

    private HostReplyFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length == 0) return;
        FuzzChecks.runBounded("host reply " + READERS[(input[0] & 0xff) % READERS.length], input, HostReplyFuzzer::decode);
    }

    private static void decode(byte[] input) {
        Object m = WireFuzzing.readBody(WireFuzzing.typeIndex("HOST_REPLY"), Arrays.copyOfRange(input, 1, input.length));
        if (!(m instanceof HostReplyMessage reply)) return;
        try {
            switch ((input[0] & 0xff) % READERS.length) {
                case 0 -> {
                    for (StatusRow row : StatusRow.parseAll(reply.rows())) {
                        if (!StatusRow.parse(row.format()).equals(row)) throw new AssertionError(row + " does not parse back from " + row.format());
                    }
                }
                case 1 -> {
                    var report = RemoteAgentMonitor.report(reply.rows());
                    if (!RemoteAgentMonitor.report(RemoteAgentMonitor.rows(report)).equals(report)) {
                        throw new AssertionError(report + " does not parse back");
                    }
                }
                default -> {
                    for (ElementRow row : ElementRow.parseAll(reply.rows())) {
                        if (!ElementRow.parse(row.format()).equals(row)) throw new AssertionError(row + " does not parse back from " + row.format());
                    }
                }
            }
        } catch (DsaException e) {
            // the documented refusal: the command reports it, a host counts the other host as unreachable
        }
    }

    /** @return real replies for each reader: status rows of several agents, a transfer report, read rows; and empty ones */
    public static List<byte[]> seeds() {
        List<String> status = List.of(
                new StatusRow("jacobi", 0, "127.0.0.1:7000", "127.0.0.1:45677", "RUNNING", "io.dsa.examples.Jacobi", 12, 3).format(),
                new StatusRow("jacobi", 4, "127.0.0.1:7001", StatusRow.NO_AGENT, "CLONE", "io.dsa.examples.Jacobi", 0, 7).format(),
                new StatusRow("lu", 1, "[::1]:7002", "[::1]:45680", "SUSPENDED", "Lu", 0, 0).format());
        List<String> transfer = RemoteAgentMonitor.rows(new io.dsa.agent.TransferReport("jacobi/2", "127.0.0.1:7000",
                "127.0.0.1:7001", 12_345_678, 1 << 20));
        List<String> read = List.of(new ElementRow(0, "1.5").format(), new ElementRow(1, "-3.0E-7").format(),
                new ElementRow(2, "NaN").format(), new ElementRow(3, "9223372036854775807").format());
        List<byte[]> seeds = new ArrayList<>();
        List<List<String>> rows = List.of(status, transfer, read);
        for (int reader = 0; reader < READERS.length; reader++) {
            seeds.add(WireFuzzing.prefixed(reader, WireFuzzing.body(new HostReplyMessage(3, true, "", rows.get(reader), new byte[0]))));
            seeds.add(WireFuzzing.prefixed(reader, WireFuzzing.body(new HostReplyMessage(4, true, "", List.of(), null))));
        }
        return seeds;
    }
}
