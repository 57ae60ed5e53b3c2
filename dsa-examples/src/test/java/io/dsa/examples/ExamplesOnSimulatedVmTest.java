package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The examples' own logic (blocks, fills, checks) on {@link SimulatedVm}, independent of the runtime. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExamplesOnSimulatedVmTest {

    @Test
    void innerProductVerifiesAndReports() throws Exception {
        List<String> lines = new SimulatedVm(4, 2).run(InnerProduct::new, "512", "32");
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).matches("node 0: inner product of 512 elements = [0-9.E-]+ \\(verified against sequential\\)"),
                lines.get(0));
    }

    @Test
    void innerProductWithRaggedBlocksAndDefaults() throws Exception {
        assertTrue(new SimulatedVm(3, 3).run(InnerProduct::new, "1000", "7").get(0).contains("1000 elements"));
        assertTrue(new SimulatedVm(2, 1).run(InnerProduct::new).get(0).contains("1024 elements"));
        assertTrue(new SimulatedVm(4, 2).run(InnerProduct::new, "5", "1").get(0).contains("5 elements"));
    }

    @Test
    void innerProductCatchesAWrongElement() {
        SimulatedVm vm = new SimulatedVm(4, 2, new SimulatedVm.Fault("inner-product.b", 100, 99.0));
        DsaException e = assertThrows(DsaException.class, () -> vm.run(InnerProduct::new, "512", "32"));
        assertTrue(e.getMessage().contains("b[100] = 99.0, expected 2.25"), e.getMessage());
    }

    @Test
    void innerProductCheckCatchesASmallError() {
        double expected = 1234.5678;
        InnerProduct.check(512, expected * (1 + 1e-14), expected);
        DsaException e = assertThrows(DsaException.class, () -> InnerProduct.check(512, expected * (1 + 1e-10), expected));
        assertTrue(e.getMessage().contains("expected " + expected), e.getMessage());
        assertThrows(DsaException.class, () -> InnerProduct.check(512, Double.NaN, expected));
    }

    @Test
    void matmulVerifiesAndReports() throws Exception {
        List<String> lines = new SimulatedVm(4, 2).run(MatMul::new, "128", "16");
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).matches("node 0: matmul 128x128: C = A\\*B, sum of C = -?[0-9]+ \\(verified against sequential\\)"),
                lines.get(0));
    }

    @Test
    void matmulWithRaggedPartitionsAndIdleThreads() throws Exception {
        assertTrue(new SimulatedVm(3, 2).run(MatMul::new, "50", "7").get(0).contains("matmul 50x50"));
        assertTrue(new SimulatedVm(4, 2).run(MatMul::new, "5", "2").get(0).contains("matmul 5x5"));
    }

    @Test
    void matmulCatchesAWrongElement() {
        double wrong = MatMul.cAt(3, 4, 64) + 1;
        SimulatedVm vm = new SimulatedVm(2, 2, new SimulatedVm.Fault("matmul.C", 3 * 64 + 4, wrong));
        DsaException e = assertThrows(DsaException.class, () -> vm.run(MatMul::new, "64", "16"));
        assertTrue(e.getMessage().contains("C[3][4] = " + wrong + ", expected " + MatMul.cAt(3, 4, 64)), e.getMessage());
    }

    @Test
    void matmulElementsAreExactSmallIntegers() {
        for (int i = 0; i < 40; i++) {
            for (int j = 0; j < 40; j++) {
                assertTrue(MatMul.aAt(i, j) >= -5 && MatMul.aAt(i, j) <= 5 && MatMul.aAt(i, j) == Math.rint(MatMul.aAt(i, j)));
                assertTrue(MatMul.bAt(i, j) >= -6 && MatMul.bAt(i, j) <= 6 && MatMul.bAt(i, j) == Math.rint(MatMul.bAt(i, j)));
            }
        }
    }

    @Test
    void badArgumentsNameTheValueAndTheRange() {
        DsaException e = assertThrows(DsaException.class, () -> new SimulatedVm(1, 1).run(InnerProduct::new, "0"));
        assertTrue(e.getMessage().contains("inner-product: length 0 out of range [1, "), e.getMessage());
        e = assertThrows(DsaException.class, () -> new SimulatedVm(1, 1).run(MatMul::new, "8", "9"));
        assertTrue(e.getMessage().contains("matmul: partitionSize 9 out of range [1, 8]"), e.getMessage());
        e = assertThrows(DsaException.class, () -> new SimulatedVm(1, 1).run(MatMul::new, "x"));
        assertTrue(e.getMessage().contains("matmul: n 'x' is not an integer"), e.getMessage());
        e = assertThrows(DsaException.class, () -> new SimulatedVm(1, 1).run(MatMul::new, "8", "2", "3"));
        assertTrue(e.getMessage().contains("3 arguments given, at most 2"), e.getMessage());
    }

    @Test
    void everyExampleChecksItsArgumentsBeforeAnyNodeStarts() {
        int programs = 0;
        for (io.dsa.DsaProgram program : java.util.ServiceLoader.load(io.dsa.DsaProgram.class)) {
            String name = program.getClass().getAnnotation(io.dsa.ProgramName.class).value();
            program.validate(java.util.List.of(), 2, 2);   // the defaults are valid
            IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                    () -> program.validate(java.util.List.of("1", "1", "1", "1", "1"), 2, 2), name);
            assertTrue(tooMany.getMessage().startsWith(name + ": 5 arguments given, at most "), tooMany.getMessage());
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> program.validate(java.util.List.of(name.startsWith("cg") ? "S" : "0", "0"), 2, 2), name);
            assertTrue(bad.getMessage().contains(" 0 out of range ["), name + ": " + bad.getMessage());
            programs++;
        }
        assertEquals(16, programs, "the examples registered in META-INF/services");
    }
}
