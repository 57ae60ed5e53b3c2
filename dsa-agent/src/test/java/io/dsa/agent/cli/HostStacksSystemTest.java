package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeing inside a VM on {@code dsa host} daemons while it runs (issue 15 items 4 and 5):
 * {@code dsa status --stacks VM} lists each worker and where it is, {@code dsa status --watch}
 * prints each node's counts until the VM ends, and {@code dsa host --metrics-port 0} serves its
 * agents' counts.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HostStacksSystemTest {
    private static final Pattern URL = Pattern.compile("metrics on (http://\\S+)");

    @Test
    void stacksWatchAndTheHostsEndpointSeeARunningVm(@TempDir Path dir) throws Exception {
        Path secret = HostProcess.newSecret(dir.resolve("secret"));
        try (HostProcess h0 = HostProcess.start("127.0.0.6", secret, List.of(), List.of("--metrics-port", "0"));
             HostProcess h1 = HostProcess.start("127.0.0.7", secret)) {
            String hosts = h0.address() + "," + h1.address();
            String s = secret.toString();
            CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts", hosts, "--secret-file", s,
                    "--vm", "waits", "--nodes", "2", "--threads", "1", "--timeout", "120", HostTestPrograms.Waits.class.getName(),
                    dir.toString()));

            // node 0's worker waits at epoch 1 while node 1's runs its own code
            Cli stacks = Poll.until("node 0 waiting in the barrier", () -> Cli.execute("status", "--hosts", hosts, "--secret-file", s,
                    "--stacks", "waits"), c -> c.out().contains("node 0 thread 0 (local 0): waits in the global barrier at epoch 1"),
                    120_000, 100);
            assertEquals(0, stacks.exitCode(), stacks.toString());
            List<String> lines = stacks.out().lines().toList();
            int node1 = lines.indexOf("node 1 thread 1 (local 0): running");
            assertTrue(node1 > 0, "node 1's worker after node 0's: " + stacks);
            assertTrue(lines.subList(node1 + 1, lines.size()).stream().anyMatch(l -> l.startsWith("\tat ")
                    && l.contains(HostTestPrograms.Waits.class.getName() + ".awaitTheEnd(")), stacks.toString());

            Matcher m = URL.matcher(h0.output());
            assertTrue(m.find(), h0.output());
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains("dsa_barrier_waits_total{node=\"0\",vm=\"waits\"} 1.0"), "node 0 passed one barrier:\n" + metrics);
            assertTrue(metrics.contains("dsa_read_hits_total{array=\"waits.A\",node=\"0\",vm=\"waits\"} 0.0"), metrics);
            assertTrue(!metrics.contains("node=\"1\""), "node 1 runs on the other host:\n" + metrics);

            StringWriter watched = new StringWriter();
            picocli.CommandLine watch = DsaCli.commandLine();
            watch.setOut(new PrintWriter(watched, true));
            watch.setErr(new PrintWriter(new StringWriter(), true));
            CompletableFuture<Integer> watching = CompletableFuture.supplyAsync(() -> watch.execute("status", "--hosts", hosts,
                    "--secret-file", s, "--watch", "--vm", "waits", "--interval", "1"));
            Poll.until("a table of both nodes", watched::toString,
                    w -> w.contains("INV RECEIVED") && w.lines().anyMatch(l -> l.matches("waits\\s+1\\s+0\\s+1\\s+0\\s+0\\s+\\d+\\s+\\d+")),
                    60_000, 100);
            Files.writeString(dir.resolve("end"), "end");
            Cli done = run.get(120, TimeUnit.SECONDS);
            assertEquals(0, done.exitCode(), done.toString());
            assertEquals(0, watching.get(60, TimeUnit.SECONDS), watched.toString());
            assertTrue(watched.toString().endsWith("vm 'waits' has ended" + System.lineSeparator()), watched.toString());
        }
    }
}
