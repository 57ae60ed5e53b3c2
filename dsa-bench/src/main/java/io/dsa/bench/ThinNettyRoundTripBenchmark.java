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
import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The baseline for {@link RemoteMissBenchmark}: the thinnest Netty request/response a person
 * would write for the same job. A 24-byte request (what a GET_S carries) goes to a server on
 * loopback, which answers with {@code bytes} of payload in a length-prefixed frame; the client
 * copies the payload into a {@code byte[]}, as DSA's decoder does. Same event-loop setup as the
 * agents (NIO, one I/O thread per side, TCP_NODELAY).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ThinNettyRoundTripBenchmark {
    @Param({"8192", "131072"})
    int bytes;

    private EventLoopGroup serverGroup;
    private EventLoopGroup clientGroup;
    private Channel server;
    private Channel client;
    private final BlockingQueue<byte[]> replies = new ArrayBlockingQueue<>(1);

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        serverGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        clientGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        byte[] payload = new byte[bytes];
        server = new ServerBootstrap().group(serverGroup).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 30, 0, 4, 0, 4),
                                new LengthFieldPrepender(4),
                                new SimpleChannelInboundHandler<ByteBuf>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf request) {
                                        ByteBuf reply = ctx.alloc().buffer(bytes);
                                        reply.writeBytes(payload);
                                        ctx.writeAndFlush(reply);
                                    }
                                });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        client = new Bootstrap().group(clientGroup).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 30, 0, 4, 0, 4),
                                new LengthFieldPrepender(4),
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

    @Benchmark
    public int roundTrip() throws InterruptedException {
        ByteBuf request = client.alloc().buffer(24);
        request.writeZero(24);
        client.writeAndFlush(request);
        return replies.take().length;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        client.close().sync();
        server.close().sync();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
