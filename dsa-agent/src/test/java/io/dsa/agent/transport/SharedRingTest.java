package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared ring's two sides in one process ({@link SharedRing}): the file's life, placement at
 * the end of a lap, a full ring, out-of-order release, what a reader refuses, and a seeded run of
 * bodies of random sizes delivered in a shuffled order (the seed is printed; {@code
 * -Ddsa.test.seed} replays one).
 */
@Timeout(60)
class SharedRingTest {
    private static final long CAPACITY = SharedRing.MIN_CAPACITY;

    @Test
    void theReaderMapsTheOfferedFileThenRemovesItAndItsDirectory() throws IOException {
        try (SharedRing.Writer w = SharedRing.Writer.create(CAPACITY)) {
            Path file = w.file();
            assertTrue(Files.exists(file));
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
            SharedRing.Reader r = SharedRing.Reader.open(file, CAPACITY, w.token());
            assertFalse(Files.exists(file), "the reader removed the file");
            assertFalse(Files.exists(file.getParent()), "and its directory");
            byte[] body = bytes(40_000, 1);
            long from = write(w, body);
            assertArrayEquals(body, read(r, from, body.length));
        }
    }

    @Test
    void aReaderRefusesAFileWhoseTokenOrCapacityIsNotTheOffersAndTheWriterRemovesIt() throws IOException {
        Path file;
        try (SharedRing.Writer w = SharedRing.Writer.create(CAPACITY)) {
            file = w.file();
            byte[] wrong = w.token();
            wrong[0] ^= 1;
            IOException e = assertThrows(IOException.class, () -> SharedRing.Reader.open(file, CAPACITY, wrong));
            assertTrue(e.getMessage().contains("not the offered ring"), e.getMessage());
            assertThrows(IOException.class, () -> SharedRing.Reader.open(file, 2 * CAPACITY, w.token()));
            assertThrows(IOException.class, () -> SharedRing.Reader.open(Path.of("relative/ring"), CAPACITY, w.token()));
            assertTrue(Files.exists(file), "a refused offer leaves the file to its writer");
        }
        assertFalse(Files.exists(file), "closing the writer removes it");
        assertFalse(Files.exists(file.getParent()));
    }

    @Test
    void aBodyThatWouldCrossTheEndStartsTheNextLapAndAFullRingRefusesUntilReleased() throws IOException {
        try (SharedRing.Writer w = SharedRing.Writer.create(CAPACITY)) {
            SharedRing.Reader r = SharedRing.Reader.open(w.file(), CAPACITY, w.token());
            int big = (int) (CAPACITY * 3 / 4);
            byte[] first = bytes(big, 2);
            long a = write(w, first);
            assertEquals(0, a);
            assertEquals(-1, w.reserve(big), "a second body of 3/4 of the ring does not fit beside the first");
            assertArrayEquals(first, read(r, a, big));
            byte[] second = bytes(big, 3);
            long b = write(w, second);
            assertEquals(big, b, "reserved after the first");
            assertEquals(CAPACITY, SharedRing.placement(b, big, CAPACITY), "but placed at the start of the next lap");
            assertArrayEquals(second, read(r, b, big));
            assertEquals(CAPACITY + big, r.released(), "the skipped end of the lap is released with the body");
            assertEquals(-1, w.reserve((int) CAPACITY + 1), "a body larger than the ring never fits");
        }
    }

    @Test
    void bodiesReleasedOutOfOrderFreeTheRingOnlyWhenTheOnesBeforeThemAreReleasedToo() throws IOException {
        try (SharedRing.Writer w = SharedRing.Writer.create(CAPACITY)) {
            SharedRing.Reader r = SharedRing.Reader.open(w.file(), CAPACITY, w.token());
            int quarter = (int) (CAPACITY / 4);
            long[] from = new long[4];
            for (int i = 0; i < 4; i++) from[i] = write(w, bytes(quarter, 10 + i));
            assertEquals(-1, w.reserve(1), "full");
            read(r, from[2], quarter);
            read(r, from[1], quarter);
            assertEquals(0, r.released(), "the first body is not released yet");
            assertEquals(-1, w.reserve(1));
            read(r, from[0], quarter);
            assertEquals(3L * quarter, r.released(), "the first three together");
            assertTrue(w.reserve(quarter) >= 0);
        }
    }

