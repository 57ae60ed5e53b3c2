package io.dsa.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code dsa run --launcher ssh} against an sshd this test starts on 127.0.0.2 and 127.0.0.3
 * (Debian's openssh-server; the test is skipped, saying so, when it is not installed), with keys
 * made here: the daemons start over ssh from the distribution, the job runs across both, and the
 * daemons are gone after it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SshLauncherSystemTest {
    private static final Path SSHD = Path.of("/usr/sbin/sshd");
    private static Path dir;
    private static Process sshd;
    private static int port;

    @BeforeAll
    static void startSshd() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(SSHD) && onPath("ssh") && onPath("ssh-keygen"),
                "skipped: no sshd, ssh or ssh-keygen here; install Debian's openssh-server (apt-get install openssh-server)"
                        + " to run the ssh launcher's test");
        dir = Files.createTempDirectory("dsa-ssh-test");
        for (String key : List.of("host_key", "client_key")) {
            Dist.Result made = Dist.run(dir, Map.of(), 30, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve(key).toString());
            assertEquals(0, made.code(), made.toString());
        }
        Files.copy(dir.resolve("client_key.pub"), dir.resolve("authorized_keys"));
        if ("root".equals(System.getProperty("user.name"))) Files.createDirectories(Path.of("/run/sshd"));   // its privilege separation
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.2", 0));
            port = probe.getLocalPort();
        }
        Files.writeString(dir.resolve("sshd_config"), String.join("\n",
                "ListenAddress 127.0.0.2:" + port, "ListenAddress 127.0.0.3:" + port,
                "HostKey " + dir.resolve("host_key"), "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "PidFile " + dir.resolve("sshd.pid"), "StrictModes no", "PasswordAuthentication no",
                "KbdInteractiveAuthentication no", "UsePAM no", "PermitRootLogin prohibit-password",
                "AllowUsers " + System.getProperty("user.name"), "PrintMotd no", ""));
        sshd = Dist.start(dir, Map.of(), dir.resolve("sshd.log"), SSHD.toString(), "-D", "-e", "-f", dir.resolve("sshd_config").toString());
        for (String address : List.of("127.0.0.2", "127.0.0.3")) {   // sshd says so once it listens there
            Dist.awaitLine(dir.resolve("sshd.log"), "Server listening on " + address + " port " + port + ".", 30);
        }
    }

    @AfterAll
    static void stopSshd() throws InterruptedException {
        if (sshd != null) Dist.end(sshd);
        if (dir != null) Dist.deleteTree(dir);
    }

    @Test
    void aJobRunsAcrossTwoHostsStartedOverSshWhichStopAfterIt() throws Exception {
        Path secret = dir.resolve("secret");
        Dist.Result keygen = Dist.run(dir, Map.of(), 30, Dist.dsa(), "keygen", "--out", secret.toString());
        assertEquals(0, keygen.code(), keygen.toString());
        String ssh = "ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i "
                + dir.resolve("client_key") + " -p " + port;
        Dist.Result run = Dist.run(dir, Map.of(), 150, Dist.dsa(), "run", "--launcher", "ssh", "--hosts", "127.0.0.2:0,127.0.0.3:0",
                "--ssh", ssh, "--secret-file", secret.toString(), "--nodes", "2", "--threads", "1", "inner-product", "256", "16");
        assertEquals(0, run.code(), run + "\n--- sshd:\n" + Files.readString(dir.resolve("sshd.log")));
        assertTrue(run.out().contains("node 0: inner product of 256 elements = "), run.toString());
        // each node on its own host, as the daemons started over ssh said
        Matcher monitor = Pattern.compile("node 0 \\(monitor\\) on host 127\\.0\\.0\\.2:(\\d+) at ").matcher(run.out());
        assertTrue(monitor.find(), run.toString());
        // the daemons stopped with the job: the processes of the ssh sessions, theirs among them, end, and their port is closed
        awaitSessionsEnded();
        int daemonPort = Integer.parseInt(monitor.group(1));
        assertFalse(accepts("127.0.0.2", daemonPort), "the daemon on 127.0.0.2:" + daemonPort + " still listens");
    }

    private static boolean onPath(String command) throws IOException, InterruptedException {
        return Dist.run(Path.of("."), Map.of(), 10, "sh", "-c", "command -v " + command).code() == 0;
    }

    // Waits at most 30 s for every process that sshd runs for a session (the daemons started over ssh and theirs) to exit.
    private static void awaitSessionsEnded() throws Exception {
        List<ProcessHandle> sessions = sshd.descendants().toList();
        try {
            CompletableFuture.allOf(sessions.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the ssh sessions' processes did not end within 30 s; still alive: "
                    + sessions.stream().filter(ProcessHandle::isAlive).map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList());
        }
    }

    private static boolean accepts(String address, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
