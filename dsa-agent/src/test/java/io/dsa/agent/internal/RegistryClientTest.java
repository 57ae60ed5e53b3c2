package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.VarOpMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Node 1's registry client: registrations at node 0, and node 0's definitions taken here. */
@Timeout(10)
class RegistryClientTest {
    static final ArraySpec SPEC = ArraySpec.of("A", ElementType.LONG, 4, 4, 2, 2, Distribution.BLOCK);
    final RecordingNetwork network = new RecordingNetwork(1, 2);
    final JobLifecycle job = new JobLifecycle(1, network, text -> this.calls.failAll(text));
    final PendingCalls calls = new PendingCalls(network, job);
    final ArrayDirectory arrays = new ArrayDirectory(1, 2, 2, 1, network, IoThread.CALLER, Workers.waiting(IoThread.CALLER));
    final VariableHomes variables = new VariableHomes(network, calls);
    final RegistryClient registry = new RegistryClient(1, calls, arrays, variables);

    @Test
    void registeringAnArrayDefinesItHereWithoutWaitingForNode0sDefinition() {
        CompletableFuture<ArrayState> created = Workers.start(0, 1, i -> registry.registerArray(SPEC)).get(0);
        network.awaitSent("to 0: Register(1, 1, A, [3, 4, 4, 2, 2, 0, 0])");
        calls.complete(1, new RegisteredMessage(1, 3, 0, ""));
        ArrayState a = Workers.result(created);
        assertEquals(3, a.id);
        assertEquals(SPEC, a.spec);
        registry.onDefine(new DefineMessage(RegisterMessage.ARRAY, 3, 0, "A", Specs.toParams(SPEC)));
        assertSame(a, arrays.array(3), "node 0's definition, arriving later, changes nothing");
    }

    @Test
    void aRefusedRegistrationThrowsNode0sReason() {
        CompletableFuture<RegisteredMessage> refused = Workers.start(0, 1, i -> registry.register(RegisterMessage.BARRIER, "b", new long[] {3})).get(0);
        network.awaitSent("to 0: Register(1, 3, b, [3])");
        calls.complete(1, new RegisteredMessage(1, -1, -1, "barrier 'b' already exists with 2 parties, requested 3"));
        Throwable t = Workers.failure(refused);
        assertEquals(DsaException.class, t.getClass());
        assertEquals("barrier 'b' already exists with 2 parties, requested 3", t.getMessage());
    }

    @Test
    void aVariableIsKeptOnlyAtItsHome() {
        registry.onDefine(new DefineMessage(RegisterMessage.VARIABLE, 2, 0, "elsewhere", new long[] {1, 5}));
        registry.onDefine(new DefineMessage(RegisterMessage.VARIABLE, 3, 1, "here", new long[] {1, 7}));
        variables.onVarOp(0, new VarOpMessage(4, 3, VarOpMessage.GET, 0, 0));
        variables.onVarOp(0, new VarOpMessage(5, 2, VarOpMessage.GET, 0, 0));
        assertEquals(List.of("to 0: VarResult(4, 7, true)"), network.take(), "variable 2 is not homed here: its op waits");
    }
}
