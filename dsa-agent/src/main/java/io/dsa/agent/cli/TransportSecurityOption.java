package io.dsa.agent.cli;

import io.dsa.agent.transport.TransportSecurity;
import picocli.CommandLine.Option;

/**
 * The {@code --transport-security} option, mixed into every command that opens connections:
 * {@code dsa run}, {@code node}, {@code host}, {@code status}, {@code migrate}, {@code clone}
 * and {@code read}. A host and the launchers that talk to it must agree.
 */
final class TransportSecurityOption {
    @Option(names = "--transport-security", paramLabel = "MODE", defaultValue = "ENCRYPT",
            description = "How connections are protected after the handshake: ENCRYPT (every frame encrypted and"
                    + " authenticated with AES-256-GCM) or MAC (every frame authenticated but sent in clear; for trusted"
                    + " networks only). Hosts, launchers and nodes must all use the same; a peer with the other is refused,"
                    + " both modes named (default: ${DEFAULT-VALUE}).")
    TransportSecurity value = TransportSecurity.ENCRYPT;

    /** @return the option and its value, to pass on to a child process */
    java.util.List<String> arguments() { return java.util.List.of("--transport-security", value.name()); }
}
