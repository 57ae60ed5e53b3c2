package io.dsa.agent.cli;

import picocli.CommandLine;

/**
 * Adds subcommands to the {@code dsa} command without {@code dsa-agent} depending on the module
 * that provides them. {@link DsaCli#commandLine()} loads every implementation on the class path
 * with {@link java.util.ServiceLoader} (register it in
 * {@code META-INF/services/io.dsa.agent.cli.DsaCliExtension}) and calls {@link #register} once on
 * the freshly built top-level command line. {@code dsa-bench} uses it to add {@code dsa bench}.
 *
 * <p>An extension must add commands under names that are not taken ({@code run}, {@code programs},
 * {@code node} and the help options are); a clash makes {@code commandLine()} fail with picocli's
 * {@link picocli.CommandLine.DuplicateNameException} naming the command. Every command it adds
 * should offer {@code --help} ({@code mixinStandardHelpOptions = true}).
 */
public interface DsaCliExtension {
    /**
     * Adds this extension's subcommands, typically with
     * {@code dsa.addSubcommand(new CommandLine(new MyCommand()))}.
     *
     * @param dsa the top-level {@code dsa} command line, with the built-in commands already added
     */
    void register(CommandLine dsa);
}
