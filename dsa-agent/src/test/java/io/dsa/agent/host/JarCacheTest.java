package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.wire.HostJobMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The program jars a host keeps ({@link JarCache}): a kept jar is found by the SHA-256 of its bytes
 * and read back whole; the least recently used go first beyond {@link JarCache#MAX_JARS}; a job
 * that names a jar the host does not keep, or names one and ships one, is refused naming it; and a
 * job naming a kept jar gets its bytes without the host's own option.
 */
@Timeout(30)
class JarCacheTest {
    @TempDir
    Path dir;

    private static byte[] jar(int k) {
        byte[] b = new byte[1000 + k];
        for (int i = 0; i < b.length; i++) b[i] = (byte) (i * 31 + k);
        return b;
    }

    private static String hex(byte[] digest) { return HexFormat.of().formatHex(digest); }

    @Test
    void aKeptJarIsFoundByItsDigestAndReadBackWhole() {
        JarCache cache = new JarCache(dir);
        byte[] jar = jar(1);
        byte[] digest = JarCache.digest(jar);
        assertFalse(cache.has(digest));
        assertArrayEquals(digest, cache.keep(jar));
        assertTrue(cache.has(digest));
        assertArrayEquals(jar, cache.read(hex(digest)));
        assertEquals(List.of(hex(digest)), cache.kept());
        assertArrayEquals(digest, cache.keep(jar.clone()));   // the same bytes again: one file
        assertEquals(1, cache.kept().size());
        assertFalse(cache.has(new byte[5]), "a digest of the wrong length is never kept");
    }

    @Test
    void theLeastRecentlyUsedGoFirst() throws Exception {
        JarCache cache = new JarCache(dir);
        List<String> digests = new ArrayList<>();
        for (int k = 0; k < JarCache.MAX_JARS; k++) {
            digests.add(hex(cache.keep(jar(k))));
            // distinct times, oldest first, whatever the file system's clock resolution
            Files.setLastModifiedTime(dir.resolve("jar-" + digests.get(k) + ".jar"), FileTime.fromMillis(1_000_000L * (k + 1)));
        }
        cache.read(digests.get(0));   // used now: the newest
        String added = hex(cache.keep(jar(100)));
        List<String> kept = cache.kept();
        assertEquals(JarCache.MAX_JARS, kept.size(), kept.toString());
        assertFalse(kept.contains(digests.get(1)), "the least recently used went: " + kept);
        assertTrue(kept.contains(digests.get(0)) && kept.contains(added), kept.toString());
        DsaException e = assertThrows(DsaException.class, () -> cache.read(digests.get(1)));
        assertEquals("this host no longer keeps the program jar " + digests.get(1) + " (at most " + JarCache.MAX_JARS
                + " are kept, the least recently used go first): run the job again to ship it", e.getMessage());
    }

    @Test
    void badDigestsAreRefusedNamingThem() {
        JarCache cache = new JarCache(dir);
        DsaException notHex = assertThrows(DsaException.class, () -> cache.read("xyz"));
        assertEquals("job option jarDigest=xyz is not a hex SHA-256 digest", notHex.getMessage());
        DsaException shortOne = assertThrows(DsaException.class, () -> cache.read("0011"));
        assertEquals("job option jarDigest=0011 has 2 bytes, a SHA-256 digest 32", shortOne.getMessage());
    }

    @Test
    void aJobNamingAKeptJarGetsItsBytesAndOneThatShipsOneKeepsIt() {
        JarCache host = new JarCache(dir);
        {
            byte[] jar = jar(7);
            String hex = hex(JarCache.digest(jar));
            HostJobMessage shipped = job(List.of("barrier=TREE"), jar);
            assertEquals(shipped, host.withKeptJar(shipped), "a shipped jar travels on unchanged");
            assertTrue(host.has(JarCache.digest(jar)), "and is kept");
            HostJobMessage named = host.withKeptJar(job(List.of("barrier=TREE", "jarDigest=" + hex), new byte[0]));
            assertArrayEquals(jar, named.jar());
            assertEquals(List.of("barrier=TREE"), named.options(), "the host's option does not reach the agent");
            HostJobMessage both = job(List.of("jarDigest=" + hex), jar);
            DsaException e = assertThrows(DsaException.class, () -> host.withKeptJar(both));
            assertEquals("the job ships its jar and names a kept one (jarDigest=" + hex + "): one or the other", e.getMessage());
            String missing = hex(JarCache.digest(jar(8)));
            DsaException gone = assertThrows(DsaException.class, () -> host.withKeptJar(job(List.of("jarDigest=" + missing), new byte[0])));
            assertTrue(gone.getMessage().startsWith("this host no longer keeps the program jar " + missing), gone.getMessage());
        }
    }

    private static HostJobMessage job(List<String> options, byte[] jar) {
        return new HostJobMessage(1, "vm", 0, 1, 1, null, "p.Program", List.of(), options, jar, 0, 0);
    }
}
