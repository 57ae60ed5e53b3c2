package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LaneChannel} between a listener and a dialer of this JVM: frames before and after node
 * 0's offer of shared memory arrive in order, the dialer removes the lane file, and an offer that
 * comes from the dialer's side is refused.
 */
@Timeout(30)
class LaneChannelTest {
    private static final byte[] TOKEN = new byte[LaneChannel.TOKEN_BYTES];

    // Polls `lane` until `count` messages arrived (the channels are non-blocking).
    private static List<Object> receive(LaneChannel lane, int count) throws IOException {
        List<Object> got = new ArrayList<>();
        while (got.size() < count) {
            if (lane.receive(got::add) == 0) Thread.onSpinWait();
        }
        return got;
    }

    @Test
    void framesBeforeAndAfterTheOfferArriveInOrderAndTheFileIsGone() throws Exception {
        try (LaneListener listener = LaneListener.open();
             LaneChannel dialer = LaneChannel.dial(listener.path(), 1, TOKEN)) {
            LaneChannel accepted;
            while ((accepted = listener.accept()) == null) Thread.onSpinWait();
            try (LaneChannel node0 = accepted) {
                LaneChannel.Hello hello;
                while ((hello = node0.readHello()) == null) Thread.onSpinWait();
                assertEquals(1, hello.node());
                // a release before the offer goes on the socket; the offer; then a release in the ring
                assertTrue(node0.trySend(new BarrierReleaseMessage(0, 1, new long[] {7})));
                var file = listener.nextRingFile(1);
                node0.offerRing(file);
                assertTrue(Files.exists(file));
                assertTrue(node0.trySend(new BarrierReleaseMessage(0, 2, new long[] {8})));
                assertEquals(1, node0.ringFrames());
                List<Object> got = receive(dialer, 2);
                assertEquals(List.of(1L, 2L), got.stream().map(m -> ((BarrierReleaseMessage) m).generation()).toList());
                assertTrue(dialer.hasRing());
                assertFalse(Files.exists(file), "the dialer removed the lane file once it had mapped it");
                // the dialer's arrivals go into its ring now, and node 0 reads them from there
                assertTrue(dialer.trySend(new BarrierArriveMessage(0, 3, 1, 1, new long[] {9})));
                assertEquals(1, dialer.ringFrames());
                Object arrival = receive(node0, 1).get(0);
                assertEquals(3L, ((BarrierArriveMessage) arrival).generation());
            }
        }
    }

    @Test
    void anOfferOfSharedMemoryFromTheDialersSideIsRefused() throws Exception {
        try (LaneListener listener = LaneListener.open();
             SocketChannel rogue = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            rogue.connect(UnixDomainSocketAddress.of(listener.path()));
            byte[] path = listener.nextRingFile(1).toString().getBytes(StandardCharsets.UTF_8);
            ByteBuffer b = ByteBuffer.allocate(4 + TOKEN.length + 4 + 2 + path.length);
            b.putInt(1).put(TOKEN).putInt(2 + path.length).put((byte) 0).put((byte) 2).put(path).flip();
            while (b.hasRemaining()) rogue.write(b);
            LaneChannel accepted;
            while ((accepted = listener.accept()) == null) Thread.onSpinWait();
            try (LaneChannel node0 = accepted) {
                while (node0.readHello() == null) Thread.onSpinWait();
                IOException e = assertThrows(IOException.class, () -> receive(node0, 1));
                assertTrue(e.getMessage().contains("lane control frame of kind 2"), e.getMessage());
                assertFalse(node0.hasRing());
                assertNotNull(listener.ringDirectory());
            }
        }
    }
}
