package io.dsa.agent;

import java.nio.file.Path;

/**
 * The checks {@link DsaConfig.Builder#build()} makes of its values: each throws an
 * {@link IllegalArgumentException} naming the bad value and what would be valid.
 */
final class ConfigChecks {
    private ConfigChecks() {}

    /** @throws IllegalArgumentException if {@code value} is outside {@code [min, max]}, naming {@code what} */
    static void range(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " " + value + " out of range [" + min + ", " + max + "]");
        }
    }

    /**
     * @param every checkpoints every this many global barriers, 0 for none
     * @param dir where they go
     * @param buddies each node's checkpoint buddy, or none
     * @param nodes the VM's nodes
     * @throws IllegalArgumentException for an interval out of range, checkpoints without a
     *         directory, or buddies that are not one per node, in range and other than the node
     */
    static void checkpoints(long every, Path dir, int[] buddies, int nodes) {
        if (every != 0) range("checkpoint interval (global barriers)", every, 1, DsaConfig.MAX_CHECKPOINT_EVERY);
        if (every > 0 && dir == null) {
            throw new IllegalArgumentException("checkpoints every " + every + " global barriers need a directory");
        }
        if (buddies.length == 0) return;
        if (buddies.length != nodes) {
            throw new IllegalArgumentException("checkpoint buddies " + java.util.Arrays.toString(buddies) + ": one per node, "
                    + nodes + " expected");
        }
        for (int k = 0; k < nodes; k++) {
            if (buddies[k] < 0 || buddies[k] >= nodes || buddies[k] == k) {
                throw new IllegalArgumentException("checkpoint buddy " + buddies[k] + " of node " + k
                        + " out of range [0, " + nodes + ") or the node itself");
            }
        }
    }

    /**
     * @throws IllegalArgumentException for a VM name that does not match
     *         {@link DsaConfig#VM_NAME_PATTERN}, a secret of 1 to 15 bytes, an empty bind host, a node
     *         other than 0 without the monitor's address, or an address that does not parse
     */
    static void addresses(String vmName, byte[] secret, String bindHost, int nodeId, String monitorAddress) {
        if (vmName == null || !vmName.matches(DsaConfig.VM_NAME_PATTERN)) {
            throw new IllegalArgumentException("vm name '" + vmName + "' invalid: use 1 to 64 letters, digits, '.', '_' or '-'");
        }
        if (secret.length > 0 && secret.length < 16) {
            throw new IllegalArgumentException("cluster secret has " + secret.length
                    + " bytes, at least 16 required (use a secret file or " + DsaConfig.SECRET_ENV + ")");
        }
        if (bindHost == null || bindHost.isEmpty()) {
            throw new IllegalArgumentException("bind host must be non-empty");
        }
        if (nodeId != 0 && monitorAddress == null) {
            throw new IllegalArgumentException("node " + nodeId + " needs the monitor address (node 0's host:port)");
        }
        if (monitorAddress != null) {
            HostPort.parse(monitorAddress);
        }
    }
}
