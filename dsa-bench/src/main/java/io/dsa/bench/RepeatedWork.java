package io.dsa.bench;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A program's work run several times in one job: its {@code setup} once per node, then every
 * worker runs its {@code work} {@code times} times, a global barrier after each. What a long job
 * does, where the warm rows of the bench start a new VM for every run (connections, lanes and
 * handshakes set up again, and compiled again by the JIT meanwhile: BENCHMARKS.md, "Issue 13's
 * targets again"). Only for programs whose {@code work} starts afresh when called again: the
 * scoped examples (not resumable), not the plain versions of cg, jacobi and lu, which find where
 * to resume from the VM's epoch.
 *
 * <p>One instance serves every node of a local VM (it has no public no-argument constructor, so
 * {@code DsaCluster} does not make one per node): it makes a program per node, as the cluster
 * does for the examples, because their fields hold the node's arrays.
 */
final class RepeatedWork implements DsaProgram {
    private final Supplier<DsaProgram> programs;
    private final int times;
    /** Each node's program, made in its {@code setup}. */
    private final Map<Integer, DsaProgram> byNode = new ConcurrentHashMap<>();

    /**
     * @param programs makes a new instance of the program, one per node
     * @param times how many times each worker runs its work, at least 1
     */
    RepeatedWork(Supplier<DsaProgram> programs, int times) {
        if (times < 1) throw new IllegalArgumentException("times " + times + " not >= 1");
        this.programs = programs;
        this.times = times;
    }

    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        programs.get().validate(args, nodes, threadsPerNode);
    }

    @Override
    public void setup(DsaNode node) throws Exception {
        DsaProgram program = programs.get();
        byNode.put(node.network().nodeId(), program);
        program.setup(node);
    }

    @Override
    public void work(DsaWorker worker) throws Exception {
        DsaProgram program = byNode.get(worker.nodeId());
        for (int i = 0; i < times; i++) {
            program.work(worker);
            worker.barrier();
        }
    }
}
