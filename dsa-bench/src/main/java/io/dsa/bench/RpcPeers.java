package io.dsa.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The request/response baselines of {@code dsa bench miss}, written in the bench: a thin Netty
 * round trip (length-prefixed frames, NIO, one I/O thread per side, TCP_NODELAY, the client copies
 * the payload into a {@code byte[]} as DSA's decoder does) and a plain {@link Socket} RPC. A
 * 24-byte request (what a GET_S carries; its first int is the reply size) gets a reply of that
 * many payload bytes. {@link #main} is the server process: it prints {@code "ports NETTY SOCKET"}
 * and serves until its standard input closes; {@link ServerProcess} starts it from the bench.
 */
final class RpcPeers {
    static final int REQUEST_BYTES = 24;
    /** The largest reply: 4 MiB, the largest partition {@code dsa bench stream} measures. */
    static final int MAX_REPLY = 4 << 20;

    private RpcPeers() {}

    /** The server process. */
    public static void main(String[] args) throws Exception {
        byte[] payload = new byte[MAX_REPLY];
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Channel netty = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_REPLY + 4, 0, 4, 0, 4), new LengthFieldPrepender(4),
                                new SimpleChannelInboundHandler<ByteBuf>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf request) {
                                        int size = request.readInt();
                                        ByteBuf reply = ctx.alloc().buffer(size);
                                        reply.writeBytes(payload, 0, size);
                                        ctx.writeAndFlush(reply);
                                    }
                                });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        ServerSocket plain = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> servePlain(plain, payload), "socket-rpc-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        System.out.println("ports " + ((InetSocketAddress) netty.localAddress()).getPort() + " " + plain.getLocalPort());
        System.out.flush();
        while (System.in.read() >= 0) { /* serve until the parent closes our stdin */ }
        plain.close();
        netty.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static void servePlain(ServerSocket server, byte[] payload) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                Thread t = new Thread(() -> {
                    try (s; DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                         DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16))) {
                        byte[] request = new byte[REQUEST_BYTES];
                        while (true) {
                            in.readFully(request);
                            int size = ((request[0] & 0xff) << 24) | ((request[1] & 0xff) << 16) | ((request[2] & 0xff) << 8) | (request[3] & 0xff);
                            out.writeInt(size);
                            out.write(payload, 0, size);
                            out.flush();
                        }
                    } catch (IOException closed) {
                        // the client went away
                    }
                }, "socket-rpc");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** A thin Netty client: {@link #roundTrip} sends a request for {@code size} bytes and waits for them. */
    static final class NettyClient implements AutoCloseable {
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final BlockingQueue<byte[]> replies = new ArrayBlockingQueue<>(1);
        private final Channel channel;

        NettyClient(int port) throws InterruptedException {
            channel = new Bootstrap().group(group).channel(NioSocketChannel.class).option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_REPLY + 4, 0, 4, 0, 4), new LengthFieldPrepender(4),
                                    new SimpleChannelInboundHandler<ByteBuf>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf reply) {
                                            byte[] data = new byte[reply.readableBytes()];
                                            reply.readBytes(data);
                                            replies.add(data);
                                        }
                                    });
                        }
                    }).connect("127.0.0.1", port).sync().channel();
        }

        byte[] roundTrip(int size) throws InterruptedException {
            ByteBuf request = channel.alloc().buffer(REQUEST_BYTES);
            request.writeInt(size).writeZero(REQUEST_BYTES - 4);
            channel.writeAndFlush(request);
            return replies.take();
        }

        @Override
        public void close() throws InterruptedException {
            channel.close().sync();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** A plain blocking-socket client. */
    static final class SocketClient implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        private final DataOutputStream out;

        SocketClient(int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
            out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        }

        byte[] roundTrip(int size) throws IOException {
            out.writeInt(size);
            out.write(new byte[REQUEST_BYTES - 4]);
            out.flush();
            byte[] data = new byte[in.readInt()];
            in.readFully(data);
            return data;
        }

        @Override
        public void close() throws IOException { socket.close(); }
    }

    /** The server ({@link #main}) in a child JVM of this class path; {@link #close} stops it (stdin closed, then killed). */
    static final class ServerProcess implements AutoCloseable {
        private final Process process;
        final int nettyPort;
        final int socketPort;

        ServerProcess() throws IOException {
            process = new ProcessBuilder(ProcessVm.java(), "-cp", ProcessVm.classPath(), RpcPeers.class.getName())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            java.io.BufferedReader in = new java.io.BufferedReader(
                    new java.io.InputStreamReader(process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null || !line.startsWith("ports ")) {
                process.destroyForcibly();
                throw new IOException("RPC server did not start: " + line);
            }
            String[] ports = line.split(" ");
            nettyPort = Integer.parseInt(ports[1]);
            socketPort = Integer.parseInt(ports[2]);
        }

        @Override
        public void close() throws IOException, InterruptedException {
            process.getOutputStream().close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }

    /**
     * Times {@code iters} round trips of {@code bytes} on each client, alternating, after
     * {@code warmup} untimed ones. @return {thin Netty median ns, socket RPC median ns}
     */
    static double[] medianRoundTripNs(NettyClient netty, SocketClient socket, int bytes, int warmup, int iters)
            throws IOException, InterruptedException {
        double[] n = new double[iters];
        double[] p = new double[iters];
        for (int k = -warmup; k < iters; k++) {
            long t0 = System.nanoTime();
            int got = netty.roundTrip(bytes).length;
            long t1 = System.nanoTime();
            got += socket.roundTrip(bytes).length;
            long t2 = System.nanoTime();
            if (got != 2 * bytes) throw new IOException("RPC replies of " + got + " bytes, expected " + 2 * bytes);
            if (k >= 0) {
                n[k] = t1 - t0;
                p[k] = t2 - t1;
            }
        }
        return new double[] {BenchOut.median(n), BenchOut.median(p)};
    }
}
