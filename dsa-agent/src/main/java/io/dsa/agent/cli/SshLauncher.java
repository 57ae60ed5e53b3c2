package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.agent.HostPort;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code dsa run --launcher ssh}: starts a {@code dsa host} daemon on every host over ssh for the
 * length of one job. On each host one ssh session writes the cluster secret, read from its stdin,
 * to a new private directory (mode 600 under umask 077), starts {@code dsa host} there with it,
 * and waits for its stdin to close: when the job ends, or the launcher dies, the session's stdin
 * closes, the daemon gets SIGTERM (it stops its agents and deletes its files) and the directory
 * with the secret is deleted. The secret never appears on a command line.
 *
 * <p>The remote {@code dsa} is {@code --remote-dsa}, by default the launcher's own ({@code bin/dsa}
 * of the distribution sets {@value #COMMAND_ENV}): the same installation path on every host.
 */
final class SshLauncher implements AutoCloseable {
    /** Environment variable that {@code bin/dsa} and {@code scripts/dsa} set to their own path. */
    static final String COMMAND_ENV = "DSA_COMMAND";
    /** Environment variable with the ssh command when {@code --ssh} is not given. */
    static final String SSH_ENV = "DSA_SSH";
    /** The ssh command by default: no password prompts, which would hang the launcher. */
    static final String DEFAULT_SSH = "ssh -o BatchMode=yes";
    /** How long a daemon may take to start and say where it listens. */
    static final long START_TIMEOUT_MS = 60_000;
    /** How long the daemons get to stop after the job, before their ssh sessions are ended. */
    static final long STOP_TIMEOUT_MS = 15_000;
    private static final String LISTENING = "host listening on ";

    private final PrintWriter out;
    private final List<Process> sessions = new ArrayList<>();
    private final List<HostPort> addresses = new ArrayList<>();

    private SshLauncher(PrintWriter out) { this.out = out; }

    /**
     * Starts a daemon on each of {@code hosts} (the host is the ssh destination and the address the
     * daemon binds; port 0 lets it pick one) and waits until each says where it listens.
     *
     * @param ssh the ssh command and its options, split at white space
     * @param remoteDsa the {@code dsa} command on the hosts
     * @param hostOptions options for each {@code dsa host}, e.g. {@code --transport-security MAC}
     * @throws DsaException naming the host that could not be reached or whose daemon did not start
     */
    static SshLauncher start(List<HostPort> hosts, String ssh, String remoteDsa, byte[] secret, List<String> hostOptions,
            PrintWriter out) throws InterruptedException {
        SshLauncher launcher = new SshLauncher(out);
        try {
            List<CompletableFuture<HostPort>> listening = new ArrayList<>();
            for (HostPort h : hosts) listening.add(launcher.startOn(h, ssh, remoteDsa, secret, hostOptions));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
            for (int i = 0; i < hosts.size(); i++) {
                try {
                    launcher.addresses.add(listening.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (TimeoutException e) {
                    throw new DsaException("the dsa host daemon on " + hosts.get(i).host() + " did not start within "
                            + START_TIMEOUT_MS / 1000 + " s");
                } catch (ExecutionException e) {
                    throw new DsaException(e.getCause().getMessage(), e.getCause());
                }
            }
            return launcher;
        } catch (RuntimeException | InterruptedException e) {
            launcher.close();
            throw e;
        }
    }

    /** @return where the daemons listen, in the order of the hosts */
    List<HostPort> addresses() { return List.copyOf(addresses); }

    /**
     * @return the shell script one ssh session runs on a host: the secret from the first line of
     *         stdin into a private file, the daemon, and its end when stdin closes
     */
    static String remoteScript(String remoteDsa, HostPort host, List<String> hostOptions) {
        List<String> daemon = new ArrayList<>(List.of(remoteDsa, "host", "--bind", host.host(), "--port", Integer.toString(host.port()),
                "--secret-file"));
        StringBuilder command = new StringBuilder();
        for (String word : daemon) command.append(quote(word)).append(' ');
        command.append("\"$d/secret\"");
        for (String option : hostOptions) command.append(' ').append(quote(option));
        return "umask 077; d=$(mktemp -d \"${TMPDIR:-/tmp}/dsa-ssh.XXXXXX\") || exit 1; trap 'rm -rf \"$d\"' EXIT; "
                + "IFS= read -r s || exit 1; printf '%s\\n' \"$s\" > \"$d/secret\"; unset s; "
                + command + " & p=$!; cat > /dev/null; kill $p 2>/dev/null; wait $p";
    }

    /** @return {@code word} quoted for a POSIX shell */
    static String quote(String word) {
        return word.matches("[A-Za-z0-9_./:=@%+-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
    }

    private CompletableFuture<HostPort> startOn(HostPort host, String ssh, String remoteDsa, byte[] secret, List<String> hostOptions) {
        List<String> command = new ArrayList<>(Arrays.asList(ssh.trim().split("\\s+")));
        command.add(host.host());
        command.add(remoteScript(remoteDsa, host, hostOptions));
        CompletableFuture<HostPort> listening = new CompletableFuture<>();
        Process session;
        try {
            session = new ProcessBuilder(command).redirectErrorStream(true).start();
            OutputStream stdin = session.getOutputStream();
            stdin.write(secret);
            stdin.write('\n');
            stdin.flush();   // kept open: closing it stops the daemon
        } catch (IOException e) {
            listening.completeExceptionally(new DsaException("cannot run '" + command.get(0) + "' to reach " + host.host() + ": "
                    + e.getMessage(), e));
            return listening;
        }
        synchronized (sessions) {
            sessions.add(session);
        }
        Thread reader = new Thread(() -> forward(session, host, listening), "dsa-ssh-" + host.host());
        reader.setDaemon(true);
        reader.start();
        return listening;
    }

    // The session's output: the daemon's address once, everything else with the host's name.
    private void forward(Process session, HostPort host, CompletableFuture<HostPort> listening) {
        List<String> last = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(session.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                int at = line.indexOf(LISTENING);
                if (at >= 0 && !listening.isDone()) {
                    try {
                        listening.complete(HostPort.parse(line.substring(at + LISTENING.length()).strip()));
                        continue;
                    } catch (IllegalArgumentException e) {
                        // not an address: print it like any other line
                    }
                }
                if (!listening.isDone()) {
                    if (last.size() == 5) last.remove(0);
                    last.add(line);
                }
                synchronized (out) {
                    out.println("[" + host.host() + "] " + line);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // the session ended
        }
        listening.completeExceptionally(new DsaException("the ssh session to " + host.host() + " ended before its dsa host daemon"
                + " started" + (last.isEmpty() ? "" : ": " + String.join(" | ", last))));
    }

    /** Closes every session's stdin (the daemons stop), waits up to {@value #STOP_TIMEOUT_MS} ms, then ends what is left. */
    @Override
    public void close() throws InterruptedException {
        List<Process> all;
        synchronized (sessions) {
            all = List.copyOf(sessions);
        }
        for (Process p : all) {
            try {
                p.getOutputStream().close();
            } catch (IOException e) {
                // already closed: the session is ending
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_TIMEOUT_MS);
        for (Process p : all) {
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) p.destroyForcibly();
        }
    }
}
