package io.dsa.agent.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code dsa completion}: prints picocli's bash and zsh completion script for every command. */
@Command(name = "completion",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Prints a completion script for bash and zsh: commands, options and their values.",
            "Load it in the current shell with: source <(dsa completion)",
            "The distribution ships it as completion/dsa (source it from ~/.bashrc or ~/.zshrc)."})
final class CompletionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        // the whole tree, extensions and -v included: the parent's command line as DsaCli built it
        out.print(AutoComplete.bash("dsa", spec.commandLine().getParent()));
        out.flush();
        return 0;
    }
}
