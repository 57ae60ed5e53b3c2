package io.dsa.agent.host;

import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.NettyProperties;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AllocateCloneIdMessage;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStatusQueryMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.RetireMessage;
import io.dsa.agent.wire.SnapshotMessage;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The main class of the JVM that a {@code dsa host} starts for each job's agent. Argument:
 * {@code PORT}, the host's supervision port on 127.0.0.1.
 * Its stdin carries two lines, the per-job secret and the cluster secret (hex), and then stays
 * open: nothing secret is on the command line, in the environment or in a file. It dials the
 * host with the per-job secret and serves one agent as {@link io.dsa.agent.wire.AgentControlMessage}s
 * say. It ends when the host closes the supervision connection or the stdin pipe (also when the
 * host was killed): it closes its agent and exits with 0.
 */
public final class AgentProcessMain {
    /** Exit code of bad arguments or stdin: this class is started by a host only. */
    static final int EXIT_USAGE = 2;
    private static final int MAX_LINE_BYTES = 1024;
    private static final long CLOSE_TIMEOUT_MS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(AgentProcessMain.class);

    private final String who;
    private final AtomicBoolean ending = new AtomicBoolean();
    private final ExecutorService handlers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dsa-job-control");
        t.setDaemon(true);
        return t;
    });
    private final byte[] clusterSecret;
    /** The host's transport security: of the supervision connection and of the job's agent. */
    private final TransportSecurity security;
    /** Set when the supervision connection stands, before any message on it is handled. */
    private volatile ChildAgent child;

    private AgentProcessMain(String who, byte[] clusterSecret, TransportSecurity security) {
        this.who = who;
        this.clusterSecret = clusterSecret;
        this.security = security;
    }

    /** Runs until the host ends this JVM; see the class comment. */
    public static void main(String[] args) throws InterruptedException {
        NettyProperties.forDsaProcess();
        TransportSecurity security = args.length == 2 && (args[1].equals("ENCRYPT") || args[1].equals("MAC"))
                ? TransportSecurity.valueOf(args[1]) : null;
        if (security == null) {
            System.err.println("usage: AgentProcessMain PORT ENCRYPT|MAC, secrets on stdin; started by 'dsa host' only");
            System.exit(EXIT_USAGE);
            return;
        }
        InputStream stdin = new FileInputStream(FileDescriptor.in);   // unbuffered: nothing beyond the two lines is read
        byte[] jobSecret;
        byte[] clusterSecret;
        try {
            jobSecret = HexFormat.of().parseHex(readLine(stdin));
            clusterSecret = HexFormat.of().parseHex(readLine(stdin));
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("cannot read the secrets from stdin: " + e.getMessage());
            System.exit(EXIT_USAGE);
            return;
        }
        System.setIn(InputStream.nullInputStream());   // the program gets no stdin of ours
        Transport.warmUpRecordCiphers();   // a spare JVM waits for a job: its records' ciphers get compiled meanwhile
        AgentProcessMain main = new AgentProcessMain("the job JVM " + ProcessHandle.current().pid(), clusterSecret, security);
        Thread watch = new Thread(() -> main.awaitEof(stdin), "dsa-job-stdin");
        watch.setDaemon(true);
        watch.start();
        main.serve(Integer.parseInt(args[0]), jobSecret);
        Thread.currentThread().join();   // the end comes from end(): a halt
    }

    private void serve(int port, byte[] jobSecret) {
        Transport transport = Transport.start(TransportConfig.builder().vmName(AgentProcess.SUPERVISION_VM)
                .nodeId(AgentProcess.CHILD_ID).secret(jobSecret).security(security).bindHost("127.0.0.1").port(0).ioThreads(1)
                .failureTimeoutMs(AgentProcess.SUPERVISION_FAILURE_TIMEOUT_MS).build(), new Inbound());
        try {
            transport.connect("127.0.0.1", port).get(AgentProcess.START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            System.err.println(who + ": cannot reach its host on port " + port + ": " + e);
            end(EXIT_USAGE);
        }
    }

    // The host closes the pipe when it ends this JVM, or when it dies.
    private void awaitEof(InputStream stdin) {
        try {
            while (stdin.read() >= 0) {
                // nothing more is sent: wait for the end of the stream
            }
        } catch (IOException e) {
            // the same as the end of the stream
        }
        end(0);
    }

    /** Closes the agent (at most a few seconds) and halts; the first call wins. */
    private void end(int code) {
        if (!ending.compareAndSet(false, true)) return;
        Thread closer = new Thread(() -> {
            ChildAgent c = child;
            if (c != null) c.close();
        }, "dsa-job-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(CLOSE_TIMEOUT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);   // the program's threads must not keep this JVM alive
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) throw new IOException("stdin ended before a line");
            if (line.size() >= MAX_LINE_BYTES) throw new IOException("a line of stdin is longer than " + MAX_LINE_BYTES + " bytes");
            line.write(b);
        }
        return line.toString(java.nio.charset.StandardCharsets.US_ASCII).strip();
    }

    private final class Inbound implements InboundHandler {
        @Override
        public void onConnected(Connection connection) {
            if (child == null) child = new ChildAgent(connection, clusterSecret, security, () -> end(0));
            else connection.close();   // only the host dials this JVM, once
        }

        @Override
        public void onMessage(Connection connection, Object message) {
            if (!(message instanceof AgentControlMessage request)) {
                LOG.warn("{}: unexpected {} from its host; closing", who, message.getClass().getSimpleName());
                connection.close();
                return;
            }
            handlers.execute(() -> answer(connection, request));
        }

        @Override
        public void onDisconnected(Connection connection, Throwable cause) {
            ChildAgent c = child;
            if (c != null && c.host() == connection) end(0);   // the host ended this job, or died
        }
    }

    private void answer(Connection host, AgentControlMessage request) {
        Object reply;
        try {
            reply = handle(request);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply = refused(request, "interrupted");
        } catch (ExecutionException e) {
            reply = refused(request, describe(e.getCause()));
        } catch (TimeoutException e) {
            reply = refused(request, "no answer from the VM after " + ChildAgent.STEP_TIMEOUT_MS + " ms");
        } catch (Exception | LinkageError e) {   // a program that does not load, a refusal
            reply = refused(request, describe(e));
        }
        if (reply != null) host.send(reply);
    }

    // One handler per message.
    private Object handle(AgentControlMessage m) throws Exception {
        ChildAgent c = child;
        if (c == null) throw new IllegalStateException("not connected yet");
        if (m instanceof AgentLaunchMessage x) return c.onLaunch(x);
        if (m instanceof AgentRestoreMessage x) return c.onRestore(x);
        if (m instanceof ConnectPeersMessage x) return c.onConnect(x);
        if (m instanceof AgentResumeMessage x) return c.onResume(x);
        if (m instanceof AgentStatusQueryMessage x) return c.onStatus(x);
        if (m instanceof ReadArrayMessage x) return c.onRead(x);
        if (m instanceof HoldBarrierMessage x) return c.onHold(x);
        if (m instanceof ReleaseBarrierMessage x) return c.onRelease(x);
        if (m instanceof ExpectMoveMessage x) return c.onExpect(x);
        if (m instanceof AwaitMoveMessage x) return c.onAwait(x);
        if (m instanceof CommitMoveMessage x) return c.onCommit(x);
        if (m instanceof AbandonMoveMessage x) return c.onAbandon(x);
        if (m instanceof AdmitCloneMessage x) return c.onAdmit(x);
        if (m instanceof AllocateCloneIdMessage x) return c.onAllocateCloneId(x);
        if (m instanceof RegisterCloneMessage x) return c.onRegister(x);
        if (m instanceof SnapshotMessage x) return c.onSnapshot(x);
        if (m instanceof RetireMessage x) return c.onRetire(x);
        throw new IllegalArgumentException("no handler for " + m.getClass().getSimpleName());
    }

    private static HostReplyMessage refused(AgentControlMessage request, String why) {
        return new HostReplyMessage(request.requestId(), false, why, List.of(), new byte[0]);
    }

    private static String describe(Throwable e) {
        if (e instanceof java.lang.reflect.InvocationTargetException && e.getCause() != null) e = e.getCause();
        String message = e.getMessage();
        if (e instanceof io.dsa.DsaException && message != null) return message;
        if (e instanceof ExceptionInInitializerError && e.getCause() != null) {
            return "the static initialiser of the program's class threw " + e.getCause();
        }
        return message == null ? e.toString() : e.getClass().getName() + ": " + message;
    }
}
