package io.dsa.agent.cli;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.HostClient;
import io.dsa.agent.host.JobJar;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.Relay;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The attack of issue 11, for real: a {@code dsa host} process, a {@link HostClient} (what
 * {@code dsa status} and {@code dsa run --hosts} use) and between them a {@link Relay} on loopback
 * that does not know the cluster secret. It forwards the real handshake, lets the client's first
 * request through, then injects a job, replays, reorders, alters or cuts the client's records.
 * In each case, and in each {@link TransportSecurity} mode, the host closes the connection with
 * one logged reason, no job runs (the host lists no VM of the attacker's, and the shipped
 * program's file does not appear), and the host goes on serving. A control run shows that the
 * relay forwards a working session and that the program's file does appear when the job is sent
 * honestly, so the checks can fail.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RelayAttackTest {
    private static final String ATTACK_VM = "injected";
    private static final String CLOSING = "closing connection with";

    @TempDir
    static Path dir;
    static Path secretFile;
    static byte[] secret;
    static final Map<TransportSecurity, HostProcess> hosts = new EnumMap<>(TransportSecurity.class);

    /** What the attacker ships: a program whose setup leaves a file, so running it shows. */
    public static final class Marker implements DsaProgram {
        @Override
        public void setup(DsaNode node) throws IOException {
            Files.writeString(Path.of(node.args().get(0)), "ran");
        }

        @Override
        public void work(DsaWorker worker) {}
    }

    @BeforeAll
    static void startHosts() throws Exception {
        secret = "0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        secretFile = Files.write(dir.resolve("secret"), secret);
        Files.setPosixFilePermissions(secretFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        // A failure timeout long enough that no heartbeat but each end's first one travels during a test:
        // the records the relay numbers are then the client's heartbeat (record 0) and its requests.
        hosts.put(TransportSecurity.ENCRYPT, HostProcess.start("127.0.0.51", secretFile, List.of(), List.of(QUIET[0], QUIET[1])));
        hosts.put(TransportSecurity.MAC, HostProcess.start("127.0.0.52", secretFile, List.of(),
                List.of(QUIET[0], QUIET[1], "--transport-security", "MAC")));
    }

    @AfterAll
    static void stopHosts() throws Exception {
        HostProcess.closeAll(new java.util.ArrayList<>(hosts.values()));
        hosts.clear();
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void relayWithoutTheSecretCannotInjectAJob(TransportSecurity mode) throws Exception {
        Path marker = dir.resolve("injected-" + mode);
        byte[] injected = Relay.forgedRecord(job(ATTACK_VM, marker));
        String log = attack(mode, 1, (index, record, out) -> {
            if (index == 1) out.write(injected);
            out.write(record);
            return true;
        });
        assertTrue(log.contains("record 2 of " + (injected.length - 4) + " bytes failed authentication"), log);
        assertNothingRan(mode, marker);
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void relayCannotReplayARecord(TransportSecurity mode) throws Exception {
        byte[][] first = new byte[1][];
        String log = attack(mode, 1, (index, record, out) -> {
            if (index == 0) first[0] = record;
            out.write(index == 1 ? first[0] : record);
            return true;
        });
        assertTrue(log.contains("record 2 of ") && log.contains("failed authentication"), log);
        assertNothingRan(mode, null);
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void relayCannotReorderRecords(TransportSecurity mode) throws Exception {
        byte[][] held = new byte[1][];
        String log = attack(mode, 2, (index, record, out) -> {
            if (index == 1) {
                held[0] = record;
            } else {
                out.write(record);
                if (index == 2) out.write(held[0]);
            }
            return true;
        });
        assertTrue(log.contains("record 2 of ") && log.contains("failed authentication"), log);
        assertNothingRan(mode, null);
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void relayCannotFlipAByte(TransportSecurity mode) throws Exception {
        String log = attack(mode, 1, (index, record, out) -> {
            byte[] sent = record.clone();
            if (index == 1) sent[sent.length / 2] ^= 0x01;
            out.write(sent);
            return true;
        });
        assertTrue(log.contains("record 2 of ") && log.contains("failed authentication"), log);
        assertNothingRan(mode, null);
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void relayCannotTruncateARecord(TransportSecurity mode) throws Exception {
        String log = attack(mode, 2, (index, record, out) -> {
            out.write(index == 1 ? Arrays.copyOf(record, record.length - 5) : record);
            return true;
        });
        assertTrue(log.contains("record 2 of ") && log.contains("failed authentication"), log);
        assertNothingRan(mode, null);
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void relayCannotCutTheStreamInsideARecordUnnoticed(TransportSecurity mode) throws Exception {
        String log = attack(mode, 1, (index, record, out) -> {
            out.write(index == 1 ? Arrays.copyOf(record, record.length / 2) : record);
            return index != 1;
        });
        assertTrue(log.contains("connection ended inside record 2 ("), log);
        assertNothingRan(mode, null);
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void anHonestRelayCarriesAWorkingSessionAndTheJobThenRuns(TransportSecurity mode) throws Exception {
        // The control: what the attacks above would have achieved if the record layer let them.
        Path marker = dir.resolve("honest-" + mode);
        HostProcess host = hosts.get(mode);
        try (Relay relay = Relay.start(ip(host), port(host));
             HostClient client = HostClient.open(secret, "127.0.0.1", 10_000, mode)) {
            HostPort via = HostPort.parse(relay.address());
            for (int i = 0; i < 3; i++) {
                assertEquals(List.of(), client.status(via, ATTACK_VM));
            }
            client.submit(via, job("honest-" + mode.name().toLowerCase(), marker));
            Poll.file("the honestly sent job's file", marker, 30_000);
        }
    }

    @org.junit.jupiter.api.Test
    void statusWithAnotherTransportSecurityIsRefusedNamingBoth() {
        Cli status = Cli.execute("status", "--hosts", hosts.get(TransportSecurity.ENCRYPT).address(),
                "--secret-file", secretFile.toString(), "--transport-security", "MAC");
        assertEquals(DsaCli.EXIT_FAILED, status.exitCode(), status.toString());
        assertTrue(status.out().contains("refused: transport security MAC (dialer) does not match ENCRYPT (acceptor): both ends"
                + " need the same --transport-security"), status.out());
        Cli ok = Cli.execute("status", "--hosts", hosts.get(TransportSecurity.MAC).address(),
                "--secret-file", secretFile.toString(), "--transport-security", "MAC");
        assertEquals(0, ok.exitCode(), ok.toString());
    }

    private static final String[] QUIET = {"--failure-timeout-ms", "600000"};

    /**
     * Runs one attack against the host of {@code mode}: the client's first request goes through
     * (the real handshake was relayed), then it sends {@code requests} more while {@code tamper}
     * works on its records.
     *
     * @return what the host logged meanwhile: exactly one connection closed, with its reason
     */
    private static String attack(TransportSecurity mode, int requests, Relay.Tamper tamper) throws Exception {
        HostProcess host = hosts.get(mode);
        int before = host.output().length();
        try (Relay relay = Relay.start(ip(host), port(host));
             HostClient client = HostClient.open(secret, "127.0.0.1", 10_000, mode, Long.parseLong(QUIET[1]))) {
            // record 0 is the client's first heartbeat: the attacks number the records after it from 0
            relay.tamper((index, record, out) -> {
                if (index == 0) {
                    out.write(record);
                    return true;
                }
                return tamper.forward(index - 1, record, out);
            });
            HostPort via = HostPort.parse(relay.address());
            assertEquals(List.of(), client.status(via, ATTACK_VM), "the relayed handshake and first record work");
            Connection c = client.connect(via);
            for (int i = 0; i < requests; i++) {
                c.send(new HostStatusQueryMessage(1_000 + i, ATTACK_VM));
            }
            Poll.until("the relayed connection to close", c::isOpen, open -> !open, 20_000, 10);
        }
        String log = host.awaitOutput(CLOSING, before, 20_000);   // the host logs why it closed the connection
        assertEquals(1, log.split(CLOSING, -1).length - 1, "one logged reason:\n" + log);
        return log;
    }

    /** The host lists no VM of the attacker's, the shipped program's file is absent, and the host still serves. */
    private static void assertNothingRan(TransportSecurity mode, Path marker) {
        try (HostClient direct = HostClient.open(secret, "127.0.0.1", 10_000, mode)) {
            assertEquals(List.of(), direct.status(HostPort.parse(hosts.get(mode).address()), ATTACK_VM));
        }
        if (marker != null) assertFalse(Files.exists(marker), "the injected program ran");
    }

    private static HostJobMessage job(String vm, Path marker) {
        return new HostJobMessage(42, vm, 0, 1, 1, null, Marker.class.getName(), List.of(marker.toString()), List.of(),
                JobJar.of(Marker.class), 0, 0);
    }

    private static String ip(HostProcess host) { return HostPort.parse(host.address()).host(); }

    private static int port(HostProcess host) { return HostPort.parse(host.address()).port(); }
}
