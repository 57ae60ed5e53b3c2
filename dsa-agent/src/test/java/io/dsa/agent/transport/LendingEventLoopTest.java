package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lending event loop ({@link IoLoop#start(String, boolean, java.util.function.LongSupplier, boolean)})
 * on real threads and sockets: a thread that spins in a wait runs the loop's tasks and reads the
 * reply it waits for itself; the loop's tasks never run two at once, and each runs on the thread
 * the loop names as its own at that moment; once no thread waits, the loop's own thread runs them
 * again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LendingEventLoopTest {
    private static final int ROUND_TRIPS = 20;

    @Test
    void aWaitingThreadReadsTheReplyItWaitsFor() throws Exception {
        EventLoopGroup serverGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (IoLoop loop = IoLoop.start("lend-test", true, () -> 0, true)) {
            Channel server = new ServerBootstrap().group(serverGroup).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) { ctx.writeAndFlush(msg); }   // echo
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            AtomicReference<Thread> reader = new AtomicReference<>();
            AtomicInteger bytes = new AtomicInteger();
            Channel client = new Bootstrap().group(loop.group())
                    .channel(loop.epoll() ? EpollSocketChannel.class : NioSocketChannel.class)
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ByteBuf b = (ByteBuf) msg;
                                    assertTrue(loop.inLoop(), "the reader is the loop's driver");
                                    if (bytes.addAndGet(b.readableBytes()) == 8) reader.set(Thread.currentThread());
                                    b.release();
                                }
                            });
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            Thread me = Thread.currentThread();
            int readHere = 0;
            for (int i = 0; i < ROUND_TRIPS; i++) {
                reader.set(null);
                bytes.set(0);
                loop.waitBegins();
                try {
                    client.writeAndFlush(Unpooled.copyLong(i));
                    while (reader.get() == null) {
                        if (!loop.waitTurn()) Thread.onSpinWait();
                    }
                } finally {
                    loop.waitEnds();
                }
                assertFalse(loop.inLoop(), "after its wait the thread is not the driver");
                if (reader.get() == me) readHere++;
            }
            System.out.println("replies read by the waiting thread: " + readHere + " of " + ROUND_TRIPS);
            // the loop's thread may have read a reply while this thread was off its core for a lease; not most of them
            assertTrue(readHere >= ROUND_TRIPS / 2, readHere + " of " + ROUND_TRIPS + " replies read by the waiting thread");
            client.close().sync();
            server.close().sync();
        } finally {
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void tasksRunOneAtATimeOnTheDriverAndOnTheLoopsThreadOnceNobodyWaits() throws Exception {
        int waiters = 3;
        int posters = 2;
        int tasksEach = 20_000;
        try (IoLoop loop = IoLoop.start("lend-test", true, () -> 0, true)) {
            AtomicInteger inTask = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger notDriver = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            ConcurrentHashMap<String, AtomicInteger> byThread = new ConcurrentHashMap<>();
            Runnable task = () -> {
                if (inTask.incrementAndGet() != 1) overlaps.incrementAndGet();
                if (!loop.inLoop()) notDriver.incrementAndGet();
                byThread.computeIfAbsent(Thread.currentThread().getName(), n -> new AtomicInteger()).incrementAndGet();
                ran.incrementAndGet();
                inTask.decrementAndGet();
            };
            CountDownLatch postersDone = new CountDownLatch(posters);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < posters; p++) {
                threads.add(new Thread(() -> {
                    for (int k = 0; k < tasksEach; k++) {
                        loop.execute(task);
                        for (int t = k % 64; t > 0; t--) Thread.onSpinWait();   // spread over the waiters' waits
                    }
                    postersDone.countDown();
                }, "poster-" + p));
            }
            for (int w = 0; w < waiters; w++) {
                threads.add(new Thread(() -> {
                    java.util.SplittableRandom random = new java.util.SplittableRandom(Thread.currentThread().getName().hashCode());
                    while (postersDone.getCount() > 0 || ran.get() < posters * tasksEach) {
                        loop.waitBegins();
                        try {
                            for (int t = random.nextInt(1, 50); t > 0; t--) {
                                if (!loop.waitTurn()) Thread.onSpinWait();
                            }
                        } finally {
                            loop.waitEnds();
                        }
                        if (loop.inLoop()) notDriver.incrementAndGet();   // counted as a fault: a driver after its wait
                        for (int t = random.nextInt(0, 200); t > 0; t--) Thread.onSpinWait();   // "computes"
                    }
                }, "waiter-" + w));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) t.join();
            // nobody waits now: the loop's own thread takes the role back and runs what is left, and more
            CompletableFuture<String> last = new CompletableFuture<>();
            loop.execute(() -> last.complete(Thread.currentThread().getName()));
            String lastThread = last.get(10, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ran.get() < posters * tasksEach && System.nanoTime() < deadline) Thread.onSpinWait();
            System.out.println("tasks by thread: " + byThread);
            assertEquals(posters * tasksEach, ran.get(), "every task ran once: " + byThread);
            assertEquals(0, overlaps.get(), "tasks ran two at once");
            assertEquals(0, notDriver.get(), "a task ran on a thread the loop did not name as its driver, or a waiter stayed driver");
            assertTrue(lastThread.startsWith("lend-test"), "the loop's own thread runs tasks once nobody waits, not " + lastThread);
            long onWaiters = byThread.entrySet().stream().filter(e -> e.getKey().startsWith("waiter-")).mapToLong(e -> e.getValue().get()).sum();
            // which thread drives during the stress is the scheduler's choice: under load (the build's other forks) one run
            // found the loop's own thread driving all 40,000 tasks; that waiting threads do get the loop is checked then
            // by directed waits, each with a task queued while this thread waits
            if (onWaiters == 0) onWaiters = directedWaitsThatRanTheirTask(loop, 200);
            assertTrue(onWaiters > 0, "no task ran on a waiting thread, in the stress or in 200 directed waits: " + byThread);
        }
    }

    /** @return how many of {@code tries} waits of this thread, each with a task posted inside it, ran that task here (stops at the first) */
    private static int directedWaitsThatRanTheirTask(IoLoop loop, int tries) {
        for (int attempt = 0; attempt < tries; attempt++) {
            AtomicReference<Thread> by = new AtomicReference<>();
            loop.waitBegins();
            try {
                loop.execute(() -> by.set(Thread.currentThread()));
                while (by.get() == null) {
                    if (!loop.waitTurn()) Thread.onSpinWait();
                }
            } finally {
                loop.waitEnds();
            }
            if (by.get() == Thread.currentThread()) return 1;
        }
        return 0;
    }

    @Test
    void aLoopThatDoesNotLendIgnoresTheWaits() throws Exception {
        try (IoLoop loop = IoLoop.start("plain-test", true, () -> 0)) {
            assertFalse(loop.lends());
            CompletableFuture<String> f = new CompletableFuture<>();
            loop.waitBegins();
            try {
                loop.execute(() -> f.complete(Thread.currentThread().getName()));
                assertFalse(loop.waitTurn(), "a loop that does not lend is never driven by a waiting thread");
                assertTrue(f.get(10, TimeUnit.SECONDS).startsWith("plain-test"));
            } finally {
                loop.waitEnds();
            }
        }
    }
}
