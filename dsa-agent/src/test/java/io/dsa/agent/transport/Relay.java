package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Test helper: an on-path attacker without the cluster secret, as a TCP relay on loopback. It
 * accepts clients, dials the target for each, and forwards both ways: the handshake as it is,
 * then each record the client sends through a {@link Tamper} that decides what the server gets
 * instead (nothing, the same, a changed copy, extra records). Frames and records both start with
 * an int32 count of the bytes that follow, which is how the relay cuts the client's stream: its
 * first unit is the HELLO, the ones after it are records numbered from 0. Public for the system
 * tests in other packages; closes every socket it opened on {@link #close()}.
 */
public final class Relay implements AutoCloseable {
    /** Decides what the server receives in place of the client's record {@code index}. */
    public interface Tamper {
        /**
         * @param index the record's number on this connection, from 0
         * @param record the record's bytes, header included
         * @param out the server's side: write what it should get, or nothing
         * @return false to cut both connections after this record
         */
        boolean forward(int index, byte[] record, OutputStream out) throws IOException;
    }

    /** Forwards every record unchanged. */
    public static final Tamper HONEST = (index, record, out) -> {
        out.write(record);
        return true;
    };

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile Tamper tamper = HONEST;

    private Relay(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "relay-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return a relay listening on a free loopback port, forwarding to {@code host:port} */
    public static Relay start(String host, int port) throws IOException {
        return new Relay(new InetSocketAddress(host, port));
    }

    /** @return the relay's address, for the client to dial: {@code 127.0.0.1:port} */
    public String address() { return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort(); }

    /** Sets what happens to the client's records from now on (on connections open or to come). */
    public void tamper(Tamper tamper) { this.tamper = tamper; }

    /**
     * @return a record carrying {@code message}'s frame as it is, with a tag of zeros: the best a
     *         relay without the keys can make (in MAC mode only the tag is wrong)
     */
    public static byte[] forgedRecord(Object message) {
        ByteBuf frame = Unpooled.buffer();
        WireFormat.writeFrame(MessageType.of(message), message, frame);
        byte[] record = new byte[WireFormat.RECORD_OVERHEAD_BYTES + frame.readableBytes()];
        ByteBuf out = Unpooled.wrappedBuffer(record).clear();
        out.writeInt(frame.readableBytes() + WireFormat.RECORD_TAG_BYTES).writeBytes(frame).writeZero(WireFormat.RECORD_TAG_BYTES);
        frame.release();
        return record;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                sockets.add(client);
                sockets.add(upstream);
                upstream.connect(target, 5_000);
                start("relay-up", () -> clientToServer(client, upstream));
                start("relay-down", () -> copy(upstream, client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void clientToServer(Socket client, Socket upstream) {
        try {
            DataInputStream in = new DataInputStream(client.getInputStream());
            OutputStream out = upstream.getOutputStream();
            out.write(readUnit(in)); // the HELLO
            for (int index = 0; ; index++) {
                byte[] record = readUnit(in);
                boolean goOn = tamper.forward(index, record, out);
                out.flush();
                if (!goOn) {
                    break;
                }
            }
        } catch (IOException e) {
            // one side closed: close the other below
        }
        closeQuietly(client);
        closeQuietly(upstream);
    }

    private static byte[] readUnit(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > (64 << 20)) {
            throw new EOFException("unit length " + length);
        }
        byte[] unit = new byte[4 + length];
        unit[0] = (byte) (length >>> 24);
        unit[1] = (byte) (length >>> 16);
        unit[2] = (byte) (length >>> 8);
        unit[3] = (byte) length;
        in.readFully(unit, 4, length);
        return unit;
    }

    private static void copy(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // closed
        }
        closeQuietly(from);
        closeQuietly(to);
    }

    private static void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
