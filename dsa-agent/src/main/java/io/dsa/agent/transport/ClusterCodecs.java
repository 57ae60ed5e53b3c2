package io.dsa.agent.transport;

import static io.dsa.agent.transport.WireFields.readBoolean;
import static io.dsa.agent.transport.WireFields.readBytes;
import static io.dsa.agent.transport.WireFields.readLongs;
import static io.dsa.agent.transport.WireFields.readString;
import static io.dsa.agent.transport.WireFields.readStrings;
import static io.dsa.agent.transport.WireFields.writeBytes;
import static io.dsa.agent.transport.WireFields.writeLongs;
import static io.dsa.agent.transport.WireFields.writeString;
import static io.dsa.agent.transport.WireFields.writeStrings;

import io.dsa.agent.wire.AccumulateMessage;
import io.dsa.agent.wire.AccumulatedMessage;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LaneOfferMessage;
import io.dsa.agent.wire.LaneRequestMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.PushMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import io.dsa.agent.wire.ViewMessage;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * The codecs of the messages between the nodes of a VM and their monitor (codes 10..27:
 * membership, shared objects, barriers, locks, accumulate and diffs; and 34, owner computes'
 * pushes); encode beside decode.
 */
final class ClusterCodecs {
    private ClusterCodecs() {}

    static final MessageCodec<JoinMessage> JOIN = MessageCodec.of((m, out) -> {
        out.writeInt(m.nodeId());
        writeString(m.host(), out);
        out.writeInt(m.port());
    }, body -> new JoinMessage(body.readInt(), readString(body, "host"), body.readInt()));

    static final MessageCodec<ViewMessage> VIEW = MessageCodec.of((m, out) -> {
        out.writeInt(m.threadsPerNode());
        writeStrings(m.addresses(), out);
    }, body -> new ViewMessage(body.readInt(), readStrings(body, "addresses")));

