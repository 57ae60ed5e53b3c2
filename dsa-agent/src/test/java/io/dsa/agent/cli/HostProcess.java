package io.dsa.agent.cli;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code dsa host} child process on a loopback address, whose class path lacks the test
 * classes (so programs from them must be shipped). {@link #close()} kills it by PID.
 */
final class HostProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("host listening on (\\S+)");

    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final Object lock = new Object();
    private String address;

    private HostProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(this::read, "host-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code dsa host --bind bind --port 0 --secret-file secret --work-dir DIR/work} (DIR:
     * the secret's directory) and waits for its address.
     */
    static HostProcess start(String bind, Path secret, String... jvmOptions) throws IOException, InterruptedException {
        return start(bind, secret, List.of(jvmOptions), List.of());
    }

    /** {@link #start(String, Path, String...)} with further options of {@code dsa host}. */
    static HostProcess start(String bind, Path secret, List<String> jvmOptions, List<String> hostOptions)
            throws IOException, InterruptedException {
        return started(new HostProcess(spawn(hostCommand(bind, secret, jvmOptions, hostOptions))));
    }

    private static List<String> hostCommand(String bind, Path secret, List<String> jvmOptions, List<String> hostOptions) {
        List<String> command = new ArrayList<>(List.of(io.dsa.agent.host.JvmCommand.javaExecutable()));
        command.addAll(io.dsa.agent.host.TestJvms.options());
        command.addAll(List.of("-cp", mainClassPath(), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        command.addAll(jvmOptions);
        command.addAll(List.of(DsaCli.class.getName(), "host", "--bind", bind, "--port", "0", "--secret-file", secret.toString(),
                "--work-dir", workDir(secret).toString()));
        command.addAll(hostOptions);
        return command;
    }

    private static Process spawn(List<String> command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Waits until {@code host} prints the address it listens on; kills it by PID if it does not. */
    private static HostProcess started(HostProcess host) throws InterruptedException {
        try {
            host.awaitAddress(60_000);
        } catch (RuntimeException | InterruptedException e) {
            host.close();
            throw e;
        }
        return host;
    }

    /**
     * Starts a host ({@code io.dsa.agent.host.StoppingHostMain}) whose moves stop for good after the
     * port step {@code step}, printing {@code host ADDR stopped after STEP}; its class path is the
     * main one plus that class and the ports it wraps (copied aside), not the other test classes.
     */
    static HostProcess startStopping(String bind, Path secret, String step) throws IOException, InterruptedException {
        Path testClasses = Path.of(HostProcess.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        Path aside = java.nio.file.Files.createTempDirectory(workDir(secret).getParent(), "stopping-host-classes");
        for (String dir : List.of("io/dsa/agent/host", "io/dsa/agent/mobility")) {
            java.nio.file.Files.createDirectories(aside.resolve(dir));
            try (var files = java.nio.file.Files.list(testClasses.resolve(dir))) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String name = f.getFileName().toString();
                    if (name.startsWith("StoppingHostMain") || name.startsWith("ScriptedPorts")) {
                        java.nio.file.Files.copy(f, aside.resolve(dir).resolve(name));
                    }
                }
            }
        }
        List<String> command = new ArrayList<>(List.of(io.dsa.agent.host.JvmCommand.javaExecutable()));
        command.addAll(io.dsa.agent.host.TestJvms.options());
        command.addAll(List.of("-cp", mainClassPath() + File.pathSeparator + aside, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "io.dsa.agent.host.StoppingHostMain", bind, secret.toString(), workDir(secret).toString(), step));
        return started(new HostProcess(spawn(command)));
    }

    /** @return the base work directory of the hosts started with {@code secret} */
    static Path workDir(Path secret) { return secret.toAbsolutePath().getParent().resolve("work"); }

    /** @return {@code file}, holding a new cluster secret written by {@code dsa keygen} (mode 600) */
    static Path newSecret(Path file) {
        Cli keygen = Cli.execute("keygen", "--out", file.toString());
        if (keygen.exitCode() != 0) throw new IllegalStateException("dsa keygen failed: " + keygen);
        return file;
    }

    /** @return this process's directory in the hosts' work directory */
    Path hostDir(Path secret) { return workDir(secret).resolve("host-" + process.pid()); }

    /**
     * Starts hosts on 127.0.0.{first} .. 127.0.0.{last} with the secret file {@code secret}, all
     * at once (their JVMs start in parallel), and adds each to {@code into} once it listens.
     */
    static void startAll(int first, int last, Path secret, List<HostProcess> into) throws IOException, InterruptedException {
        startAll(first, last, secret, List.of(), into);
    }

    /** {@link #startAll(int, int, Path, List)} with {@code jvmOptions} on each host's JVM. */
    static void startAll(int first, int last, Path secret, List<String> jvmOptions, List<HostProcess> into)
            throws IOException, InterruptedException {
        List<HostProcess> spawned = new ArrayList<>();
        try {
            for (int h = first; h <= last; h++) spawned.add(new HostProcess(spawn(hostCommand("127.0.0." + h, secret, jvmOptions, List.of()))));
            for (HostProcess host : spawned) {
                host.awaitAddress(60_000);
                into.add(host);
            }
        } finally {
            for (HostProcess host : spawned) {
                if (!into.contains(host)) host.close();
            }
        }
    }

    /** Prints each host's output (kept in the surefire report) and kills it by PID. */
    static void closeAll(List<HostProcess> hosts) throws InterruptedException {
        for (HostProcess h : hosts) {
            System.out.println("---- host " + h.address() + " output:\n" + h.output());
            h.close();
        }
        hosts.clear();   // a class run again in this JVM (a loop of it, an IDE's repeat) starts its own hosts
    }

    /** This JVM's class path without the test classes. */
    static String mainClassPath() {
        Path testClasses = Path.of(HostProcess.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        List<String> kept = new ArrayList<>();
        for (String entry : io.dsa.agent.host.JvmCommand.classPath().split(File.pathSeparator)) {
            if (!Path.of(entry).equals(testClasses.toAbsolutePath())) kept.add(entry);
        }
        return String.join(File.pathSeparator, kept);
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                output.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                synchronized (lock) {
                    if (m.find()) address = m.group(1);
                    lock.notifyAll();
                }
            }
        } catch (IOException e) {
            // the process ended
        } finally {
            synchronized (lock) {
                lock.notifyAll();
            }
        }
    }

    private void awaitAddress(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (lock) {
            while (address == null) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || !process.isAlive() && address == null) {
                    throw new IllegalStateException("dsa host did not report its address; output:\n" + output);
                }
                lock.wait(Math.min(left, 100));
            }
        }
    }

    /** @return {@code host:port} the daemon listens on */
    String address() { return address; }

    /** Waits until the process printed a line containing {@code text}. */
    void awaitOutput(String text, long timeoutMs) throws InterruptedException { awaitOutput(text, 0, timeoutMs); }

    /**
     * Waits until the process printed {@code text} after the first {@code from} characters of its output.
     *
     * @return its output from {@code from} on
     */
    String awaitOutput(String text, int from, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (lock) {
            while (!output.substring(from).contains(text)) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || !process.isAlive()) throw new IllegalStateException("no '" + text + "' in:\n" + output.substring(from));
                lock.wait(Math.min(left, 100));
            }
            return output.substring(from);
        }
    }

    /** @return everything the process printed so far */
    String output() { return output.toString(); }

    Process process() { return process; }

    /** Kills the process by PID (SIGKILL) and waits for it. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
