package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How many partition requests a node keeps in flight ahead of a worker's copy, on node 1 of 2 of a
 * scripted transport (the test plays node 0, the home of the partitions read): a region read keeps
 * {@link AbstractSharedArray#REGION_AHEAD_BYTES} requested ahead, a loop of {@code readPartition}
 * over consecutive partitions keeps the VM's prefetch window.
 */
@Timeout(20)
class PrefetchTest {
    static final int ARRAY = 4;
    static final List<String> VIEW = List.of("127.0.0.1:7000", "127.0.0.1:7001");
    ScriptedNode node;
    CompletableFuture<Void> pending;

    @AfterEach
    void close() {
        if (node != null) node.close();
    }

    /** Node 1 with array 4 "R": one row of 32 partitions of {@code elements} doubles, the first 16 homed at node 0. */
    ScriptedNode nodeWith(int elements, int prefetchWindow) {
        return nodeWith(elements, prefetchWindow, Distribution.BLOCK);
    }

    /** As {@link #nodeWith(int, int)}; with {@link Distribution#BLOCK_CYCLIC} the even partitions are homed at node 0, the odd ones here. */
    ScriptedNode nodeWith(int elements, int prefetchWindow, Distribution distribution) {
        DsaConfig config = ScriptedNode.config(2, 1, BarrierKind.TREE, 2, ProxyMode.FLOAT).toBuilder().nodeId(1)
                .monitorAddress("127.0.0.1:7000").prefetchWindow(prefetchWindow).build();
        ScriptedNode n = new ScriptedNode(config, 1);
        n.deliver(0, new ViewMessage(1, VIEW));
        n.connectAll();
        long[] params = Specs.toParams(ArraySpec.of("R", ElementType.DOUBLE, 1, 32 * elements, 1, elements, distribution));
        n.deliver(0, new DefineMessage(RegisterMessage.ARRAY, ARRAY, 0, "R", params));
        return n;
    }

    static String getS(int partition) { return "to 0: Coherence(GET_S, 4, " + partition + ", 1, 0, 1, null)"; }

    static List<String> getS(int from, int to) { return IntStream.range(from, to).mapToObj(PrefetchTest::getS).toList(); }

    /** Waits for the request of {@code partition}, then takes every message sent so far. */
    List<String> sentUpTo(int partition) {
        try {
            node.awaitSent(0, "Coherence(GET_S, 4, " + partition + ", 1, 0, 1, null)");
        } catch (AssertionError e) {
            if (pending != null && pending.isDone()) Workers.result(pending); // the worker threw: say what
            throw e;
        }
        return node.take();
    }

    void answer(int partition, int elements) {
        node.deliver(0, new CoherenceMessage(CoherenceOp.DATA_S, ARRAY, partition, 0, 1, 1, new byte[elements * 8]));
    }

    @Test
    void aRegionReadKeepsFourMiBRequestedAheadOfItsCopy() {
        int elements = 1 << 17; // 1 MiB partitions
        node = nodeWith(elements, 4);
        SharedDoubleArray r = (SharedDoubleArray) node.rt.localArray("R");
        double[] region = new double[8 * elements];
        assertEquals(0, r.homeOf(7));
        CompletableFuture<Void> read = pending = Workers.start(0, 1, i -> {
            r.read(0, 0, 1, 8 * elements, region);
            return (Void) null;
        }).get(0);
        assertEquals(getS(0, 4), sentUpTo(3), "4 MiB ahead, not the whole region");
        answer(0, elements);
        assertEquals(List.of(getS(4)), sentUpTo(4), "one partition copied: one more requested");
        List<String> later = new java.util.ArrayList<>();
        for (int p = 1; p < 8; p++) {
            if (p >= 5 && !later.contains(getS(p))) later.addAll(sentUpTo(p)); // requested as partition p - 4 was copied
            answer(p, elements);
        }
        Workers.result(read);
        assertEquals(getS(5, 8), later, "each partition requested once, in order");
        assertEquals(List.of(), node.take());
    }

    @Test
    void aSequentialPartitionLoopKeepsTheWindowInFlight() {
        int elements = 512; // 4 KiB partitions: the window, not the byte cap, bounds the requests
        node = nodeWith(elements, 3);
        SharedDoubleArray r = (SharedDoubleArray) node.rt.localArray("R");
        double[] buf = new double[elements];
        CompletableFuture<Void> loop = pending = Workers.start(0, 1, i -> {
            for (int p = 0; p < 4; p++) r.readPartition(p, buf);
            return (Void) null;
        }).get(0);
        assertEquals(List.of(getS(0)), sentUpTo(0), "a first read does not prefetch");
        answer(0, elements);
        assertEquals(List.of(getS(1)), sentUpTo(1), "two reads in a row are no loop yet");
        answer(1, elements);
        assertEquals(getS(2, 6), sentUpTo(5), "partition 2 after 0 and 1: a sequential loop, it and 3 ahead");
        for (int p = 2; p <= 5; p++) answer(p, elements);
        Workers.result(loop);
        assertEquals(List.of(getS(6)), sentUpTo(6), "each further read moves the window on by one");
    }

    // LU's trailing update: the last block of a row of this node (1), L(i,0) of another node (2), then this node's block
    // (i,1) (3); the blocks after them are the other node's, never read here: fetched, each was a copy to invalidate at
    // its owner's next write. The pair is no loop yet, and the third read, local, requests nothing ahead
    @Test
    void readsOfConsecutivePartitionsEndingAtALocalOneRequestNothingAhead() {
        int elements = 512;
        node = nodeWith(elements, 3, Distribution.BLOCK_CYCLIC);
        SharedDoubleArray r = (SharedDoubleArray) node.rt.localArray("R");
        assertEquals(List.of(1, 0, 1), List.of(r.homeOf(1), r.homeOf(2), r.homeOf(3)));
        double[] buf = new double[elements];
        CompletableFuture<Void> reads = pending = Workers.start(0, 1, i -> {
            r.readPartition(1, buf);
            r.readPartition(2, buf);
            r.readPartition(3, buf);
            r.readPartition(10, buf);   // not after 3: its request is the next message
            return (Void) null;
        }).get(0);
        assertEquals(List.of(getS(2)), sentUpTo(2), "the local 1, then the remote 2: no loop yet");
        answer(2, elements);
        assertEquals(List.of(getS(10)), sentUpTo(10), "partitions 4 and 6, of node 0, not requested at the local 3");
        answer(10, elements);
        Workers.result(reads);
    }

    @Test
    void aLoopOverPartitionsOfAlternatingHomesRequestsTheRemoteOnesAhead() {
        int elements = 512;
        node = nodeWith(elements, 3, Distribution.BLOCK_CYCLIC);
        SharedDoubleArray r = (SharedDoubleArray) node.rt.localArray("R");
        double[] buf = new double[elements];
        CompletableFuture<Void> loop = pending = Workers.start(0, 1, i -> {
            for (int p = 0; p < 6; p++) r.readPartition(p, buf);
            return (Void) null;
        }).get(0);
        assertEquals(List.of(getS(0)), sentUpTo(0), "a first read does not prefetch");
        answer(0, elements);
        assertEquals(List.of(getS(2), getS(4)), sentUpTo(4), "at the remote 2, the third read: it and node 0's 4 ahead");
        answer(2, elements);
        answer(4, elements);
        Workers.result(loop);
        assertEquals(List.of(getS(6)), sentUpTo(6), "at the remote 4: node 0's 6 ahead, each requested once");
    }
}
