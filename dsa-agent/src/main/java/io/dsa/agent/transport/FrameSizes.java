package io.dsa.agent.transport;

import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Frame sizes as the runtime needs them before it sends anything, e.g. to refuse at creation an
 * array whose partitions could never cross the wire. Measured on the real encoder once, so they
 * follow the wire layout ({@link WireFormat}) wherever it goes. Thread-safe.
 */
public final class FrameSizes {
    /** Length-field value of a COHERENCE frame whose partition data is empty. */
    private static final int COHERENCE_OVERHEAD_BYTES = measureCoherenceOverhead();

    private FrameSizes() {}

    /**
     * @param dataBytes the partition bytes a coherence message carries
     * @return the frame's length (what {@code maxFrameBytes} limits: every byte after the length field)
     */
    public static long coherenceFrameBytes(long dataBytes) {
        return COHERENCE_OVERHEAD_BYTES + dataBytes;
    }

    private static int measureCoherenceOverhead() {
        ByteBuf frame = Unpooled.buffer();
        try {
            WireFormat.writeFrame(MessageType.COHERENCE, new CoherenceMessage(CoherenceOp.DATA_S, 0, 0, 0, 0, 0, new byte[0]), frame);
            return frame.readableBytes() - WireFormat.LENGTH_FIELD_BYTES;
        } finally {
            frame.release();
        }
    }
}
