package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The field primitives every body is made of ({@link WireFormat}, "Body fields"): strings, lists,
 * arrays, booleans and codes. Every count is checked against the bytes left in the frame before
 * anything is allocated, so a forged count cannot make a reader allocate. Stateless.
 */
final class WireFields {
    private WireFields() {}

    static void writeIdAndInt(long requestId, int value, ByteBuf out) {
        out.writeLong(requestId);
        out.writeInt(value);
    }

    static void writeString(String s, ByteBuf out) {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        int bytes = out.writeCharSequence(s, StandardCharsets.UTF_8);
        out.setInt(lengthIndex, bytes);
    }

    static String readString(ByteBuf in, String field) {
        int bytes = readCount(in, field, 1);
        if (bytes < 0) {
            return null;
        }
        String s = in.toString(in.readerIndex(), bytes, StandardCharsets.UTF_8);
        in.skipBytes(bytes);
        return s;
    }

    static void writeStrings(List<String> list, ByteBuf out) {
        if (list == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(list.size());
        for (int i = 0; i < list.size(); i++) {
            writeString(list.get(i), out);
        }
    }

    static List<String> readStrings(ByteBuf in, String field) {
        int count = readCount(in, field, Integer.BYTES);
        if (count < 0) {
            return null;
        }
        String[] strings = new String[count];
        for (int i = 0; i < count; i++) {
            strings[i] = readString(in, field + "[" + i + "]");
        }
        return Arrays.asList(strings);
    }

    /**
     * {@link #readStrings} for a list that is never absent and holds no absent string (a record
     * that copies it refuses nulls).
     *
     * @throws CorruptedFrameException for a count or a string length of -1 (absent)
     */
    static List<String> readPresentStrings(ByteBuf in, String field) {
        List<String> strings = readStrings(in, field);
        if (strings == null) throw new CorruptedFrameException(field + " absent (count -1), expected a list");
        for (int i = 0; i < strings.size(); i++) {
            if (strings.get(i) == null) throw new CorruptedFrameException(field + "[" + i + "] absent (length -1), expected a string");
        }
        return strings;
    }

    /** @return a string that must be present @throws CorruptedFrameException for a length of -1 (absent) */
    static String readPresentString(ByteBuf in, String field) {
        String s = readString(in, field);
        if (s == null) throw new CorruptedFrameException(field + " absent (length -1), expected a string");
        return s;
    }

    static void writeLongs(long[] values, ByteBuf out) {
        if (values == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(values.length);
        // one bulk copy through a view of the buffer, not a bounds check (and, under Netty's leak
        // detector, a recorded stack trace) per value; big-endian like writeLong
        int bytes = values.length * Long.BYTES;
        out.ensureWritable(bytes);
        if (out.nioBufferCount() != 1) { // a composite buffer's view would be a copy
            for (long v : values) out.writeLong(v);
            return;
        }
        out.nioBuffer(out.writerIndex(), bytes).asLongBuffer().put(values);
        out.writerIndex(out.writerIndex() + bytes);
    }

    static long[] readLongs(ByteBuf in, String field) {
        int count = readCount(in, field, Long.BYTES);
        if (count < 0) {
            return null;
        }
        long[] values = new long[count];
        int bytes = count * Long.BYTES;
        in.nioBuffer(in.readerIndex(), bytes).asLongBuffer().get(values); // bulk, big-endian like readLong
        in.skipBytes(bytes);
        return values;
    }

    static void writeBytes(byte[] bytes, ByteBuf out) {
        if (bytes == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(bytes.length);
        out.writeBytes(bytes);
    }

    static byte[] readBytes(ByteBuf in, String field) {
        int count = readCount(in, field, 1);
        if (count < 0) {
            return null;
        }
        byte[] bytes = new byte[count];
        in.readBytes(bytes);
        return bytes;
    }

    static TransportSecurity readSecurity(ByteBuf in) {
        int code = in.readUnsignedByte();
        TransportSecurity security = TransportSecurity.fromCode(code);
        if (code == TransportSecurity.RETIRED_MAC_CODE) {
            throw new CorruptedFrameException("transport security code " + code + " is MAC with HMAC-SHA256 on every"
                    + " frame, which this build no longer speaks (its MAC is code " + TransportSecurity.MAC.code()
                    + "): the peer runs an older DSA build");
        }
        if (security == null) {
            throw new CorruptedFrameException("unknown transport security code " + code + ", expected one of "
                    + Arrays.stream(TransportSecurity.values()).map(t -> t.code() + " (" + t + ")").toList());
        }
        return security;
    }

    static boolean readBoolean(ByteBuf in, String field) {
        int b = in.readUnsignedByte();
        if (b > 1) {
            throw new CorruptedFrameException(field + " is " + b + ", expected 0 or 1");
        }
        return b == 1;
    }

    /**
     * Reads an int32 count of elements of at least {@code minElementBytes} each and checks it
     * against the bytes left, so a forged count cannot make us allocate.
     *
     * @return the count, or -1 for null
     */
    static int readCount(ByteBuf in, String field, int minElementBytes) {
        int count = in.readInt();
        if (count < -1) {
            throw new CorruptedFrameException(field + " count " + count + " negative, expected >= -1");
        }
        if (count > 0 && (long) count * minElementBytes > in.readableBytes()) {
            throw new CorruptedFrameException(field + " count " + count + " needs at least "
                    + (long) count * minElementBytes + " bytes, " + in.readableBytes() + " left in frame");
        }
        return count;
    }
}
