package io.dsa.agent.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The node processes' cache of {@code dsa run --aot-cache DIR}: what their JVMs learn, kept between
 * runs (docs/runtime.md, "Short jobs and the JIT"). On Java 25 and later that is the JVM's AOT cache
 * ({@code DIR/node.aot}: JEP 483's classes loaded and linked, JEP 515's method profiles); before, the
 * JVM's dynamic class data archive ({@code DIR/node.jsa}: the classes loaded, parsed and verified,
 * AppCDS). Node 1 writes it when there is none, and every node process uses it after. A cache is tied
 * to its class path and its JVM, so both are kept beside it ({@code DIR/node.aot.classpath}: each
 * entry with its size and modification time, and the {@code java} that trained it) and a run with
 * another one trains it again. The launcher's own cache ({@code DIR/launcher.aot} or
 * {@code DIR/launcher.jsa}) is the {@code dsa} script's. Immutable once {@link #prepare prepared}.
 */
final class AotCache {
    /** The smallest Java feature release with the AOT cache; releases before it get a class data archive. */
    static final int MIN_JAVA = 25;
    /** The node processes' AOT cache in the directory (Java 25 and later). */
    static final String NODE_CACHE = "node.aot";
    /** The node processes' class data archive in the directory (before Java 25). */
    static final String NODE_ARCHIVE = "node.jsa";

    private final Path cache;
    /** Whether the cache is the JVM's AOT cache ({@link #NODE_CACHE}), else a class data archive ({@link #NODE_ARCHIVE}). */
    private final boolean aot;
    /** Whether this run trains the cache (there was none, or one of another class path or JVM). */
    final boolean training;

    private AotCache(Path cache, boolean aot, boolean training) {
        this.cache = cache;
        this.aot = aot;
        this.training = training;
    }

    /** @return the node processes' cache in {@code dir} for Java release {@code javaFeature} */
    static Path nodeCache(Path dir, int javaFeature) {
        return dir.resolve(javaFeature >= MIN_JAVA ? NODE_CACHE : NODE_ARCHIVE);
    }

    /**
     * Checks the class path, makes {@code dir}, and decides whether this run trains the cache or uses
     * it; says which on {@code out}.
     *
     * @param javaFeature the Java release of the node processes (the launcher's: they run its {@code java}), which
     *        decides the kind of cache
     * @param programClassPath {@code --cp}'s entries, to name them in a refusal
     * @param nodeClassPath the node processes' whole class path
     * @throws IllegalArgumentException naming a directory of classes on the class path, or a directory that cannot be
     *         made or written
     */
    static AotCache prepare(Path dir, int javaFeature, String programClassPath, String nodeClassPath, java.io.PrintWriter out) {
        boolean aot = javaFeature >= MIN_JAVA;
        for (String entry : nodeClassPath.split(File.pathSeparator)) {
            String[] inside = new File(entry).list();   // null unless a directory
            if (inside != null && inside.length > 0) {
                throw new IllegalArgumentException("--aot-cache needs jars on the class path, and " + entry + " is a directory of classes"
                        + (programClassPath.contains(entry) ? " (--cp): put them in a jar ('jar cf programs.jar -C " + entry + " .')"
                                : " (this installation's own: run the 'dsa' script, which runs dsa.jar)")
                        + "; the JVM's " + (aot ? "AOT cache" : "class data archive (Java " + javaFeature + ")")
                        + " does not take directories");
            }
        }
        Path cache = nodeCache(dir, javaFeature);
        Path trainedOn = dir.resolve(cache.getFileName() + ".classpath");
        String stamp = classPathStamp(nodeClassPath) + "java " + System.getProperty("java.home") + " " + Runtime.version() + "\n";
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
        String kind = aot ? "AOT cache" : "class data archive";
        String what = aot ? "" : " (Java " + javaFeature + ": the classes loaded and verified; Java " + MIN_JAVA
                + " and later keep an AOT cache with the JIT's profiles too)";
        out.println(training ? kind + ": node 1 writes " + cache + " when it ends; later runs with --aot-cache " + dir + " use it" + what
                : kind + ": the node processes use " + cache);
        return new AotCache(cache, aot, training);
    }

    /**
     * @return node {@code node}'s JVM options: the cache to use, or, for node 1 of a training run, the
     *         cache to write (one node only: every node given it would write the same file); the JVM
     *         logs only the cache's errors, not each class it leaves out
     */
    List<String> jvmOptions(int node) {
        List<String> options = new ArrayList<>();
        if (training && node != 1) return options;
        if (aot) {
            options.add("-Xlog:aot=error");
            options.add(training ? "-XX:AOTCacheOutput=" + cache : "-XX:AOTCache=" + cache);
        } else {
            options.add("-Xlog:cds*=error");   // not a warning per class it cannot archive (picocli's are Java 5 classes)
            options.add(training ? "-XX:ArchiveClassesAtExit=" + cache : "-XX:SharedArchiveFile=" + cache);
        }
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
