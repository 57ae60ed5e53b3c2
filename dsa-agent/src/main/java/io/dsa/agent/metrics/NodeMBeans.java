package io.dsa.agent.metrics;

import io.dsa.DsaException;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers a node's {@link NodeMXBean} in the platform MBeanServer. Two nodes of the same VM name
 * and id in one JVM (tests running VMs one after another) get {@code ,instance=2}, ... appended.
 */
public final class NodeMBeans {
    private NodeMBeans() {}

    /**
     * Registers the MBean of the node whose counts {@code source} gives (read at each attribute access).
     *
     * @return unregisters it
     * @throws DsaException if JMX refuses the registration
     */
    public static AutoCloseable register(Supplier<NodeCounts> source) {
        NodeCounts first = source.get();
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String base = "io.dsa:type=Node,vm=" + ObjectName.quote(first.vm()) + ",node=" + first.node();
        try {
            for (int instance = 1; ; instance++) {
                ObjectName name = new ObjectName(instance == 1 ? base : base + ",instance=" + instance);
                try {
                    server.registerMBean(new Bean(source), name);
                    return () -> {
                        if (server.isRegistered(name)) server.unregisterMBean(name);
                    };
                } catch (InstanceAlreadyExistsException e) {
                    // the next instance number
                }
            }
        } catch (JMException e) {
            throw new DsaException("cannot register the MBean of node " + first.node() + " of vm '" + first.vm() + "': " + e, e);
        }
    }

    private record Bean(Supplier<NodeCounts> source) implements NodeMXBean {
        @Override public String getVm() { return source.get().vm(); }

        @Override public int getNode() { return source.get().node(); }

        @Override public boolean isHitsCounted() { return source.get().hitsCounted(); }

        @Override public long getReadHits() { return source.get().total(ArrayCounts::readHits); }

        @Override public long getWriteHits() { return source.get().total(ArrayCounts::writeHits); }

        @Override public long getReadMisses() { return source.get().total(ArrayCounts::readMisses); }

        @Override public long getWriteMisses() { return source.get().total(ArrayCounts::writeMisses); }

        @Override public long getInvalidationsSent() { return source.get().total(ArrayCounts::invalidationsSent); }

        @Override public long getInvalidationsReceived() { return source.get().total(ArrayCounts::invalidationsReceived); }

        @Override public long getBytesIn() { return source.get().total(ArrayCounts::bytesIn); }

        @Override public long getBytesOut() { return source.get().total(ArrayCounts::bytesOut); }

        @Override public long getWireBytesIn() { return source.get().bytesIn(); }

        @Override public long getWireBytesOut() { return source.get().bytesOut(); }

        @Override public long getBarrierWaits() { return source.get().barrierWaits(); }

        @Override public double getBarrierWaitMillis() { return source.get().barrierWaitNanos() / 1e6; }

        @Override public long getMigrationPauses() { return source.get().migrationPauses(); }

        @Override public double getMigrationPauseMillis() { return source.get().migrationPauseNanos() / 1e6; }

        @Override
        public Map<String, ArrayStats> getArrays() {
            Map<String, ArrayStats> arrays = new LinkedHashMap<>();
            for (ArrayCounts a : source.get().arrays()) arrays.put(a.array(), new Stats(a));
            return arrays;
        }
    }

    private record Stats(ArrayCounts a) implements ArrayStats {
        @Override public long getReadHits() { return a.readHits(); }

        @Override public long getWriteHits() { return a.writeHits(); }

        @Override public long getReadMisses() { return a.readMisses(); }

        @Override public long getWriteMisses() { return a.writeMisses(); }

        @Override public long getInvalidationsSent() { return a.invalidationsSent(); }

        @Override public long getInvalidationsReceived() { return a.invalidationsReceived(); }

        @Override public long getBytesIn() { return a.bytesIn(); }

        @Override public long getBytesOut() { return a.bytesOut(); }
    }
}
