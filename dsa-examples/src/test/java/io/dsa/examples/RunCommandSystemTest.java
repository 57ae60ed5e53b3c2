package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code dsa run} end to end: one JVM per node (this JVM is node 0, children are started from
 * its class path), and {@code --in-process}. Every test checks that no node process outlives it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RunCommandSystemTest {

    @AfterEach
    void noNodeProcessOutlivesTheCommand() {
        assertEquals(java.util.List.of(), DsaCommand.liveNodeProcesses(), "node processes left alive");
    }

    @Test
    void innerProductInFourProcesses() {
        DsaCommand dsa = DsaCommand.execute("run", "--nodes", "4", "--threads", "2", "--timeout", "120",
                "inner-product", "512", "32");
        assertEquals(0, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.out().matches("(?s).*node 0: inner product of 512 elements = [0-9.E-]+ \\(verified against sequential\\)\n.*"),
                dsa.toString());
        assertTrue(dsa.out().contains("VM startup: "), dsa.toString());
        assertTrue(dsa.out().contains(" ms (4 nodes x 2 threads)"), dsa.toString());
        assertTrue(dsa.out().contains("\nrun: "), dsa.toString());
        assertTrue(dsa.out().endsWith("result: OK\n"), dsa.toString());
    }

    @Test
    void matmulInFourProcesses() {
        DsaCommand dsa = DsaCommand.execute("run", "--nodes", "4", "--threads", "2", "--timeout", "120",
                "matmul", "128", "16");
        assertEquals(0, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.out().contains("node 0: matmul 128x128: C = A*B, sum of C = "), dsa.toString());
        assertTrue(dsa.out().contains("(verified against sequential)"), dsa.toString());
        assertTrue(dsa.out().endsWith("result: OK\n"), dsa.toString());
    }

    @Test
    void innerProductInProcess() {
        DsaCommand dsa = DsaCommand.execute("run", "--in-process", "--nodes", "4", "--threads", "2",
                "inner-product", "512", "32");
        assertEquals(0, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.out().contains("node 0: inner product of 512 elements = "), dsa.toString());
        assertTrue(dsa.out().endsWith("result: OK\n"), dsa.toString());
    }

    @Test
    void aWorkerFailureInAChildFailsTheRunAndEndsEveryChild() {
        DsaCommand dsa = DsaCommand.execute("run", "--nodes", "4", "--threads", "2", "--timeout", "120",
                TestPrograms.FailingProgram.class.getName());
        assertEquals(1, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.out().contains("\nresult: FAILED: ") || dsa.out().startsWith("result: FAILED: "), dsa.toString());
        assertTrue(dsa.out().contains("deliberate failure on thread 5"), dsa.toString());
        assertFalse(dsa.out().contains("result: OK"), dsa.toString());
        for (int node = 1; node < 4; node++) {
            assertTrue(dsa.out().contains("[node " + node + "] setup on node " + node + "\n"),
                    "output of node " + node + " forwarded: " + dsa);
        }
        assertTrue(dsa.err().contains("[node 2] node 2 stopped: "), dsa.toString());
    }

    @Test
    void aHungJobTimesOutAndEndsEveryChild() {
        DsaCommand dsa = DsaCommand.execute("run", "--nodes", "3", "--threads", "1", "--timeout", "5",
                TestPrograms.HangingProgram.class.getName());
        assertEquals(1, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.out().contains("result: FAILED: "), dsa.toString());
        assertFalse(dsa.out().contains("result: OK"), dsa.toString());
    }

    @Test
    void programsListsTheExamples() {
        DsaCommand dsa = DsaCommand.execute("programs");
        assertEquals(0, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.out().contains("inner-product  io.dsa.examples.InnerProduct"), dsa.toString());
        assertTrue(dsa.out().contains("matmul         io.dsa.examples.MatMul"), dsa.toString());
    }

    @Test
    void anUnknownProgramListsTheExamples() {
        DsaCommand dsa = DsaCommand.execute("run", "inner-prodcut");
        assertEquals(2, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.err().contains("unknown program 'inner-prodcut'; known programs: "), dsa.toString());
        for (String known : List.of("inner-product", "matmul", "lu", "fft", "jacobi", "mm2", "psrs", "tsp", "cg", "histogram")) {
            assertTrue(dsa.err().contains(known), known + " not listed: " + dsa);
        }
    }
}
