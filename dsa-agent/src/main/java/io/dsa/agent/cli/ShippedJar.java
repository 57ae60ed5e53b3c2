package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.HostClient;
import io.dsa.agent.host.JarCache;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The program's jar as a launcher hands it to hosts (docs/hosts.md, "Program jars kept by the
 * hosts"): a host that keeps it from an earlier job gets its name (the job option
 * {@value JarCache#OPTION}{@code =HEX} with an empty jar), any other host its bytes. Used by the launcher's thread only.
 *
 * <p>The jar's SHA-256 is computed on a thread of its own from the moment this is made, while the
 * launcher connects to the hosts: for the 6.9 MB {@code dsa.jar} of the built-in examples it took
 * about 130 ms of a fresh launcher JVM, which came between the last host's handshake and the first
 * question.
 */
final class ShippedJar {
    private final byte[] jar;
    /** The SHA-256 of {@link #jar}, under way from the start (null without a jar). */
    private final CompletableFuture<byte[]> digest;
    /** The hosts that said, when last asked, that they keep the jar. */
    private final Set<HostPort> keeping = new HashSet<>();

    ShippedJar(byte[] jar) {
        this.jar = jar;
        this.digest = jar.length == 0 ? null : CompletableFuture.supplyAsync(() -> JarCache.digest(jar), task -> {
            Thread t = new Thread(task, "dsa-run-jar-digest");
            t.setDaemon(true);
            t.start();
        });
    }

    /**
     * Asks each of {@code hosts} whether it keeps the jar (a host that cannot be asked is taken not to,
     * and gets the bytes) and prints where the jar goes: "program jar (6.9 MB): shipped to H1; kept
     * by H2 from an earlier job". Nothing without a jar (the hosts have the classes).
     */
    void ask(HostClient client, List<HostPort> hosts, PrintWriter out) {
        keeping.clear();
        if (jar.length == 0) return;
        for (HostPort h : hosts) {
            try {
                if (client.keepsJar(h, digest())) keeping.add(h);
            } catch (DsaException e) {
                // ship it: the submission says what is wrong with the host, if anything
            }
        }
        List<String> shipped = hosts.stream().filter(h -> !keeping.contains(h)).map(HostPort::toString).toList();
        out.println("program jar (" + String.format(Locale.ROOT, "%.1f MB", jar.length / 1e6) + "): "
                + (shipped.isEmpty() ? "shipped to no host" : "shipped to " + String.join(", ", shipped))
                + (keeping.isEmpty() ? "" : "; kept by " + String.join(", ", keeping.stream().map(HostPort::toString).sorted().toList())
                + " from an earlier job"));
    }

    /** @return the job's options, with the jar's name for a host that keeps it */
    List<String> options(List<String> options, HostPort host) {
        if (!keeping.contains(host)) return options;
        List<String> named = new ArrayList<>(options);
        named.add(JarCache.OPTION + "=" + HexFormat.of().formatHex(digest()));
        return named;
    }

    /** @return the bytes to send {@code host}: none if it keeps the jar */
    byte[] bytes(HostPort host) { return keeping.contains(host) ? new byte[0] : jar; }

    private byte[] digest() {
        try {
            return digest.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }
}
