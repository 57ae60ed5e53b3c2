package io.dsa.agent.cli;

import io.dsa.agent.DsaConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The options that give a command the cluster secret; see {@link Secrets} for the rules. */
final class SecretOptions {
    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "File holding the cluster secret, readable only by its owner (mode 600); default: the environment"
                    + " variable " + DsaConfig.SECRET_ENV + ". Make one with 'dsa keygen'.")
    Path secretFile;

    @Option(names = "--allow-insecure-secret",
            description = "Use a secret file that group or others may read (a warning is printed); for throw-away setups only.")
    boolean allowInsecure;

    /**
     * @return the cluster secret from {@code --secret-file}, else from {@value DsaConfig#SECRET_ENV}
     * @throws picocli.CommandLine.ParameterException (exit code 2) saying why there is none or why it is refused
     */
    byte[] secret(CommandSpec spec) { return secret(spec, System::getenv); }

    /** {@link #secret(CommandSpec)} with {@code env} as the environment (tests). */
    byte[] secret(CommandSpec spec, Function<String, String> env) {
        PrintWriter err = spec.commandLine().getErr();
        try {
            if (secretFile == null) return Secrets.fromEnvironment(env);
            return Secrets.fromFile(secretFile, allowInsecure, warning -> {
                err.println(warning);
                err.flush();
            });
        } catch (Secrets.SecretException e) {
            throw Checks.usage(spec, e.getMessage());
        }
    }
}
