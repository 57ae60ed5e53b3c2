package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.CorruptedFrameException;

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
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * One direction of a connection's shared memory between two node processes of one machine
 * (docs/runtime.md, "Bulk bytes through shared memory"): a byte ring in a file both processes map,
 * into which the sender's encoder writes the bodies of large messages (a partition's data, a diff,
 * a push) while only a small {@link MessageType#SHARED} frame, naming where the body lies, travels
 * on the connection. The frame is sealed like every other; the body crosses with two copies (into
 * the ring, out of it into its place) and no encryption, system call or socket buffer.
 *
 * <p>Layout, little-endian: a magic number (a long at 0), the capacity (a long at 8), the 32-byte
 * token the sender also sends in its offer (at 16), the count of bytes the reader has released (a
 * long at 64, its own cache line), then {@code capacity} bytes of data from {@value #DATA}.
 *
 * <p><b>Positions.</b> A body is placed at a position counted from the ring's start over its
 * whole life (a long that never wraps); its bytes are at {@code position % capacity} and never
 * wrap: a body that would cross the end starts at the next multiple of the capacity instead, and
 * the bytes skipped belong to it. So a reservation is the pair {@code from} (the count produced
 * before it) and its length, and {@link #placement} gives where its bytes are, on both sides. The
 * writer reserves under a lock (several threads may send on one connection); the frames may reach
 * the wire in another order than their reservations (small messages overtake chunked ones, and
 * messages of different partitions may pass each other: {@link OutboundMessage#sameOrder}), so the
 * reader releases out of order: the released count advances over every body released contiguously
 * from it, and the others wait in a small table until it reaches them.
 *
 * <p><b>Ordering.</b> The writer copies a body, then (release fence) sends its frame; the reader,
 * having received the frame (acquire fence), copies the body out, then publishes the released count
 * with a release store, which the writer loads with an acquire load before it reuses the bytes. The
 * socket's system calls order the two processes in practice; the fences say so to the JIT.
 *
 * <p><b>Trust.</b> The file is created {@code rw-------} in a fresh {@code rwx------} directory, and
 * the reader removes both as soon as it has mapped it (only the two processes hold it from then
 * on); a reader maps it only if its token matches the one in the sender's sealed offer. Whoever
 * could write into it could also read this process's memory: this user (and root). The bodies are
 * decoded as strictly as the socket's; a frame whose position or length is not one the ring can hold
 * closes the connection. Off with {@code -Ddsa.sharedRingBytes=0} ({@link TransportConfig#sharedRingBytes}).
 */
final class SharedRing {
    /** Bytes before the data: magic, capacity, token, and the released count on its own cache line. */
    static final int DATA = 128;
    /** Token bytes: the offer's and the file's must be equal. */
    static final int TOKEN_BYTES = 32;
    /**
     * A body of at least this many bytes goes through the ring, a smaller one inline. 4 KiB, where the
     * record layer's tag switches from an HMAC to AES-GCM's (about 2.7 us for 8 KiB on each side here):
     * an 8 KiB read miss under SPIN took 0.72x the time through the ring (docs/runtime.md, "Bodies of
     * 4 KiB and more"); 16 KiB before.
     */
    static final int MIN_BODY_BYTES = 4 << 10;
    /** Smallest and largest capacity a ring may have. */
    static final long MIN_CAPACITY = 1 << 20;
    static final long MAX_CAPACITY = 1L << 30;
    private static final long MAGIC = 0x474e495241534444L; // "DDSARING", little-endian
    private static final int CAPACITY_AT = 8;
    private static final int TOKEN_AT = 16;
    private static final int RELEASED_AT = 64;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final Path SHM = Path.of("/dev/shm");
    private static final SecureRandom RANDOM = new SecureRandom();
    /** What a new ring's file is written out with, a piece at a time (read only: shared by every thread). */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

    private SharedRing() {}

    /**
     * @return the bytes of large bodies a connection sends on its socket before it offers a ring of
     *         {@code capacity} bytes: twice the capacity. Making a ring costs a few milliseconds of one
     *         core (its file written out, both sides' page tables filled: about 7 ms for 8 MiB here),
     *         which a connection that moves less than that (a short job's) would not win back.
     */
    static long offerAfter(long capacity) { return 2 * capacity; }

    /** @return where a body of {@code length} bytes reserved after {@code from} bytes starts: {@code from}, or the next lap's start */
    static long placement(long from, int length, long capacity) {
        return from % capacity + length > capacity ? (from / capacity + 1) * capacity : from;
    }

    /** The sending side: creates the file, reserves space, writes bodies. Thread-safe. */
    static final class Writer implements AutoCloseable {
        private final Path dir;
        private final Path file;
        private final byte[] token;
        private final long capacity;
        private final ByteBuffer map;
        /** Bytes reserved so far (positions over the ring's life); under {@code this}. */
        private long produced;
        private volatile boolean closed;

        private Writer(Path dir, Path file, byte[] token, long capacity, ByteBuffer map) {
            this.dir = dir;
            this.file = file;
            this.token = token;
            this.capacity = capacity;
            this.map = map;
        }

        /**
         * Creates a ring of {@code capacity} data bytes in a new private directory (in
         * {@code /dev/shm} where the machine has one, else the temporary directory), written out
         * whole so that a full memory file system fails here and not later with SIGBUS.
         *
         * @throws IOException if it cannot be created (the connection then sends every body inline)
         */
        static Writer create(long capacity) throws IOException {
            if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY) {
                throw new IllegalArgumentException("shared ring capacity " + capacity + " out of range [" + MIN_CAPACITY + ", "
                        + MAX_CAPACITY + "]");
            }
            Path parent = Files.isDirectory(SHM) && Files.isWritable(SHM) ? SHM : Path.of(System.getProperty("java.io.tmpdir"));
            LaneListener.sweep(parent, LaneListener.NAMESPACE, LaneListener::running);   // what a killed sender left
            Path dir = Files.createTempDirectory(parent, LaneListener.PREFIX,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path file = dir.resolve("ring");
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                byte[] token = new byte[TOKEN_BYTES];
                RANDOM.nextBytes(token);
                MappedByteBuffer map;
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    ByteBuffer zeros = ZEROS.duplicate();   // direct: written without a copy into a temporary one
                    for (long at = 0; at < DATA + capacity; ) {
                        zeros.clear().limit((int) Math.min(zeros.capacity(), DATA + capacity - at));
                        at += ch.write(zeros, at);
                    }
                    map = ch.map(FileChannel.MapMode.READ_WRITE, 0, DATA + capacity);
                }
                map.load();   // this side's page tables filled now, not by faults in the first lap's copies
                map.order(ByteOrder.LITTLE_ENDIAN);
                map.putLong(0, MAGIC);
                map.putLong(CAPACITY_AT, capacity);
                map.put(TOKEN_AT, token);
                return new Writer(dir, file, token, capacity, map);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(file);
                Files.deleteIfExists(dir);
                throw e;
            }
        }

        /** @return the file, for the offer */
        Path file() { return file; }

        /** @return the token, for the offer */
        byte[] token() { return token.clone(); }

        /** @return the data bytes */
        long capacity() { return capacity; }

        /**
         * Reserves room for a body of {@code length} bytes.
         *
         * @return its {@code from} (see the class comment), or -1 if the ring has no room for it now
         *         (or is closed): the body then goes inline
         */
        synchronized long reserve(int length) {
            if (closed || length <= 0 || length > capacity) return -1;
            long from = produced;
            long end = placement(from, length, capacity) + length;
            if (end - (long) LONGS.getAcquire(map, RELEASED_AT) > capacity) return -1;
            produced = end;
            return from;
        }

        /** @return a buffer over the reserved body's bytes, empty, to write the body into (its capacity is exactly {@code length}) */
        ByteBuf body(long from, int length) {
            int at = DATA + (int) (placement(from, length, capacity) % capacity);
            return Unpooled.wrappedBuffer(map.slice(at, length).order(ByteOrder.BIG_ENDIAN)).clear();
        }

        /** Makes the bodies written so far visible before the frames that name them are sent. */
        void published() { VarHandle.releaseFence(); }

        /** Removes the file and its directory if the reader has not; further reservations fail. Idempotent. */
        @Override
        public void close() {
            closed = true;
            try {
                Files.deleteIfExists(file);
                Files.deleteIfExists(dir);
            } catch (IOException ignored) {
                // a leftover private directory: removed by a later sweep
            }
        }
    }

    /** The receiving side: maps the sender's file and copies bodies out. Only on the connection's I/O thread. */
    static final class Reader {
        private final long capacity;
        private final ByteBuffer map;
        /** The released count this side published last. */
        private long released;
        /** Bodies released out of order, waiting for the count to reach them: their {@code from} and end. */
        private final long[] waitingFrom;
        private final long[] waitingEnd;
        private int waiting;

        private Reader(long capacity, ByteBuffer map) {
            this.capacity = capacity;
            this.map = map;
            int slots = (int) Math.min(1 << 16, capacity / MIN_BODY_BYTES + 1);
            this.waitingFrom = new long[slots];
            this.waitingEnd = new long[slots];
        }

        /**
         * Maps the ring a peer offered, checks that it is one (magic, capacity) and that its token
         * is the offer's, then removes the file and its directory.
         *
         * @throws IOException naming what does not match, or why the file cannot be mapped
         */
        static Reader open(Path file, long capacity, byte[] token) throws IOException {
            if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY) {
                throw new IOException("shared ring capacity " + capacity + " out of range [" + MIN_CAPACITY + ", " + MAX_CAPACITY + "]");
            }
            if (!file.isAbsolute() || !file.getFileName().toString().equals("ring")) {
                throw new IOException("not a shared ring's path: " + file);
            }
            MappedByteBuffer map;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (ch.size() != DATA + capacity) throw new IOException(file + " holds " + ch.size() + " bytes, expected " + (DATA + capacity));
                map = ch.map(FileChannel.MapMode.READ_WRITE, 0, DATA + capacity);
            }
            map.order(ByteOrder.LITTLE_ENDIAN);
            byte[] found = new byte[TOKEN_BYTES];
            map.get(TOKEN_AT, found);
            if (map.getLong(0) != MAGIC || map.getLong(CAPACITY_AT) != capacity || !MessageDigest.isEqual(found, token)) {
                throw new IOException(file + " is not the offered ring (magic, capacity or token differ)");
            }
            Files.deleteIfExists(file);
            Files.deleteIfExists(file.getParent());
            return new Reader(capacity, map);
        }

        /**
         * @return a buffer over the body of {@code length} bytes reserved after {@code from}, to decode
         *         from in place; {@link #release} it once decoded
         * @throws CorruptedFrameException if no writer could have reserved such a body now
         */
        ByteBuf body(long from, int length) {
            long at = check(from, length);
            VarHandle.acquireFence();
            return Unpooled.wrappedBuffer(map.slice(DATA + (int) (at % capacity), length).order(ByteOrder.BIG_ENDIAN));
        }

        // A body the writer cannot have reserved: not after what this side released, longer than the ring, or
        // further ahead than a full ring. (The writer reserves in order and this side releases each body once.)
        private long check(long from, int length) {
            if (length <= 0 || length > capacity || from < released) {
                throw new CorruptedFrameException("shared body of " + length + " bytes at " + from + " outside the ring (released "
                        + released + ", capacity " + capacity + ")");
            }
            long at = placement(from, length, capacity);
            if (at + length - released > capacity) {
                throw new CorruptedFrameException("shared body of " + length + " bytes at " + from + " beyond a full ring (released "
                        + released + ", capacity " + capacity + ")");
            }
            return at;
        }

        /**
         * Gives the body's bytes back to the writer: at once if it is the next in order, else when
         * the bodies before it are released too.
         *
         * @throws CorruptedFrameException if too many bodies are released ahead of one still missing
         */
        void release(long from, int length) {
            long end = placement(from, length, capacity) + length;
            if (from != released) {
                if (waiting == waitingFrom.length) {
                    throw new CorruptedFrameException("more than " + waiting + " shared bodies released ahead of the one at " + released);
                }
                waitingFrom[waiting] = from;
                waitingEnd[waiting++] = end;
                return;
            }
            released = end;
            for (int k = 0; k < waiting; ) {
                if (waitingFrom[k] == released) {
                    released = waitingEnd[k];
                    waitingFrom[k] = waitingFrom[--waiting];
                    waitingEnd[k] = waitingEnd[waiting];
                    k = 0;
                } else {
                    k++;
                }
            }
            LONGS.setRelease(map, RELEASED_AT, released);
        }

        /** @return the released count (for tests) */
        long released() { return released; }
    }
}
