package io.dsa.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code dsa keygen}: writes a new cluster secret; the same as {@code dsa secret new}. */
@Command(name = "keygen",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Writes a new cluster secret: 32 random bytes as hex, in a file only you can read (mode 600).",
            "Give the file to every 'dsa host' and launcher with --secret-file. An existing file is kept unless --force."},
        footer = {"", "Examples:",
            "  dsa keygen                        # ~/.dsa-secret",
            "  dsa keygen --out /etc/dsa/secret --force"})
final class KeygenCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    KeygenOptions options;

    @Override
    public Integer call() { return options.execute(spec); }
}
