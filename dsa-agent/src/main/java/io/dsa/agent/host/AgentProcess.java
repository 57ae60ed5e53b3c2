package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AgentStatusMessage;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.CloneIdMessage;
import io.dsa.agent.wire.ElementsMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's side of one job's JVM (docs/hosts.md, "Process model"): starts it
 * ({@link AgentProcessMain}, the host's own {@code java} and class path, the job's heap and
 * processor limits), hands it a fresh per-job secret and the cluster secret over its stdin pipe,
 * accepts its authenticated supervision connection on 127.0.0.1 (a transport of its own, keyed
 * by the per-job secret), sends it {@link AgentControlMessage}s and waits for their answers, and
 * watches it end. Its output is copied to the host's, each line prefixed with {@code [vm/node]}.
 * Thread-safe.
 */
final class AgentProcess {
    /**
     * The failure timeout of the supervision connection, both ends: long, since a job JVM's death is
     * seen at once (its exit, its pipe), and its silence (a long pause, a stop) by its VM's peers
     * within the VM's own failure timeout, which may be longer than a host's; this connection only
     * has to notice a host or a job JVM gone silent for good.
     */
    static final long SUPERVISION_FAILURE_TIMEOUT_MS = 60_000;
    /** The VM name of the supervision connection's handshake. */
    static final String SUPERVISION_VM = "dsa-job";
    /** Node ids of the supervision handshake: the host's side and the job JVM's. */
    static final int HOST_ID = 0;
    static final int CHILD_ID = 1;
    /** How long a job's JVM may take to start and connect. */
    static final long START_TIMEOUT_MS = 60_000;
    /** How long a job's JVM gets to exit after the host ended it, before it is killed. */
    static final long GRACE_MS = 5_000;
    /** What a JVM with {@code -XX:+ExitOnOutOfMemoryError} prints (on stdout) before it exits with 3. */
    static final String OUT_OF_MEMORY_LINE = "Terminating due to java.lang.OutOfMemoryError";
    private static final int SECRET_BYTES = 32;
    private static final int LAST_LINES = 5;
    private static final Logger LOG = LoggerFactory.getLogger(AgentProcess.class);

    /** "node K of vm 'V'" once it serves a job; before, "a spare JVM". */
    private volatile String who = "a spare JVM";
    private volatile String prefix = "[spare] ";
    private final JobLimits limits;
    private volatile Consumer<HostJobEventMessage> events = e -> { };
    private final Transport supervision;
    private final CompletableFuture<Connection> connection = new CompletableFuture<>();
    private final CompletableFuture<Void> disconnected = new CompletableFuture<>();
    private final Map<Long, CompletableFuture<Object>> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private final Deque<String> lastLines = new ArrayDeque<>();
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    private volatile boolean outOfMemory;
    /** How the supervision connection and the job's agent protect their connections (the host's own mode). */
    private final TransportSecurity security;
    private Process process;
    private OutputStream stdin;
    private final List<Thread> forwarders = new ArrayList<>();

    private AgentProcess(JobLimits limits, byte[] jobSecret, TransportSecurity security) {
        this.limits = limits;
        this.security = security;
        this.supervision = Transport.start(TransportConfig.builder().vmName(SUPERVISION_VM).nodeId(HOST_ID).secret(jobSecret).security(security)
                .bindHost("127.0.0.1").port(0).ioThreads(1).failureTimeoutMs(SUPERVISION_FAILURE_TIMEOUT_MS).build(), new Inbound());
    }

    /**
     * Starts a JVM with {@code limits} and waits until it connected; it serves no job until
     * {@link #assign}.
     *
     * @param cpuSet the processors to pin it to ({@code taskset -c} list), or null
     * @throws DsaException when it cannot start or connect in time, with its last output lines
     */
    static AgentProcess start(JobLimits limits, String cpuSet, byte[] clusterSecret, TransportSecurity security) {
        byte[] jobSecret = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(jobSecret);
        AgentProcess p = new AgentProcess(limits, jobSecret, security);
        try {
            p.launch(cpuSet, jobSecret, clusterSecret);
            p.awaitConnection();
            return p;
        } catch (RuntimeException e) {
            p.kill();
            throw e;
        } finally {
            java.util.Arrays.fill(jobSecret, (byte) 0);
        }
    }

    /**
     * Makes this JVM the one of node {@code node} of {@code vm}: its messages and output are
     * labelled so from here.
     *
     * @param events receives the job's outcome ({@link HostJobEventMessage#DONE} or
     *        {@link HostJobEventMessage#FAILED}) on an I/O thread: must not block
     */
    void assign(String vm, int node, Consumer<HostJobEventMessage> events) {
        this.who = "node " + node + " of vm '" + vm + "'";
        this.prefix = "[" + vm + "/" + node + "] ";
        this.events = events;
    }

