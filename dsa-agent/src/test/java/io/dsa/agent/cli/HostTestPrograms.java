package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import java.nio.file.Files;
import java.nio.file.Path;

/** Programs that the host system tests ship to {@code dsa host} processes, which do not have them on their class path. */
final class HostTestPrograms {
    /** How long a program's watch for a file the test writes lasts (its gate opens then, file or not). */
    static final long WATCH_MS = 240_000;
    private HostTestPrograms() {}

    /**
     * Args: {@code length partitionSize [gateFile]}. Every worker writes its cyclic share of a
     * 1-D array, then (with a gate file) node 0's worker 0 waits for the file to exist, then
     * thread 0 checks every element and reports the sum and the class loader it was loaded by.
     */
    public static final class Fill implements DsaProgram {
        private SharedDoubleArray a;
        private int length;
        private Path gate;

        public Fill() {}

        @Override
        public void setup(DsaNode node) {
            length = Integer.parseInt(node.args().get(0));
            a = node.createSharedDoubleArray("A", length, Integer.parseInt(node.args().get(1)));
            gate = node.args().size() > 2 ? Path.of(node.args().get(2)) : null;
        }

        @Override
        public void work(DsaWorker w) throws InterruptedException {
            int threads = w.node().network().getGlobalThreadCount();
            for (int i = w.threadId(); i < length; i += threads) a.write(i, 2.0 * i + 1);
            w.barrier();
            if (gate != null && w.threadId() == 0) {
                Poll.file("the gate file " + gate, gate, 240_000);   // opened by the test
            }
            w.barrier();
            if (w.threadId() != 0) return;
            double sum = 0;
            for (int i = 0; i < length; i++) {
                double v = a.read(i);
                if (v != 2.0 * i + 1) throw new DsaException("A[" + i + "] = " + v + ", expected " + (2.0 * i + 1));
                sum += v;
            }
            w.node().report("sum " + (long) sum + " expected " + (long) length * length);
            w.node().report("loaded by " + getClass().getClassLoader().getName());
        }
    }

    /**
     * A resumable relaxation. Args: {@code iterations fastFile}. While the file {@code fastFile}
     * does not exist, thread 0 pauses 10 ms per iteration, and after the last iteration the
     * workers pass plain global barriers (safe points for moves and checkpoints) until it exists:
     * so a test can move, kill or checkpoint nodes while the job runs, with few iterations, and the
     * job cannot end before the test opens the file. The result does not depend on either. Thread
     * 0 reports the bits of the result.
     */
    public static final class Relax implements DsaProgram {
        private SharedDoubleArray[] a;
        private int iterations;
        private Path fast;

        public Relax() {}

        @Override
        public boolean resumable() { return true; }

        @Override
        public void setup(DsaNode node) {
            iterations = Integer.parseInt(node.args().get(0));
            fast = Path.of(node.args().get(1));
            int length = node.network().getGlobalThreadCount() * 8;
            a = new SharedDoubleArray[] {node.createSharedDoubleArray("relax.a", length, 8),
                    node.createSharedDoubleArray("relax.b", length, 8)};
        }

        @Override
        public void work(DsaWorker w) throws InterruptedException {
            int tid = w.threadId();
            // thread 0 paces the rounds by waiting for the fast file with a short deadline each round
            Gate fastSeen = tid == 0 ? Gate.openedBy("the file " + fast, fast, WATCH_MS) : null;
            int length = (int) a[0].layout().length();
            if (w.epoch() == 0) {
                for (int i = tid * 8; i < tid * 8 + 8; i++) a[0].write(i, i + 0.5);
                w.barrier();
            }
            for (long t = Math.max(0, w.epoch() - 1); t < iterations; t++) {
                SharedDoubleArray src = a[(int) (t % 2)];
                SharedDoubleArray dst = a[(int) ((t + 1) % 2)];
                for (int i = tid * 8; i < tid * 8 + 8; i++) {
                    double v = 0.5 * src.read(i) + 0.25 * (src.read((i + length - 1) % length) + src.read((i + 1) % length))
                            + t * 1e-3;
                    dst.write(i, v);
                }
                // The pace: up to 10 ms a round until the fast file appears, so that moves and checkpoints land
                // mid-run (they need the barriers to go on); the result does not depend on it.
                if (tid == 0) fastSeen.await(10);
                w.barrier();
            }
            holdUntilFast(w, fastSeen);
            if (tid == 0) {
                SharedDoubleArray r = a[iterations % 2];
                long hash = 17;
                for (int i = 0; i < length; i++) hash = hash * 31 + Double.doubleToRawLongBits(r.read(i));
                w.node().report("relax " + Long.toHexString(hash));
            }
        }

