package io.dsa.bench.fuzz;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What every fuzz target asserts besides its own rejection rules: that decoding an input allocates
 * at most a bounded multiple of the input's size (a declared length larger than the bytes present
 * must never be allocated). A violation throws {@link AssertionError}, which Jazzer reports as a
 * finding with the input.
 *
 * <p>The meter is HotSpot's per-thread allocation counter ({@code ThreadMXBean}), which counts every
 * heap byte the current thread allocates, so the bound covers the decoder and everything it calls.
 * The decoders run on the calling thread (the targets use {@code EmbeddedChannel}, no event loop).
 * Not thread-safe: one meter per thread.
 */
public final class FuzzChecks {
    /**
     * Heap bytes a decode may allocate per input byte. A decoded value costs a small multiple of its
     * bytes (a UTF-8 string is decoded through a scratch array, a record and its list wrap each
     * field, the frame decoder's cumulation grows by doubling); 32 leaves room for that and for the
     * bookkeeping of a short input, and is far below what a forged count or length would cost.
     */
    public static final long BYTES_PER_INPUT_BYTE = 32;
    /**
     * Heap bytes any decode may allocate whatever its input: the channel and its handlers, an
     * exception and its stack trace, a log line, an HMAC. 64 KiB: an allocation sized by a forged
     * 16-bit length (e.g. {@code DataInputStream.readUTF}, up to 192 KiB) or a forged 32-bit count
     * exceeds it.
     */
    public static final long FIXED_BYTES = 64 << 10;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        if (!THREADS.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot count allocated bytes per thread: the fuzz targets need HotSpot");
        }
        THREADS.setThreadAllocatedMemoryEnabled(true);
    }

    /** Runs of an input over the allocation limit before it counts as a finding. */
    private static final int RUNS = 3;

    private FuzzChecks() {}

    /** @return heap bytes the calling thread has allocated so far */
    static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** @return the most a decode of {@code inputBytes} bytes may allocate */
    public static long allocationLimit(long inputBytes) {
        return BYTES_PER_INPUT_BYTE * inputBytes + FIXED_BYTES;
    }

    /** {@link #runBounded(String, long, long, Supplier)} with no allowance beyond the input's. */
    public static void runBounded(String what, long inputBytes, Supplier<Runnable> prepare) {
        runBounded(what, inputBytes, 0, prepare);
    }

    /**
     * Runs a decode and checks that it allocated at most {@link #allocationLimit(long)}:
     * {@code prepare} sets up (a channel, the input's reads; not measured) and returns the decode,
     * which is measured. An input over the limit is prepared and run up to twice more and fails only
     * if it is over every time: the first run of a code path loads and initialises classes, and a
     * pooled allocator now and then grows by a whole chunk (one-time costs on the calling thread,
     * which once passed the limit in two runs in a row, 2026-11-25), while a trusted length costs
     * the same every time.
     *
     * @param what the decoder, for the message
     * @param inputBytes the input's size
     * @param allowanceBytes a cost the decoder may add that no value read from the input sizes, e.g.
     *        the JDK's fixed allocation per record opened (see {@code RecordDecoderFuzzer}); 0 for none
     * @throws AssertionError when every run allocated more than the limit
     */
    public static void runBounded(String what, long inputBytes, long allowanceBytes, Supplier<Runnable> prepare) {
        long allocated = measure(prepare.get());
        long limit = allocationLimit(inputBytes) + allowanceBytes;
        for (int run = 1; run < RUNS && allocated > limit; run++) allocated = measure(prepare.get());
        if (allocated > limit) {
            throw new AssertionError(what + " allocated " + allocated + " bytes for an input of " + inputBytes
                    + " bytes, more than the limit of " + limit + " (" + BYTES_PER_INPUT_BYTE + " per input byte + "
                    + FIXED_BYTES + (allowanceBytes > 0 ? " + " + allowanceBytes + " allowed" : "")
                    + "): a length or count read from the input was trusted");
        }
    }

    /** {@link #runBounded(String, long, Supplier)} for a decode that needs no setup. */
    public static void runBounded(String what, byte[] input, Consumer<byte[]> decode) {
        runBounded(what, input.length, () -> () -> decode.accept(input));
    }

    /**
     * The check of a codec whose refusal is an exception of type {@code refusal}: decodes {@code input}
     * within the allocation bound, and if it decodes, checks that its encoding decodes and encodes to
     * the same bytes again (no value is decoded that the encoder writes differently). Anything
     * thrown but a {@code refusal} passes through.
     */
    public static <T> void decodeRoundTrip(String what, byte[] input, Function<byte[], T> decode, Function<T, byte[]> encode,
                                           Class<? extends RuntimeException> refusal) {
        List<T> decoded = new ArrayList<>(1);
        runBounded(what, input, in -> {
            decoded.clear();
            try {
                decoded.add(decode.apply(in));
            } catch (RuntimeException e) {
                if (!refusal.isInstance(e)) throw e;
            }
        });
        if (decoded.isEmpty()) return;
        byte[] once = encode.apply(decoded.get(0));
        byte[] twice = encode.apply(decode.apply(once));
        if (!Arrays.equals(once, twice)) {
            throw new AssertionError(what + ": " + decoded.get(0) + " encodes to " + once.length
                    + " bytes that do not decode and encode to the same bytes");
        }
    }

    private static long measure(Runnable decode) {
        long start = allocatedBytes();
        decode.run();
        return allocatedBytes() - start;
    }
}
