package io.dsa.agent.transport;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * One direction of a barrier lane's shared memory (docs/runtime.md, "Barrier lanes in shared
 * memory"): a byte ring in a file that both nodes' processes map, written by one thread at a time
 * (the lane's sender, under its write lock) and read by one (the node's lane poller). Bytes cross
 * without a system call; the lane's socket stays the doorbell for a reader that sleeps.
 *
 * <p>Layout, in the native byte order, at {@code base} in the mapping: the count of bytes ever
 * published (a long, at 0), the count of bytes ever consumed (a long, at 64, a cache line
 * apart), the reader's sleeping flag (an int, at 128), then {@link #CAPACITY} bytes of data from
 * 192, which the counts address modulo the capacity.
 *
 * <p>Ordering: the writer copies a frame's bytes, then publishes the count with a release store;
 * the reader loads it with an acquire load before it copies. The wake-up is Dekker's: a reader
 * about to block stores its flag, then looks at the published count again; a writer stores the
 * count, then looks at the flag; both with volatile (sequentially consistent) accesses, so at
 * least one of them sees the other's store: either the reader sees the bytes and does not block,
 * or the writer sees the flag and rings the doorbell ({@link #published}).
 */
public final class LaneRing {
    /** Data bytes per direction: two of a lane's largest frames with their lengths, and 64 KiB more. */
    public static final int CAPACITY = 2 * (Integer.BYTES + LaneChannel.MAX_FRAME_BYTES) + 64 * 1024;
    private static final int WRITTEN = 0;
    private static final int READ = 64;
    private static final int SLEEPING = 128;
    private static final int DATA = 192;
    /** Bytes of one direction in the file. */
    public static final int BYTES = DATA + CAPACITY;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final ByteBuffer map;
    private final int base;
    /** The reader's copy of the consumed count, or the writer's of the published count (a ring's file is new: both 0). */
    private long mine;

    private LaneRing(ByteBuffer map, int base) {
        this.map = map;
        this.base = base;
    }

    /**
     * Creates the file of a lane's two rings ({@code 2 * BYTES}, zeroed), readable and writable by
     * this process's user only, and maps it.
     *
     * @throws IOException if the file exists or cannot be created or mapped
     */
    public static MappedByteBuffer create(Path file) throws IOException {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        return map(file);
    }

    /**
     * Maps an existing lane file.
     *
     * @throws IOException if it cannot be opened, or is not a lane file's size
     */
    public static MappedByteBuffer map(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (ch.size() == 0) {
                // written out whole, not sized sparse: in /dev/shm a page first touched when the file system is full
                // would kill the JVM with SIGBUS; a full one fails this write instead, and the lane keeps its socket
                ByteBuffer zeros = ByteBuffer.allocate(2 * BYTES);
                while (zeros.hasRemaining()) ch.write(zeros, zeros.position());
            }
            if (ch.size() != 2L * BYTES) throw new IOException(file + " holds " + ch.size() + " bytes, a lane file " + 2L * BYTES);
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 2L * BYTES);
            m.order(ByteOrder.nativeOrder());
            return m;
        }
    }

    /**
     * @param map a lane file's mapping ({@link #create}, {@link #map})
     * @param direction 0: node 0 to the other node; 1: the other node to node 0
     * @return that direction's ring over {@code map}
     */
    public static LaneRing of(ByteBuffer map, int direction) {
        if (direction != 0 && direction != 1) throw new IllegalArgumentException("direction " + direction + ", valid range [0, 1]");
        if (!map.isDirect() || map.capacity() != 2 * BYTES) {
            throw new IllegalArgumentException("a lane ring needs a direct buffer of " + 2 * BYTES + " bytes, got " + map.capacity());
        }
        return new LaneRing(map, direction * BYTES);
    }

    /**
     * Writer: copies {@code src}'s remaining bytes into the ring, if they fit now.
     *
     * @return false if the reader has not consumed enough yet (nothing written)
     */
    boolean offer(ByteBuffer src) {
        int n = src.remaining();
        long consumed = (long) LONGS.getAcquire(map, base + READ);
        if (CAPACITY - (mine - consumed) < n) return false;
        int at = (int) (mine % CAPACITY);
        int first = Math.min(n, CAPACITY - at);
        map.put(base + DATA + at, src, src.position(), first);
        if (first < n) map.put(base + DATA, src, src.position() + first, n - first);
        src.position(src.position() + n);
        mine += n;
        return true;
    }

    /**
     * Writer: publishes what {@link #offer} copied.
     *
     * @return whether the reader sleeps, so that the writer must ring the doorbell (the lane's socket)
     */
    boolean published() {
        LONGS.setVolatile(map, base + WRITTEN, mine);
        return (int) INTS.getVolatile(map, base + SLEEPING) != 0;
    }

    /** Reader: @return whether bytes wait to be read */
    boolean readable() {
        return (long) LONGS.getAcquire(map, base + WRITTEN) != mine;
    }

    /**
     * Reader: copies as many waiting bytes as fit into {@code dst} and marks them consumed.
     *
     * @return the bytes copied
     */
    int read(ByteBuffer dst) {
        long written = (long) LONGS.getAcquire(map, base + WRITTEN);
        int n = (int) Math.min(written - mine, dst.remaining());
        if (n <= 0) return 0;
        int at = (int) (mine % CAPACITY);
        int first = Math.min(n, CAPACITY - at);
        dst.put(dst.position(), map, base + DATA + at, first);
        if (first < n) dst.put(dst.position() + first, map, base + DATA, n - first);
        dst.position(dst.position() + n);
        mine += n;
        LONGS.setRelease(map, base + READ, mine);
        return n;
    }

    /**
     * Reader, before it blocks: raises the flag and looks once more.
     *
     * @return true if it may block (nothing was published before the flag went up; a later
     *         writer rings the doorbell); false if bytes wait (the flag is down again)
     */
    boolean sleep() {
        INTS.setVolatile(map, base + SLEEPING, 1);
        if ((long) LONGS.getVolatile(map, base + WRITTEN) != mine) {
            INTS.setVolatile(map, base + SLEEPING, 0);
            return false;
        }
        return true;
    }

    /** Reader, awake again: lowers the flag. */
    void awake() {
        INTS.setRelease(map, base + SLEEPING, 0);
    }
}
