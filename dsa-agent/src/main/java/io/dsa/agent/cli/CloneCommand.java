package io.dsa.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code dsa clone}: starts a copy of node K of a running VM on another host. */
@Command(name = "clone",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Starts a new node on another 'dsa host' from a copy of node K of a running VM: its partitions",
            "arrive as shared copies that their home directories know about, so the clone serves reads."},
        footer = {"", "Example:",
            "  dsa clone --vm jacobi --node 1 --hosts 10.0.0.2:7000,10.0.0.3:7000 --to 10.0.0.4:7000"})
final class CloneCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    TransferOptions options;

    @Override
    public Integer call() throws InterruptedException { return options.execute(spec, true); }
}
