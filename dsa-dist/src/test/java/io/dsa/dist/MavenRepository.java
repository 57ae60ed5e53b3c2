package io.dsa.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * A private Maven local repository for building a project against this build's DSA artifacts
 * without {@code mvn install} (which would overwrite the SNAPSHOTs in the shared ~/.m2): every
 * other artifact is a symbolic link into the build's own local repository (read only: the nested
 * build runs offline and installs nothing), and {@code io/dsa} holds the artifacts of this build,
 * laid out as an install would, from the distribution's {@code lib/} and the modules' poms.
 */
final class MavenRepository {
    /** The artifacts a project needs that depends on io.dsa:dsa and imports io.dsa:dsa-bom. */
    private static final List<String> JARS = List.of("dsa-core", "dsa-coherence", "dsa-agent", "dsa");
    private static final List<String> POMS_ONLY = List.of("dsa-bom");

    private MavenRepository() {}

    /** @return {@code dir}, made into the repository */
    static Path withThisBuild(Path dir) throws IOException, InterruptedException {
        Path shared = Path.of(System.getProperty("dsa.localRepository"));
        Files.createDirectories(dir);
        linkAllBut(shared, dir, "io");
        Path io = Files.createDirectories(dir.resolve("io"));
        if (Files.isDirectory(shared.resolve("io"))) linkAllBut(shared.resolve("io"), io, "dsa");
        String v = Dist.VERSION;
        install(dir, "dsa-parent", Dist.ROOT.resolve("pom.xml"), null);
        for (String a : POMS_ONLY) install(dir, a, Dist.ROOT.resolve(a).resolve("pom.xml"), null);
        for (String a : JARS) install(dir, a, Dist.ROOT.resolve(a).resolve("pom.xml"), Dist.home().resolve("lib/" + a + "-" + v + ".jar"));
        return dir;
    }

    private static void install(Path repo, String artifact, Path pom, Path jar) throws IOException {
        Path d = Files.createDirectories(repo.resolve("io/dsa").resolve(artifact).resolve(Dist.VERSION));
        Files.copy(pom, d.resolve(artifact + "-" + Dist.VERSION + ".pom"));
        if (jar != null) Files.copy(jar, d.resolve(artifact + "-" + Dist.VERSION + ".jar"));
    }

    private static void linkAllBut(Path from, Path to, String except) throws IOException {
        try (Stream<Path> entries = Files.list(from)) {
            for (Path e : entries.toList()) {
                if (!e.getFileName().toString().equals(except)) Files.createSymbolicLink(to.resolve(e.getFileName()), e);
            }
        }
    }
}
