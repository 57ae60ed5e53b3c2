package org.example;

import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;

/** Runs {@link MyProgram} on a virtual machine of 4 nodes x 2 threads inside this JVM. */
public final class Main {
    private Main() {}

    /** @param args the program's arguments, e.g. {@code 1000} */
    public static void main(String[] args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(4).threadsPerNode(2).build())) {
            RunReport report = cluster.run(new MyProgram(), args);
            report.lines().forEach(System.out::println);
        }
    }
}