    /** @return whether this JVM still runs and is connected, so it can take a job */
    boolean usable() {
        return process.isAlive() && connection.isDone() && !disconnected.isDone();
    }

    private void launch(String cpuSet, byte[] jobSecret, byte[] clusterSecret) {
        List<String> command = new ArrayList<>(JobLimits.commandPrefix(cpuSet));
        command.add(JvmCommand.javaExecutable());
        command.addAll(JvmCommand.releaseOptions());
        command.addAll(JvmCommand.childJvmOptions());   // before the limits, which win where both set one
        command.addAll(limits.jvmOptions());
        command.addAll(JvmCommand.inheritedProperties());
        command.addAll(List.of("-cp", JvmCommand.classPath(), AgentProcessMain.class.getName(),
                Integer.toString(supervision.boundAddress().getPort()), security.name()));
        try {
            process = new ProcessBuilder(command).start();
            stdin = process.getOutputStream();
            HexFormat hex = HexFormat.of();
            stdin.write((hex.formatHex(jobSecret) + "\n" + hex.formatHex(clusterSecret) + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();   // and left open: its end tells the JVM that the host is gone
        } catch (IOException e) {
            throw new DsaException("cannot start the JVM of " + who + ": " + e.getMessage(), e);
        }
        forwarders.add(forward(process.getInputStream(), System.out, true));
        forwarders.add(forward(process.getErrorStream(), System.err, false));
        process.onExit().thenRun(this::onExit);
    }

    private void awaitConnection() {
        CompletableFuture<Object> first = CompletableFuture.anyOf(connection, process.onExit());
        try {
            first.get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new DsaException("the JVM of " + who + " did not connect within " + START_TIMEOUT_MS + " ms" + lastOutput());
        } catch (ExecutionException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            throw new DsaException("the JVM of " + who + " did not connect: " + e);
        }
        if (!connection.isDone()) {
            awaitForwarders();
            throw new DsaException("the JVM of " + who + " exited with code " + process.exitValue() + " before it connected"
                    + lastOutput());
        }
    }

    /** @return the JVM's process id */
    long pid() { return process.pid(); }

    /**
     * Checks what a job's JVM says of the agent it started: the address goes into status rows and
     * to the VM's other hosts, so it must be {@code host:port} (or absent, for a move's or clone's
     * target before its state arrives).
     *
     * @return why the answer is refused, or null
     */
    static String invalidStart(AgentStartedMessage m) {
        if (m.address() == null) return null;
        try {
            StatusRow.address(m.address(), "agent address");
            return null;
        } catch (IllegalArgumentException e) {
            return "started an agent at a malformed address: " + e.getMessage();
        }
    }

    /**
     * Sends a request and waits for its answer.
     *
     * @param request makes the request from its id
     * @param answer the class of a successful answer ({@link HostReplyMessage}, {@link AgentStartedMessage}, ...)
     * @throws DsaException when the JVM refuses (with its reason), does not answer in time, or is gone
     */
    <T> T call(LongFunction<AgentControlMessage> request, Class<T> answer, long timeoutMs) {
        long id = nextId.incrementAndGet();
        AgentControlMessage m = request.apply(id);
        CompletableFuture<Object> reply = new CompletableFuture<>();
        pending.put(id, reply);
        try {
            Connection c = connection.getNow(null);
            if (c == null || disconnected.isDone()) throw new DsaException("the JVM of " + who + " is not connected");
            c.send(m);
            Object r = reply.get(timeoutMs, TimeUnit.MILLISECONDS);
            if (r instanceof HostReplyMessage h && !h.ok()) throw new DsaException(h.text());
            if (!answer.isInstance(r)) {
                throw new DsaException("the JVM of " + who + " answered " + m.getClass().getSimpleName() + " with "
                        + r.getClass().getSimpleName() + ", expected " + answer.getSimpleName());
            }
            return answer.cast(r);
        } catch (TimeoutException e) {
            throw new DsaException("the JVM of " + who + ": no answer to " + m.getClass().getSimpleName() + " after " + timeoutMs + " ms");
        } catch (ExecutionException e) {
            throw new DsaException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for the JVM of " + who);
        } finally {
            pending.remove(id);
        }
    }

    /**
     * @return completes, once the JVM has exited and its connection and output have closed, with
     *         how it ended, e.g. {@code node 1 of vm 'x' exited with code 3} or
     *         {@code ... ran out of memory (heap 64 MiB)}
     */
    CompletableFuture<String> ended() { return ended; }

    /**
     * Ends the JVM: closes its supervision connection and stdin, on which it closes its agent and
     * exits; kills it if it has not exited after {@link #GRACE_MS}. Does not wait.
     */
    void end() {
        Connection c = connection.getNow(null);
        if (c != null) c.close();
        closeStdin();
        CompletableFuture.delayedExecutor(GRACE_MS, TimeUnit.MILLISECONDS).execute(() -> {
            if (process.isAlive()) {
                LOG.warn("the JVM of {} (pid {}) did not exit within {} ms of its end; killing it", who, process.pid(), GRACE_MS);
                kill();
            }
        });
    }

    /** Kills the JVM at once (SIGKILL) and closes the supervision transport. */
    void kill() {
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        closeStdin();
        supervision.close();
        if (process == null) ended.complete(who + " did not start");
    }

    /** Waits until the JVM has exited, at most {@code timeoutMs}. @return whether it has */
    boolean awaitExit(long timeoutMs) throws InterruptedException {
        return process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
    }

    private void closeStdin() {
        try {
            if (stdin != null) stdin.close();
        } catch (IOException e) {
            // the JVM is gone already
        }
    }

    // Runs once the process has exited: its last output and messages are in when `ended` completes.
    private void onExit() {
        awaitForwarders();
        if (connection.isDone()) {
            try {
                disconnected.get(GRACE_MS, TimeUnit.MILLISECONDS);   // every message it sent has been handled
            } catch (ExecutionException | TimeoutException | InterruptedException e) {
                LOG.debug("the connection of {} did not close with its process: {}", who, e.toString());
            }
        }
        int code = process.exitValue();
        String how = outOfMemory ? who + " ran out of memory (" + limits.describeHeap() + ")"
                : code > 128 && code < 160 ? who + " was killed by signal " + (code - 128) + " (exit code " + code + ")"
                : who + " exited with code " + code;
        for (CompletableFuture<Object> f : pending.values()) f.completeExceptionally(new DsaException(how));
        supervision.close();
        ended.complete(how);
    }

    private void awaitForwarders() {
        for (Thread t : forwarders) {
            try {
                t.join(GRACE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private String lastOutput() {
        synchronized (lastLines) {
            return lastLines.isEmpty() ? "" : "; its last output: " + String.join(" | ", lastLines);
        }
    }

    private Thread forward(InputStream stream, PrintStream target, boolean stdout) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (stdout && line.startsWith(OUT_OF_MEMORY_LINE)) outOfMemory = true;
                    synchronized (lastLines) {
                        if (lastLines.size() == LAST_LINES) lastLines.removeFirst();
                        lastLines.addLast(line);
                    }
                    target.println(prefix + line);
                }
            } catch (IOException e) {
                // the process ended and its pipe closed
            }
        }, "dsa-host-output-" + process.pid());
        t.setDaemon(true);
        t.start();
        return t;
    }

    private final class Inbound implements InboundHandler {
        @Override
        public void onConnected(Connection c) {
            if (!connection.complete(c)) {
                LOG.warn("{}: a second supervision connection from {}; closing it", who, c.remoteAddress());
                c.close();
            }
        }

        @Override
        public void onMessage(Connection c, Object message) {
            if (c != connection.getNow(null)) {
                c.close();
                return;
            }
            long id = message instanceof HostReplyMessage r ? r.requestId()
                    : message instanceof AgentStartedMessage s ? s.requestId()
                    : message instanceof AgentStatusMessage s ? s.requestId()
                    : message instanceof ElementsMessage e ? e.requestId()
                    : message instanceof CloneIdMessage i ? i.requestId() : -1;
            if (id >= 0) {
                CompletableFuture<Object> f = pending.get(id);
                String invalid = message instanceof AgentStartedMessage s ? invalidStart(s) : null;
                if (f != null && invalid != null) f.completeExceptionally(new DsaException("the JVM of " + who + " " + invalid));
                else if (f != null) f.complete(message);
            } else if (message instanceof HostJobEventMessage e) {
                events.accept(e);
            } else {
                LOG.warn("{}: unexpected {} from its JVM; closing that connection", who, message.getClass().getSimpleName());
                c.close();
            }
        }

        @Override
        public void onDisconnected(Connection c, Throwable cause) {
            // Pending requests fail when the process has exited, with how it ended (onExit).
            if (c == connection.getNow(null)) disconnected.complete(null);
        }
    }
}
