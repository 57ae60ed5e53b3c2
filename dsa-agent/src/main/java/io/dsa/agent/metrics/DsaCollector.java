package io.dsa.agent.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * DSA's counts as Prometheus counters, read from their source at each scrape (nothing is copied
 * or registered as nodes and arrays come and go). Per array (labels {@code vm}, {@code node},
 * {@code array}): {@code dsa_read_hits_total}, {@code dsa_write_hits_total},
 * {@code dsa_read_misses_total}, {@code dsa_write_misses_total},
 * {@code dsa_invalidations_sent_total}, {@code dsa_invalidations_received_total},
 * {@code dsa_partition_bytes_in_total}, {@code dsa_partition_bytes_out_total}. Per node (labels
 * {@code vm}, {@code node}): {@code dsa_bytes_in_total}, {@code dsa_bytes_out_total},
 * {@code dsa_barrier_waits_total}, {@code dsa_barrier_wait_seconds_total},
 * {@code dsa_migration_pauses_total}, {@code dsa_migration_pause_seconds_total}. The meaning of
 * each is that of the component of {@link ArrayCounts} or {@link NodeCounts} it reads. A node that
 * does not count hits ({@link NodeCounts#hitsCounted()}) has no hit series.
 */
public final class DsaCollector implements MultiCollector {
    private final Supplier<List<NodeCounts>> source;

    /** @param source the counts of the nodes to expose, asked at each scrape (on the scraping thread) */
    public DsaCollector(Supplier<List<NodeCounts>> source) { this.source = source; }

    private record PerArray(String name, String help, ToDoubleFunction<ArrayCounts> value) {
        /** @return whether this is a count of hits, which a node that does not count them leaves out */
        boolean hits() { return name.endsWith("_hits"); }
    }

    private record PerNode(String name, String help, ToDoubleFunction<NodeCounts> value) {}

    private static final List<PerArray> PER_ARRAY = List.of(
            new PerArray("dsa_read_hits", "Reads that found a readable copy at the node", ArrayCounts::readHits),
            new PerArray("dsa_write_hits", "Writes that found the node owning the partition", ArrayCounts::writeHits),
            new PerArray("dsa_read_misses", "Reads that waited for a copy (or a home partition's first touch)", ArrayCounts::readMisses),
            new PerArray("dsa_write_misses", "Writes that waited for ownership or were redone after a revocation", ArrayCounts::writeMisses),
            new PerArray("dsa_invalidations_sent", "INV and FWD_GET_M the node sent as the home", ArrayCounts::invalidationsSent),
            new PerArray("dsa_invalidations_received", "INV and FWD_GET_M the node received as a holder",
                    ArrayCounts::invalidationsReceived),
            new PerArray("dsa_partition_bytes_in", "Partition bytes that arrived in coherence messages", ArrayCounts::bytesIn),
            new PerArray("dsa_partition_bytes_out", "Partition bytes sent in coherence messages", ArrayCounts::bytesOut));

    private static final List<PerNode> PER_NODE = List.of(
            new PerNode("dsa_bytes_in", "Bytes the node's connections read from the network", NodeCounts::bytesIn),
            new PerNode("dsa_bytes_out", "Bytes the node's connections wrote to the network", NodeCounts::bytesOut),
            new PerNode("dsa_barrier_waits", "Waits in a global, local or group barrier", NodeCounts::barrierWaits),
            new PerNode("dsa_barrier_wait_seconds", "Time spent in barriers, arrival to release", n -> n.barrierWaitNanos() / 1e9),
            new PerNode("dsa_migration_pauses", "Global releases held for a live migration or cloning (node 0)",
                    NodeCounts::migrationPauses),
            new PerNode("dsa_migration_pause_seconds", "Time global releases were held, safe point to release",
                    n -> n.migrationPauseNanos() / 1e9));

    @Override
    public MetricSnapshots collect() {
        List<NodeCounts> nodes = source.get();
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (PerNode m : PER_NODE) {
            CounterSnapshot.Builder b = CounterSnapshot.builder().name(m.name()).help(m.help());
            for (NodeCounts n : nodes) {
                b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels(n)).value(m.value().applyAsDouble(n)).build());
            }
            snapshots.add(b.build());
        }
        for (PerArray m : PER_ARRAY) {
            CounterSnapshot.Builder b = CounterSnapshot.builder().name(m.name()).help(m.help());
            for (NodeCounts n : nodes) {
                if (m.hits() && !n.hitsCounted()) continue;   // no series rather than a 0 that means nothing
                for (ArrayCounts a : n.arrays()) {
                    b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(labels(n).add("array", a.array())).value(m.value().applyAsDouble(a)).build());
                }
            }
            snapshots.add(b.build());
        }
        return new MetricSnapshots(snapshots);
    }

    private static Labels labels(NodeCounts n) { return Labels.of("vm", n.vm(), "node", Integer.toString(n.node())); }

    @Override
    public List<String> getPrometheusNames() {
        List<String> names = new ArrayList<>();
        for (PerNode m : PER_NODE) names.add(m.name());
        for (PerArray m : PER_ARRAY) names.add(m.name());
        return names;
    }
}
