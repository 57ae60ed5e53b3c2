package io.dsa.agent.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dsa.DsaException;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node cut off without a reset: four agents in this JVM, each on its own loopback address
 * (127.77.S.1-4, S from the printed seed), run {@link FaultPrograms.Churn}; the test drops every
 * packet between one node and the others with iptables. Before heartbeats, nothing noticed: the
 * job hung until its timeout. Now the job fails within the failure timeout's order, naming the
 * node and where it ran; every node's run ends; and while the cut lasts, no partition is held
 * exclusive by two nodes at once (each node's cache states, sampled).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NetworkCutTest {
    private static final int NODES = 4;
    private static final long FAILURE_TIMEOUT_MS = 1_000;

    @BeforeAll
    static void firewall() {
        String why = LoopbackFirewall.unavailable();
        assumeTrue(why == null, () -> "skipped: " + why);
    }

    @ParameterizedTest(name = "node {0} cut off")
    @ValueSource(ints = {0, 2})
    void aNodeCutOffSilentlyFailsTheJobWithinTheBoundNamingIt(int cut) throws Exception {
        long seed = System.nanoTime();
        System.out.println("NetworkCutTest seed " + seed + " (the loopback subnet), node " + cut + " cut off");
        String subnet = "127.77." + (1 + new Random(seed).nextInt(250)) + ".";
        FaultPrograms.Churn.ARRAYS.clear();
        FaultPrograms.Churn.Rounds rounds = FaultPrograms.Churn.countRounds(20);
        DsaConfig base = DsaConfig.builder().nodes(NODES).threadsPerNode(2).vmName("cut").randomSecret()
                .failureTimeoutMs(FAILURE_TIMEOUT_MS).build();
        List<DsaAgent> agents = new ArrayList<>();
        List<CompletableFuture<RunReport>> runs = new ArrayList<>();
        try (LoopbackFirewall firewall = new LoopbackFirewall()) {
            for (int n = 0; n < NODES; n++) {
                DsaConfig.Builder b = base.toBuilder().nodeId(n).bindHost(subnet + (n + 1)).port(0);
                agents.add(DsaAgent.start(n == 0 ? b.build() : b.monitorAddress(agents.get(0).address()).build()));
            }
            for (DsaAgent agent : agents) {
                runs.add(CompletableFuture.supplyAsync(() -> agent.run(new FaultPrograms.Churn(), List.of()), daemons()));
            }
            if (!rounds.awaitReachedOrEnd(runs, 60)) {
                for (CompletableFuture<RunReport> run : runs) {
                    if (run.isDone()) throw new AssertionError("a node's run ended before the cut: " + failureOf(run));
                }
            }

            List<String> others = new ArrayList<>();
            for (int n = 0; n < NODES; n++) if (n != cut) others.add(subnet + (n + 1));
            long cutNs = System.nanoTime();
            firewall.isolate(subnet + (cut + 1), others);
            int observer = cut == 0 ? 1 : 0;
            int samples = 0;
            while (!runs.get(observer).isDone()) {
                assertEquals("", FaultPrograms.Churn.doublyExclusive(NODES), "while node " + cut + " is cut off");
                samples++;
                assertTrue(System.nanoTime() - cutNs < TimeUnit.SECONDS.toNanos(60), "the job did not fail within 60 s of the cut");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));   // sampling, not waiting for the run
            }
            long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutNs);
            String failure = failureOf(runs.get(observer));
            System.out.println("NetworkCutTest: node " + cut + " cut off at " + subnet + (cut + 1) + ", node " + observer
                    + " failed after " + detectedMs + " ms (failure timeout " + FAILURE_TIMEOUT_MS + " ms, " + samples
                    + " samples of the cache states): " + failure);
            assertTrue(failure.contains("node " + cut + " at " + subnet + (cut + 1) + ":"), failure);
            assertTrue(failure.contains("nothing heard from node "), failure);
            assertTrue(detectedMs < 3 * FAILURE_TIMEOUT_MS, "detected after " + detectedMs + " ms, more than 3x the bound");
            for (int n = 0; n < NODES; n++) {
                long leftMs = 3 * FAILURE_TIMEOUT_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutNs) + 2 * FAILURE_TIMEOUT_MS;
                failureOf(runs.get(n), Math.max(1, leftMs));   // every node's run ends, the cut one's too
            }
            assertEquals("", FaultPrograms.Churn.doublyExclusive(NODES), "after the job failed");
        } finally {
            for (DsaAgent agent : agents) agent.close();
        }
    }

    static String failureOf(CompletableFuture<RunReport> run) throws InterruptedException {
        return failureOf(run, 0);
    }

    /** @return the message of the exception {@code run} failed with, waiting at most {@code waitMs} */
    static String failureOf(CompletableFuture<RunReport> run, long waitMs) throws InterruptedException {
        try {
            RunReport r = run.get(waitMs, TimeUnit.MILLISECONDS);
            throw new AssertionError("the run succeeded: " + r);
        } catch (ExecutionException e) {
            assertInstanceOf(DsaException.class, e.getCause());
            return e.getCause().getMessage();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("a node's run did not end within " + waitMs + " ms of the failure");
        }
    }

    private static java.util.concurrent.Executor daemons() {
        return task -> {
            Thread t = new Thread(task, "cut-test-node");
            t.setDaemon(true);
            t.start();
        };
    }
}
