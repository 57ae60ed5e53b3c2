package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.DsaNode;
import io.dsa.ProgramName;
import java.util.List;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** Programs for CLI tests, and a class loader that registers them as services. */
final class TestPrograms {
    private TestPrograms() {}

    /** Does nothing. */
    @ProgramName("idle-test")
    public static final class Idle implements DsaProgram {
        public Idle() {}

        @Override
        public void work(DsaWorker worker) {}
    }

    /** Throws on thread 1. */
    @ProgramName("failing-test")
    public static final class Failing implements DsaProgram {
        public Failing() {}

        @Override
        public void work(DsaWorker worker) {
            if (worker.threadId() == 1) throw new DsaException("deliberate failure on thread 1");
            worker.barrier();
        }
    }

    /** Takes one argument in [1, 10], checked before any node starts; reports progress on every node. */
    @ProgramName("checked-test")
    public static final class Checked implements DsaProgram {
        public Checked() {}

        @Override
        public void validate(List<String> args, int nodes, int threadsPerNode) {
            if (args.size() != 1) throw new IllegalArgumentException("checked-test: " + args.size() + " arguments given, 1 expected");
            int value = Integer.parseInt(args.get(0));
            if (value < 1 || value > 10) throw new IllegalArgumentException("checked-test: value " + value + " out of range [1, 10]");
        }

        @Override
        public void setup(DsaNode node) {
            if (node.args().isEmpty()) throw new IllegalStateException("validate was not called: no arguments");
            node.progress("set up node " + node.network().nodeId());
        }

        @Override
        public void work(DsaWorker worker) {
            worker.barrier();
        }
    }

    /**
     * Every worker passes one global barrier; then the last worker stays out of the next one (it
     * waits in its own code until {@link #release} opens or a minute passes) while the others wait there.
     */
    @ProgramName("stuck-test")
    public static final class Stuck implements DsaProgram {
        /** Opened to let the worker that stays out finish (so a test leaves no thread behind). */
        public static volatile Gate release = new Gate();

        public Stuck() {}

        @Override
        public void work(DsaWorker worker) throws InterruptedException {
            worker.barrier();
            if (worker.threadId() == worker.node().network().getGlobalThreadCount() - 1) {
                stayOut();
                return;
            }
            worker.barrier();
        }

        // Its own frame, just under Object.wait's: the timeout report shows it among the worker's top frames.
        private static void stayOut() throws InterruptedException { release.await(60_000); }
    }

    /**
     * Two nodes of one worker: node 1 reads one element of every partition of array {@code A}
     * (64 doubles, partitions of 8) homed at node 0; after a barrier node 0 writes one element of
     * its first partition (the home invalidates node 1's copy); after another barrier every worker
     * counts down {@link #reached} and waits for {@link #go}, so a test can look at the counts
     * mid-run. Reports how many partitions node 1 read.
     */
    @ProgramName("counted-test")
    public static final class Counted implements DsaProgram {
        public static volatile java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(0);
        public static volatile java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(0);
        private io.dsa.SharedDoubleArray a;

        public Counted() {}

        @Override
        public void setup(DsaNode node) { a = node.createSharedDoubleArray("A", 64, 8); }

        @Override
        public void work(DsaWorker worker) throws InterruptedException {
            int read = 0;
            int first = -1;
            for (int p = 0; p < a.layout().partitionCount(); p++) {
                if (a.homeOf(p) != 0) continue;
                if (first < 0) first = p;
                if (worker.nodeId() == 1) {
                    a.read(p * 8);
                    read++;
                }
            }
            worker.barrier();
            if (worker.nodeId() == 0) a.write(first * 8, 1.0);
            worker.barrier();
            reached.countDown();
            if (!go.await(60, java.util.concurrent.TimeUnit.SECONDS)) throw new IllegalStateException("nobody said go");
            if (worker.nodeId() == 1) worker.node().report("node 1 read " + read + " partitions");
        }
    }

    /** Not a program. */
    public static final class NotAProgram {}

    /**
     * Runs {@code body} with a context class loader whose {@code META-INF/services/io.dsa.DsaProgram}
     * (in {@code dir}) lists {@link Idle} and {@link Failing}.
     */
    static <T> T withRegisteredPrograms(Path dir, Callable<T> body) throws Exception {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(DsaProgram.class.getName()),
                "# test programs\n" + Idle.class.getName() + "\n" + Failing.class.getName() + "\n");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, TestPrograms.class.getClassLoader())) {
            thread.setContextClassLoader(loader);
            return body.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
