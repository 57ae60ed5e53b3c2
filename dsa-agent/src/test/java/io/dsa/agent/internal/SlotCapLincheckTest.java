package io.dsa.agent.internal;

import io.dsa.coherence.Access;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of a scope's cap set by a worker ({@link Slot#cap}) racing the I/O
 * thread's grants ({@link Slot#grant}): both change the stamp, and the workers' access in it must
 * always be the lesser of the last cap and the last grant, the grant must be the last grant, and
 * no change may be lost. The sequential specification is those two fields.
 *
 * <p>The seeded bug, a plain store of the stamp instead of a compare-and-set
 * ({@link Slot#plainStampStores}, as when only the I/O thread changed the stamp), is caught: a
 * grant computed with the old cap overwrites the cap's stamp, and the workers keep the access the
 * cap took away.
 */
public class SlotCapLincheckTest {
    private final Slot slot = new Slot(Access.READ_WRITE);

    public SlotCapLincheckTest() {
        slot.install(new byte[8], Access.READ_WRITE);
        slot.plainStampStores = plainStores();
    }

    boolean plainStores() { return false; }

    @Operation(nonParallelGroup = "worker")
    public void capNone() { slot.cap(Access.NONE); }

    @Operation(nonParallelGroup = "worker")
    public void capRead() { slot.cap(Access.READ); }

    @Operation(nonParallelGroup = "worker")
    public void lift() { slot.cap(Access.READ_WRITE); }

    @Operation(nonParallelGroup = "io")
    public void grantNone() { slot.grant(Access.NONE); }

    @Operation(nonParallelGroup = "io")
    public void grantRead() { slot.grant(Access.READ); }

    @Operation(nonParallelGroup = "io")
    public void grantReadWrite() { slot.grant(Access.READ_WRITE); }

    /** @return the workers' access and the grant, as one stamp shows them */
    @Operation
    public String access() {
        int stamp = slot.stamp;
        return Slot.accessOf(stamp) + "/" + Access.values()[(stamp >>> 2) & Slot.ACCESS_MASK];   // bits 2-3: the grant
    }

    /** The sequential specification: the last cap, the last grant, and the workers' access the lesser. */
    public static class Sequential {
        private Access cap = Access.READ_WRITE;
        private Access granted = Access.READ_WRITE;

        public void capNone() { cap = Access.NONE; }

        public void capRead() { cap = Access.READ; }

        public void lift() { cap = Access.READ_WRITE; }

        public void grantNone() { granted = Access.NONE; }

        public void grantRead() { granted = Access.READ; }

        public void grantReadWrite() { granted = Access.READ_WRITE; }

        public String access() {
            Access workers = granted.ordinal() < cap.ordinal() ? granted : cap;
            return workers + "/" + granted;
        }
    }

    /** The mutant: plain stores of the stamp. */
    public static class PlainStores extends SlotCapLincheckTest {
        @Override
        boolean plainStores() { return true; }
    }

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .sequentialSpecification(Sequential.class)
                .threads(3)
                .actorsPerThread(3)
                .iterations(15)
                .invocationsPerIteration(150);
    }

    @Test
    @Timeout(120)
    void capsAndGrantsThatRaceBothLand() {
        options().check(SlotCapLincheckTest.class);
    }

    @Test
    @Timeout(120)
    void plainStoresOfTheStampAreCaught() {
        Assertions.assertThrows(LincheckAssertionError.class, () -> options().minimizeFailedScenario(false).check(PlainStores.class));
    }
}
