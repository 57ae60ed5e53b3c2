package io.dsa.agent.wire;

/** Node to monitor: one line of program output for the launcher. */
public record ReportMessage(int node, String text) implements WireMessage {}
