package io.dsa.agent.cli;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --classpath DIR_OR_JAR[:...]} (or the environment variable {@value #CLASSPATH_ENV}): where
 * a user's own programs are. {@code dsa run} loads PROGRAM from there, gives the entries to its
 * child node JVMs, and with {@code --hosts} ships them to the hosts, packed into one JAR.
 */
final class ClassPathOption {
    /** Environment variable with the class path when {@code --classpath} is not given. */
    static final String CLASSPATH_ENV = "DSA_CLASSPATH";

    @Option(names = {"--classpath", "--cp"}, paramLabel = "PATH[:PATH...]",
            defaultValue = "${env:" + CLASSPATH_ENV + "}",
            description = "Class directories and jars holding your programs, separated by ':' (a 'DIR/*' entry"
                    + " means every jar in DIR); default: the environment variable " + CLASSPATH_ENV + ".")
    String classPath;

    /**
     * @return the entries as absolute paths, empty when none were given
     * @throws picocli.CommandLine.ParameterException naming an entry that does not exist
     */
    List<Path> entries(CommandSpec spec) {
        List<Path> entries = new ArrayList<>();
        if (classPath == null || classPath.isBlank()) return entries;
        for (String text : classPath.split(File.pathSeparator)) {
            if (text.isBlank()) continue;
            if (text.endsWith("/*") || text.equals("*")) {
                Path dir = Path.of(text.substring(0, text.length() - 1).isEmpty() ? "." : text.substring(0, text.length() - 1));
                if (!Files.isDirectory(dir)) throw Checks.usage(spec, "--classpath entry '" + text + "': " + dir + " is not a directory");
                try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*.jar")) {
                    List<Path> found = new ArrayList<>();
                    jars.forEach(found::add);
                    found.stream().sorted().map(p -> p.toAbsolutePath().normalize()).forEach(entries::add);
                } catch (IOException e) {
                    throw Checks.usage(spec, "--classpath entry '" + text + "': cannot list " + dir + ": " + e.getMessage());
                }
                continue;
            }
            Path p = Path.of(text);
            if (!Files.exists(p)) {
                throw Checks.usage(spec, "--classpath entry '" + text + "' does not exist (a class directory or a jar expected)");
            }
            entries.add(p.toAbsolutePath().normalize());
        }
        return entries;
    }

    /**
     * Makes the entries the context class loader of this thread (the programs' loader, whose parent
     * holds DSA) until the returned scope is closed; a no-op scope when there are none.
     */
    Scope open(CommandSpec spec) {
        List<Path> entries = entries(spec);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        if (entries.isEmpty()) return new Scope(thread, previous, null, entries);
        URL[] urls = new URL[entries.size()];
        try {
            for (int i = 0; i < urls.length; i++) urls[i] = entries.get(i).toUri().toURL();
        } catch (MalformedURLException e) {
            throw Checks.usage(spec, "--classpath: " + e.getMessage());
        }
        URLClassLoader loader = new URLClassLoader("dsa-classpath", urls,
                previous != null ? previous : ClassPathOption.class.getClassLoader());
        thread.setContextClassLoader(loader);
        return new Scope(thread, previous, loader, entries);
    }

    /** The programs' class loader while a command runs; closing restores the thread's previous one. */
    static final class Scope implements AutoCloseable {
        private final Thread thread;
        private final ClassLoader previous;
        private final URLClassLoader loader;
        private final List<Path> entries;

        private Scope(Thread thread, ClassLoader previous, URLClassLoader loader, List<Path> entries) {
            this.thread = thread;
            this.previous = previous;
            this.loader = loader;
            this.entries = List.copyOf(entries);
        }

        /** @return the class path entries, absolute; empty when none were given */
        List<Path> entries() { return entries; }

        /** @return the entries joined for a {@code java -cp}, or "" */
        String joined() {
            return String.join(File.pathSeparator, entries.stream().map(Path::toString).toList());
        }

        @Override
        public void close() {
            thread.setContextClassLoader(previous);
            if (loader != null) {
                try {
                    loader.close();
                } catch (IOException e) {
                    // the jars stay open until the JVM exits: nothing else to do
                }
            }
        }
    }
}
