package io.dsa.bench.fuzz;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpooled heap allocator that remembers every buffer it hands out, so a fuzz target can check
 * after each input that the code under test released all of them ({@link #checkAllReleased}).
 * Its buffers are not wrapped by Netty's leak detector: the check here is exact and immediate,
 * and the detector's stack-trace records would drown the allocation bound of {@link FuzzChecks}.
 * Not thread-safe: one per input, on one thread.
 */
public final class TrackingAllocator extends AbstractByteBufAllocator {
    private static final UnpooledByteBufAllocator PLAIN = new UnpooledByteBufAllocator(false, true);

    private final List<ByteBuf> handedOut = new ArrayList<>();

    /** Creates an allocator that prefers heap buffers. */
    public TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return track(PLAIN.heapBuffer(initialCapacity, maxCapacity));
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return track(PLAIN.heapBuffer(initialCapacity, maxCapacity)); // heap: the meter counts heap bytes only
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** Tracks a buffer made elsewhere (e.g. an input chunk handed to a channel). @return {@code buf} */
    public ByteBuf track(ByteBuf buf) {
        handedOut.add(buf);
        return buf;
    }

    /** @throws AssertionError naming the first buffer still referenced */
    public void checkAllReleased(String what) {
        for (int i = 0; i < handedOut.size(); i++) {
            ByteBuf b = handedOut.get(i);
            if (b.refCnt() != 0) {
                throw new AssertionError(what + " leaked buffer " + i + " of " + handedOut.size() + ": refCnt " + b.refCnt()
                        + ", " + b.readableBytes() + " readable bytes");
            }
        }
    }
}
