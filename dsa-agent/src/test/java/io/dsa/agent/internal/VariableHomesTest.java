package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.agent.AgentState;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Shared variables at node 1 of 3: operations executed at the home, early ones held until the definition. */
@Timeout(10)
class VariableHomesTest {
    final RecordingNetwork network = new RecordingNetwork(1, 3);
    final JobLifecycle job = new JobLifecycle(1, network, text -> this.calls.failAll(text));
    final PendingCalls calls = new PendingCalls(network, job);
    final VariableHomes variables = new VariableHomes(network, calls);

    @Test
    void anOperationGoesToTheHomeAndReturnsItsResult() {
        CompletableFuture<VarResultMessage> op = Workers.start(0, 1,
                i -> variables.op(3, 2, VarOpMessage.GET_AND_ADD, 5, VariableOps.LONG)).get(0);
        network.awaitSent("to 2: VarOp(1, 3, 3, 5, 1)");
        calls.complete(1, new VarResultMessage(1, 40, true));
        assertEquals("VarResult(1, 40, true)", WireText.of(Workers.result(op)));
    }

    @Test
    void theHomeExecutesEachOperationAtomicallyAndAnswersTheSender() {
        variables.define(3, 10);
        variables.onVarOp(0, new VarOpMessage(7, 3, VarOpMessage.GET_AND_ADD, 5, VariableOps.LONG));
        variables.onVarOp(2, new VarOpMessage(8, 3, VarOpMessage.COMPARE_AND_SET, 15, 1));
        variables.onVarOp(2, new VarOpMessage(9, 3, VarOpMessage.COMPARE_AND_SET, 15, 2));
        variables.onVarOp(1, new VarOpMessage(4, 3, VarOpMessage.GET, 0, 0));
        assertEquals(List.of("to 0: VarResult(7, 10, true)", "to 2: VarResult(8, 15, true)", "to 2: VarResult(9, 15, false)",
                "to 1: VarResult(4, 1, true)"), network.take());
    }

    @Test
    void operationsBeforeTheDefinitionWaitAndRunInArrivalOrderOnce() {
        variables.onVarOp(0, new VarOpMessage(1, 3, VarOpMessage.SET, 9, 0));
        variables.onVarOp(2, new VarOpMessage(2, 3, VarOpMessage.GET, 0, 0));
        assertEquals(List.of(), network.take());
        variables.define(3, 100);
        assertEquals(List.of("to 0: VarResult(1, 9, true)", "to 2: VarResult(2, 9, true)"), network.take());
        variables.define(3, 100);
        variables.onVarOp(2, new VarOpMessage(3, 3, VarOpMessage.GET, 0, 0));
        assertEquals(List.of("to 2: VarResult(3, 9, true)"), network.take(), "a second definition does not reset the value");
    }

    @Test
    void theHomedValuesMoveWithAState() {
        variables.define(5, 50);
        variables.define(2, 20);
        List<AgentState.VariableImage> images = variables.images();
        assertEquals(List.of(new AgentState.VariableImage(2, 20), new AgentState.VariableImage(5, 50)), images, "by id");
        VariableHomes moved = new VariableHomes(network, calls);
        moved.install(images);
        moved.onVarOp(0, new VarOpMessage(1, 5, VarOpMessage.GET, 0, 0));
        assertEquals(List.of("to 0: VarResult(1, 50, true)"), network.take());
    }
}