    @Test
    void aReaderRefusesBodiesNoWriterCouldHaveReserved() throws IOException {
        try (SharedRing.Writer w = SharedRing.Writer.create(CAPACITY)) {
            SharedRing.Reader r = SharedRing.Reader.open(w.file(), CAPACITY, w.token());
            read(r, write(w, bytes(SharedRing.MIN_BODY_BYTES, 4)), SharedRing.MIN_BODY_BYTES);
            assertThrows(CorruptedFrameException.class, () -> r.body(0, 100), "before what was released");
            assertThrows(CorruptedFrameException.class, () -> r.body(r.released(), 0), "empty");
            assertThrows(CorruptedFrameException.class, () -> r.body(r.released(), (int) CAPACITY + 1), "longer than the ring");
            assertThrows(CorruptedFrameException.class, () -> r.body(r.released() + CAPACITY, 100), "beyond a full ring");
        }
    }

    @Test
    void seededBodiesOfRandomSizesDeliveredShuffledArriveIntactAndTheRingNeverJams() throws IOException {
        long seed = Long.getLong("dsa.test.seed", System.nanoTime());
        System.out.println("SharedRingTest seed " + seed + " (-Ddsa.test.seed=" + seed + " replays it)");
        SplittableRandom random = new SplittableRandom(seed);
        try (SharedRing.Writer w = SharedRing.Writer.create(CAPACITY)) {
            SharedRing.Reader r = SharedRing.Reader.open(w.file(), CAPACITY, w.token());
            List<long[]> inFlight = new ArrayList<>();   // {from, length, content seed}
            int delivered = 0;
            for (int step = 0; step < 3_000; step++) {
                int length = random.nextInt(1, (int) (CAPACITY / 3));
                long from = w.reserve(length);
                if (from >= 0) {
                    int content = random.nextInt();
                    ByteBuf body = w.body(from, length);
                    body.writeBytes(bytes(length, content));
                    body.release();
                    inFlight.add(new long[] {from, length, content});
                } else {
                    assertTrue(!inFlight.isEmpty(), "seed " + seed + ": a ring with nothing in flight refused " + length + " bytes");
                }
                // the wire may reorder what is in flight: deliver a random one now and then, or when the ring is full
                while (!inFlight.isEmpty() && (from < 0 || random.nextInt(3) == 0)) {
                    long[] m = inFlight.remove(random.nextInt(inFlight.size()));
                    assertArrayEquals(bytes((int) m[1], (int) m[2]), read(r, m[0], (int) m[1]), "seed " + seed);
                    delivered++;
                    from = 0;
                }
            }
            for (long[] m : inFlight) assertArrayEquals(bytes((int) m[1], (int) m[2]), read(r, m[0], (int) m[1]), "seed " + seed);
            assertTrue(delivered > 1_000, "seed " + seed + ": " + delivered + " bodies");
            // with everything released, half the ring fits wherever the last body ended (the rest of the lap, or the next lap's start)
            assertEquals(r.released(), w.reserve((int) (CAPACITY / 2)), "seed " + seed + ": everything was released");
        }
    }

    private static long write(SharedRing.Writer w, byte[] body) {
        long from = w.reserve(body.length);
        assertTrue(from >= 0, "room for " + body.length + " bytes");
        ByteBuf b = w.body(from, body.length);
        b.writeBytes(body);
        assertEquals(body.length, b.writerIndex());
        b.release();
        w.published();
        return from;
    }

    private static byte[] read(SharedRing.Reader r, long from, int length) {
        ByteBuf b = r.body(from, length);
        byte[] out = new byte[length];
        b.readBytes(out);
        b.release();
        r.release(from, length);
        return out;
    }

    static byte[] bytes(int length, int seed) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }
}
