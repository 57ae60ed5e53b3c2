package io.dsa.agent.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest, or "development" when running from classes. */
final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = DsaCli.class.getPackage().getImplementationVersion();
        return new String[] {
            "dsa " + (version == null ? "development" : version),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
        };
    }
}
