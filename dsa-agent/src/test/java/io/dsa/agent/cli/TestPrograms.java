package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
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
