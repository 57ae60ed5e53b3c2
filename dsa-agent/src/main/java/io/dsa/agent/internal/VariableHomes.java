package io.dsa.agent.internal;

import io.dsa.agent.AgentState;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shared variables: the values of those homed at this node, which execute every operation
 * atomically, and the client that sends an operation to a variable's home. An operation that
 * arrives before the variable's definition (it travels from node 0 on another connection) waits
 * here until it is defined. Thread-safe: the I/O thread defines and executes, workers call.
 */
final class VariableHomes {
    private final PeerNetwork network;
    private final PendingCalls calls;
    /** Guards {@link #earlyOps} and the set of keys of {@link #homed}. */
    private final Map<Integer, AtomicLong> homed = new HashMap<>();
    private final Map<Integer, List<EarlyOp>> earlyOps = new HashMap<>();

    private record EarlyOp(int from, VarOpMessage message) {}

    VariableHomes(PeerNetwork network, PendingCalls calls) {
        this.network = network;
        this.calls = calls;
    }

    /** Executes a variable operation at its home, here or remote, and waits for the result. */
    VarResultMessage op(int varId, int home, int op, long a, long b) {
        return (VarResultMessage) calls.call(home, id -> new VarOpMessage(id, varId, op, a, b), "shared variable operation");
    }

    /** Defines variable {@code id} as homed here with {@code initialBits} (idempotent) and runs the operations that waited. */
    void define(int id, long initialBits) {
        List<EarlyOp> early;
        synchronized (homed) {
            if (homed.containsKey(id)) return;
            homed.put(id, new AtomicLong(initialBits));
            early = earlyOps.remove(id);
        }
        if (early != null) for (EarlyOp op : early) onVarOp(op.from(), op.message());
    }

    /** An operation on a variable homed here: executed, and the result sent back to {@code from}. */
    void onVarOp(int from, VarOpMessage m) {
        AtomicLong v;
        synchronized (homed) {
            v = homed.get(m.varId());
            if (v == null) {
                earlyOps.computeIfAbsent(m.varId(), k -> new ArrayList<>()).add(new EarlyOp(from, m));
                return;
            }
        }
        network.send(from, VariableOps.execute(v, m));
    }

    /** @return the variables homed here, by id (at a safe point) */
    List<AgentState.VariableImage> images() {
        List<AgentState.VariableImage> vars = new ArrayList<>();
        synchronized (homed) {
            for (Map.Entry<Integer, AtomicLong> v : new TreeMap<>(homed).entrySet()) {
                vars.add(new AgentState.VariableImage(v.getKey(), v.getValue().get()));
            }
        }
        return vars;
    }

    /** Installs variables moved from another agent of this node; before any worker runs here. */
    void install(List<AgentState.VariableImage> images) {
        synchronized (homed) {
            for (AgentState.VariableImage v : images) homed.put(v.id(), new AtomicLong(v.bits()));
        }
    }
}
