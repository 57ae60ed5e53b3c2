package io.dsa.bench;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

/**
 * A minimal two-member Hazelcast cluster on loopback for {@code dsa bench miss}: TCP-IP join on
 * 127.0.0.1 at two given ports (no multicast, no auto-increment), phone-home off, Jet off, 7
 * partitions, logging off. {@link #main} {@code PORT OTHER_PORT CLUSTER} is the member in the
 * other JVM: it prints {@code "ready"} once started and runs until its standard input closes.
 */
final class HazelcastPeer {
    private HazelcastPeer() {}

    static Config config(int port, int otherPort, String cluster) {
        Config c = new Config();
        c.setClusterName(cluster);
        c.setProperty("hazelcast.phone.home.enabled", "false");
        c.setProperty("hazelcast.logging.type", "none");
        c.setProperty("hazelcast.partition.count", "7");
        c.setProperty("hazelcast.wait.seconds.before.join", "0");
        c.getJetConfig().setEnabled(false);
        NetworkConfig net = c.getNetworkConfig();
        net.setPort(port).setPortAutoIncrement(false);
        net.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = net.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + port).addMember("127.0.0.1:" + otherPort);
        return c;
    }

    /** The member in the other JVM. */
    public static void main(String[] args) throws Exception {
        HazelcastInstance hz = Hazelcast.newHazelcastInstance(config(Integer.parseInt(args[0]), Integer.parseInt(args[1]), args[2]));
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) { /* run until the parent closes our stdin */ }
        hz.shutdown();
    }
}
