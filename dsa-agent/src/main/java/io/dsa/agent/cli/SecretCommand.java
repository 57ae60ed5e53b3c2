package io.dsa.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code dsa secret}: cluster secrets; {@code dsa secret new} is {@code dsa keygen}. */
@Command(name = "secret",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Manages cluster secrets: 'dsa secret new' writes a new one (the same as 'dsa keygen').",
        subcommands = SecretCommand.New.class,
        synopsisSubcommandLabel = "COMMAND")
final class SecretCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return DsaCli.EXIT_USAGE;
    }

    /** {@code dsa secret new}. */
    @Command(name = "new",
            mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class,
            description = {"Writes a new cluster secret: 32 random bytes as hex, in a file only you can read (mode 600).",
                "An existing file is kept unless --force."})
    static final class New implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        KeygenOptions options;

        @Override
        public Integer call() { return options.execute(spec); }
    }
}
