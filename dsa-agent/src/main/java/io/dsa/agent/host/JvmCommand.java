package io.dsa.agent.host;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How DSA starts a JVM of its own kind: the {@code java} of this runtime, this JVM's class path
 * with absolute entries, the system properties a child inherits (log level, Netty's leak
 * detection) and the JVM options named by {@link #CHILD_JVM_OPTIONS_PROPERTY}. Used by
 * {@code dsa run} for its node processes and by {@code dsa host} for its agents' JVMs.
 */
public final class JvmCommand {
    /**
     * The system property whose value, JVM options separated by spaces, goes on the command line
     * of every JVM DSA starts (node processes of {@code dsa run}, job JVMs of {@code dsa host}),
     * before the options DSA sets itself (a job's heap and processors come after it, so they win).
     * It is inherited, so a host started with it passes it on. The tests set it to start their
     * many short-lived JVMs faster (C1 only, the serial collector; docs/failures.md, "Fault tests
     * that take seconds"). Each option must be {@code -X...} or {@code -D...}.
     */
    public static final String CHILD_JVM_OPTIONS_PROPERTY = "dsa.childJvmOptions";

    /** System properties passed on to child JVMs when they are set here. */
    public static final List<String> INHERITED_PROPERTIES =
            List.of("org.slf4j.simpleLogger.defaultLogLevel", "io.netty.leakDetection.level", CHILD_JVM_OPTIONS_PROPERTY);

    private JvmCommand() {}

    /** @return this JVM's java launcher */
    public static String javaExecutable() {
        Path bin = Path.of(System.getProperty("java.home"), "bin");
        Path java = bin.resolve("java");
        if (!Files.isRegularFile(java) && Files.isRegularFile(bin.resolve("java.exe"))) java = bin.resolve("java.exe");
        return java.toString();
    }

    /** @return this JVM's class path with absolute entries, so children find the same classes from any directory */
    public static String classPath() {
        String classPath = System.getProperty("java.class.path", "");
        List<String> entries = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isEmpty()) entries.add(Path.of(entry).toAbsolutePath().toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    /**
     * @return the options every child JVM gets from the Java release it runs (this one's): on Java 22
     *         and later, native access for the class path, which Netty's epoll transport uses (Java 24
     *         and later warn without it); none before
     */
    public static List<String> releaseOptions() {
        return Runtime.version().feature() >= 22 ? List.of("--enable-native-access=ALL-UNNAMED") : List.of();
    }

    /**
     * @return the JVM options of {@link #CHILD_JVM_OPTIONS_PROPERTY} in this JVM, in order; empty when it is not set
     * @throws IllegalArgumentException naming an option that is neither {@code -X...} nor {@code -D...}
     */
    public static List<String> childJvmOptions() {
        return parseJvmOptions(CHILD_JVM_OPTIONS_PROPERTY, System.getProperty(CHILD_JVM_OPTIONS_PROPERTY, ""));
    }

    /**
     * @param source where the options come from, for the message ({@code dsa.childJvmOptions}, {@code --jvm-options})
     * @param value JVM options separated by white space
     * @return them, in order
     * @throws IllegalArgumentException naming an option that is neither {@code -X...} nor {@code -D...}: anything
     *         else (a class name, {@code -cp}, {@code -jar}) would change what the child runs
     */
    public static List<String> parseJvmOptions(String source, String value) {
        List<String> options = new ArrayList<>();
        for (String option : value.trim().split("\\s+")) {
            if (option.isEmpty()) continue;
            if (!(option.startsWith("-X") || option.startsWith("-D")) || option.length() < 3) {
                throw new IllegalArgumentException(source + ": '" + option + "' in '" + value
                        + "' is not a JVM option of the form -X..., -XX:... or -D...");
            }
            options.add(option);
        }
        return List.copyOf(options);
    }

    /** @return {@code -Dname=value} for each of {@link #INHERITED_PROPERTIES} set in this JVM */
    public static List<String> inheritedProperties() {
        List<String> options = new ArrayList<>();
        for (String property : INHERITED_PROPERTIES) {
            String value = System.getProperty(property);
            if (value != null) options.add("-D" + property + "=" + value);
        }
        return options;
    }
}
