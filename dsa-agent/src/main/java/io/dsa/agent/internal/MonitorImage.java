package io.dsa.agent.internal;

import io.dsa.DsaException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Node 0's monitor state at a checkpoint's safe point, which a node's {@code AgentState} does not
 * hold (node 0 never migrates): the registry of shared objects with their ids and homes, the next
 * id of each kind, and the generation of every barrier rooted at the monitor. A restarted VM's
 * monitor starts from it, so {@code setup}'s registrations find the same ids the node states use.
 * No lock is held and no barrier has arrivals at a safe point, so none are recorded.
 *
 * <pre>
 *  version i32 (1), nextId: count i32, i32...,
 *  registry: count i32, { kind i32, id i32, home i32, name: length i32 + UTF-8, params: count i32, i64... },
 *  barriers: count i32, { key i32, parties i32, generation i64 }      (big-endian)
 * </pre>
 */
record MonitorImage(int[] nextId, List<Entry> registry, List<Root> barriers) {
    static final int VERSION = 1;
    /** Longest list or string accepted when decoding (the file is checksummed; this bounds a damaged one). */
    private static final int MAX_COUNT = 1 << 24;

    /** One registered object. */
    record Entry(int kind, int id, int home, String name, long[] params) {}

    /** One barrier rooted at the monitor: {@code key} 0 for the global one, {@code -id} for a group barrier. */
    record Root(int key, int parties, long generation) {}

    byte[] encode() {
        int size = 4 + 4 + 4 * nextId.length + 4 + 4;   // version, id count, ids, registry count, barrier count
        for (Entry e : registry) size += 20 + e.name().getBytes(StandardCharsets.UTF_8).length + 8 * e.params().length;
        size += 16 * barriers.size();
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(VERSION).putInt(nextId.length);
        for (int id : nextId) b.putInt(id);
        b.putInt(registry.size());
        for (Entry e : registry) {
            byte[] name = e.name().getBytes(StandardCharsets.UTF_8);
            b.putInt(e.kind()).putInt(e.id()).putInt(e.home()).putInt(name.length).put(name).putInt(e.params().length);
            for (long p : e.params()) b.putLong(p);
        }
        b.putInt(barriers.size());
        for (Root r : barriers) b.putInt(r.key()).putInt(r.parties()).putLong(r.generation());
        return b.array();
    }

    /** @throws DsaException naming what is wrong when {@code bytes} are not a monitor image */
    static MonitorImage decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            int version = b.getInt();
            if (version != VERSION) throw new DsaException("monitor image version " + version + " is not supported; this node reads [1]");
            int[] nextId = new int[count(b, "ids")];
            for (int i = 0; i < nextId.length; i++) nextId[i] = b.getInt();
            List<Entry> registry = new ArrayList<>();
            for (int n = count(b, "registry"); n > 0; n--) {
                int kind = b.getInt();
                int id = b.getInt();
                int home = b.getInt();
                byte[] name = new byte[count(b, "name")];
                b.get(name);
                long[] params = new long[count(b, "params")];
                for (int i = 0; i < params.length; i++) params[i] = b.getLong();
                registry.add(new Entry(kind, id, home, new String(name, StandardCharsets.UTF_8), params));
            }
            List<Root> barriers = new ArrayList<>();
            for (int n = count(b, "barriers"); n > 0; n--) barriers.add(new Root(b.getInt(), b.getInt(), b.getLong()));
            if (b.hasRemaining()) throw new DsaException("monitor image has " + b.remaining() + " bytes after its end");
            return new MonitorImage(nextId, registry, barriers);
        } catch (BufferUnderflowException e) {
            throw new DsaException("monitor image truncated at byte " + b.position() + " of " + bytes.length);
        }
    }

    private static int count(ByteBuffer b, String field) {
        int n = b.getInt();
        if (n < 0 || n > MAX_COUNT || n > b.remaining()) {
            throw new DsaException("monitor image: " + field + " count " + n + " out of range [0, " + Math.min(MAX_COUNT, b.remaining()) + "]");
        }
        return n;
    }
}
