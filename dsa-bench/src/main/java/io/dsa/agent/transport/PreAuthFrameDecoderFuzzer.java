package io.dsa.agent.transport;

import java.util.List;

/**
 * Fuzz target: the frame decoder of a connection that has not authenticated yet (handshake
 * frames only, at most {@value WireFormat#MAX_HANDSHAKE_FRAME_BYTES} bytes each), fed an arbitrary
 * byte stream. Input and assertions as {@link FrameDecoderFuzzer}.
 */
public final class PreAuthFrameDecoderFuzzer {
    private PreAuthFrameDecoderFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        FrameDecoderFuzzer.decodeStream("handshake frame decoder", input, true, WireFormat.MAX_HANDSHAKE_FRAME_BYTES);
    }

    /** @return real handshake frames, whole and cut into reads of 1 and 7 bytes */
    public static List<byte[]> seeds() {
        return FrameDecoderFuzzer.streams(true);
    }
}
