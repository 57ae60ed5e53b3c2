package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The launcher script, CI entry point and README agree with each other and are runnable. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ScriptsTest {
    private static final Path ROOT = repositoryRoot();

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve(".ci/run"))) dir = dir.getParent();
        if (dir == null) throw new IllegalStateException("no .ci/run above " + Path.of("").toAbsolutePath());
        return dir;
    }

    @Test
    void scriptsAreExecutableStrictBash() throws IOException {
        for (String script : List.of("scripts/dsa", ".ci/run")) {
            Path file = ROOT.resolve(script);
            assertTrue(Files.isExecutable(file), script + " is not executable");
            List<String> lines = Files.readAllLines(file);
            assertEquals("#!/usr/bin/env bash", lines.get(0), script);
            assertTrue(lines.contains("set -euo pipefail"), script + " lacks 'set -euo pipefail'");
        }
    }

    @Test
    void ciRunsTheReadmeTestCommandAndTheReadmeTheDemo() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run"));
        assertEquals("mvn -B verify", ci.get(ci.size() - 1), ".ci/run's last line");
        assertTrue(readme.contains("\nmvn -B verify "), "README names the test command");
        assertTrue(readme.contains("\nscripts/dsa run --nodes 4 --threads 2 inner-product 512 32 "), "README names the demo");
    }

    @Test
    void launcherRunsTheShadedJarAndBuildsWithMaven() throws IOException {
        String script = Files.readString(ROOT.resolve("scripts/dsa"));
        assertTrue(script.contains("dsa-examples/target/dsa.jar"), script);
        assertTrue(script.matches("(?s).*\\bmvn -B -Dstyle.color=never -DskipTests package .*"), script);
        assertTrue(script.contains("projects=(-pl dsa-examples -am)"), "the demo builds without dsa-bench: " + script);
        assertTrue(script.contains("-Djansi.noreset=true"), "no ESC[0m after the build: " + script);
        assertTrue(script.contains("building DSA (first use)..."), script);
        // the launcher's own JVM gets its cache options (none unless 'run --aot-cache') before -jar: on Java 25+ the AOT
        // cache, before that a class data archive
        assertTrue(script.contains("exec \"$java_cmd\" ${aot[@]+\"${aot[@]}\"} -jar \"$jar\" \"$@\""), script);
        assertTrue(script.contains("cache=\"$aot_dir/launcher.aot\" log=-Xlog:aot=error use=-XX:AOTCache= write=-XX:AOTCacheOutput="),
                script);
        assertTrue(script.contains("cache=\"$aot_dir/launcher.jsa\" log='-Xlog:cds*=error' use=-XX:SharedArchiveFile="
                + " write=-XX:ArchiveClassesAtExit="), script);
    }

    @Test
    void programsAreRegisteredForServiceLoader() throws IOException {
        Path services = ROOT.resolve("dsa-examples/src/main/resources/META-INF/services/io.dsa.DsaProgram");
        assertEquals(List.of(InnerProduct.class, MatMul.class, Lu.class, Fft2d.class, Jacobi.class, Mm2.class, Psrs.class, Tsp.class, Cg.class,
                        Histogram.class, Jacobi.Scoped.class, Lu.Scoped.class, Mm2.Scoped.class, Cg.Scoped.class,
                        Fft2d.Scoped.class, Psrs.Scoped.class)
                        .stream().map(Class::getName).toList(),
                Files.readAllLines(services));
    }
}
