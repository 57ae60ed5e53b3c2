package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.DsaException;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;

/**
 * The registry of shared objects as a node sees it: registering an object by name at node 0 (the
 * first registration creates it, later ones find it), and taking node 0's definitions of new
 * arrays and variables, which every node receives because a home may be asked about an array
 * before its own program created it. Workers register; the I/O thread delivers definitions.
 */
final class RegistryClient {
    private final int nodeId;
    private final PendingCalls calls;
    private final ArrayDirectory arrays;
    private final VariableHomes variables;

    RegistryClient(int nodeId, PendingCalls calls, ArrayDirectory arrays, VariableHomes variables) {
        this.nodeId = nodeId;
        this.calls = calls;
        this.arrays = arrays;
        this.variables = variables;
    }

    /**
     * Registers object {@code name} of {@code kind} ({@link RegisterMessage}) and waits for node 0.
     *
     * @throws DsaException if it exists with other parameters (the text says both), or the job fails
     */
    RegisteredMessage register(int kind, String name, long[] params) {
        RegisteredMessage r = (RegisteredMessage) calls.call(0, id -> new RegisterMessage(id, kind, name, params),
                "registering '" + name + "'");
        if (!r.error().isEmpty()) throw new DsaException(r.error());
        return r;
    }

    /** Registers array {@code spec} and returns it as this node holds it. */
    ArrayState registerArray(ArraySpec spec) {
        long[] params = Specs.toParams(spec);
        RegisteredMessage r = register(RegisterMessage.ARRAY, spec.name(), params);
        // the monitor's definition may still be on its way (another thread of the monitor may be
        // sending it); the registration proved the spec, so define it here, idempotently
        onDefine(new DefineMessage(RegisterMessage.ARRAY, r.objectId(), r.home(), spec.name(), params));
        return arrays.array(r.objectId());
    }

    /**
     * Node 0's definition of a new array (every node) or variable (its home keeps the value).
     *
     * @throws DsaException naming the bad value when the definition's parameters are invalid
     */
    void onDefine(DefineMessage d) {
        if (d.kind() == RegisterMessage.ARRAY || d.kind() == RegisterMessage.VARIABLE) {
            String invalid = Specs.invalidRegistration(d.kind(), d.name(), d.params(), Integer.MAX_VALUE);
            if (invalid != null) throw new DsaException("node " + nodeId + " refused the definition of object " + d.objectId() + ": " + invalid);
        }
        if (d.kind() == RegisterMessage.ARRAY) {
            arrays.define(d.objectId(), d.name(), d.params());
        } else if (d.kind() == RegisterMessage.VARIABLE && d.home() == nodeId) {
            variables.define(d.objectId(), d.params()[1]);
        }
    }
}
