package io.dsa.agent.transport;

import io.dsa.bench.fuzz.FuzzChecks;
import io.dsa.bench.fuzz.TrackingAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz target: the frame decoder of an authenticated connection, fed an arbitrary byte stream
 * through an {@link EmbeddedChannel}. Input: byte 0 picks how the stream is cut into reads
 * (0: one read; n: reads of n bytes), the rest is the stream.
 *
 * <p>Asserts: nothing is thrown out of the pipeline; the channel is either open or closed with a
 * {@link CorruptedFrameException} reason (the documented rejection); only message types of the
 * connection's phase come out; every buffer the channel saw or allocated is released; the decode
 * allocates within {@link FuzzChecks#allocationLimit}.
 */
public final class FrameDecoderFuzzer {
    private FrameDecoderFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        decodeStream("frame decoder", input, false, TransportConfig.DEFAULT_MAX_FRAME_BYTES);
    }

    /** @return real frames of every post-handshake type, whole and cut into reads of 1 and 7 bytes */
    public static List<byte[]> seeds() {
        return streams(false);
    }

    static List<byte[]> streams(boolean handshakePhase) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        List<byte[]> frames = new ArrayList<>();
        for (Object m : WireFuzzing.samples()) {
            if (MessageType.of(m).handshake() != handshakePhase) continue;
            byte[] f = WireFuzzing.frame(m);
            frames.add(f);
            all.writeBytes(f);
        }
        List<byte[]> seeds = new ArrayList<>();
        for (byte[] f : frames) seeds.add(WireFuzzing.prefixed(0, f));
        seeds.add(WireFuzzing.prefixed(0, all.toByteArray()));
        seeds.add(WireFuzzing.prefixed(1, all.toByteArray()));
        seeds.add(WireFuzzing.prefixed(7, all.toByteArray()));
        return seeds;
    }

    /**
     * Feeds {@code input[1..]} to a fresh {@link FrameDecoder} and checks the outcome (see the class
     * comment); the allocation bound covers the decoding, not the setup.
     */
    static void decodeStream(String what, byte[] input, boolean handshakePhase, int maxFrameBytes) {
        if (input.length == 0) return;
        FuzzChecks.runBounded(what, input.length, () -> {
            Reads reads = new Reads(input);
            EmbeddedChannel ch = new EmbeddedChannel(false, false);
            ch.config().setAllocator(reads.alloc);
            ch.pipeline().addLast(handshakePhase ? Transport.HANDSHAKE_DECODER : Transport.FRAME_DECODER,
                    new FrameDecoder(maxFrameBytes, handshakePhase));
            register(ch);
            return () -> {
                reads.feed(ch);
                checkDecoded(ch, handshakePhase);
                ch.finishAndReleaseAll();
                reads.alloc.checkAllReleased(what);
            };
        });
    }

    /**
     * Checks what came out of the decoder (only types of its phase) and the channel (open, or closed
     * with a {@link CorruptedFrameException} reason), consuming the messages.
     *
     * @return the number of messages that came out
     */
    static int checkDecoded(EmbeddedChannel ch, boolean handshakePhase) {
        int decoded = 0;
        for (Object m; (m = ch.readInbound()) != null; decoded++) {
            MessageType type = MessageType.of(m);
            if (type == null || type.handshake() != handshakePhase) {
                throw new AssertionError("decoder " + (handshakePhase ? "before" : "after") + " the handshake passed " + m);
            }
        }
        Throwable reason = ch.attr(FrameDecoder.CLOSE_REASON).get();
        if (ch.isOpen() != (reason == null)) {
            throw new AssertionError("channel " + (ch.isOpen() ? "open" : "closed") + " with close reason " + reason);
        }
        if (reason != null && !(reason instanceof CorruptedFrameException && reason.getMessage() != null)) {
            throw new AssertionError("closed with an undocumented reason " + reason, reason);
        }
        return decoded;
    }

    static void register(EmbeddedChannel ch) {
        try {
            ch.register();
        } catch (Exception e) {
            throw new IllegalStateException("embedded channel refused to register", e);
        }
    }

    /**
     * The reads a peer's stream arrives in: {@code input[1..]} cut as {@code input[0]} says (0: one
     * read; n: reads of n bytes), each in a buffer of {@link #alloc}, made before the decoding starts.
     */
    static final class Reads {
        final TrackingAllocator alloc = new TrackingAllocator();
        private final ByteBuf[] reads;

        Reads(byte[] input) {
            this(input, input[0] & 0xff);
        }

        Reads(byte[] input, int cut) {
            this(input, 1, cut);
        }

        /** The stream {@code bytes[from..]} in reads of {@code cut} bytes (0: one read). */
        Reads(byte[] bytes, int from, int cut) {
            int length = bytes.length - from;
            int step = cut == 0 ? Math.max(1, length) : cut;
            reads = new ByteBuf[(length + step - 1) / step];
            for (int i = 0, at = from; at < bytes.length; i++, at += step) {
                int n = Math.min(step, bytes.length - at);
                reads[i] = alloc.heapBuffer(n).writeBytes(bytes, at, n);
            }
        }

        /** Writes the reads while the channel is open (rethrowing what reaches the pipeline's end); releases the rest. */
        void feed(EmbeddedChannel ch) {
            for (ByteBuf read : reads) {
                if (ch.isOpen()) {
                    ch.writeInbound(read);
                } else {
                    read.release();
                }
            }
        }
    }
}
