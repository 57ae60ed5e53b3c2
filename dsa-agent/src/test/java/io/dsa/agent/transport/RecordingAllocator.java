package io.dsa.agent.transport;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: an unpooled allocator that keeps every buffer it made, so that a test can count
 * them, see their capacities and check that all were released (refCnt 0), beside the paranoid
 * leak detection of the build. Not thread-safe: for embedded channels.
 */
final class RecordingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> heap = new ArrayList<>();
    private final List<ByteBuf> direct = new ArrayList<>();
    private final List<Integer> heapCapacities = new ArrayList<>();

    RecordingAllocator() {
        super(true);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
        heap.add(b);
        heapCapacities.add(initialCapacity);
        return b;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
        direct.add(b);
        return b;
    }

    @Override
    public boolean isDirectBufferPooled() { return false; }

    /** @return the capacity each heap buffer made so far was asked for, oldest first (a released buffer reports 0) */
    List<Integer> heapCapacities() { return heapCapacities; }

    /** @return how many buffers (heap and direct) were made so far */
    int count() { return heap.size() + direct.size(); }

    /** @return whether every buffer made so far has been released */
    boolean allReleased() {
        return heap.stream().allMatch(b -> b.refCnt() == 0) && direct.stream().allMatch(b -> b.refCnt() == 0);
    }

    /** Forgets the buffers made so far. */
    void clear() {
        heap.clear();
        heapCapacities.clear();
        direct.clear();
    }
}
