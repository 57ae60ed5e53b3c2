package io.dsa.agent;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A whole virtual machine inside this JVM: {@code config.nodes()} real agents talking over
 * loopback sockets.
 *
 * <pre>{@code
 * try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(4).threadsPerNode(2).build())) {
 *     cluster.run(new InnerProduct(), "1024", "32");
 * }
 * }</pre>
 *
 * Each agent runs one program; {@link #run} may be called once per cluster.
 */
public final class DsaCluster implements AutoCloseable {
    private final DsaConfig config;
    private final List<DsaAgent> agents = new ArrayList<>();

    private DsaCluster(DsaConfig config) {
        this.config = config;
    }

    /**
     * Starts {@code config.nodes()} agents on loopback. A config without a secret gets a random one.
     *
     * @throws DsaException if an agent cannot start
     */
    public static DsaCluster local(DsaConfig config) {
        DsaConfig base = config.hasSecret() ? config : config.toBuilder().randomSecret().build();
        DsaCluster cluster = new DsaCluster(base);
        try {
            DsaAgent monitor = DsaAgent.start(base.toBuilder().nodeId(0).monitorAddress(null).build());
            cluster.agents.add(monitor);
            for (int n = 1; n < base.nodes(); n++) {
                cluster.agents.add(DsaAgent.start(base.toBuilder().nodeId(n).port(0).monitorAddress(monitor.address()).build()));
            }
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** @return the configuration every agent was started with (node ids aside) */
    public DsaConfig config() { return config; }

    /**
     * Runs {@code program} on every node (a fresh instance per node when the class has a public
     * no-argument constructor, else the given instance) and returns when every worker finished.
     *
     * @throws DsaException carrying the first worker failure
     */
    public RunReport run(DsaProgram program, String... args) {
        List<String> argList = Arrays.asList(args.clone());
        ExecutorService pool = Executors.newFixedThreadPool(agents.size(), r -> {
            Thread t = new Thread(r, "dsa-cluster-node");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<RunReport>> results = new ArrayList<>();
            for (int n = 0; n < agents.size(); n++) {
                DsaAgent agent = agents.get(n);
                DsaProgram instance = n == 0 ? program : instanceLike(program);
                results.add(pool.submit(() -> agent.run(instance, argList)));
            }
            RunReport first = null;
            DsaException failure = null;
            for (Future<RunReport> f : results) {
                try {
                    RunReport r = f.get();
                    if (first == null) first = r;
                } catch (ExecutionException e) {
                    DsaException d = e.getCause() instanceof DsaException
                            ? (DsaException) e.getCause() : new DsaException(e.getCause().toString(), e.getCause());
                    // prefer the report that carries the original exception
                    if (failure == null || failure.getCause() == null && d.getCause() != null) failure = d;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new DsaException("interrupted while running " + program.getClass().getName());
                }
            }
            if (failure != null) throw failure;
            return first;
        } finally {
            pool.shutdownNow();
        }
    }

    private static DsaProgram instanceLike(DsaProgram program) {
        Class<?> type = program.getClass();
        if (!Modifier.isPublic(type.getModifiers()) || type.isAnonymousClass() || type.isSynthetic()) return program;
        try {
            Constructor<?> c = type.getConstructor();
            return (DsaProgram) c.newInstance();
        } catch (ReflectiveOperationException e) {
            return program;
        }
    }

    /** Stops every agent. Idempotent. */
    @Override
    public void close() {
        for (DsaAgent a : agents) a.close();
    }
}
