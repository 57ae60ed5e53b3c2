package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LaneListener}'s directories: named after their process, removed by {@link LaneListener#close()},
 * and, when their process was killed and could not remove them, by the next listener's sweep, which
 * leaves those of running processes, of other PID namespaces and of other names alone.
 */
@Timeout(30)
class LaneListenerTest {
    private static final long DEAD = 999_999_937L;

    @Test
    void aSweepRemovesTheDirectoriesOfProcessesThatNoLongerRunAndNothingElse(@TempDir Path parent) throws IOException {
        long ns = LaneListener.NAMESPACE;
        long self = ProcessHandle.current().pid();
        Path killedSocket = lane(parent, "dsa-lane-" + ns + "-" + DEAD + "-8446744073709551615", "l");
        Path killedRings = lane(parent, "dsa-lane-" + ns + "-" + DEAD + "-12", "n1-1", "n2-2");
        Path running = lane(parent, "dsa-lane-" + ns + "-" + self + "-34", "l");
        Path otherNamespace = lane(parent, "dsa-lane-" + (ns + 1) + "-" + DEAD + "-56", "l");
        Path olderBuild = lane(parent, "dsa-lane-7812345678", "l");   // no owner in its name
        Path notALane = lane(parent, "dsa-lanes-" + ns + "-" + DEAD + "-78", "l");
        Path aFile = Files.writeString(parent.resolve("dsa-lane-" + ns + "-" + DEAD + "-90"), "x");

        assertEquals(2, LaneListener.sweep(parent, ns, pid -> pid != DEAD));

        assertFalse(Files.exists(killedSocket));
        assertFalse(Files.exists(killedRings));
        for (Path kept : List.of(running, otherNamespace, olderBuild, notALane, aFile)) assertTrue(Files.exists(kept), kept + " removed");
        assertEquals(0, LaneListener.sweep(parent, ns, pid -> pid != DEAD), "nothing left to sweep");
        assertEquals(0, LaneListener.sweep(parent.resolve("missing"), ns, pid -> false), "a missing directory has nothing to sweep");
    }

    @Test
    void aListenersDirectoriesNameThisProcessAndGoWhenItCloses() throws IOException {
        LaneListener listener = LaneListener.open();
        Path socketDir = listener.path().getParent();
        Path ringDir = listener.ringDirectory();
        String owner = "dsa-lane-" + LaneListener.NAMESPACE + "-" + ProcessHandle.current().pid() + "-";
        assertTrue(socketDir.getFileName().toString().startsWith(owner), socketDir.toString());
        assertTrue(ringDir.getFileName().toString().startsWith(owner), ringDir.toString());
        Files.writeString(listener.nextRingFile(1), "a lane file no dialer mapped");
        assertEquals(0, LaneListener.sweep(socketDir.getParent(), LaneListener.NAMESPACE, pid -> true));
        assertTrue(Files.exists(socketDir), "a running process's directory is not swept");
        listener.close();
        assertFalse(Files.exists(socketDir));
        assertFalse(Files.exists(ringDir));
    }

    /** A killed child whose parent has not reaped it (a host killed with its jobs' JVMs) runs no more, though the OS still lists it. */
    @Test
    void aZombieIsNotRunningAndThisProcessIs() throws Exception {
        assertTrue(LaneListener.running(ProcessHandle.current().pid()));
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs /proc");
        // sh starts a short child, then becomes a sleep that never waits for it: the child stays a zombie until the sleep ends
        Process parent = new ProcessBuilder("sh", "-c", "sleep 0 & echo $!; exec sleep 30").start();
        try {
            long child = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream())).readLine().trim());
            Path stat = Path.of("/proc", Long.toString(child), "stat");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!zombie(stat)) {
                assertTrue(System.nanoTime() < deadline, "child " + child + " never became a zombie: " + (Files.exists(stat) ? Files.readString(stat) : "gone"));
                Thread.onSpinWait();
            }
            assertTrue(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "the JDK still counts a zombie as alive");
            assertFalse(LaneListener.running(child), "a zombie is not running");
        } finally {
            parent.destroyForcibly().waitFor();
        }
    }

    private static boolean zombie(Path stat) throws IOException {
        if (!Files.exists(stat)) return false;
        String s = Files.readString(stat);
        return s.charAt(s.lastIndexOf(')') + 2) == 'Z';
    }

    private static Path lane(Path parent, String name, String... files) throws IOException {
        Path d = Files.createDirectory(parent.resolve(name));
        for (String f : files) Files.writeString(d.resolve(f), f);
        try (Stream<Path> s = Files.list(d)) {
            assertEquals(files.length, s.count());
        }
        return d;
    }
}
