package io.dsa.agent.host;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How DSA starts a JVM of its own kind: the {@code java} of this runtime, this JVM's class path
 * with absolute entries, and the system properties a child inherits (log level, Netty's leak
 * detection). Used by {@code dsa run} for its node processes and by {@code dsa host} for its
 * agents' JVMs.
 */
public final class JvmCommand {
    /** System properties passed on to child JVMs when they are set here. */
    public static final List<String> INHERITED_PROPERTIES =
            List.of("org.slf4j.simpleLogger.defaultLogLevel", "io.netty.leakDetection.level");

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
