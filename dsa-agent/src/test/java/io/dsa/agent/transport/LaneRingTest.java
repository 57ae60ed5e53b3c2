package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LaneRing}: one direction of a lane's shared memory, each end with its own mapping of the
 * file (as two processes have): bytes cross in order across the wrap, a full ring refuses what
 * does not fit, the reader's flag and the writer's doorbell never both miss, and the file is the
 * user's only.
 */
@Timeout(60)
class LaneRingTest {
    @TempDir
    Path dir;

    /** One direction's two ends, each with its own mapping of a new lane file. */
    private record Ends(LaneRing writer, LaneRing reader) {}

    private Ends ends(int direction) throws java.io.IOException {
        Path f = dir.resolve("lane");
        return new Ends(LaneRing.of(LaneRing.create(f), direction), LaneRing.of(LaneRing.map(f), direction));
    }

    // Byte i of the test stream.
    private static byte pattern(long i) { return (byte) (i * 31 + (i >>> 9)); }

    @Test
    void theFileIsTheUsersOnlyAndMapsAtItsSize() throws Exception {
        Path f = dir.resolve("lane");
        MappedByteBuffer m = LaneRing.create(f);
        assertEquals(2 * LaneRing.BYTES, m.capacity());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(2L * LaneRing.BYTES, Files.size(f));
        assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> LaneRing.create(f));
        Path small = Files.write(dir.resolve("small"), new byte[100]);
        assertTrue(assertThrows(java.io.IOException.class, () -> LaneRing.map(small)).getMessage().contains("holds 100 bytes"));
        assertThrows(IllegalArgumentException.class, () -> LaneRing.of(m, 2));
        assertThrows(IllegalArgumentException.class, () -> LaneRing.of(ByteBuffer.allocate(2 * LaneRing.BYTES), 0));
    }

    @Test
    void aFullRingRefusesWhatDoesNotFitUntilTheReaderCatchesUp() throws Exception {
        Ends ends = ends(1);
        LaneRing writer = ends.writer();
        LaneRing reader = ends.reader();
        ByteBuffer chunk = ByteBuffer.allocate(LaneRing.CAPACITY - 10);
        assertTrue(writer.offer(chunk));
        assertFalse(reader.readable(), "not published yet");
        writer.published();
        assertTrue(reader.readable());
        ByteBuffer eleven = ByteBuffer.allocate(11);
        assertFalse(writer.offer(eleven), "11 bytes do not fit in the 10 left");
        assertEquals(11, eleven.remaining(), "a refused offer takes nothing");
        ByteBuffer some = ByteBuffer.allocate(100);
        assertEquals(100, reader.read(some));
        assertTrue(writer.offer(eleven), "fits once the reader consumed 100");
        // the other direction of the same file is untouched
        assertFalse(LaneRing.of(LaneRing.map(dir.resolve("lane")), 0).readable());
    }

    /** A writer and a reader thread stream 24 MB through one ring in chunks of random sizes; every byte arrives in order. */
    @Test
    void bytesCrossInOrderAcrossTheWrapBetweenTwoThreads() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LaneRingTest seed " + seed);
        Ends ends = ends(0);
        LaneRing writer = ends.writer();
        LaneRing reader = ends.reader();
        long total = 24L << 20;
        CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
            SplittableRandom random = new SplittableRandom(seed);
            long sent = 0;
            while (sent < total) {
                int n = (int) Math.min(total - sent, 1 + random.nextInt(70_000));
                ByteBuffer b = ByteBuffer.allocate(n);
                for (int i = 0; i < n; i++) b.put(i, pattern(sent + i));
                while (!writer.offer(b)) Thread.onSpinWait();
                writer.published();
                sent += n;
            }
        });
        SplittableRandom random = new SplittableRandom(seed + 1);
        long got = 0;
        while (got < total) {
            ByteBuffer dst = ByteBuffer.allocate(1 + random.nextInt(90_000));
            int n = reader.read(dst);
            for (int i = 0; i < n; i++) {
                if (dst.get(i) != pattern(got + i)) throw new AssertionError("byte " + (got + i) + " differs (seed " + seed + ")");
            }
            got += n;
            if (n == 0) Thread.onSpinWait();
        }
        w.get(30, TimeUnit.SECONDS);
        assertFalse(reader.readable());
    }

    @Test
    void aReaderThatRaisedItsFlagIsRungAndOneThatMissedBytesDoesNotSleep() throws Exception {
        Ends e = ends(0);
        assertTrue(e.reader().sleep(), "nothing published: it may block");
        e.writer().offer(ByteBuffer.allocate(8));
        assertTrue(e.writer().published(), "the reader sleeps: ring the doorbell");
        e.reader().awake();
        assertFalse(e.reader().sleep(), "bytes wait: it must not block");
        e.writer().offer(ByteBuffer.allocate(8));
        assertFalse(e.writer().published(), "the reader withdrew its flag when it saw the bytes");
        e.reader().read(ByteBuffer.allocate(64));
        assertTrue(e.reader().sleep());
    }

    /**
     * The wake-up under a real race: 20,000 messages, one in flight at a time (as lane messages
     * are). A reader whose {@link LaneRing#sleep} said it may block keeps its flag up and waits
     * for the doorbell of the next message, which {@link LaneRing#published} must ring: the writer
     * records the index of each message it rang for. A doorbell that never comes is a lost
     * wake-up; the reader gives up on it after 5 s and the test fails naming the message.
     */
    @Test
    void noWakeUpIsLostBetweenTheFlagAndThePublishedCount() throws Exception {
        Ends ends = ends(0);
        LaneRing writer = ends.writer();
        LaneRing reader = ends.reader();
        int messages = 20_000;
        java.util.concurrent.atomic.AtomicLong rungFor = new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.atomic.AtomicLong consumed = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong lostAt = new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.atomic.AtomicInteger slept = new java.util.concurrent.atomic.AtomicInteger();
        CompletableFuture<Void> r = CompletableFuture.runAsync(() -> {
            ByteBuffer dst = ByteBuffer.allocate(64);
            long got = 0;
            while (got < messages) {
                dst.clear();
                int n = reader.read(dst);
                if (n > 0) {
                    got += n;
                    consumed.set(got);
                    continue;
                }
                if (reader.sleep()) {
                    slept.incrementAndGet();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (rungFor.get() < got) {
                        if (System.nanoTime() > deadline) {
                            lostAt.set(got);
                            return;
                        }
                        Thread.yield();
                    }
                }
                reader.awake();
            }
        });
        for (int i = 0; i < messages && !r.isDone(); i++) {
            writer.offer(ByteBuffer.allocate(1));
            if (writer.published()) rungFor.set(i);
            while (consumed.get() <= i && !r.isDone()) Thread.onSpinWait();
        }
        r.get(50, TimeUnit.SECONDS);
        assertEquals(-1, lostAt.get(), "the doorbell of message " + lostAt.get() + " never rang for a reader that slept ("
                + slept.get() + " sleeps)");
        assertTrue(slept.get() > 0, "the reader never slept: the race was not exercised");
    }
}
