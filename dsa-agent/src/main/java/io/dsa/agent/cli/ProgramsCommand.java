package io.dsa.agent.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code dsa programs}: the programs {@code dsa run} knows by short name. */
@Command(name = "programs",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Lists the programs 'dsa run' knows by short name.")
final class ProgramsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<ProgramCatalog.Entry> programs = ProgramCatalog.fromContext().programs();
        if (programs.isEmpty()) {
            out.println("no programs registered in META-INF/services/io.dsa.DsaProgram;"
                    + " 'dsa run' also takes a fully-qualified class name");
        } else {
            int width = programs.stream().mapToInt(p -> p.name().length()).max().orElse(0);
            for (ProgramCatalog.Entry p : programs) {
                out.printf("%-" + width + "s  %s%n", p.name(), p.type().getName());
            }
        }
        out.flush();
        return 0;
    }
}
