package io.dsa.agent.internal;

import io.dsa.agent.HostPort;
import io.dsa.agent.transport.WireFuzzing;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.bench.fuzz.FuzzChecks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target: the messages between node 0 (the monitor) and the other nodes whose fields a node
 * parses before it acts: the VIEW's addresses ({@link Membership#invalidView}, then
 * {@link HostPort#parse} of each, as the node dials them), a DEFINE's or REGISTER's parameters
 * ({@link Specs#invalidRegistration}, then {@link Specs#fromParams} for an array) and a JOIN's
 * address ({@link MonitorRole#invalidJoin}). Input: byte 0 picks the type (modulo 4), the rest is
 * the body, decoded as the frame decoder does.
 *
 * <p>Asserts: only the documented rejections (the wire's malformed/truncated; the checks answer
 * with a reason, never an exception); what they accept is usable: every view address parses, and
 * parses back from its {@code toString}; an accepted array spec writes the same parameters back
 * ({@link Specs#toParams}); the allocation bound.
 */
public final class MonitorMessageFuzzer {
    private static final String[] TYPES = {"VIEW", "DEFINE", "REGISTER", "JOIN"};
    private static final int MAX_PARTIES = 64;

    private MonitorMessageFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length == 0) return;
        FuzzChecks.runBounded("monitor message " + TYPES[(input[0] & 0xff) % TYPES.length], input, MonitorMessageFuzzer::decode);
    }

    private static void decode(byte[] input) {
        Object m = WireFuzzing.readBody(WireFuzzing.typeIndex(TYPES[(input[0] & 0xff) % TYPES.length]),
                Arrays.copyOfRange(input, 1, input.length));
        if (m instanceof ViewMessage v) {
            int nodes = v.addresses() == null ? 1 : Math.max(1, v.addresses().size());
            Membership.invalidView(v, 0, 2, 2);   // a node of another shape refuses it
            if (Membership.invalidView(v, nodes - 1, nodes, v.threadsPerNode()) == null) {
                for (String a : v.addresses()) {
                    HostPort hp = HostPort.parse(a);
                    if (!HostPort.parse(hp.toString()).equals(hp)) throw new AssertionError(hp + " does not parse back from " + a);
                }
            }
        } else if (m instanceof DefineMessage d) {
            checkParams(d.kind(), d.name(), d.params());
        } else if (m instanceof RegisterMessage r) {
            checkParams(r.kind(), r.name(), r.params());
        } else if (m instanceof JoinMessage j) {
            MonitorRole.invalidJoin(j, j.nodeId(), Math.max(2, j.nodeId() + 1));
        }
    }

    private static void checkParams(int kind, String name, long[] params) {
        if (Specs.invalidRegistration(kind, name, params, MAX_PARTIES) != null || kind != RegisterMessage.ARRAY) return;
        long[] back = Specs.toParams(Specs.fromParams(name, params));
        if (!Arrays.equals(back, params)) {
            throw new AssertionError("array params " + Arrays.toString(params) + " of '" + name + "' are accepted as "
                    + Arrays.toString(back) + ": a second meaning of the same spec");
        }
    }

    /** @return real monitor messages: views, array, variable, barrier and lock registrations and definitions, joins */
    public static List<byte[]> seeds() {
        long[] array2d = {0, 64, 64, 16, 16, 0, 0};
        long[] array1d = {3, 1, 1000, 1, 100, 1, 1};
        List<Object> messages = List.of(
                new ViewMessage(2, List.of("127.0.0.1:45677", "127.0.0.1:45678", "[::1]:45679")),
                new DefineMessage(RegisterMessage.ARRAY, 3, 0, "A", array2d),
                new DefineMessage(RegisterMessage.ARRAY, 4, 0, "x", array1d),
                new DefineMessage(RegisterMessage.VARIABLE, 5, 1, "sum", new long[] {VariableOps.DOUBLE, Double.doubleToLongBits(0.5)}),
                new RegisterMessage(7, RegisterMessage.ARRAY, "A", array2d),
                new RegisterMessage(8, RegisterMessage.BARRIER, "half", new long[] {4}),
                new RegisterMessage(9, RegisterMessage.LOCK, "l", new long[0]),
                new JoinMessage(1, "127.0.0.1", 45678));
        List<byte[]> seeds = new ArrayList<>();
        for (Object m : messages) {
            String type = m instanceof ViewMessage ? "VIEW" : m instanceof DefineMessage ? "DEFINE" : m instanceof RegisterMessage ? "REGISTER" : "JOIN";
            seeds.add(WireFuzzing.prefixed(Arrays.asList(TYPES).indexOf(type), WireFuzzing.body(m)));
        }
        return seeds;
    }
}
