package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A node with the wrong secret or VM name is refused at the handshake, and the VM still forms. */
@Timeout(60)
class AgentSecurityTest {
    private static final byte[] SECRET = "correct horse battery staple".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WRONG = "incorrect horse battery staple".getBytes(StandardCharsets.UTF_8);

    @Test
    void peersWithAWrongSecretOrVmAreRefusedAndTheMonitorKeepsServing() throws Exception {
        DsaConfig base = DsaConfig.builder().nodes(2).threadsPerNode(1).secret(SECRET).startupTimeoutMs(10_000).build();
        try (DsaAgent monitor = DsaAgent.start(base)) {
            DsaConfig intruder = base.toBuilder().nodeId(1).secret(WRONG).monitorAddress(monitor.address()).build();
            DsaException e = assertThrows(DsaException.class, () -> DsaAgent.start(intruder).close());
            assertTrue(e.getMessage().contains("cannot join the monitor"), e.getMessage());

            DsaConfig otherVm = base.toBuilder().nodeId(1).vmName("other").monitorAddress(monitor.address()).build();
            e = assertThrows(DsaException.class, () -> DsaAgent.start(otherVm).close());
            assertTrue(e.getMessage().contains("cannot join the monitor"), e.getMessage());

            DsaConfig good = base.toBuilder().nodeId(1).monitorAddress(monitor.address()).build();
            try (DsaAgent node1 = DsaAgent.start(good)) {
                DsaProgram program = new DsaProgram() {
                    @Override
                    public void work(DsaWorker w) {
                        long n = w.allReduce(1L, ReduceOp.SUM);
                        if (w.threadId() == 0) w.node().report("workers " + n);
                    }
                };
                CompletableFuture<RunReport> other = CompletableFuture.supplyAsync(() -> node1.run(program, List.of()));
                RunReport report = monitor.run(program, List.of());
                other.join();
                assertEquals(List.of("node 0: workers 2"), report.lines());
            }
        }
    }
}
