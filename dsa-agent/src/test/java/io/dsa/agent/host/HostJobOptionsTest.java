package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.AgentLaunchMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job options a host's JVM turns into the agent's config for a VM on hosts: the threads of the
 * VM on that host ({@code machineThreads}) and the checkpoints' settings (docs/failures.md,
 * "Checkpoints on hosts").
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HostJobOptionsTest {
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @TempDir
    Path work;

    private AgentLaunchMessage launch(int node, List<String> options) {
        return new AgentLaunchMessage(1, AgentLaunchMessage.RUN, "vm1", node, 3, 2, node == 0 ? null : "127.0.0.1:5000", "127.0.0.1", "P", List.of(), options,
                work.resolve("job-1-vm1-" + node + ".jar").toString());
    }

    /** Before: a node on a host was not told the threads of its VM on that host, so ADAPTIVE waiting counted its own only. */
    @Test
    void aNodeOnAHostCountsTheThreadsOfItsVmOnThatHost() {
        DsaConfig config = ChildAgent.config(launch(1, List.of("machineThreads=6")), SECRET, TransportSecurity.MAC).build();
        assertEquals(6, config.machineThreads());
        assertEquals(0, ChildAgent.config(launch(1, List.of()), SECRET, TransportSecurity.MAC).build().machineThreads());
    }

    /** The VM's settings go through the launch's text and come back equal, the defaults and every one changed. */
    @Test
    void theVmsSettingsRoundTripThroughTheJobOptions() {
        DsaConfig defaults = DsaConfig.builder().nodes(3).threadsPerNode(2).build();
        DsaConfig changed = DsaConfig.builder().nodes(3).threadsPerNode(2).barrier(io.dsa.agent.BarrierKind.KARY).barrierFanout(3)
                .proxy(io.dsa.agent.ProxyMode.FIXED).maxFrameBytes(1 << 20).failureTimeoutMs(1234)
                .waitStrategy(io.dsa.agent.WaitStrategy.SPIN).prefetchWindow(7).readerPushes(true).barrierLanes(false)
                .returningReads(false).checkpointSync(false).sharedRings(false).selfInvalidation(true).hitCounts(false).bindCores(true).build();
        for (DsaConfig sent : List.of(defaults, changed)) {
            DsaConfig got = ChildAgent.config(launch(1, VmSettingOptions.of(sent)), SECRET, TransportSecurity.MAC).build();
            assertEquals(List.of(sent.barrier(), sent.barrierFanout(), sent.proxy(), sent.maxFrameBytes(), sent.failureTimeoutMs(),
                    sent.waitStrategy(), sent.prefetchWindow(), sent.readerPushes(), sent.barrierLanes(), sent.returningReads(),
                    sent.checkpointSync(), sent.sharedRings(), sent.selfInvalidation(), sent.hitCounts(), sent.bindCores()),
                    List.of(got.barrier(), got.barrierFanout(), got.proxy(), got.maxFrameBytes(), got.failureTimeoutMs(),
                            got.waitStrategy(), got.prefetchWindow(), got.readerPushes(), got.barrierLanes(), got.returningReads(),
                            got.checkpointSync(), got.sharedRings(), got.selfInvalidation(), got.hitCounts(), got.bindCores()));
        }
        assertEquals(List.of(), VmSettingOptions.of(defaults).stream().filter(o -> o.startsWith("barrierLanes") || o.startsWith("returningReads")
                        || o.startsWith("hitCounts"))
                .toList(), "settings on by default are sent only when off");
        assertEquals(List.of(), VmSettingOptions.of(defaults).stream().filter(o -> o.startsWith("selfInvalidation") || o.startsWith("bindCores"))
                .toList(),
                "self-invalidation, off by default, is sent only when on (a host of an earlier build reads the job)");
        assertEquals(List.of(), VmSettingOptions.of(defaults).stream().filter(o -> o.startsWith("checkpointSync")).toList(),
                "forced checkpoints, on by default, are sent only when off");
        DsaException unknown = assertThrows(DsaException.class, () -> ChildAgent.config(launch(1, List.of("turbo=1")), SECRET,
                TransportSecurity.MAC));
        assertTrue(unknown.getMessage().contains("unknown job option 'turbo=1'; known: barrier, fanout") && unknown.getMessage()
                .contains("returningReads"), unknown.getMessage());
    }

    /** Before: a host's node bound to share `node id` of every node of the VM, not of those on its host. */
    @Test
    void aNodesShareOfItsHostsCoresArrivesAsSent() {
        DsaConfig shared = ChildAgent.config(launch(2, List.of("bindCores=true", "coreShare=1/2")), SECRET, TransportSecurity.MAC).build();
        assertEquals(List.of(true, 1, 2), List.of(shared.bindCores(), shared.coreShare(), shared.coreShares()));
        DsaConfig unsaid = ChildAgent.config(launch(2, List.of("bindCores=true")), SECRET, TransportSecurity.MAC).build();
        assertEquals(List.of(2, 3), List.of(unsaid.coreShare(), unsaid.coreShares()), "without a share: node id of the VM's nodes");
        for (String bad : List.of("coreShare=2/2", "coreShare=1", "coreShare=a/2", "coreShare=0/0")) {
            Exception e = assertThrows(RuntimeException.class, () -> ChildAgent.config(launch(2, List.of(bad)), SECRET, TransportSecurity.MAC)
                    .build(), bad);
            assertTrue(e.getMessage().contains("core share") || e.getMessage().contains(bad), bad + ": " + e.getMessage());
        }
    }

    @Test
    void checkpointsGoByDefaultIntoAPrivateDirectoryBesideTheJobsJar() throws Exception {
        DsaConfig config = ChildAgent.config(launch(2, List.of("checkpointEvery=10", "buddies=1,2,0")), SECRET, TransportSecurity.MAC)
                .build();
        assertEquals(10, config.checkpointEvery());
        assertEquals(work.resolve("checkpoints-vm1"), config.checkpointDir());
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(config.checkpointDir())));
        assertArrayEquals(new int[] {1, 2, 0}, config.checkpointBuddies());
        Path named = work.resolve("named");
        assertEquals(named, ChildAgent.config(launch(0, List.of("checkpointEvery=5", "checkpointDir=" + named)), SECRET,
                TransportSecurity.MAC).build().checkpointDir());
        assertEquals(300, ChildAgent.restartEpoch(launch(0, List.of("checkpointEvery=5", "restartEpoch=300"))));
        assertEquals(0, ChildAgent.restartEpoch(launch(0, List.of("checkpointEvery=5"))));
    }

    @Test
    void aBuddyThatIsTheNodeItselfOrOutOfRangeIsRefusedNamingIt() {
        IllegalArgumentException self = assertThrows(IllegalArgumentException.class, () -> ChildAgent.config(
                launch(0, List.of("checkpointEvery=10", "buddies=1,1,0")), SECRET, TransportSecurity.MAC).build());
        assertEquals("checkpoint buddy 1 of node 1 out of range [0, 3) or the node itself", self.getMessage());
        IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> ChildAgent.config(
                launch(0, List.of("checkpointEvery=10", "buddies=1,0")), SECRET, TransportSecurity.MAC).build());
        assertTrue(count.getMessage().startsWith("checkpoint buddies [1, 0]: one per node, 3 expected"), count.getMessage());
        DsaException epoch = assertThrows(DsaException.class, () -> ChildAgent.config(launch(0, List.of("restartEpoch=0")), SECRET,
                TransportSecurity.MAC));
        assertTrue(epoch.getMessage().contains("restartEpoch=0") && epoch.getMessage().contains("out of range [1, 2^63) (or 'newest')"), epoch.getMessage());
    }
}
