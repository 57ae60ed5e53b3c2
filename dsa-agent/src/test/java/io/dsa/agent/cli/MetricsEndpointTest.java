package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.metrics.NodeMBeans;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The counts of a run as its accesses predict them (issue 15 item 5): scraped from the Prometheus
 * endpoint of {@code dsa run --metrics-port 0} while the program waits mid-run, and read from the
 * nodes' MBeans in the platform MBeanServer.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MetricsEndpointTest {
    private static final Pattern URL = Pattern.compile("metrics on (http://\\S+)");
    /** Partitions of array A (64 doubles, 8 per partition) homed at node 0 of 2 nodes x 1 thread. */
    private static final int HOMED_AT_0 = 4;

    @AfterEach
    void letTheProgramEnd() { TestPrograms.Counted.go.countDown(); }

    @Test
    void aScrapeMidRunShowsTheMissesInvalidationsAndBytesTheProgramCaused() throws Exception {
        TestPrograms.Counted.reached = new CountDownLatch(2);
        TestPrograms.Counted.go = new CountDownLatch(1);
        StringWriter out = new StringWriter();
        picocli.CommandLine cli = DsaCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> cli.execute("run", "--in-process", "--nodes", "2",
                "--threads", "1", "--vm", "scraped", "--metrics-port", "0", TestPrograms.Counted.class.getName()));
        assertTrue(TestPrograms.Counted.reached.await(60, TimeUnit.SECONDS), "the workers reached the scrape point: " + out);
        Matcher m = URL.matcher(out.toString());
        assertTrue(m.find(), out.toString());
        String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1))).build(),
                HttpResponse.BodyHandlers.ofString()).body();

        String a1 = "array=\"A\",node=\"1\",vm=\"scraped\"";
        String a0 = "array=\"A\",node=\"0\",vm=\"scraped\"";
        assertEquals(HOMED_AT_0, value(text, "dsa_read_misses_total", a1), text);
        assertEquals(0, value(text, "dsa_read_hits_total", a1), text);
        assertEquals(HOMED_AT_0 * 8 * Double.BYTES, value(text, "dsa_partition_bytes_in_total", a1), text);
        assertEquals(1, value(text, "dsa_invalidations_sent_total", a0), text);
        assertEquals(1, value(text, "dsa_invalidations_received_total", a1), text);
        assertEquals(0, value(text, "dsa_invalidations_received_total", a0), text);
        assertEquals(1, value(text, "dsa_write_misses_total", a0), "node 0's first touch of its partition: " + text);
        assertEquals(2, value(text, "dsa_barrier_waits_total", "node=\"1\",vm=\"scraped\""), text);
        assertTrue(value(text, "dsa_bytes_in_total", "node=\"1\",vm=\"scraped\"") > HOMED_AT_0 * 8 * Double.BYTES, text);

        TestPrograms.Counted.go.countDown();
        assertEquals(0, run.get(60, TimeUnit.SECONDS), out.toString());
        assertTrue(out.toString().contains("node 1 read " + HOMED_AT_0 + " partitions"), out.toString());
    }

    @Test
    void theNodesMBeansCountTheSameAccesses() throws Exception {
        TestPrograms.Counted.reached = new CountDownLatch(0);
        TestPrograms.Counted.go = new CountDownLatch(0);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(2).threadsPerNode(1).vmName("beans").build());
             AutoCloseable node0 = NodeMBeans.register(cluster.agent(0)::counts);
             AutoCloseable node1 = NodeMBeans.register(cluster.agent(1)::counts)) {
            cluster.run(new TestPrograms.Counted());
            ObjectName one = new ObjectName("io.dsa:type=Node,vm=\"beans\",node=1");
            assertEquals((long) HOMED_AT_0, server.getAttribute(one, "ReadMisses"));
            assertEquals(1L, server.getAttribute(one, "InvalidationsReceived"));
            assertEquals(2L, server.getAttribute(one, "BarrierWaits"));
            assertEquals(1L, server.getAttribute(new ObjectName("io.dsa:type=Node,vm=\"beans\",node=0"), "InvalidationsSent"));
            TabularData arrays = (TabularData) server.getAttribute(one, "Arrays");
            CompositeData a = (CompositeData) arrays.get(new Object[] {"A"}).get("value");
            assertEquals((long) HOMED_AT_0, a.get("readMisses"));
            assertEquals((long) HOMED_AT_0 * 8 * Double.BYTES, a.get("bytesIn"));
        }
        assertTrue(server.queryNames(new ObjectName("io.dsa:type=Node,vm=\"beans\",*"), null).isEmpty(), "unregistered");
    }

    // The value of the sample `name{labels}` in a Prometheus text exposition.
    private static long value(String text, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels + "}") + " (\\S+)$").matcher(text);
        assertTrue(m.find(), name + "{" + labels + "} in\n" + text);
        return (long) Double.parseDouble(m.group(1));
    }
}
