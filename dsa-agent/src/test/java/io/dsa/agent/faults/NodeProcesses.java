package io.dsa.agent.faults;

import io.dsa.agent.cli.DsaCli;
import io.dsa.agent.host.JvmCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code dsa node} processes started by a test as a site launcher would, on this JVM's class path
 * (so they find the test programs), each with the cluster secret on its stdin. Their output goes
 * to this JVM's stdout with a {@code [node k]} prefix (kept in the surefire report). Signals go to
 * a process by its PID ({@code kill -STOP}); {@link #close()} ends every process it started, by
 * PID, continuing a stopped one first.
 */
final class NodeProcesses implements AutoCloseable {
    private final Map<Integer, Process> processes = new TreeMap<>();

    /**
     * Starts node {@code node} with {@code options} (e.g. {@code --nodes 4 --monitor ...}) running
     * {@code program}.
     */
    Process start(int node, String secret, List<String> options, String program) throws IOException {
        List<String> command = new ArrayList<>(List.of(JvmCommand.javaExecutable()));
        command.addAll(io.dsa.agent.host.TestJvms.options());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                DsaCli.class.getName(), "node", "--node", Integer.toString(node), "--secret-stdin"));
        command.addAll(options);
        command.add(program);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.put(node, p);
        try (OutputStream in = p.getOutputStream()) {
            in.write((secret + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        Thread forward = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) System.out.println("[node " + node + "] " + line);
            } catch (IOException e) {
                // the process ended
            }
        }, "node-" + node + "-output");
        forward.setDaemon(true);
        forward.start();
        return p;
    }

    /** Sends {@code signal} (e.g. {@code STOP}, {@code CONT}) to {@code process} by its PID. */
    static void signal(String signal, Process process) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new IOException("kill -" + signal + " " + process.pid() + " failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** @return whether this machine can signal processes by PID with {@code kill} */
    static boolean canSignal() {
        try {
            Process kill = new ProcessBuilder("kill", "-0", Long.toString(ProcessHandle.current().pid())).start();
            return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Continues and kills every process still running, by PID, and waits for each. */
    @Override
    public void close() throws InterruptedException {
        for (Process p : processes.values()) {
            if (!p.isAlive()) continue;
            try {
                signal("CONT", p);
            } catch (IOException e) {
                // it ended meanwhile; SIGKILL ends a stopped process anyway
            }
            p.destroyForcibly();
        }
        for (Process p : processes.values()) p.waitFor(30, TimeUnit.SECONDS);
    }
}
