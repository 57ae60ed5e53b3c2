package io.dsa.agent.cli;

import io.dsa.agent.transport.NettyProperties;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code dsa} command: {@code run}, {@code programs}, and the hidden {@code node} that
 * {@code run} starts in each child process, plus the commands of every {@link DsaCliExtension} on
 * the class path (e.g. {@code bench} from {@code dsa-bench}).
 *
 * <p>Exit codes: 0 success, 1 the job failed or timed out, 2 bad usage.
 */
@Command(name = "dsa",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "DSA: distributed shared arrays for SPMD Java programs.",
        synopsisSubcommandLabel = "COMMAND",
        footer = {"", "Run 'dsa COMMAND --help' for a command's options."})
public final class DsaCli implements Callable<Integer> {
    /** Exit code of a job that failed or timed out. */
    public static final int EXIT_FAILED = 1;
    /** Exit code of bad usage (picocli's default for parameter errors). */
    public static final int EXIT_USAGE = CommandLine.ExitCode.USAGE;

    /** The SLF4J simple logger's level property; {@code dsa} defaults it to {@value #DEFAULT_LOG_LEVEL}. */
    static final String LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";
    static final String DEFAULT_LOG_LEVEL = "warn";

    /**
     * The built-in commands, in the order {@code dsa --help} lists them. Registered by
     * {@link #commandLine()}, not by the {@code @Command} annotation, so that
     * {@link #commandLine(String...)} can build only the one a command line names.
     */
    private static final List<Class<?>> COMMANDS = List.of(RunCommand.class, ProgramsCommand.class, HostCommand.class,
            StatusCommand.class, MigrateCommand.class, CloneCommand.class, ReadCommand.class, KeygenCommand.class, SecretCommand.class,
            CompletionCommand.class, NodeCommand.class);

    @Spec
    CommandSpec spec;

    /** Creates the top-level command; see {@link #commandLine()}. */
    public DsaCli() {}

    /**
     * Runs the command line and exits the JVM with its exit code. The log level follows
     * {@code -v} ({@link Verbosity}): no log lines by default, warnings from {@code host} and
     * {@code node}; child JVMs inherit it.
     */
    public static void main(String[] args) {
        NettyProperties.forDsaProcess();
        CommandLine cli = commandLine(args);
        cli.setExecutionStrategy(parsed -> {
            Verbosity.configure(parsed);   // before the command makes its first logger
            return new CommandLine.RunLast().execute(parsed);
        });
        System.exit(cli.execute(args));
    }

    /**
     * @return the {@code dsa} command line with every command, ready to {@code execute(args)}; for tests and a command
     *         that runs another
     */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new DsaCli());
        for (Class<?> command : COMMANDS) cli.addSubcommand(instance(command));
        for (DsaCliExtension extension : ServiceLoader.load(DsaCliExtension.class)) extension.register(cli);
        return configured(cli);
    }

    /**
     * The command line for {@code args}: when they name a built-in command (the first argument that is no option;
     * the top-level options {@code -h}, {@code -V} and {@code -v} take no value), the {@code dsa} command with that one
     * subcommand, else {@link #commandLine()}. Picocli builds a command's model from its annotations by reflection,
     * which took about 0.4 s of a fresh JVM for every command, and every {@code dsa} command, daemon and node process
     * starts a fresh JVM; one command's model is what it runs (docs/runtime.md, "Short jobs and the JIT").
     * {@code dsa}'s own help, a mistyped command's suggestions, the shell completion (which lists every command) and
     * the extensions' commands get the whole line.
     */
    public static CommandLine commandLine(String... args) {
        String name = null;
        for (String a : args) {
            if (!a.startsWith("-")) {
                name = a;
                break;
            }
        }
        for (Class<?> command : COMMANDS) {
            if (command != CompletionCommand.class && command.getAnnotation(Command.class).name().equals(name)) {
                CommandLine cli = new CommandLine(new DsaCli());
                cli.addSubcommand(instance(command));
                return configured(cli);
            }
        }
        return commandLine();
    }

    private static Object instance(Class<?> command) {
        try {
            return command.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make the command " + command.getName(), e);
        }
    }

    private static CommandLine configured(CommandLine cli) {
        cli.setParameterExceptionHandler(DsaCli::onParameterError);
        // Everything after PROGRAM belongs to the program, even if it looks like an option.
        cli.setStopAtPositional(true);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        Verbosity.addTo(cli);
        flowDescriptions(cli);
        return cli;
    }

    /**
     * Joins the lines of every command's description into paragraphs (an empty line separates
     * two), so that picocli wraps them to the help width instead of breaking each source line on
     * its own, and puts the first sentence on a line of its own (the parent's command list shows
     * the first line). Options' descriptions are single strings already.
     */
    static void flowDescriptions(CommandLine cli) {
        CommandLine.Model.UsageMessageSpec usage = cli.getCommandSpec().usageMessage();
        List<String> paragraphs = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : usage.description()) {
            if (line.isBlank()) {
                if (current.length() > 0) paragraphs.add(current.toString());
                paragraphs.add("");
                current.setLength(0);
            } else {
                if (current.length() > 0) current.append(' ');
                current.append(line.strip());
            }
        }
        if (current.length() > 0) paragraphs.add(current.toString());
        // the first sentence stands alone: the parent's list of commands shows only the first element
        if (!paragraphs.isEmpty()) {
            String first = paragraphs.get(0);
            int dot = first.indexOf(". ");
            while (dot >= 0 && (dot + 2 >= first.length() || !Character.isUpperCase(first.charAt(dot + 2)))) {
                dot = first.indexOf(". ", dot + 2);   // "Figs. 8-14" is no end of a sentence
            }
            int colon = first.indexOf(": ");
            int cut = dot < 0 ? colon : colon < 0 ? dot : Math.min(dot, colon);
            if (cut > 0 && cli.getParent() != null) {
                String rest = first.substring(cut + 2);
                paragraphs.set(0, first.substring(0, cut) + ".");
                paragraphs.add(1, Character.toUpperCase(rest.charAt(0)) + rest.substring(1));
            }
        }
        usage.description(paragraphs.toArray(new String[0]));
        for (CommandLine sub : cli.getSubcommands().values()) flowDescriptions(sub);
    }

    @Override
    public Integer call() {
        // `dsa` without a command: show what it can do, as a usage error.
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_USAGE;
    }

    // Prints the reason and a hint instead of the whole usage text, which would bury the reason.
    private static int onParameterError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("dsa: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }
}
