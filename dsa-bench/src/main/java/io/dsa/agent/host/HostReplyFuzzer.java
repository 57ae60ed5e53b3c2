package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.agent.transport.WireFuzzing;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.TransferReportMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.bench.fuzz.FuzzChecks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target: host answers, as their readers check them: the status rows that {@code dsa
 * status}, {@code dsa read} and a host locating a VM's nodes read (a HOST_STATUS body,
 * {@link StatusRow#checkAll}), the transfer report of a migration or clone
 * (a TRANSFER_REPORT body, {@link RemoteAgentMonitor#report(TransferReportMessage)}), and the elements of a read (an ELEMENTS body,
 * {@link ElementRow#of}). Input: byte 0 picks the reader (modulo 3), the rest is the body,
 * decoded as the frame decoder does.
 *
 * <p>Asserts: only the documented rejections (the wire's malformed/truncated, the checks'
 * {@link DsaException}); a row that passes the check travels back as the same row and a report
 * written as rows reads as the same report (no second meaning); every element's text is non-empty;
 * the allocation bound.
 */
public final class HostReplyFuzzer {
    private static final String[] READERS = {"status rows", "transfer report", "read elements"};
    private static final String[] TYPES = {"HOST_STATUS", "TRANSFER_REPORT", "ELEMENTS"};

    private HostReplyFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length == 0) return;
        FuzzChecks.runBounded("host reply " + READERS[(input[0] & 0xff) % READERS.length], input, HostReplyFuzzer::decode);
    }

    private static void decode(byte[] input) {
        int reader = (input[0] & 0xff) % READERS.length;
        Object m = WireFuzzing.readBody(WireFuzzing.typeIndex(TYPES[reader]), Arrays.copyOfRange(input, 1, input.length));
        try {
            if (m instanceof HostStatusMessage status) {
                for (StatusRow row : StatusRow.checkAll(status.rows())) {
                    if (!StatusRow.of(row.toWire()).equals(row)) throw new AssertionError(row + " does not travel back as itself");
                }
            } else if (m instanceof TransferReportMessage wire) {
                var report = RemoteAgentMonitor.report(wire);
                if (!RemoteAgentMonitor.report(RemoteAgentMonitor.toWire(wire.requestId(), report)).equals(report)) {
                    throw new AssertionError(report + " does not travel back as itself");
                }
            } else if (m instanceof ElementsMessage elements) {
                for (ElementRow row : ElementRow.of(elements)) {
                    if (row.value().isEmpty()) throw new AssertionError("element " + row.index() + " has no text");
                }
            }
        } catch (DsaException e) {
            // the documented refusal: the command reports it, a host counts the other host as unreachable
        }
    }

    /** @return real answers for each reader: status rows of several agents, a transfer report, elements; and empty ones */
    public static List<byte[]> seeds() {
        HostStatusMessage status = new HostStatusMessage(3, List.of(
                new StatusRow("jacobi", 0, "127.0.0.1:7000", "127.0.0.1:45677", "RUNNING", "io.dsa.examples.Jacobi", 12, 3).toWire(),
                new StatusRow("jacobi", 4, "127.0.0.1:7001", StatusRow.NO_AGENT, "CLONE", "io.dsa.examples.Jacobi", 0, 7).toWire(),
                new StatusRow("lu", 1, "[::1]:7002", "[::1]:45680", "SUSPENDED", "Lu", 0, 0).toWire()));
        TransferReportMessage transfer = RemoteAgentMonitor.toWire(3, new io.dsa.agent.TransferReport("jacobi/2", "127.0.0.1:7000",
                "127.0.0.1:7001", 12_345_678, 1 << 20));
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(WireFuzzing.prefixed(0, WireFuzzing.body(status)));
        seeds.add(WireFuzzing.prefixed(0, WireFuzzing.body(new HostStatusMessage(4, List.of()))));
        seeds.add(WireFuzzing.prefixed(1, WireFuzzing.body(transfer)));
        seeds.add(WireFuzzing.prefixed(1, WireFuzzing.body(new TransferReportMessage(4, null, null, null, -1, 0))));
        seeds.add(WireFuzzing.prefixed(2, WireFuzzing.body(new ElementsMessage(3, 0, ElementType.DOUBLE.ordinal(),
                new long[] {Double.doubleToRawLongBits(1.5), Double.doubleToRawLongBits(Double.NaN)}))));
        seeds.add(WireFuzzing.prefixed(2, WireFuzzing.body(new ElementsMessage(4, 9, ElementType.LONG.ordinal(),
                new long[] {Long.MAX_VALUE}))));
        return seeds;
    }
}
