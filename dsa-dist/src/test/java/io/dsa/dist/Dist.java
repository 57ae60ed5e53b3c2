package io.dsa.dist;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The distribution the build made, unpacked once per test JVM into a directory of its own, and a
 * way to run its commands: each process is waited for with a deadline and ended by its PID.
 */
final class Dist {
    /** The tarball, the version and the repository, from the build (dsa-dist/pom.xml). */
    static final Path TARBALL = Path.of(required("dsa.tarball"));
    static final String VERSION = required("dsa.version");
    static final Path ROOT = Path.of(required("dsa.root")).normalize();

    private static Path home;

    private Dist() {}

    /** @return the unpacked distribution's directory (dsa-VERSION) */
    static synchronized Path home() throws IOException, InterruptedException {
        if (home == null) {
            Path dir = Files.createTempDirectory("dsa-dist-test");
            Result tar = run(dir, Map.of(), 60, "tar", "xzf", TARBALL.toString());
            if (tar.code() != 0) throw new IllegalStateException("cannot unpack " + TARBALL + ": " + tar);
            home = dir.resolve("dsa-" + VERSION);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
        }
        return home;
    }

    /** @return bin/dsa of the unpacked distribution */
    static String dsa() throws IOException, InterruptedException { return home().resolve("bin/dsa").toString(); }

    /** What a process printed and how it ended. */
    record Result(int code, String out, String err) {
        @Override
        public String toString() { return "exit " + code + "\n--- out:\n" + out + "--- err:\n" + err; }
    }

    /**
     * Runs {@code command} in {@code dir} with {@code env} added to this JVM's environment; ends it
     * (and its children) by PID if it has not exited after {@code timeoutSeconds}.
     */
    static Result run(Path dir, Map<String, String> env, long timeoutSeconds, String... command)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().putAll(env);
        Process p = builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        CompletableFuture<String> out = read(p.getInputStream());
        CompletableFuture<String> err = read(p.getErrorStream());
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            end(p);
            return new Result(-1, out.join(), err.join() + "\n(ended after " + timeoutSeconds + " s: " + List.of(command) + ")");
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    /** Starts {@code command}; the caller ends it with {@link #end(Process)}. Output goes to {@code log}. */
    static Process start(Path dir, Map<String, String> env, Path log, String... command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().putAll(env);
        return builder.start();
    }

    /** Ends {@code p} and its descendants: SIGTERM, then after 10 s a kill; waits for them. */
    static void end(Process p) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                h.destroyForcibly();
            }
        }
    }

    /**
     * Waits until {@code file}, which another process writes, has a line containing {@code text}, at
     * most {@code timeoutSeconds}; woken by the changes in the file's directory (a WatchService).
     *
     * @return that line
     */
    static String awaitLine(Path file, String text, long timeoutSeconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        try (WatchService watcher = file.getFileSystem().newWatchService()) {
            file.getParent().register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (true) {
                // read after the watch is registered: a line written after the read wakes the wait
                if (Files.exists(file)) {
                    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) if (line.contains(text)) return line;
                }
                WatchKey key = watcher.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (key == null) break;   // the deadline passed
                key.pollEvents();   // which change does not matter: the file is read again
                key.reset();
            }
        }
        throw new AssertionError("no line with '" + text + "' in " + file + " after " + timeoutSeconds + " s: "
                + (Files.exists(file) ? Files.readString(file) : "(no file)"));
    }

    // A thread of its own per stream: a process blocked on a full pipe would never end.
    private static CompletableFuture<String> read(InputStream in) {
        CompletableFuture<String> text = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (in) {
                text.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                text.completeExceptionally(new UncheckedIOException(e));
            }
        }, "dist-test-output");
        t.setDaemon(true);
        t.start();
        return text;
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null) throw new IllegalStateException("system property " + property + " is not set: run the tests through Maven");
        return value;
    }

    static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind
        }
    }
}
