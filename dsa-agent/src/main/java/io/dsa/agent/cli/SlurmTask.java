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
 * @param localId this task's index among the step's tasks on its host ({@code SLURM_LOCALID}), -1
 *        when SLURM does not say: its share of the host's cores with {@code --bind-cores}
 * @param localTasks the step's tasks on this task's host ({@code SLURM_STEP_TASKS_PER_NODE}, else
 *        {@code SLURM_TASKS_PER_NODE}, at {@code SLURM_NODEID}), -1 when SLURM does not say
 */
record SlurmTask(int nodeId, int nodes, String firstHost, String thisHost, int localId, int localTasks) {
    /** The variables read. */
    static final String PROCID = "SLURM_PROCID";
    static final String NTASKS = "SLURM_NTASKS";
    static final String NODELIST = "SLURM_NODELIST";
    static final String NODENAME = "SLURMD_NODENAME";
    static final String LOCALID = "SLURM_LOCALID";
    static final String NODEID = "SLURM_NODEID";
    static final String STEP_TASKS_PER_NODE = "SLURM_STEP_TASKS_PER_NODE";
    static final String TASKS_PER_NODE = "SLURM_TASKS_PER_NODE";

    /** A task SLURM describes without saying where it stands on its host. */
    SlurmTask(int nodeId, int nodes, String firstHost, String thisHost) { this(nodeId, nodes, firstHost, thisHost, -1, -1); }

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
        String host = self == null || self.isBlank() ? null : self.strip();
        String perNode = env.apply(STEP_TASKS_PER_NODE);
        String perNodeName = STEP_TASKS_PER_NODE;
        if (perNode == null || perNode.isBlank()) {
            perNode = env.apply(TASKS_PER_NODE);
            perNodeName = TASKS_PER_NODE;
        }
        if (blank(env.apply(LOCALID)) || blank(env.apply(NODEID)) || blank(perNode)) {
            return new SlurmTask(rank, nodes, firstHost(list.strip()), host);
        }
        int localTasks = tasksOnNode(perNodeName, perNode.strip(), number(env, NODEID, 0));
        int localId = number(env, LOCALID, 0);
        if (localId >= localTasks) {
            throw new IllegalArgumentException(LOCALID + " " + localId + " out of range [0, " + localTasks + ") of " + perNodeName + " '" + perNode + "'");
        }
        return new SlurmTask(rank, nodes, firstHost(list.strip()), host, localId, localTasks);
    }

    /**
     * @param name the variable's name, for the messages
     * @param perNode tasks per node as SLURM compresses them: {@code 2(x3),1} is 2, 2, 2, 1
     * @param node the node's index in the allocation ({@code SLURM_NODEID})
     * @return the tasks on node {@code node}
     * @throws IllegalArgumentException if the list does not parse or has no entry for {@code node}
     */
    static int tasksOnNode(String name, String perNode, int node) {
        int first = 0;
        for (String group : perNode.split(",")) {
            try {
                int paren = group.indexOf('(');
                int tasks = Integer.parseInt(paren < 0 ? group.strip() : group.substring(0, paren).strip());
                int repeat = 1;
                if (paren >= 0) {
                    if (!group.startsWith("(x", paren) || !group.endsWith(")")) throw new NumberFormatException();
                    repeat = Integer.parseInt(group.substring(paren + 2, group.length() - 1));
                }
                if (tasks < 1 || repeat < 1) throw new NumberFormatException();
                if (node < first + (long) repeat) return tasks;
                first += repeat;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " '" + perNode + "' is not a list of tasks per node (at '" + group + "')");
            }
        }
        throw new IllegalArgumentException(NODEID + " " + node + " out of range [0, " + first + ") of " + name + " '" + perNode + "'");
    }

    private static boolean blank(String s) { return s == null || s.isBlank(); }

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
