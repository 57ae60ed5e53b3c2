package io.dsa.examples.arch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The project's main Java sources, read from disk: finds the project root from wherever Maven
 * runs the tests, lists the modules from the root pom, and parses each file into a
 * {@link JavaSource}.
 */
final class SourceTree {
    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");

    final Path root;
    final List<String> modules;

    private SourceTree(Path root, List<String> modules) {
        this.root = root;
        this.modules = modules;
    }

    /** Walks up from the working directory to the pom that lists {@code dsa-core} as a module. */
    static SourceTree find() {
        Path start = Paths.get("").toAbsolutePath().normalize();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            if (!Files.isRegularFile(pom)) continue;
            List<String> modules = modulesOf(read(pom));
            if (modules.contains("dsa-core")) return new SourceTree(dir, modules);
        }
        throw new IllegalStateException("no pom.xml with <module>dsa-core</module> in " + start + " or above");
    }

    private static List<String> modulesOf(String pom) {
        List<String> modules = new ArrayList<>();
        Matcher m = MODULE.matcher(pom);
        while (m.find()) modules.add(m.group(1));
        return modules;
    }

    /** @return the main sources of {@code module} (none if it has no {@code src/main/java}) */
    List<JavaSource> mainSources(String module) {
        Path dir = root.resolve(module).resolve("src/main/java");
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(".java") && Files.isRegularFile(f))
                    .sorted()
                    .map(f -> JavaSource.parse(module, root.relativize(f).toString().replace('\\', '/'), read(f)))
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the main sources of every module */
    List<JavaSource> allMainSources() {
        List<JavaSource> all = new ArrayList<>();
        for (String module : modules) all.addAll(mainSources(module));
        return all;
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
