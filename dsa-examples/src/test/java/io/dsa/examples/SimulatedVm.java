package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaBarrier;
import io.dsa.DsaException;
import io.dsa.DsaNetwork;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A stand-in for the DSA runtime in test code: {@code nodes x threadsPerNode} worker threads in
 * this JVM, arrays as plain {@code double[]} with the real {@link ArrayLayout}, barriers and
 * reductions on a {@link CyclicBarrier}. It checks the examples' own logic (blocks, fills,
 * verification) without a network; the system tests run them on the real runtime.
 *
 * <p>Only what the examples use is implemented; anything else throws
 * {@link UnsupportedOperationException}. A fault hook can corrupt what one element reads, to show
 * that the programs' checks fail.
 */
final class SimulatedVm {
    /** A corrupted read: {@code array[index]} reads {@code value}. */
    record Fault(String array, int index, double value) {}

    private final int nodes;
    private final int threadsPerNode;
    private final Fault fault;
    private final Map<String, double[]> data = new ConcurrentHashMap<>();
    private final Map<String, ArraySpec> specs = new ConcurrentHashMap<>();
    private final List<String> reports = Collections.synchronizedList(new ArrayList<>());
    private CyclicBarrier barrier;
    private double[] reduceSlots;

    SimulatedVm(int nodes, int threadsPerNode) { this(nodes, threadsPerNode, null); }

    SimulatedVm(int nodes, int threadsPerNode, Fault fault) {
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.fault = fault;
    }

    /**
     * Runs a fresh program per node: every node's setup, then every worker; returns the report
     * lines as {@code "node K: text"}.
     *
     * @throws DsaException carrying the first failure
     */
    List<String> run(Supplier<DsaProgram> programs, String... args) throws InterruptedException {
        int global = nodes * threadsPerNode;
        barrier = new CyclicBarrier(global);
        reduceSlots = new double[global];
        List<String> argList = List.of(args);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int node = 0; node < nodes; node++) {
            DsaProgram program = programs.get();
            DsaNode dsaNode = node(node, argList);
            try {
                program.setup(dsaNode);
            } catch (Exception e) {
                throw new DsaException("setup failed on node " + node + ": " + e.getMessage(), e);
            }
            for (int local = 0; local < threadsPerNode; local++) {
                DsaWorker worker = worker(dsaNode, node, local);
                Thread t = new Thread(() -> {
                    try {
                        program.work(worker);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        barrier.reset();   // release the others, as the runtime does
                    }
                }, "sim-worker-" + worker.threadId());
                threads.add(t);
            }
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        Throwable first = failure.get();
        if (first instanceof DsaException) throw (DsaException) first;
        if (first != null) throw new DsaException("worker failed: " + first, first);
        return List.copyOf(reports);
    }

    private DsaNode node(int nodeId, List<String> args) {
        DsaNetwork network = proxy(DsaNetwork.class, (p, m, a) -> {
            switch (m.getName()) {
                case "getLocalThreadCount": return threadsPerNode;
                case "getGlobalThreadCount": return nodes * threadsPerNode;
                case "nodeCount": return nodes;
                case "nodeId": return nodeId;
                default: return unsupported(m.getName());
            }
        });
        DsaBarrier global = proxy(DsaBarrier.class, (p, m, a) -> {
            switch (m.getName()) {
                case "await": await(); return null;
                case "parties": return nodes * threadsPerNode;
                default: return unsupported(m.getName());
            }
        });
        return proxy(DsaNode.class, (p, m, a) -> {
            switch (m.getName()) {
                case "network": return network;
                case "args": return args;
                case "globalBarrier": return global;
                case "report": reports.add("node " + nodeId + ": " + a[0]); return null;
                case "createSharedDoubleArray":
                    ArraySpec spec = a.length == 3
                            ? ArraySpec.oneDimensional((String) a[0], ElementType.DOUBLE, (int) a[1], (int) a[2], Distribution.BLOCK)
                            : ArraySpec.of((String) a[0], ElementType.DOUBLE, (int) a[1], (int) a[2], (int) a[3], (int) a[3],
                                    Distribution.BLOCK);
                    return array(spec);
                default: return unsupported(m.getName());
            }
        });
    }

