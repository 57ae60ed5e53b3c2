package io.dsa.agent.cli;

import java.util.concurrent.CountDownLatch;

/** A child process for {@link ChildNodesTest}: {@code exit CODE} prints and exits; {@code block} prints and waits forever. */
public final class ChildMain {
    private ChildMain() {}

    public static void main(String[] args) throws InterruptedException {
        System.out.println("hello from " + args[0]);
        System.err.println("to stderr");
        System.out.flush();
        if (args[0].equals("block")) new CountDownLatch(1).await();
        System.exit(Integer.parseInt(args[1]));
    }
}
