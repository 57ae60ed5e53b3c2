package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.wire.HostJobMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The job description a source host sends with {@code beginTransfer}: a {@link HostJobMessage}
 * in an explicit, versioned binary layout (big-endian):
 *
 * <pre>
 * u8 version = 2
 * i64 jobId, utf vmName, i32 nodeId, i32 nodes, i32 threadsPerNode,
 * u8 hasMonitor [utf monitorAddress], utf programClass,
 * i32 count, count x utf args, i32 count, count x utf options,
 * i32 jarBytes, jar,
 * i64 heapBytes, i32 cpus, utf stopToken
 * </pre>
 *
 * The stop token travels with the job, so the launcher's token still stops it on its new host.
 *
 * {@code utf} is {@link DataOutputStream#writeUTF}. A description of another version is refused
 * with a message naming both versions.
 */
final class JobCodec {
    /** The version this build writes and reads. */
    static final int VERSION = 2;
    private static final int MAX_COUNT = 1 << 16;

    private JobCodec() {}

    /** A decoded description: the job and its stop token. */
    record Job(HostJobMessage message, String stopToken) {}

    static byte[] encode(HostJobMessage m, String stopToken) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(m.jar().length + 256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(m.jobId());
            out.writeUTF(m.vmName());
            out.writeInt(m.nodeId());
            out.writeInt(m.nodes());
            out.writeInt(m.threadsPerNode());
            out.writeBoolean(m.monitorAddress() != null);
            if (m.monitorAddress() != null) out.writeUTF(m.monitorAddress());
            out.writeUTF(m.programClass());
            writeStrings(out, m.args());
            writeStrings(out, m.options());
            out.writeInt(m.jar().length);
            out.write(m.jar());
            out.writeLong(m.heapBytes());
            out.writeInt(m.cpus());
            out.writeUTF(stopToken);
        } catch (IOException e) {
            throw new DsaException("cannot encode the job of node " + m.nodeId() + ": " + e.getMessage(), e);
        }
        return bytes.toByteArray();
    }

    /** @throws DsaException for another version, or bytes that do not decode */
    static Job decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new DsaException("job description version " + version + " is unknown; this host reads version " + VERSION);
            }
            long jobId = in.readLong();
            String vm = in.readUTF();
            int node = in.readInt();
            int nodes = in.readInt();
            int threads = in.readInt();
            String monitor = in.readBoolean() ? in.readUTF() : null;
            String program = in.readUTF();
            List<String> args = readStrings(in, "args");
            List<String> options = readStrings(in, "options");
            int jarBytes = in.readInt();
            if (jarBytes < 0 || jarBytes > in.available()) {
                throw new DsaException("job description: jar of " + jarBytes + " bytes, but " + in.available() + " left");
            }
            byte[] jar = in.readNBytes(jarBytes);
            long heapBytes = in.readLong();
            int cpus = in.readInt();
            String stopToken = in.readUTF();
            if (in.available() != 0) throw new DsaException("job description: " + in.available() + " trailing bytes");
            return new Job(new HostJobMessage(jobId, vm, node, nodes, threads, monitor, program, args, options, jar, heapBytes, cpus),
                    stopToken);
        } catch (IOException e) {
            throw new DsaException("job description does not decode: " + e, e);
        }
    }

    private static void writeStrings(DataOutputStream out, List<String> list) throws IOException {
        out.writeInt(list.size());
        for (String s : list) out.writeUTF(s);
    }

    private static List<String> readStrings(DataInputStream in, String field) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_COUNT) throw new DsaException("job description: " + field + " count " + n + " out of range [0, " + MAX_COUNT + "]");
        List<String> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) list.add(in.readUTF());
        return list;
    }
}
