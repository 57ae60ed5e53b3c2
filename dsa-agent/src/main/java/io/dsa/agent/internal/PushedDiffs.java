package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.coherence.Access;
import io.dsa.agent.wire.DiffMessage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The diffs of a release scope that a switch to a read cache of the same array pushes to every
 * node in the switch's own round (docs/consistency.md, "Diffs pushed in the switch"), instead of
 * sending them to the homes, which would invalidate every copy, and fetching the copies again.
 *
 * <p>A node's payload ({@link #encode}) is, per array, its diffs as {@link ReleaseBuffer#diffs}
 * gives them: {@code [arrays, then per array: arrayId, diffs, then per diff: partition, runs,
 * the runs, value bytes, the values packed little-endian into longs]}. The round's release carries
 * every node's payload in node order ({@link io.dsa.agent.wire.BarrierReleaseMessage#payload});
 * {@link #decode} turns them into each array's diffs by partition, in node order, every diff
 * checked against its array ({@link Diffs#checkShape}). Not thread-safe; the values are immutable.
 */
final class PushedDiffs {
    /** Known bugs a node can be made to commit, so a test can show its checks find each; package-private. */
    enum Fault {
        /** a copy installed after the switch (served by a home that had not written the diffs yet) is not patched */
        UNPATCHED_INSTALL,
        /** the valid copies at the switch, the homes' included, are left as they were */
        COPIES_NOT_WRITTEN,
        /** a worker writes the diffs without waiting for an install under way that read no patch */
        INSTALLS_NOT_AWAITED
    }

    private PushedDiffs() {}

    /**
     * Writes {@code diffs} (by partition, node order) into every partition of {@code a} this node
     * holds a valid copy of (the engine grants it read access: a home with the current data, a
     * sharer, the owner; a home partition never touched gets its zeros first), and makes them
     * {@code a}'s {@link ArrayState#patch}, so that a copy installed while the read cache is open
     * gets them too: it may come from a home that has not written them yet. Writing a diff twice
     * leaves the same values (a release diff replaces elements), so a copy that already had them
     * is unchanged.
     *
     * <p>On the switch's first worker, beside the I/O thread, unless a slot needs its zeros
     * ({@link #needsIoThread}: then on the I/O thread, which alone gives a slot its bytes). The
     * two meet in three places, each safe:
     * <ul>
     * <li>An install ({@link #install}) that read no patch yet: it counts itself in
     *     {@link ArrayState#installing} before it reads the patch, and this method sets the patch
     *     before it reads the count and waits for a count of 0 (a Dekker pair on two volatiles):
     *     either the install patches its copy, or this method sees the copy valid and writes it.
     * <li>A copy lent to a send while the diffs are written here: the receiver gets some diffed
     *     elements old, and its own patch (set before its node asked for anything in the scope, or
     *     written into its copy as above) rewrites every one of them.
     * <li>A copy decoded in place into a slot written here: only into a slot the engine no longer
     *     grants ({@link Slot#receiveBuffer}), and its install, after the patch was set, patches it.
     * </ul>
     * Readers of the node wait for the scope's set-up, which ends after this method.
     *
     * @return the partitions written now
     */
    static int apply(ArrayState a, Map<Integer, List<Pushed>> diffs, Fault fault) {
        a.patch = fault == Fault.UNPATCHED_INSTALL ? null : diffs;
        if (fault == Fault.COPIES_NOT_WRITTEN) return 0;
        if (fault != Fault.INSTALLS_NOT_AWAITED) {
            while (a.installing != 0) Thread.onSpinWait(); // an install that read no patch publishes its copy first
        }
        int written = 0;
        for (Map.Entry<Integer, List<Pushed>> e : diffs.entrySet()) {
            int p = e.getKey();
            Slot s = a.slots[p];
            if (!Slot.grantReadable(s.stamp)) continue; // no valid copy here: one installed later is patched
            if (s.data == null) s.materialize(a.layout.partitionBytes(p));
            for (Pushed m : e.getValue()) m.writeInto(s.data, a.spec.elementType().bytes());
            written++;
        }
        return written;
    }

    /**
     * @return whether {@link #apply} must run on the I/O thread: a partition of {@code diffs} is
     *         valid here but has no bytes yet (homed here, never touched), and only the I/O
     *         thread gives a slot its first bytes
     */
    static boolean needsIoThread(ArrayState a, Map<Integer, List<Pushed>> diffs) {
        for (int p : diffs.keySet()) {
            Slot s = a.slots[p];
            if (Slot.grantReadable(s.stamp) && !s.allocated()) return true;
        }
        return false;
    }

    /**
     * On the I/O thread: installs {@code data}, a copy of partition {@code p} of {@code a} from
     * the network, with {@code access}, after writing the open patch's diffs into it; counted in
     * {@link ArrayState#installing} from before the patch is read until the copy is published
     * ({@link #apply} says why).
     */
    static void install(ArrayState a, int p, byte[] data, Access access) {
        a.installing = 1;
        try {
            patch(a, p, data);
            a.slots[p].install(data, access);
        } finally {
            a.installing = 0;
        }
    }

    // Writes the open patch's diffs of partition p of a into data.
    private static void patch(ArrayState a, int p, byte[] data) {
        Map<Integer, List<Pushed>> open = a.patch;
        if (open == null) return;
        List<Pushed> diffs = open.get(p);
        if (diffs == null) return;
        for (Pushed m : diffs) m.writeInto(data, a.spec.elementType().bytes());
    }

    /**
     * @return this node's payload: the diffs of {@code arrays}' release buffers, their values packed
     *         straight from the buffers into the one array returned (no copy of a diff's values on
     *         the way). Only once every worker of the node has closed the release scope (nothing
     *         writes the buffers).
     */
    static long[] encode(List<ArrayState> arrays) {
        List<List<ReleaseBuffer.Diff>> byArray = new ArrayList<>(arrays.size());
        int total = 1;
        for (ArrayState a : arrays) {
            List<ReleaseBuffer.Diff> diffs = a.release == null ? List.of() : a.release.scatteredDiffs();
            byArray.add(diffs);
            total += 2;
            int size = a.spec.elementType().bytes();
            for (ReleaseBuffer.Diff d : diffs) total += 3 + d.runs().length + longsFor(packedBytes(d, size));
        }
        long[] payload = new long[total];
        payload[0] = arrays.size();
        int at = 1;
        for (int k = 0; k < arrays.size(); k++) {
            ArrayState a = arrays.get(k);
            List<ReleaseBuffer.Diff> diffs = byArray.get(k);
            int size = a.spec.elementType().bytes();
            payload[at++] = a.id;
            payload[at++] = diffs.size();
            for (ReleaseBuffer.Diff d : diffs) {
                long[] runs = d.runs();
                int bytes = packedBytes(d, size);
                payload[at++] = d.partition();
                payload[at++] = runs.length;
                System.arraycopy(runs, 0, payload, at, runs.length);
                at += runs.length;
                payload[at++] = bytes;
                long position = (long) at * Long.BYTES;   // the values' byte position in the payload
                for (long run : runs) {
                    int length = DiffMessage.count(run) * size;
                    pack(d.values(), DiffMessage.first(run) * size, length, payload, position);
                    position += length;
                }
                at += longsFor(bytes);
            }
        }
        return payload;
    }

    // The bytes of d's values packed: its runs' elements, one run after another.
    private static int packedBytes(ReleaseBuffer.Diff d, int size) {
        int elements = 0;
        for (long run : d.runs()) elements += DiffMessage.count(run);
        return elements * size;
    }

    private static int longsFor(int bytes) { return (bytes + Long.BYTES - 1) / Long.BYTES; }

    /**
     * Packs {@code length} bytes of {@code from} from {@code offset} on little-endian into the longs
     * of {@code into} from byte {@code position} on (byte {@code b} of the stream is bits
     * {@code 8 (b % 8)} of long {@code b / 8}); {@code into}'s longs there are zero. Whole longs go in
     * one bulk copy (a double's or long's run always does), other bytes one at a time.
     */
    static void pack(byte[] from, int offset, int length, long[] into, long position) {
        int head = unaligned(position, length);
        int whole = (length - head) / Long.BYTES;
        packBytes(from, offset, into, position, 0, head);
        if (whole > 0) {
            ByteBuffer.wrap(from, offset + head, whole * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
                    .get(into, (int) ((position + head) / Long.BYTES), whole);
        }
        packBytes(from, offset, into, position, head + whole * Long.BYTES, length);
    }

    // The bytes before the stream's first long boundary from position on, at most length.
    private static int unaligned(long position, int length) {
        return (int) Math.min(length, -position & (Long.BYTES - 1));
    }

    // Packs bytes [lo, hi) of the run that starts at from[offset] one at a time.
    private static void packBytes(byte[] from, int offset, long[] into, long position, int lo, int hi) {
        for (int i = lo; i < hi; i++) {
            long b = position + i;
            into[(int) (b / Long.BYTES)] |= (from[offset + i] & 0xffL) << (b % Long.BYTES * 8);
        }
    }

    /**
     * @param payloads a release's node payloads ({@link io.dsa.agent.wire.BarrierReleaseMessage#payload})
     * @param arrays the arrays by id
     * @return per array id, per partition, the diffs of every node in node order (arrays and
     *         partitions no node wrote are absent), their values left in {@code payloads}
     * @throws DsaException if a payload is malformed or a diff does not fit its array, naming it
     */
    static Map<Integer, Map<Integer, List<Pushed>>> decode(long[] payloads, IntFunction<ArrayState> arrays) {
        Map<Integer, Map<Integer, List<Pushed>>> byArray = new HashMap<>();
        Reader in = new Reader(payloads);
        int node = 0;
        while (in.more()) {
            int length = in.count(Field.PAYLOAD_LENGTH, node, 0, 0);
            int end = in.position() + length;
            int arrayCount = in.count(Field.ARRAY_COUNT, node, 0, 0);
            for (int k = 0; k < arrayCount; k++) {
                int id = in.count(Field.ARRAY_ID, node, 0, 0);
                ArrayState a = arrays.apply(id);
                int diffs = in.count(Field.DIFF_COUNT, node, id, 0);
                Map<Integer, List<Pushed>> byPartition = byArray.computeIfAbsent(id, x -> new HashMap<>());
                for (int d = 0; d < diffs; d++) {
                    int partition = in.count(Field.PARTITION, node, id, 0);
                    long[] runs = in.longs(in.count(Field.RUNS, node, id, partition));
                    int bytes = in.count(Field.VALUE_BYTES, node, id, partition);
                    Pushed m = new Pushed(partition, runs, payloads, in.skip(bytes), bytes);
                    String error = Diffs.checkShape(a, partition, DiffMessage.WRITE, runs, 0, bytes);
                    if (error != null) throw new DsaException("pushed " + error + " from node " + node);
                    byPartition.computeIfAbsent(partition, x -> new ArrayList<>()).add(m);
                }
            }
            if (in.position() != end) {
                throw new DsaException("node " + node + "'s pushed diffs end at " + in.position() + ", its payload at " + end);
            }
            node++;
        }
        return byArray;
    }

    /**
     * One node's pushed diff of one partition as decoded from a release: its runs ({@link DiffMessage#run})
     * and its values, packed little-endian in {@code words} (the release's payloads) from long
     * {@code valuesAt} on, {@code bytes} of them, one run after another. Written into a copy straight from
     * there ({@link #writeInto}): a release's values are copied once at each node, into its copies.
     */
    record Pushed(int partition, long[] runs, long[] words, int valuesAt, int bytes) {
        /** @return a diff of {@code partition} with {@code runs} whose values are {@code values}, packed into longs of its own */
        static Pushed of(int partition, long[] runs, byte[] values) {
            long[] words = new long[longsFor(values.length)];
            pack(values, 0, values.length, words, 0);
            return new Pushed(partition, runs, words, 0, values.length);
        }

        /** Writes the runs' values into {@code data}, a copy of the partition of {@code size}-byte elements. */
        void writeInto(byte[] data, int size) {
            long position = (long) valuesAt * Long.BYTES;
            for (long run : runs) {
                int length = DiffMessage.count(run) * size;
                unpack(words, position, data, DiffMessage.first(run) * size, length);
                position += length;
            }
        }

        /** @return the values as bytes, one run after another (for tests and messages) */
        byte[] values() {
            byte[] out = new byte[bytes];
            unpack(words, (long) valuesAt * Long.BYTES, out, 0, bytes);
            return out;
        }
    }

    /**
     * Unpacks {@code length} bytes from byte {@code position} of the little-endian stream in
     * {@code from} ({@link #pack}'s) into {@code into} from {@code offset} on: whole longs in one
     * bulk copy, other bytes one at a time.
     */
    static void unpack(long[] from, long position, byte[] into, int offset, int length) {
        int head = unaligned(position, length);
        int whole = (length - head) / Long.BYTES;
        unpackBytes(from, position, into, offset, 0, head);
        if (whole > 0) {
            ByteBuffer.wrap(into, offset + head, whole * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
                    .put(from, (int) ((position + head) / Long.BYTES), whole);
        }
        unpackBytes(from, position, into, offset, head + whole * Long.BYTES, length);
    }

    // Unpacks bytes [lo, hi) of the stream from position on into into[offset + lo, offset + hi) one at a time.
    private static void unpackBytes(long[] from, long position, byte[] into, int offset, int lo, int hi) {
        for (int i = lo; i < hi; i++) {
            long b = position + i;
            into[offset + i] = (byte) (from[(int) (b / Long.BYTES)] >>> (b % Long.BYTES * 8));
        }
    }

    /**
     * The counts of a payload, named in an error only: decoding runs in every switch's round, so it
     * builds no text unless a count is bad.
     */
    private enum Field {
        PAYLOAD_LENGTH, ARRAY_COUNT, ARRAY_ID, DIFF_COUNT, PARTITION, RUNS, VALUE_BYTES;

        String describe(int node, int array, int partition) {
            return switch (this) {
                case PAYLOAD_LENGTH -> "node " + node + "'s payload length";
                case ARRAY_COUNT -> "node " + node + "'s array count";
                case ARRAY_ID -> "an array id of node " + node;
                case DIFF_COUNT -> "node " + node + "'s diff count of array " + array;
                case PARTITION -> "a partition of node " + node + "'s diff";
                case RUNS -> "the runs of node " + node + "'s diff of partition " + partition;
                case VALUE_BYTES -> "the value bytes of node " + node + "'s diff of partition " + partition;
            };
        }
    }

    // Reads counts and longs from a payload, refusing what runs past its end.
    private static final class Reader {
        private final long[] words;
        private int at;

        Reader(long[] words) { this.words = words; }

        boolean more() { return at < words.length; }

        int position() { return at; }

        int count(Field what, int node, int array, int partition) {
            if (at >= words.length) {
                throw new DsaException("pushed diffs end before " + what.describe(node, array, partition) + " (" + words.length + " longs)");
            }
            long v = words[at++];
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw new DsaException(what.describe(node, array, partition) + " of pushed diffs is " + v + ", out of range [0, "
                        + Integer.MAX_VALUE + "]");
            }
            return (int) v;
        }

        long[] longs(int n) {
            need(n);
            long[] out = new long[n];
            System.arraycopy(words, at, out, 0, n);
            at += n;
            return out;
        }

        /** @return where the next longs, {@code n} bytes packed little-endian ({@link #encode}), start; skips them */
        int skip(int n) {
            need(longsFor(n));
            int from = at;
            at += longsFor(n);
            return from;
        }

        private void need(int n) {
            if (n > words.length - at) throw new DsaException("pushed diffs end " + (n - (words.length - at)) + " longs early");
        }
    }
}
