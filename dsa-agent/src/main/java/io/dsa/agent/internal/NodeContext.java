package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaBarrier;
import io.dsa.DsaException;
import io.dsa.DsaLock;
import io.dsa.DsaNetwork;
import io.dsa.DsaNode;
import io.dsa.ElementType;
import io.dsa.SharedArray;
import io.dsa.SharedDouble;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloat;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedInteger;
import io.dsa.SharedLong;
import io.dsa.SharedLongArray;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/** This node as a program sees it. */
final class NodeContext implements DsaNode {
    private final NodeRuntime rt;
    /** When this node last passed on a progress line; {@code Long.MIN_VALUE} before the first. */
    private final java.util.concurrent.atomic.AtomicLong lastProgressNs = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);
    private final List<String> args;
    private final DsaNetwork network;
    private final Map<Integer, SharedArray> arrays = new ConcurrentHashMap<>();
    private final Map<String, Object> objects = new ConcurrentHashMap<>();
    private final DsaBarrier global;
    private final DsaBarrier local;

    NodeContext(NodeRuntime rt, List<String> args) {
        this.rt = rt;
        this.args = List.copyOf(args);
        int nodes = rt.nodes;
        int threads = rt.threadsPerNode;
        int nodeId = rt.nodeId;
        this.network = new DsaNetwork() {
            @Override public int getLocalThreadCount() { return threads; }
            @Override public int getGlobalThreadCount() { return nodes * threads; }
            @Override public int nodeCount() { return nodes; }
            @Override public int nodeId() { return nodeId; }
            // live: a migration changes a node's address
            @Override public List<String> getDsaNetIPs() { return rt.view(); }
        };
        this.global = new DsaBarrier() {
            @Override public void await() { WorkerImpl.globalBarrier(rt); }
            @Override public int parties() { return nodes * threads; }
        };
        this.local = new DsaBarrier() {
            @Override public void await() { rt.barriers.local(); }
            @Override public int parties() { return threads; }
        };
    }

    @Override public DsaNetwork network() { return network; }

    @Override public List<String> args() { return args; }

    @Override
    public SharedDoubleArray createSharedDoubleArray(String name, int rows, int cols, int partitionSize) {
        return (SharedDoubleArray) createSharedArray(square(name, ElementType.DOUBLE, rows, cols, partitionSize));
    }

    @Override
    public SharedDoubleArray createSharedDoubleArray(String name, int length, int partitionSize) {
        return (SharedDoubleArray) createSharedArray(ArraySpec.oneDimensional(name, ElementType.DOUBLE, length, partitionSize, Distribution.BLOCK));
    }

    @Override
    public SharedFloatArray createSharedFloatArray(String name, int rows, int cols, int partitionSize) {
        return (SharedFloatArray) createSharedArray(square(name, ElementType.FLOAT, rows, cols, partitionSize));
    }

    @Override
    public SharedFloatArray createSharedFloatArray(String name, int length, int partitionSize) {
        return (SharedFloatArray) createSharedArray(ArraySpec.oneDimensional(name, ElementType.FLOAT, length, partitionSize, Distribution.BLOCK));
    }

    @Override
    public SharedIntArray createSharedIntArray(String name, int rows, int cols, int partitionSize) {
        return (SharedIntArray) createSharedArray(square(name, ElementType.INT, rows, cols, partitionSize));
    }

    @Override
    public SharedIntArray createSharedIntArray(String name, int length, int partitionSize) {
        return (SharedIntArray) createSharedArray(ArraySpec.oneDimensional(name, ElementType.INT, length, partitionSize, Distribution.BLOCK));
    }

    @Override
    public SharedLongArray createSharedLongArray(String name, int rows, int cols, int partitionSize) {
        return (SharedLongArray) createSharedArray(square(name, ElementType.LONG, rows, cols, partitionSize));
    }

    @Override
    public SharedLongArray createSharedLongArray(String name, int length, int partitionSize) {
        return (SharedLongArray) createSharedArray(ArraySpec.oneDimensional(name, ElementType.LONG, length, partitionSize, Distribution.BLOCK));
    }

    /** The paper's square partitions, clamped to the array where it is smaller. */
    private static ArraySpec square(String name, ElementType type, int rows, int cols, int partitionSize) {
        if (partitionSize < 1) {
            throw new IllegalArgumentException("partition size " + partitionSize + " out of range [1, "
                    + Math.max(rows, cols) + "] for array '" + name + "'");
        }
        return ArraySpec.of(name, type, rows, cols, Math.min(partitionSize, Math.max(rows, 1)),
                Math.min(partitionSize, Math.max(cols, 1)), Distribution.BLOCK);
    }

    @Override
    public SharedArray createSharedArray(ArraySpec spec) {
        boolean knownHere = arrays.values().stream().anyMatch(a -> a.name().equals(spec.name()));
        ArrayLimits.check(spec, rt.config, rt.nodeId, rt.nodes, rt.threadsPerNode, knownHere);
        ArrayState state = rt.registry.registerArray(spec);
        return arrays.computeIfAbsent(state.id, id -> wrap(rt, state));
    }

    /** The typed array over {@code state}'s slots at {@code rt}. */
    static SharedArray wrap(NodeRuntime rt, ArrayState state) {
        switch (state.spec.elementType()) {
            case DOUBLE: return new SharedDoubleArrayImpl(rt, state);
            case FLOAT: return new SharedFloatArrayImpl(rt, state);
            case INT: return new SharedIntArrayImpl(rt, state);
            case LONG: return new SharedLongArrayImpl(rt, state);
            default: throw new AssertionError(state.spec.elementType());
        }
    }

    private SharedVariables.Handle variable(String name, int type, long initialBits) {
        checkName(name);
        RegisteredMessage r = rt.registry.register(RegisterMessage.VARIABLE, name, new long[] {type, initialBits});
        return new SharedVariables.Handle(rt, name, r.objectId(), r.home(), type);
    }

    @Override
    public SharedDouble createSharedDouble(String name, double initial) {
        return (SharedDouble) objects.computeIfAbsent("d:" + name, k -> new SharedVariables.DoubleVar(
                variable(name, VariableOps.DOUBLE, Double.doubleToRawLongBits(initial))));
    }

    @Override
    public SharedLong createSharedLong(String name, long initial) {
        return (SharedLong) objects.computeIfAbsent("l:" + name, k -> new SharedVariables.LongVar(
                variable(name, VariableOps.LONG, initial)));
    }

    @Override
    public SharedInteger createSharedInteger(String name, int initial) {
        return (SharedInteger) objects.computeIfAbsent("i:" + name, k -> new SharedVariables.IntVar(
                variable(name, VariableOps.INT, SharedVariables.IntVar.bits(initial))));
    }

    @Override
    public SharedFloat createSharedFloat(String name, float initial) {
        return (SharedFloat) objects.computeIfAbsent("f:" + name, k -> new SharedVariables.FloatVar(
                variable(name, VariableOps.FLOAT, SharedVariables.FloatVar.bits(initial))));
    }

    @Override public DsaBarrier globalBarrier() { return global; }

    @Override public DsaBarrier localBarrier() { return local; }

    @Override
    public DsaBarrier createBarrier(String name, int parties) {
        checkName(name);
        int max = rt.nodes * rt.threadsPerNode;
        if (parties < 1 || parties > max) {
            throw new IllegalArgumentException("barrier '" + name + "' parties " + parties + " out of range [1, " + max + "]");
        }
        int id = rt.registry.register(RegisterMessage.BARRIER, name, new long[] {parties}).objectId();
        return new DsaBarrier() {
            @Override public void await() { rt.barriers.group(id, name); }
            @Override public int parties() { return parties; }
        };
    }

    @Override
    public DsaLock createLock(String name) {
        checkName(name);
        int id = rt.registry.register(RegisterMessage.LOCK, name, new long[0]).objectId();
        return (DsaLock) objects.computeIfAbsent("lock:" + name, k -> new NodeLock(rt, id, name));
    }

    @Override
    public void report(String line) {
        rt.job.report(line == null ? "null" : line);
    }

    @Override
    public void progress(String line) {
        long now = System.nanoTime();
        long last = lastProgressNs.get();
        // the first line always passes; then at most one per interval, whoever wins the race
        if (last != Long.MIN_VALUE && now - last < java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(PROGRESS_INTERVAL_MS)) return;
        if (!lastProgressNs.compareAndSet(last, now)) return;
        try {
            rt.config.progress().onProgress(rt.nodeId, line == null ? "null" : line);
        } catch (RuntimeException e) {
            // a listener that throws must not fail the program that reported
        }
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("name must be non-empty");
    }

    /** Threads of one node queue on a local lock first, so the node asks the home once at a time. */
    private static final class NodeLock implements DsaLock {
        private final NodeRuntime rt;
        private final int id;
        private final String name;
        private final ReentrantLock local = new ReentrantLock(true);

        NodeLock(NodeRuntime rt, int id, String name) {
            this.rt = rt;
            this.id = id;
            this.name = name;
        }

        @Override
        public void lock() {
            if (local.isHeldByCurrentThread()) throw new DsaException("lock '" + name + "' is not reentrant: this thread holds it");
            // a worker's record: first behind the other threads of this node, then asking the home
            WorkerThread w = WorkerThread.waitFor(WorkerThread.LOCK, name, 0);
            try {
                while (!local.tryLock(NodeRuntime.POLL_MS, java.util.concurrent.TimeUnit.MILLISECONDS)) rt.checkFailed();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for a lock");
            } finally {
                WorkerThread.resume(w);
            }
            w = WorkerThread.waitFor(WorkerThread.LOCK, name, 1);
            try {
                rt.locks.acquire(id);
            } catch (RuntimeException e) {
                local.unlock();
                throw e;
            } finally {
                WorkerThread.resume(w);
            }
        }

        @Override
        public boolean tryLock(long timeout, java.util.concurrent.TimeUnit unit) {
            if (local.isHeldByCurrentThread()) throw new DsaException("lock '" + name + "' is not reentrant: this thread holds it");
            long deadlineNs = System.nanoTime() + unit.toNanos(Math.max(0, timeout));
            WorkerThread w = WorkerThread.waitFor(WorkerThread.LOCK, name, 1);
            try {
                return tryLock(deadlineNs);
            } finally {
                WorkerThread.resume(w);
            }
        }

        private boolean tryLock(long deadlineNs) {
            try {
                while (!local.tryLock(Math.min(NodeRuntime.POLL_MS, Math.max(0, (deadlineNs - System.nanoTime()) / 1_000_000)),
                        java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    rt.checkFailed();
                    if (System.nanoTime() - deadlineNs >= 0) return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for a lock");
            }
            boolean acquired = false;
            try {
                acquired = rt.locks.tryAcquire(id, deadlineNs);
                return acquired;
            } finally {
                if (!acquired) local.unlock();
            }
        }

        @Override
        public void unlock() {
            if (!local.isHeldByCurrentThread()) throw new DsaException("unlock of lock '" + name + "' by a thread that does not hold it");
            rt.locks.release(id);
            local.unlock();
        }
    }
}