    static final MessageCodec<RegisterMessage> REGISTER = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.kind());
        writeString(m.name(), out);
        writeLongs(m.params(), out);
    }, body -> new RegisterMessage(body.readLong(), body.readInt(), readString(body, "name"), readLongs(body, "params")));

    static final MessageCodec<RegisteredMessage> REGISTERED = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.objectId());
        out.writeInt(m.home());
        writeString(m.error(), out);
    }, body -> new RegisteredMessage(body.readLong(), body.readInt(), body.readInt(), readString(body, "error")));

    static final MessageCodec<DefineMessage> DEFINE = MessageCodec.of((m, out) -> {
        out.writeInt(m.kind());
        out.writeInt(m.objectId());
        out.writeInt(m.home());
        writeString(m.name(), out);
        writeLongs(m.params(), out);
    }, body -> new DefineMessage(body.readInt(), body.readInt(), body.readInt(), readString(body, "name"),
            readLongs(body, "params")));

    static final MessageCodec<VarOpMessage> VAR_OP = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.varId());
        out.writeInt(m.op());
        out.writeLong(m.a());
        out.writeLong(m.b());
    }, body -> new VarOpMessage(body.readLong(), body.readInt(), body.readInt(), body.readLong(), body.readLong()));

    static final MessageCodec<VarResultMessage> VAR_RESULT = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeLong(m.value());
        out.writeBoolean(m.success());
    }, body -> new VarResultMessage(body.readLong(), body.readLong(), readBoolean(body, "success")));

    static final MessageCodec<AccumulateMessage> ACCUMULATE = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.arrayId());
        out.writeInt(m.partition());
        out.writeInt(m.op());
        out.writeInt(m.base());
        out.writeInt(m.rows());
        out.writeInt(m.cols());
        writeBytes(m.values(), out);
    }, body -> new AccumulateMessage(body.readLong(), body.readInt(), body.readInt(), body.readInt(), body.readInt(),
            body.readInt(), body.readInt(), readBytes(body, "values")));

    static final MessageCodec<AccumulatedMessage> ACCUMULATED = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.error(), out);
    }, body -> new AccumulatedMessage(body.readLong(), readString(body, "error")));

    static final MessageCodec<DiffMessage> DIFF = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.arrayId());
        out.writeInt(m.partition());
        out.writeInt(m.op());
        writeLongs(m.runs(), out);
        if (m.scattered()) {
            writeScattered(m, out);
        } else {
            writeBytes(m.values(), out);
        }
    }, body -> new DiffMessage(body.readLong(), body.readInt(), body.readInt(), body.readInt(), readLongs(body, "runs"),
            readBytes(body, "values")));

    // A scattered diff's values as writeBytes writes packed ones: the count, then each run's values from the run's own elements.
    private static void writeScattered(DiffMessage m, ByteBuf out) {
        long bytes = m.packedBytes();
        int size = m.scatteredElementBytes();
        for (long run : m.runs()) {
            if (DiffMessage.first(run) < 0 || DiffMessage.count(run) < 0
                    || (DiffMessage.first(run) + (long) DiffMessage.count(run)) * size > m.values().length) {
                throw new IllegalArgumentException("scattered diff " + m + ": run of " + DiffMessage.count(run) + " elements from "
                        + DiffMessage.first(run) + " is outside its " + m.values().length + " bytes of values");
            }
        }
        if (bytes > Integer.MAX_VALUE) throw new IllegalArgumentException("scattered diff " + m + ": " + bytes + " bytes of values");
        out.writeInt((int) bytes);
        for (long run : m.runs()) out.writeBytes(m.values(), DiffMessage.first(run) * size, DiffMessage.count(run) * size);
    }

    static final MessageCodec<PushMessage> PUSH = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        out.writeInt(m.arrayId());
        writeLongs(m.parts(), out);
        long total = m.valueBytes();
        if (m.parts().length > 0 && (m.sources() == null ? m.values() == null : m.sources().length != m.parts().length)) {
            throw new IllegalArgumentException(m + ": " + m.parts().length + " parts without as many sources or values");
        }
        if (total > Integer.MAX_VALUE || total < 0) throw new IllegalArgumentException(m + ": " + total + " bytes of values");
        out.writeInt((int) total);
        if (m.sources() == null) {
            if (m.values() != null && m.values().length != total) {
                throw new IllegalArgumentException(m + ": " + m.values().length + " bytes of values, the parts add up to " + total);
            }
            if (m.values() != null) out.writeBytes(m.values());
            return;
        }
        for (int i = 0; i < m.parts().length; i++) {
            int bytes = PushMessage.bytes(m.parts()[i]);
            if (bytes < 0 || bytes > m.sources()[i].length) {
                throw new IllegalArgumentException(m + ": part " + i + " of " + bytes + " bytes from a source of " + m.sources()[i].length);
            }
            out.writeBytes(m.sources()[i], 0, bytes);
        }
    }, body -> {
        long requestId = body.readLong();
        int arrayId = body.readInt();
        long[] parts = readLongs(body, "parts");
        if (parts == null) throw new CorruptedFrameException("push parts absent (count -1)");
        long total = 0;
        for (long p : parts) {
            if (PushMessage.bytes(p) < 0) throw new CorruptedFrameException("push part of " + PushMessage.bytes(p) + " bytes, expected >= 0");
            total += PushMessage.bytes(p);
        }
        byte[] values = readBytes(body, "push values");
        if (values == null || values.length != total) {
            throw new CorruptedFrameException("push values of " + (values == null ? -1 : values.length) + " bytes, its parts add up to "
                    + total);
        }
        return new PushMessage(requestId, arrayId, parts, null, values);
    });

    static final MessageCodec<DiffAppliedMessage> DIFF_APPLIED = MessageCodec.of((m, out) -> {
        out.writeLong(m.requestId());
        writeString(m.error(), out);
    }, body -> new DiffAppliedMessage(body.readLong(), readString(body, "error")));

    static final MessageCodec<BarrierArriveMessage> BARRIER_ARRIVE = MessageCodec.of((m, out) -> {
        out.writeInt(m.barrierId());
        out.writeLong(m.generation());
        out.writeInt(m.node());
        out.writeInt(m.arrivals());
        writeLongs(m.values(), out);
        writeLongs(m.payload(), out);
    }, body -> new BarrierArriveMessage(body.readInt(), body.readLong(), body.readInt(), body.readInt(),
            readLongs(body, "values"), readLongs(body, "payload")));

    static final MessageCodec<BarrierReleaseMessage> BARRIER_RELEASE = MessageCodec.of((m, out) -> {
        out.writeInt(m.barrierId());
        out.writeLong(m.generation());
        writeLongs(m.values(), out);
        writeLongs(m.payload(), out);
    }, body -> new BarrierReleaseMessage(body.readInt(), body.readLong(), readLongs(body, "values"), readLongs(body, "payload")));

    static final MessageCodec<LockMessage> LOCK = MessageCodec.of((m, out) -> {
        out.writeInt(m.lockId());
        out.writeInt(m.op());
        out.writeInt(m.node());
        out.writeLong(m.requestId());
    }, body -> new LockMessage(body.readInt(), body.readInt(), body.readInt(), body.readLong()));

    static final MessageCodec<ReportMessage> REPORT = MessageCodec.of((m, out) -> {
        out.writeInt(m.node());
        writeString(m.text(), out);
    }, body -> new ReportMessage(body.readInt(), readString(body, "text")));

    static final MessageCodec<StatusMessage> STATUS = MessageCodec.of((m, out) -> {
        out.writeInt(m.node());
        out.writeInt(m.code());
        writeString(m.text(), out);
    }, body -> new StatusMessage(body.readInt(), body.readInt(), readString(body, "text")));

    static final MessageCodec<LaneRequestMessage> LANE_REQUEST = MessageCodec.of((m, out) -> out.writeInt(m.node()),
            body -> new LaneRequestMessage(body.readInt()));

    static final MessageCodec<LaneOfferMessage> LANE_OFFER = MessageCodec.of((m, out) -> {
        writeString(m.path(), out);
        writeBytes(m.token(), out);
    }, body -> new LaneOfferMessage(readString(body, "path"), readBytes(body, "token")));
}
