package io.dsa.agent.host;

import io.dsa.agent.mobility.MoveChoreography;
import io.dsa.agent.mobility.ScriptedPorts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A host for system tests whose moves stop for good after one step: {@code BIND SECRET_FILE WORK_DIR STEP}
 * (STEP a {@link MoveChoreography.Port} method, e.g. {@code transfer}). Prints
 * {@code host listening on ADDR} like {@code dsa host}, then {@code host ADDR stopped after STEP}
 * when a move reaches it, so the test can kill the process there (a new host lost mid-transfer).
 */
public final class StoppingHostMain {
    private StoppingHostMain() {}

    /** Starts the host and waits to be killed. */
    public static void main(String[] args) throws Exception {
        byte[] secret = Files.readString(Path.of(args[1]), StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8);
        HostConfig config = HostConfig.builder().bindHost(args[0]).port(0).secret(secret).workDir(Path.of(args[2])).build();
        String step = args[3];
        AgentHost[] started = new AgentHost[1];
        started[0] = AgentHost.start(config, port -> ScriptedPorts.stoppingAfter(MoveChoreography.Port.class, port, step, () -> {
            System.out.println("host " + started[0].address() + " stopped after " + step);
            System.out.flush();
        }));
        System.out.println("host listening on " + started[0].address());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