        /**
         * Rounds of a plain global barrier and a collective until thread 0 sees the fast file. The
         * main loop ends at epoch {@code iterations + 1}; a round's barrier brings the workers to
         * an even distance from it, its collective to an odd one. A worker resumed (after a move or
         * from a checkpoint, both only at plain barriers) past the main loop is right after a
         * round's barrier, so it goes on with the round's collective.
         */
        private void holdUntilFast(DsaWorker w, Gate fastSeen) throws InterruptedException {
            boolean afterBarrier = w.epoch() > iterations + 1;
            while (true) {
                if (!afterBarrier) w.barrier();
                afterBarrier = false;
                boolean seen = w.threadId() == 0 && Files.exists(fast);
                if (w.any(seen)) return;
                // up to 5 ms a round for the file: the rounds must go on (moves and checkpoints happen at
                // their barriers) until thread 0 has seen it
                if (w.threadId() == 0) fastSeen.await(5);
            }
        }
    }

    /**
     * Two phases of writes with waits between them, for cloning tests. Args: {@code length
     * partitionSize dir}. Phase 1 writes {@code A[i] = 2i + 1} and every worker reads it all back; the workers then pass global
     * barriers until the file {@code dir/phase2} exists; phase 2 writes {@code A[i] = 3i + 2}
     * and node 0's thread 0 creates {@code dir/phase2-done}; they pass barriers until
     * {@code dir/end} exists; thread 0 checks every element and reports the sum.
     */
    public static final class Phases implements DsaProgram {
        private SharedDoubleArray a;
        private int length;
        private Path dir;

        public Phases() {}

        @Override
        public void setup(DsaNode node) {
            length = Integer.parseInt(node.args().get(0));
            a = node.createSharedDoubleArray("phases.A", length, Integer.parseInt(node.args().get(1)));
            dir = Path.of(node.args().get(2));
        }

        @Override
        public void work(DsaWorker w) throws Exception {
            int threads = w.node().network().getGlobalThreadCount();
            for (int i = w.threadId(); i < length; i += threads) a.write(i, 2.0 * i + 1);
            w.barrier();
            for (int i = 0; i < length; i++) {   // every node now holds shared copies of everything
                if (a.read(i) != 2.0 * i + 1) throw new DsaException("A[" + i + "] = " + a.read(i) + " in phase 1");
            }
            w.barrier();
            awaitFile(w, dir.resolve("phase2"));
            for (int i = w.threadId(); i < length; i += threads) a.write(i, 3.0 * i + 2);
            w.barrier();
            if (w.threadId() == 0) Files.writeString(dir.resolve("phase2-done"), "done");
            awaitFile(w, dir.resolve("end"));
            if (w.threadId() != 0) return;
            double sum = 0;
            for (int i = 0; i < length; i++) {
                double v = a.read(i);
                if (v != 3.0 * i + 2) throw new DsaException("A[" + i + "] = " + v + ", expected " + (3.0 * i + 2));
                sum += v;
            }
            w.node().report("phases sum " + (long) sum);
        }

        // Plain global barriers (safe points for a clone) until thread 0 sees the file; every worker leaves together.
        private static void awaitFile(DsaWorker w, Path file) throws InterruptedException {
            Gate fileSeen = w.threadId() == 0 ? Gate.openedBy("the file " + file, file, WATCH_MS) : null;
            boolean seen;
            do {
                w.barrier();
                seen = w.threadId() == 0 && Files.exists(file);
                // up to 5 ms a round for the file: the rounds must go on (a clone happens at their barriers)
                // until thread 0 has seen it
                if (w.threadId() == 0 && !seen) fileSeen.await(5);
            } while (!w.any(seen));
        }
    }

