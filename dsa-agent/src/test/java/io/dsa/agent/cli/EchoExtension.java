package io.dsa.agent.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** A test {@link DsaCliExtension} (registered in the test class path) adding a hidden {@code echo-ext}. */
public final class EchoExtension implements DsaCliExtension {
    @Override
    public void register(CommandLine dsa) {
        dsa.addSubcommand(new CommandLine(new Echo()));
    }

    @Command(name = "echo-ext", hidden = true, mixinStandardHelpOptions = true, description = "Prints its words.")
    static final class Echo implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters
        List<String> words = List.of();

        @Override
        public Integer call() {
            spec.commandLine().getOut().println("echo " + String.join(" ", words));
            return 3;
        }
    }
}
