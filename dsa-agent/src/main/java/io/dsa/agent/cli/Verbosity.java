package io.dsa.agent.cli;

import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code -v}/{@code --verbose} on every command, and the log level it sets. Commands that talk to
 * a cluster or run a job ({@code run}, {@code status}, {@code migrate}, ...) print no log lines by
 * default, only their own output; the daemons ({@code host}, {@code node}) log warnings. {@code -v}
 * logs at INFO, {@code -vv} at DEBUG, {@code -vvv} at TRACE; child JVMs inherit the level.
 *
 * <p>The level is the SLF4J simple logger's ({@value DsaCli#LOG_LEVEL_PROPERTY}), read once when
 * the first logger is made: {@link #configure} must run before that, so {@link DsaCli#main} calls
 * it after parsing and before the command runs. An explicit {@code -D} of the property wins over
 * the defaults, not over {@code -v}.
 */
final class Verbosity {
    /** The option's names. */
    static final String SHORT = "-v";
    static final String LONG = "--verbose";
    /** Commands that log warnings without {@code -v}: the long-running daemons. */
    static final Set<String> DAEMONS = Set.of("host", "node");

    private Verbosity() {}

    /** Adds {@code -v}/{@code --verbose} to {@code cli} and every subcommand that lacks it. */
    static void addTo(CommandLine cli) {
        if (!cli.getCommandSpec().optionsMap().containsKey(LONG)) {
            cli.getCommandSpec().addOption(OptionSpec.builder(SHORT, LONG).type(boolean[].class).arity("0")
                    .description("Say more: log at INFO (-v), DEBUG (-vv) or TRACE (-vvv). Without it, commands print"
                            + " no log lines ('host' and 'node' log warnings).")
                    .build());
        }
        for (CommandLine sub : cli.getSubcommands().values()) addTo(sub);
    }

    /** @return how many times {@code -v} was given on the command line, over every (sub)command */
    static int count(ParseResult parsed) {
        int count = 0;
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption(LONG)) count += p.matchedOption(LONG).<boolean[]>getValue().length;
        }
        return count;
    }

    /** @return the log level for {@code verbose} times {@code -v} on {@code command}, or null to leave it as it is */
    static String level(int verbose, String command, String explicit) {
        if (verbose >= 3) return "trace";
        if (verbose == 2) return "debug";
        if (verbose == 1) return "info";
        if (explicit != null) return null;
        return DAEMONS.contains(command) ? DsaCli.DEFAULT_LOG_LEVEL : "off";
    }

    /** Sets the log level for the parsed command line (see the class comment). */
    static void configure(ParseResult parsed) {
        List<CommandLine> commands = parsed.asCommandLineList();
        String command = commands.get(commands.size() - 1).getCommandName();
        String level = level(count(parsed), command, System.getProperty(DsaCli.LOG_LEVEL_PROPERTY));
        if (level != null) System.setProperty(DsaCli.LOG_LEVEL_PROPERTY, level);
    }
}
