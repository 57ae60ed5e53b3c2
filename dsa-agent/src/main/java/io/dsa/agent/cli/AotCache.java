package io.dsa.agent.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The node processes' AOT cache of {@code dsa run --aot-cache DIR} (Java 25 and later: JEP 483's
 * classes loaded and linked, JEP 515's method profiles): {@code DIR/node.aot}, which node 1 trains
 * when there is none and every node process uses after; docs/runtime.md, "Short jobs and the
 * JIT". A cache is tied to its class path, so the class path it was trained on is kept beside it
 * ({@code DIR/node.aot.classpath}, each entry with its size and modification time) and a run on
 * another one trains it again. The launcher's own cache ({@code DIR/launcher.aot}) is the
 * {@code dsa} script's. Immutable once {@link #prepare prepared}.
 */
final class AotCache {
    /** The smallest Java feature release with the AOT cache. */
    static final int MIN_JAVA = 25;
    /** The node processes' cache in the directory. */
    static final String NODE_CACHE = "node.aot";

    private final Path cache;
    /** Whether this run trains the cache (there was none, or one of another class path). */
    final boolean training;

    private AotCache(Path cache, boolean training) {
        this.cache = cache;
        this.training = training;
    }

    /**
     * Checks the Java release and the class path, makes {@code dir}, and decides whether this run
     * trains the cache or uses it; says which on {@code out}.
     *
     * @param javaFeature the Java release of the node processes (the launcher's: they run its {@code java})
     * @param programClassPath {@code --cp}'s entries, to name them in a refusal
     * @param nodeClassPath the node processes' whole class path
     * @throws IllegalArgumentException naming the Java release, a directory of classes on the class path, or a
     *         directory that cannot be made or written
     */
    static AotCache prepare(Path dir, int javaFeature, String programClassPath, String nodeClassPath, java.io.PrintWriter out) {
        if (javaFeature < MIN_JAVA) {
            throw new IllegalArgumentException("--aot-cache needs Java " + MIN_JAVA + " or later (its AOT cache), and this is Java "
                    + javaFeature + " (" + System.getProperty("java.home") + "): run 'dsa' with JAVA_HOME set to a JDK " + MIN_JAVA
                    + " or later, or without --aot-cache");
        }
        for (String entry : nodeClassPath.split(File.pathSeparator)) {
            String[] inside = new File(entry).list();   // null unless a directory
            if (inside != null && inside.length > 0) {
                throw new IllegalArgumentException("--aot-cache needs jars on the class path, and " + entry + " is a directory of classes"
                        + (programClassPath.contains(entry) ? " (--cp): put them in a jar ('jar cf programs.jar -C " + entry + " .')"
                                : " (this installation's own: run the 'dsa' script, which runs dsa.jar)")
                        + "; the JVM's AOT cache does not take directories");
            }
        }
        Path cache = dir.resolve(NODE_CACHE);
        Path trainedOn = dir.resolve(NODE_CACHE + ".classpath");
        String stamp = classPathStamp(nodeClassPath);
        boolean training;
        try {
            Files.createDirectories(dir);
            training = !Files.exists(cache) || !Files.exists(trainedOn) || !Files.readString(trainedOn).equals(stamp);
            if (training) {
                Files.deleteIfExists(cache);
                Files.writeString(trainedOn, stamp);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("--aot-cache " + dir + ": " + e);
        }
        out.println(training ? "AOT cache: node 1 writes " + cache + " when it ends; later runs with --aot-cache " + dir + " use it"
                : "AOT cache: the node processes use " + cache);
        return new AotCache(cache, training);
    }

    /**
     * @return node {@code node}'s JVM options: the cache to use, or, for node 1 of a training run, the
     *         cache to write (one node only: every node given it would write the same file); the JVM
     *         logs only the cache's errors, not each class it leaves out
     */
    List<String> jvmOptions(int node) {
        List<String> options = new ArrayList<>();
        if (!training || node == 1) options.add("-Xlog:aot=error");
        if (!training) options.add("-XX:AOTCache=" + cache);
        else if (node == 1) options.add("-XX:AOTCacheOutput=" + cache);
        return options;
    }

    /** @return {@code classPath} with each entry's size and modification time: what a cache is tied to */
    static String classPathStamp(String classPath) {
        StringBuilder stamp = new StringBuilder();
        for (String entry : classPath.split(File.pathSeparator)) {
            File f = new File(entry);
            stamp.append(entry).append(' ').append(f.length()).append(' ').append(f.lastModified()).append('\n');
        }
        return stamp.toString();
    }
}
