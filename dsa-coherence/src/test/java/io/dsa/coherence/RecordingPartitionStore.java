package io.dsa.coherence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Collections;

/**
 * A map-backed {@link PartitionStore} for one node that records every call ("setAccess 0:1 READ",
 * "snapshot 0:1", "install 0:1 READ_WRITE") and holds real bytes. Partitions homed at the node start
 * with {@link Access#READ_WRITE} (the home memory), the others with {@link Access#NONE}.
 */
final class RecordingPartitionStore implements PartitionStore {
    private final int nodeId;
    private final HomeResolver homes;
    private final int partitionBytes;
    private final Map<Long, byte[]> data = new HashMap<>();
    private final Map<Long, Access> access = new HashMap<>();
    /** arrays handed to install: the store owns them, nobody else may hold them */
    private final Set<byte[]> installed = Collections.newSetFromMap(new IdentityHashMap<>());
    final List<String> calls = new ArrayList<>();
    /** per partition, what writes a local overwrite's bytes at its grant ({@link #overwrite}) */
    private final Map<Long, Runnable> overwrites = new HashMap<>();
    boolean recording = true;

    RecordingPartitionStore(int nodeId, HomeResolver homes, int partitionBytes) {
        this.nodeId = nodeId;
        this.homes = homes;
        this.partitionBytes = partitionBytes;
    }

    @Override
    public void setAccess(int arrayId, int partition, Access a) {
        if (recording) calls.add("setAccess " + arrayId + ":" + partition + " " + a);
        access.put(key(arrayId, partition), a);
    }

    @Override
    public byte[] snapshot(int arrayId, int partition) {
        if (recording) calls.add("snapshot " + arrayId + ":" + partition);
        return bytes(arrayId, partition).clone();
    }

    @Override
    public void install(int arrayId, int partition, byte[] bytes, Access a) {
        if (recording) calls.add("install " + arrayId + ":" + partition + " " + a);
        if (bytes.length != partitionBytes) {
            throw new AssertionError("install of " + bytes.length + " bytes, expected " + partitionBytes);
        }
        installed.add(bytes);
        data.put(key(arrayId, partition), bytes);
        access.put(key(arrayId, partition), a);
    }

    /**
     * A local worker asks to overwrite a partition: {@code writer} writes its bytes into
     * {@link #bytes} when the grant comes without data. At most one per partition.
     *
     * @return whether it was registered (false: another overwrite waits on the partition)
     */
    boolean registerOverwrite(int arrayId, int partition, Runnable writer) {
        return overwrites.putIfAbsent(key(arrayId, partition), writer) == null;
    }

    /** The worker got the access another way and writes itself: its writer is dropped, if still registered. */
    void takeBackOverwrite(int arrayId, int partition, Runnable writer) {
        overwrites.remove(key(arrayId, partition), writer);
    }

    /** The grant of an overwrite: the registered writer writes the bytes, then the access is READ_WRITE. */
    @Override
    public void overwrite(int arrayId, int partition) {
        if (recording) calls.add("overwrite " + arrayId + ":" + partition);
        Runnable writer = overwrites.remove(key(arrayId, partition));
        if (writer == null) throw new AssertionError("node " + nodeId + ": overwrite of " + arrayId + ":" + partition + " granted, but no writer waits");
        if (access(arrayId, partition) == Access.READ_WRITE) {
            throw new AssertionError("node " + nodeId + ": overwrite of " + arrayId + ":" + partition + " granted to a writer");
        }
        writer.run();
        access.put(key(arrayId, partition), Access.READ_WRITE);
    }

    /** @return whether {@code bytes} is an array this store took ownership of */
    boolean owns(byte[] bytes) { return installed.contains(bytes); }

    Access access(int arrayId, int partition) {
        return access.getOrDefault(key(arrayId, partition),
                homes.homeOf(arrayId, partition) == nodeId ? Access.READ_WRITE : Access.NONE);
    }

    /** The local copy itself (created as zeros), for workers' reads and writes. */
    byte[] bytes(int arrayId, int partition) {
        return data.computeIfAbsent(key(arrayId, partition), k -> new byte[partitionBytes]);
    }

    int readInt(int arrayId, int partition, int index) {
        byte[] b = bytes(arrayId, partition);
        int o = index * 4;
        return (b[o] & 0xFF) | (b[o + 1] & 0xFF) << 8 | (b[o + 2] & 0xFF) << 16 | (b[o + 3] & 0xFF) << 24;
    }

    void writeInt(int arrayId, int partition, int index, int value) {
        byte[] b = bytes(arrayId, partition);
        int o = index * 4;
        b[o] = (byte) value;
        b[o + 1] = (byte) (value >>> 8);
        b[o + 2] = (byte) (value >>> 16);
        b[o + 3] = (byte) (value >>> 24);
    }

    List<String> takeCalls() {
        List<String> c = new ArrayList<>(calls);
        calls.clear();
        return c;
    }

    private static long key(int arrayId, int partition) {
        return ((long) arrayId << 32) | (partition & 0xFFFF_FFFFL);
    }
}
