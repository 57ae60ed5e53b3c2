package io.dsa.agent.transport;

/**
 * Netty's system properties as DSA's own processes set them, before Netty's first class loads.
 *
 * <p>Netty 4.2 registers its buffer allocator's Java Flight Recorder events when JFR is available
 * ({@code io.netty.jfr.enabled}, default true), and registering an event class makes JFR load
 * about 80 classes and generate a handler class with ASM. Measured on a {@code dsa host} and its
 * spare job JVM (C1 only, as the tests start them): 0.15 s and 0.25 s of CPU of 1.2-1.3 s each,
 * in every JVM DSA starts. So the {@code dsa} command, node processes and a host's job JVMs turn
 * it off unless the command line sets it ({@code -Dio.netty.jfr.enabled=true} for a profile of
 * Netty's allocations). A program run in a JVM of its own ({@code DsaCluster} in an application)
 * keeps Netty's default: the property is the application's.
 */
public final class NettyProperties {
    /** Netty's switch for its allocator's JFR events. */
    public static final String JFR_EVENTS = "io.netty.jfr.enabled";

    private NettyProperties() {}

    /** Turns Netty's JFR events off unless the property is set; call first in a DSA process's {@code main}. */
    public static void forDsaProcess() {
        if (System.getProperty(JFR_EVENTS) == null) System.setProperty(JFR_EVENTS, "false");
    }
}
