package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.coherence.Access;
import io.dsa.agent.wire.DiffMessage;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The packing of pushed diffs ({@link PushedDiffs}) as jqwik properties: a release buffer with
 * random marks in elements of 4 or 8 bytes, encoded from the buffer and decoded, gives every
 * partition the runs and the packed values of {@link ReleaseBuffer#diffs} (the reference, which
 * copies each value on its own), and writing a decoded diff into a copy leaves what
 * {@link Diffs#write} leaves with the reference diff. Runs of 4-byte elements start and end inside
 * a long of the payload, which the bulk copies must not disturb; {@link PushedDiffs#pack} and
 * {@link PushedDiffs#unpack} at any byte position and length are checked on their own as well.
 */
class PushedPackingPropertiesTest {
    @Property(tries = 200, seed = "20261202")
    void encodedFromTheBufferAndDecodedTheDiffsAreTheReferenceDiffs(@ForAll boolean wide, @ForAll @IntRange(min = 1, max = 40) int elements,
            @ForAll @IntRange(min = 1, max = 3) int partitions, @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) {
        ElementType type = wide ? ElementType.DOUBLE : ElementType.INT;
        ArraySpec spec = ArraySpec.oneDimensional("P", type, elements * partitions, elements, Distribution.BLOCK);
        ArrayState a = new ArrayState(7, spec, 2, 1, 0);
        a.openRelease();
        Random random = new Random(seed);
        for (int p = 0; p < partitions; p++) {
            if (random.nextInt(4) == 0) continue;   // a partition not written
            ReleaseBuffer.Part part = a.release.part(p);
            random.nextBytes(part.values);
            int density = 1 + random.nextInt(4);
            for (int e = 0; e < elements; e++) if (random.nextInt(density) == 0) part.mark(e);
        }
        List<ReleaseBuffer.Diff> reference = a.release.diffs();
        long[] payload = PushedDiffs.encode(List.of(a));
        long[] release = new long[1 + payload.length];
        release[0] = payload.length;
        System.arraycopy(payload, 0, release, 1, payload.length);
        Map<Integer, List<PushedDiffs.Pushed>> decoded = PushedDiffs.decode(release, id -> a).getOrDefault(a.id, Map.of());

        assertEquals(reference.size(), decoded.size(), "partitions with diffs, seed " + seed);
        for (ReleaseBuffer.Diff d : reference) {
            PushedDiffs.Pushed got = decoded.get(d.partition()).get(0);
            assertArrayEquals(d.runs(), got.runs(), "runs of partition " + d.partition() + ", seed " + seed);
            assertArrayEquals(d.values(), got.values(), "values of partition " + d.partition() + ", seed " + seed);
            byte[] expected = new byte[spec.elementType().bytes() * elements];
            random.nextBytes(expected);
            byte[] actual = expected.clone();
            Diffs.write(expected, type, new DiffMessage(0, a.id, d.partition(), d.runs(), d.values()), false);
            got.writeInto(actual, type.bytes());
            assertArrayEquals(expected, actual, "copy of partition " + d.partition() + " written, seed " + seed);
        }
    }

    @Property(tries = 300, seed = "20261202")
    void packedAtAnyBytePositionTheBytesComeBackAndNothingElseChanges(@ForAll @IntRange(min = 0, max = 40) int position,
            @ForAll @IntRange(min = 0, max = 60) int length, @ForAll @IntRange(min = 0, max = 5) int offset, @ForAll long seed) {
        Random random = new Random(seed);
        byte[] from = new byte[offset + length + 3];
        random.nextBytes(from);
        long[] words = new long[(position + length + 7) / 8 + 1];
        PushedDiffs.pack(from, offset, length, words, position);
        // bytes outside [position, position + length) of the stream stay zero
        for (int b = 0; b < words.length * 8; b++) {
            byte got = (byte) (words[b / 8] >>> (b % 8 * 8));
            byte want = b >= position && b < position + length ? from[offset + b - position] : 0;
            assertEquals(want, got, "stream byte " + b + ", seed " + seed);
        }
        byte[] into = new byte[offset + length + 3];
        random.nextBytes(into);
        byte[] expected = into.clone();
        System.arraycopy(from, offset, expected, offset, length);
        PushedDiffs.unpack(words, position, into, offset, length);
        assertArrayEquals(expected, into, "unpacked, seed " + seed);
    }

    @Property(tries = 50, seed = "20261202")
    void aDecodedDiffIsWrittenIntoAValidCopy(@ForAll @IntRange(min = 1, max = 30) int elements, @ForAll long seed) {
        ArraySpec spec = ArraySpec.oneDimensional("Q", ElementType.FLOAT, 2 * elements, elements, Distribution.BLOCK);
        ArrayState here = new ArrayState(3, spec, 2, 1, 1);
        here.slots[1].materialize(elements * Float.BYTES);
        here.slots[0].install(new byte[elements * Float.BYTES], Access.READ);
        ArrayState other = new ArrayState(3, spec, 2, 1, 0);
        other.openRelease();
        Random random = new Random(seed);
        ReleaseBuffer.Part part = other.release.part(0);
        random.nextBytes(part.values);
        for (int e = 0; e < elements; e++) if (random.nextBoolean()) part.mark(e);
        List<ReleaseBuffer.Diff> reference = other.release.diffs();
        long[] payload = PushedDiffs.encode(List.of(other));
        long[] release = new long[1 + payload.length];
        release[0] = payload.length;
        System.arraycopy(payload, 0, release, 1, payload.length);
        int written = PushedDiffs.apply(here, PushedDiffs.decode(release, id -> here).getOrDefault(here.id, Map.of()), null);
        byte[] expected = new byte[elements * Float.BYTES];
        for (ReleaseBuffer.Diff d : reference) Diffs.write(expected, ElementType.FLOAT, new DiffMessage(0, 3, 0, d.runs(), d.values()), false);
        assertEquals(reference.size(), written, "copies written, seed " + seed);
        assertArrayEquals(expected, here.slots[0].data, "node 1's copy of partition 0, seed " + seed);
    }
}
