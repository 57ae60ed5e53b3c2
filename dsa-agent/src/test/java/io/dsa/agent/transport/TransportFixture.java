package io.dsa.agent.transport;

import io.dsa.agent.wire.ReportMessage;
import org.junit.jupiter.api.AfterEach;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the transport tests on real loopback sockets share: the configuration of a run (native
 * epoll or NIO, the security mode, which subclasses choose), transports and raw sockets closed
 * after each test, and helpers to speak the wire by hand.
 */
abstract class TransportFixture {
    static final byte[] SECRET = "0123456789abcdef-cluster-secret".getBytes(StandardCharsets.UTF_8);
    static final String VM = "test-vm";
    static final String LOOPBACK = "127.0.0.1";

    final List<Transport> transports = new ArrayList<>();
    final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void closeAll() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        for (Transport t : transports) {
            t.close();
        }
    }

    /** @return whether this run uses native epoll (when available); a subclass runs everything on NIO */
    boolean nativeTransport() { return true; }

    /** @return the protection every connection of this run uses; a subclass runs everything with MAC */
    TransportSecurity security() { return TransportSecurity.ENCRYPT; }

    TransportConfig.Builder config(int nodeId) {
        return TransportConfig.builder().bindHost(LOOPBACK).port(0).vmName(VM).nodeId(nodeId).secret(SECRET)
                .preferNativeTransport(nativeTransport()).security(security());
    }

    Transport start(TransportConfig.Builder config, InboundHandler handler) {
        Transport t = Transport.start(config.build(), handler);
        transports.add(t);
        return t;
    }

    static int port(Transport t) { return t.boundAddress().getPort(); }

    static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    static Throwable awaitFailure(CompletableFuture<?> future) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }


    // ---- raw socket helpers

    record RawFrame(int version, int type, byte[] body) {}

    interface BodyWriter {
        void write(DataOutputStream body) throws IOException;
    }

    Socket rawSocket(Transport server) throws IOException {
        return rawSocketFrom(server, LOOPBACK);
    }

    Socket rawSocketFrom(Transport server, String source) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.bind(new InetSocketAddress(source, 0));
        s.connect(new InetSocketAddress(LOOPBACK, port(server)), 5_000);
        s.setSoTimeout(10_000);
        return s;
    }

    void assertServes(Transport server, RecordingHandler serverSide) throws Exception {
        Transport friend = start(config(9), new RecordingHandler());
        Connection c = await(friend.connect(LOOPBACK, port(server)));
        c.send(new ReportMessage(9, "still here"));
        assertEquals(new ReportMessage(9, "still here"), serverSide.awaitMessage());
    }

    static RawFrame readFrame(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length = data.readInt();
        assertTrue(length >= 2 && length < 4096, "frame length " + length);
        int version = data.readUnsignedByte();
        int type = data.readUnsignedByte();
        byte[] body = new byte[length - 2];
        data.readFully(body);
        return new RawFrame(version, type, body);
    }

    static void writeFrame(DataOutputStream out, int version, int type, BodyWriter writer) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        writer.write(new DataOutputStream(bytes));
        // One write for the whole frame: the server may close as soon as it has read a bad header,
        // and a second write would then fail with a broken pipe instead of reaching the assertion.
        java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream();
        DataOutputStream header = new DataOutputStream(frame);
        header.writeInt(bytes.size() + 2);
        header.writeByte(version);
        header.writeByte(type);
        bytes.writeTo(frame);
        frame.writeTo(out);
        out.flush();
    }

    static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads until the peer closes; fails if it sends a frame's worth or stays open too long. */
    static void assertEndOfStream(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        byte[] buffer = new byte[4096];
        try {
            int n;
            do {
                n = in.read(buffer);
            } while (n >= 0);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("peer did not close the connection", e);
        } catch (SocketException reset) {
            // connection reset: closed too
        }
    }
}