    private DsaWorker worker(DsaNode node, int nodeId, int localThreadId) {
        int threadId = nodeId * threadsPerNode + localThreadId;
        return proxy(DsaWorker.class, (p, m, a) -> {
            switch (m.getName()) {
                case "node": return node;
                case "threadId": return threadId;
                case "localThreadId": return localThreadId;
                case "nodeId": return nodeId;
                case "barrier": await(); return null;
                case "allReduce":
                    if (a[0] instanceof Double) return allReduce(threadId, (Double) a[0], (ReduceOp) a[1]);
                    return unsupported("allReduce(long)");
                default: return unsupported(m.getName());
            }
        });
    }

    private double allReduce(int threadId, double value, ReduceOp op) {
        reduceSlots[threadId] = value;
        await();
        double result = reduceSlots[0];
        for (int t = 1; t < reduceSlots.length; t++) result = op.apply(result, reduceSlots[t]);
        await();   // nobody overwrites a slot before everyone has read it
        return result;
    }

    private SharedDoubleArray array(ArraySpec spec) {
        ArraySpec known = specs.putIfAbsent(spec.name(), spec);
        if (known != null && !known.equals(spec)) {
            throw new DsaException("array " + spec + " differs from the registered " + known);
        }
        double[] elements = data.computeIfAbsent(spec.name(), n -> new double[spec.rows() * spec.cols()]);
        ArrayLayout layout = ArrayLayout.of(spec, nodes, threadsPerNode);
        int cols = spec.cols();
        return proxy(SharedDoubleArray.class, (p, m, a) -> {
            switch (m.getName() + "/" + a.length) {
                case "name/0": return spec.name();
                case "layout/0": return layout;
                case "read/1": layout.checkIndex(0, (int) a[0]); return get(spec, elements, (int) a[0]);
                case "write/2": layout.checkIndex(0, (int) a[0]); elements[(int) a[0]] = (double) a[1]; return null;
                case "read/2":
                    layout.checkIndex((int) a[0], (int) a[1]);
                    return get(spec, elements, (int) a[0] * cols + (int) a[1]);
                case "write/3":
                    layout.checkIndex((int) a[0], (int) a[1]);
                    elements[(int) a[0] * cols + (int) a[1]] = (double) a[2];
                    return null;
                case "read/5": {
                    int row = (int) a[0], col = (int) a[1], rows = (int) a[2], width = (int) a[3];
                    double[] dst = (double[]) a[4];
                    for (int r = 0; r < rows; r++) {
                        for (int c = 0; c < width; c++) dst[r * width + c] = get(spec, elements, (row + r) * cols + col + c);
                    }
                    return null;
                }
                case "write/5": {
                    int row = (int) a[0], col = (int) a[1], rows = (int) a[2], width = (int) a[3];
                    double[] src = (double[]) a[4];
                    for (int r = 0; r < rows; r++) System.arraycopy(src, r * width, elements, (row + r) * cols + col, width);
                    return null;
                }
                default: return unsupported(m.getName() + " with " + a.length + " arguments");
            }
        });
    }

    private double get(ArraySpec spec, double[] elements, int flatIndex) {
        if (fault != null && fault.array().equals(spec.name()) && fault.index() == flatIndex) return fault.value();
        return elements[flatIndex];
    }

    private void await() {
        try {
            barrier.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted in a barrier", e);
        } catch (BrokenBarrierException e) {
            throw new DsaException("barrier broken: another worker failed", e);
        }
    }

    private static Object unsupported(String method) {
        throw new UnsupportedOperationException(method + " is not simulated");
    }

    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        InvocationHandler unwrapping = (p, m, a) -> {
            if (m.getDeclaringClass() == Object.class) {
                switch (m.getName()) {
                    case "toString": return type.getSimpleName() + "(simulated)";
                    case "hashCode": return System.identityHashCode(p);
                    case "equals": return p == a[0];
                    default: throw new UnsupportedOperationException(m.getName());
                }
            }
            try {
                return handler.invoke(p, m, a == null ? new Object[0] : a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, unwrapping));
    }
}