    /**
     * Args: {@code dir}. Two nodes of one worker: node 1 reads {@code waits.A[0]} (homed at node 0)
     * once; after a global barrier node 1's worker stays in its own code until the file
     * {@code dir/end} exists, while node 0's waits in the next global barrier (epoch 1).
     */
    public static final class Waits implements DsaProgram {
        private static final long END_MS = 240_000;
        private SharedDoubleArray a;
        private Path end;

        public Waits() {}

        @Override
        public void setup(DsaNode node) {
            a = node.createSharedDoubleArray("waits.A", 16, 8);
            end = Path.of(node.args().get(0)).resolve("end");
        }

        @Override
        public void work(DsaWorker w) throws Exception {
            if (w.nodeId() == 1) a.read(0);
            w.barrier();
            if (w.nodeId() == 1) awaitTheEnd(Gate.openedBy("the file " + end, end, END_MS));
            w.barrier();
        }

        // Its own frame, just under Object.wait's: the test finds it among the worker's top frames.
        private void awaitTheEnd(Gate gate) throws InterruptedException {
            gate.await(END_MS + 10_000);   // opened when the file appears, or when its watch gives up
            if (!Files.exists(end)) throw new DsaException("the file " + end + " did not appear within " + END_MS + " ms");
        }
    }

    /** Node 1 calls {@code System.exit(3)} in its setup: in a host, that ends only its own JVM. */
    public static final class Exit implements DsaProgram {
        public Exit() {}

        @Override
        public void setup(DsaNode node) {
            if (node.network().nodeId() == 1) System.exit(3);
        }

        @Override
        public void work(DsaWorker w) { w.barrier(); }
    }

    /** Node 1 allocates until its heap is exhausted. */
    public static final class Hog implements DsaProgram {
        public Hog() {}

        @Override
        public void setup(DsaNode node) {
            if (node.network().nodeId() != 1) return;
            java.util.List<long[]> hoard = new java.util.ArrayList<>();
            while (hoard.size() >= 0) hoard.add(new long[1 << 20]);   // 8 MiB at a time, kept
        }

        @Override
        public void work(DsaWorker w) { w.barrier(); }
    }

    /** Node 1's JVM is killed (SIGKILL, as by the kernel's OOM killer or a crash) in its setup. */
    public static final class Crash implements DsaProgram {
        public Crash() {}

        @Override
        public void setup(DsaNode node) throws Exception {
            if (node.network().nodeId() != 1) return;
            new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).inheritIO().start().waitFor();
            Thread.currentThread().join();   // forever: only the signal ends this JVM
        }

        @Override
        public void work(DsaWorker w) { w.barrier(); }
    }

    /** A program whose static initialiser throws. */
    public static final class BadInit implements DsaProgram {
        static final int VALUE = hostile();

        public BadInit() {}

        private static int hostile() { throw new IllegalStateException("hostile static initialiser"); }

        @Override
        public void work(DsaWorker w) { }
    }

    /** Not a program, and its static initialiser exits its JVM: it must never run. */
    public static final class ExitingNonProgram {
        static {
            System.exit(7);
        }

        private ExitingNonProgram() {}
    }

    /**
     * Reports what its JVM got, one line per node: {@code node K: heap M MiB, cpus C, affinity A}
     * (the maximum heap, the processors the JVM sees, the processors it may run on; -1 when not known).
     */
    public static final class Limits implements DsaProgram {
        public Limits() {}

        @Override
        public void work(DsaWorker w) throws java.io.IOException {
            if (w.localThreadId() == 0) {
                int affinity = -1;
                Path status = Path.of("/proc/self/status");
                if (Files.exists(status)) {
                    for (String line : Files.readAllLines(status)) {
                        if (line.startsWith("Cpus_allowed_list:")) affinity = cpus(line.substring(18).trim());
                    }
                }
                w.node().report("node " + w.nodeId() + ": heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB, cpus "
                        + Runtime.getRuntime().availableProcessors() + ", affinity " + affinity);
            }
            w.barrier();
        }

        private static int cpus(String list) {
            int n = 0;
            for (String part : list.split(",")) {
                String[] range = part.split("-");
                n += range.length == 1 ? 1 : Integer.parseInt(range[1]) - Integer.parseInt(range[0]) + 1;
            }
            return n;
        }
    }
}
