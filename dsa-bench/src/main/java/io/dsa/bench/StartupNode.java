package io.dsa.bench;

import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * A warm JVM for {@code dsa bench startup}: prints {@code "warm"}, then for each standard-input
 * line {@code "join NODE NODES MONITOR SECRET_FILE TAG"} starts an agent as that node of a new VM,
 * runs {@link StartupProgram}, closes the agent and prints {@code "done"} (or {@code "failed
 * REASON"}); it exits at end of input.
 */
final class StartupNode {
    private StartupNode() {}

    /** The warm child. */
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("warm");
        System.out.flush();
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            if (f.length != 6 || !f[0].equals("join")) {
                System.out.println("failed bad command '" + line + "'");
                System.out.flush();
                continue;
            }
            try (DsaAgent agent = DsaAgent.start(DsaConfig.builder().nodes(Integer.parseInt(f[2])).threadsPerNode(1)
                    .nodeId(Integer.parseInt(f[1])).port(0).bindHost(DsaConfig.DEFAULT_BIND_HOST).monitorAddress(f[3])
                    .secretFile(Path.of(f[4])).build())) {
                agent.run(new StartupProgram(), List.of(f[5]));
                System.out.println("done");
            } catch (RuntimeException e) {
                System.out.println("failed " + e);
            }
            System.out.flush();
        }
    }
}
