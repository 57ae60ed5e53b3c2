package io.dsa.agent.cli;

import java.util.function.Function;

/**
 * A {@code dsa node} started by SLURM's {@code srun}: its node id is the task's rank
 * ({@code SLURM_PROCID}), the VM's size the number of tasks ({@code SLURM_NTASKS}), and node 0
 * (the monitor) runs on the first host of the allocation ({@code SLURM_NODELIST}), where rank 0
 * lands under SLURM's default (block) distribution.
 *
 * @param nodeId this task's rank, {@code SLURM_PROCID}
 * @param nodes the tasks of the step, {@code SLURM_NTASKS}
 * @param firstHost the first host of {@code SLURM_NODELIST}, expanded ({@code cn[07-09,12]} gives {@code cn07})
 * @param thisHost the host this task runs on ({@code SLURMD_NODENAME}), or null when SLURM does not say
 */
record SlurmTask(int nodeId, int nodes, String firstHost, String thisHost) {
    /** The variables read. */
    static final String PROCID = "SLURM_PROCID";
    static final String NTASKS = "SLURM_NTASKS";
    static final String NODELIST = "SLURM_NODELIST";
    static final String NODENAME = "SLURMD_NODENAME";

    /**
     * @param env the environment ({@code System::getenv}, or a fake in tests)
     * @return the task SLURM describes
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    static SlurmTask from(Function<String, String> env) {
        int nodes = number(env, NTASKS, 1);
        int rank = number(env, PROCID, 0);
        if (rank >= nodes) throw new IllegalArgumentException(PROCID + " " + rank + " out of range [0, " + nodes + ") of " + NTASKS);
        String list = env.apply(NODELIST);
        if (list == null || list.isBlank()) throw new IllegalArgumentException(NODELIST + " is not set: run 'dsa node --slurm' under srun");
        String self = env.apply(NODENAME);
        return new SlurmTask(rank, nodes, firstHost(list.strip()), self == null || self.isBlank() ? null : self.strip());
    }

    /**
     * @return the first host of a SLURM host list: {@code a,b} gives {@code a}, {@code cn[07-09,12],gpu1}
     *         gives {@code cn07} (the zero padding kept), {@code rack1-[3-4]} gives {@code rack1-3}
     * @throws IllegalArgumentException for a list it cannot read
     */
    static String firstHost(String list) {
        int bracket = list.indexOf('[');
        int comma = list.indexOf(',');
        if (bracket < 0 || (comma >= 0 && comma < bracket)) {
            String host = comma < 0 ? list : list.substring(0, comma);
            if (host.isEmpty()) throw new IllegalArgumentException(NODELIST + " '" + list + "' starts with an empty host");
            return host;
        }
        int close = list.indexOf(']', bracket);
        if (close < 0) throw new IllegalArgumentException(NODELIST + " '" + list + "' has an unclosed '['");
        String first = list.substring(bracket + 1, close).split(",")[0].split("-")[0];
        if (first.isEmpty() || !first.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(NODELIST + " '" + list + "': range '" + list.substring(bracket, close + 1)
                    + "' does not start with a number");
        }
        return list.substring(0, bracket) + first;
    }

    private static int number(Function<String, String> env, String name, int min) {
        String text = env.apply(name);
        if (text == null || text.isBlank()) throw new IllegalArgumentException(name + " is not set: run 'dsa node --slurm' under srun");
        try {
            int value = Integer.parseInt(text.strip());
            if (value < min) throw new IllegalArgumentException(name + " " + value + " out of range [" + min + ", " + Integer.MAX_VALUE + "]");
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " '" + text + "' is not a number");
        }
    }
}
