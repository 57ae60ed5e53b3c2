package io.dsa.agent.transport;

import io.dsa.bench.fuzz.FuzzChecks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target: the inbound pipeline of an authenticated connection, the record layer and the frame
 * decoder behind it ({@link RecordDecoder}, then {@link FrameDecoder}, as the handshake installs
 * them), with a known traffic secret, so the fuzzer works on records that really open. Input:
 *
 * <pre>
 * byte 0    bit 0: security (0 ENCRYPT, 1 MAC); bit 1: tiny key limits (a key update every
 *           {@value #TINY_RECORDS_PER_KEY} records or {@value #TINY_BYTES_PER_KEY} bytes, on both ends);
 *           bits 2-4: what a relay does (see {@link Op}); bits 5-7: reads of that many bytes (0: one read)
 * byte 1    the record the relay tampers with (modulo the records)
 * byte 2-3  the tampering's parameter (u16: the bit to flip, where to cut)
 * rest      RAW: the stream itself; otherwise chunks (u16 length, bytes) that are sealed one record
 *           each with the sender's keys, then tampered with
 * </pre>
 *
 * <p>Asserts, besides what {@link FrameDecoderFuzzer} asserts of the frame decoder (only the
 * documented rejection, only post-handshake types, every buffer released, bounded allocation):
 * <ul>
 *   <li><b>Nothing forged gets through.</b> The record decoder passes on the frames of the first
 *       records only, each exactly the frame its sender sealed at that position: when sealed here,
 *       chunk {@code j} for record {@code j}, never anything at or after the tampered record; in RAW
 *       mode, each passed frame sealed again at its sequence number gives exactly the record bytes
 *       the stream held there.</li>
 *   <li><b>The refusal is the documented one.</b> A stream that holds a tampered record closes the
 *       connection, and unless the frame decoder refused a frame first, the reason is the record
 *       layer's: a length out of range, a failed authentication (only ever of the tampered record),
 *       a connection ended inside a record (only a tampered one), or a record that holds other than
 *       one frame (only an authentic record whose chunk is so).</li>
 *   <li><b>Nothing authentic is refused.</b> Untampered records of well-formed chunks all get
 *       through and the connection stays open, unless the frame decoder refuses a frame.</li>
 * </ul>
 * The allocation bound allows the room the decoder deliberately keeps ahead of what arrived for a
 * record under way, at most {@link RecordDecoder#MAX_AHEAD_BYTES} (1 MiB: a partition-sized record
 * is gathered without being copied again; a forged length costs that much once, until the record
 * fails to open, {@code RecordLayerTest.aForgedRecordLengthHoldsLittleMoreThanWhatArrived}; the first
 * fuzzing of the bulk transfer's decoder stopped at exactly that, run H). It also allows each
 * record the stream delimits the JDK's own fixed cost of opening
 * it ({@value #RECORD_OPEN_BYTES} bytes: a GCM {@code Cipher.init} and a key update, see
 * docs/security.md), which no length read from the input sizes.
 */
public final class RecordDecoderFuzzer {
    /** Records per key with tiny key limits. */
    static final long TINY_RECORDS_PER_KEY = 3;
    /** Frame bytes per key with tiny key limits. */
    static final long TINY_BYTES_PER_KEY = 200;
    /**
     * Allocation allowed per record for opening it, beyond the input's bound: the JDK's GCM state
     * (about 1.1 KB per open) and a key update's HKDF (about 6 KB; with tiny key limits a record may
     * cause one), measured with the per-thread allocation counter.
     */
    static final long RECORD_OPEN_BYTES = 12 << 10;
    private static final int HEADER_BYTES = 4;
    private static final int MAX_FRAME_BYTES = TransportConfig.DEFAULT_MAX_FRAME_BYTES;
    private static final byte[] SECRET = filled(0x42);
    private static final byte[] OTHER_SECRET = filled(0x24);

    /** What the relay does to the stream of sealed records. */
    enum Op {
        /** Nothing: every record is authentic. */
        NONE,
        /** Flips one bit of record {@code i} (header, frame or tag). */
        FLIP,
        /** Sends record {@code i} a second time, right after itself. */
        REPLAY,
        /** Drops record {@code i}. */
        DROP,
        /** Swaps records {@code i} and {@code i + 1}. */
        SWAP,
        /** Injects, before record {@code i}, the same chunk sealed under another key. */
        INJECT,
        /** Cuts the stream inside record {@code i}. */
        TRUNCATE,
        /** Feeds the input's stream as it is (seeded with real sealed records). */
        RAW
    }

    private RecordDecoderFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length < HEADER_BYTES) return;
        int control = input[0] & 0xff;
        TransportSecurity security = (control & 1) == 0 ? TransportSecurity.ENCRYPT : TransportSecurity.MAC;
        boolean tinyKeys = (control & 2) != 0;
        Op op = Op.values()[(control >>> 2) & 7];
        int cut = control >>> 5;
        int index = input[1] & 0xff;
        int param = (input[2] & 0xff) << 8 | input[3] & 0xff;
        Stream stream = op == Op.RAW ? Stream.raw(input) : Stream.sealed(chunks(input), security, tinyKeys, op, index, param);
        FuzzChecks.runBounded("record decoder", input.length, RECORD_OPEN_BYTES * (stream.records + 1L) + RecordDecoder.MAX_AHEAD_BYTES,
                () -> {
            FrameDecoderFuzzer.Reads reads = new FrameDecoderFuzzer.Reads(stream.bytes, 0, cut);
            Passed passed = new Passed();
            EmbeddedChannel ch = new EmbeddedChannel(false, false);
            ch.config().setAllocator(reads.alloc);
            ch.pipeline().addLast(Transport.RECORD_DECODER, new RecordDecoder(protection(security, SECRET, tinyKeys), MAX_FRAME_BYTES))
                    .addLast("passed", passed)
                    .addLast(Transport.FRAME_DECODER, new FrameDecoder(MAX_FRAME_BYTES, false));
            FrameDecoderFuzzer.register(ch);
            return () -> {
                reads.feed(ch);
                int decoded = FrameDecoderFuzzer.checkDecoded(ch, false);
                ch.finishAndReleaseAll();
                reads.alloc.checkAllReleased("record decoder");
                stream.check(passed.frames, decoded < passed.frames.size(), ch.attr(FrameDecoder.CLOSE_REASON).get(),
                        security, tinyKeys);
            };
        });
    }

    /**
     * @return real sealed streams: every post-handshake message type's frame as a chunk, each
     *         relay operation on them, both modes, both key limits, whole and cut into reads; and the
     *         same records sealed here, in RAW mode, for the fuzzer to mutate
     */
    public static List<byte[]> seeds() {
        ByteArrayOutputStream chunks = new ByteArrayOutputStream();
        List<byte[]> frames = new ArrayList<>();
        for (Object m : WireFuzzing.samples()) {
            if (MessageType.of(m).handshake()) continue;
            byte[] f = WireFuzzing.frame(m);
            frames.add(f);
            chunks.write(f.length >>> 8);
            chunks.write(f.length);
            chunks.writeBytes(f);
        }
        List<byte[]> seeds = new ArrayList<>();
        for (Op op : Op.values()) {
            if (op == Op.RAW) continue;
            for (int bits : new int[] {0, 1, 2, 3}) {
                seeds.add(input(bits | op.ordinal() << 2, 5, 100, chunks.toByteArray()));
            }
        }
        seeds.add(input(1 << 5, 0, 0, chunks.toByteArray()));
        seeds.add(input(7 << 5 | 3, 2, 7, chunks.toByteArray()));
        for (int bits : new int[] {0, 1, 2, 3}) {
            TransportSecurity security = (bits & 1) == 0 ? TransportSecurity.ENCRYPT : TransportSecurity.MAC;
            RecordProtection sender = protection(security, SECRET, (bits & 2) != 0);
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            for (byte[] f : frames) raw.writeBytes(seal(sender, f));
            seeds.add(input(bits | Op.RAW.ordinal() << 2, 0, 0, raw.toByteArray()));
        }
        return seeds;
    }

    private static byte[] input(int control, int index, int param, byte[] rest) {
        byte[] header = {(byte) control, (byte) index, (byte) (param >>> 8), (byte) param};
        byte[] input = Arrays.copyOf(header, HEADER_BYTES + rest.length);
        System.arraycopy(rest, 0, input, HEADER_BYTES, rest.length);
        return input;
    }

    /** @return the chunks after the input's header: u16 length and bytes each; the last one takes what is left */
    private static List<byte[]> chunks(byte[] input) {
        List<byte[]> chunks = new ArrayList<>();
        for (int at = HEADER_BYTES; at < input.length; ) {
            int length = at + 1 < input.length ? (input[at] & 0xff) << 8 | input[at + 1] & 0xff : 0;
            at = Math.min(at + 2, input.length);
            int n = Math.min(length, input.length - at);
            chunks.add(Arrays.copyOfRange(input, at, at + n));
            at += n;
        }
        return chunks;
    }

    private static RecordProtection protection(TransportSecurity security, byte[] secret, boolean tinyKeys) {
        return tinyKeys ? RecordProtection.create(security, secret, TINY_RECORDS_PER_KEY, TINY_BYTES_PER_KEY)
                : RecordProtection.create(security, secret);
    }

    /** @return {@code frame} sealed by {@code sender} as its next record, as {@link RecordEncoder} writes it */
    private static byte[] seal(RecordProtection sender, byte[] frame) {
        ByteBuf record = Unpooled.buffer(frame.length + WireFormat.RECORD_OVERHEAD_BYTES);
        try {
            record.writeInt(frame.length + WireFormat.RECORD_TAG_BYTES).writeBytes(frame).writeZero(WireFormat.RECORD_TAG_BYTES);
            sender.seal(record, 0, frame.length);
            return ByteBufUtil.getBytes(record);
        } finally {
            record.release();
        }
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[Hkdf.HASH_BYTES];
        Arrays.fill(b, (byte) value);
        return b;
    }

    /** Records the frames the record decoder passes on (copies), and passes them on. */
    private static final class Passed extends ChannelInboundHandlerAdapter {
        final List<byte[]> frames = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf frame)) throw new AssertionError("record decoder passed on " + msg);
            frames.add(ByteBufUtil.getBytes(frame));
            ctx.fireChannelRead(msg);
        }
    }

    /**
     * What the relay sends: the bytes, and what the receiver may make of them. {@code chunks} is
     * null in RAW mode; otherwise records {@code [0, tampered)} in the stream are the authentic
     * records of chunks {@code [0, tampered)}, and from {@code tamperedAt} on (if the stream goes
     * that far) comes the tampered one.
     */
    private record Stream(byte[] bytes, int records, List<byte[]> chunks, int tampered, int tamperedAt) {
        static Stream raw(byte[] input) {
            byte[] bytes = Arrays.copyOfRange(input, HEADER_BYTES, input.length);
            // the records the decoder may open: as many as the stream's length fields delimit
            // (summed as longs: a length near Integer.MAX_VALUE plus the header overflows an int)
            ByteBuf lengths = Unpooled.wrappedBuffer(bytes);
            int records = 1;
            for (long at = 0; at + WireFormat.RECORD_HEADER_BYTES <= bytes.length; records++) {
                at += WireFormat.RECORD_HEADER_BYTES + (long) Math.max(0, lengths.getInt((int) at));
            }
            return new Stream(bytes, records, null, 0, 0);
        }

        static Stream sealed(List<byte[]> chunks, TransportSecurity security, boolean tinyKeys, Op op, int index, int param) {
            RecordProtection sender = protection(security, SECRET, tinyKeys);
            List<byte[]> records = new ArrayList<>();
            for (byte[] chunk : chunks) records.add(seal(sender, chunk));
            int n = records.size();
            int i = n == 0 ? 0 : index % n;
            int tampered = n;
            switch (op) {
                case NONE, RAW -> { }
                case FLIP -> {
                    if (n > 0) {
                        byte[] r = records.get(i);
                        int bit = param % (r.length * 8);
                        r[bit / 8] ^= (byte) (1 << (bit % 8));
                        tampered = i;
                    }
                }
                case REPLAY -> {
                    if (n > 0) {
                        records.add(i + 1, records.get(i).clone());
                        tampered = i + 1;
                    }
                }
                case DROP -> {
                    if (n > 0) {
                        records.remove(i);
                        tampered = i;
                    }
                }
                case SWAP -> {
                    if (i + 1 < n) {
                        records.set(i, records.set(i + 1, records.get(i)));
                        tampered = i;
                    }
                }
                case INJECT -> {
                    if (n > 0) {
                        records.add(i, seal(protection(security, OTHER_SECRET, tinyKeys), chunks.get(i)));
                        tampered = i;
                    }
                }
                case TRUNCATE -> {
                    if (n > 0) {
                        records.set(i, Arrays.copyOf(records.get(i), param % records.get(i).length));
                        records.subList(i + 1, n).clear();
                        tampered = i;
                    }
                }
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int tamperedAt = 0;
            for (int r = 0; r < records.size(); r++) {
                if (r == tampered) tamperedAt = out.size();
                out.writeBytes(records.get(r));
            }
            if (tampered >= records.size()) tamperedAt = out.size();
            return new Stream(out.toByteArray(), records.size(), chunks, tampered, tamperedAt);
        }

        /**
         * Checks what the record decoder passed on and why the connection closed (see the class comment).
         *
         * @param frameDecoderRefused whether the frame decoder refused one of the passed frames
         * @param reason the connection's close reason, after the end of the stream
         */
        void check(List<byte[]> passed, boolean frameDecoderRefused, Throwable reason, TransportSecurity security, boolean tinyKeys) {
            if (reason != null && !(reason instanceof CorruptedFrameException && reason.getMessage() != null)) {
                throw new AssertionError("closed with an undocumented reason " + reason, reason);
            }
            String why = reason == null ? null : reason.getMessage();
            if (chunks == null) {
                checkRaw(passed, security, tinyKeys);
            } else {
                checkSealed(passed, frameDecoderRefused, why);
            }
            if (why != null && !frameDecoderRefused && !isRecordLayerReason(why)) {
                throw new AssertionError("the record layer refused with an undocumented reason: " + why);
            }
        }

        private void checkRaw(List<byte[]> passed, TransportSecurity security, boolean tinyKeys) {
            RecordProtection sender = protection(security, SECRET, tinyKeys);
            int at = 0;
            for (int j = 0; j < passed.size(); j++) {
                byte[] record = seal(sender, passed.get(j));
                if (at + record.length > bytes.length || !Arrays.equals(bytes, at, at + record.length, record, 0, record.length)) {
                    throw new AssertionError("record " + j + " passed on a frame its sender did not seal there: "
                            + ByteBufUtil.hexDump(passed.get(j)));
                }
                at += record.length;
            }
        }

        private void checkSealed(List<byte[]> passed, boolean frameDecoderRefused, String why) {
            if (passed.size() > tampered) {
                throw new AssertionError("the record decoder passed on " + passed.size() + " frames, but record " + tampered
                        + " was tampered with: a forged record got through");
            }
            for (int j = 0; j < passed.size(); j++) {
                if (!Arrays.equals(passed.get(j), chunks.get(j))) {
                    throw new AssertionError("record " + j + " passed on " + ByteBufUtil.hexDump(passed.get(j))
                            + ", sealed was " + ByteBufUtil.hexDump(chunks.get(j)));
                }
            }
            if (frameDecoderRefused) return;
            int refused = passed.size();   // the record the record decoder stopped at
            boolean tamperedArrived = bytes.length > tamperedAt;
            if (why == null) {
                if (tamperedArrived) throw new AssertionError("record " + tampered + " was tampered with and the connection stayed open");
                if (refused < Math.min(tampered, chunks.size())) {
                    throw new AssertionError("authentic record " + refused + " was neither passed on nor refused");
                }
                return;
            }
            if (refused < tampered) {
                // an authentic record was refused: only because its chunk is not one frame of a valid length
                byte[] chunk = chunks.get(refused);
                boolean badLength = chunk.length < WireFormat.PREFIX_BYTES;
                boolean notOneFrame = !badLength && Unpooled.wrappedBuffer(chunk).getInt(0) != chunk.length - WireFormat.LENGTH_FIELD_BYTES;
                boolean allowed = why.contains("out of range") ? badLength : why.contains("expected exactly one frame") && notOneFrame;
                if (!allowed) throw new AssertionError("authentic record " + refused + " of chunk " + ByteBufUtil.hexDump(chunk) + " refused: " + why);
            } else if (why.contains("expected exactly one frame")) {
                throw new AssertionError("tampered record " + tampered + " opened: " + why);
            }
        }

        private static boolean isRecordLayerReason(String why) {
            return why.startsWith("connection ended inside record ")
                    || why.startsWith("record ") && (why.contains(" out of range [") || why.contains(" failed authentication (")
                            || why.contains(": expected exactly one frame per record"));
        }
    }
}
