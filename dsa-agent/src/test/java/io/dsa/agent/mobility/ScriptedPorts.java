package io.dsa.agent.mobility;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Ports for tests of the move and clone choreographies, without sockets: a scripted port that
 * records each step it is asked for and fails the one named, and a wrapper around a real port
 * (in-JVM or host) that fails right after the named step was done.
 */
public final class ScriptedPorts {
    private ScriptedPorts() {}

    /** What a scripted port was asked, in order (the port methods' names). */
    public static final class Log {
        private final List<String> steps = Collections.synchronizedList(new ArrayList<>());

        /** @return a copy of the steps asked so far */
        public List<String> steps() { return List.copyOf(steps); }
    }

    /**
     * @param failing the port method whose step fails (thrown as {@code IllegalStateException("injected in NAME")}), or null
     * @return a port of type {@code type} that records every step in {@code log}
     */
    public static <P> P scripted(Class<P> type, Log log, String failing) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) return method.invoke(log, args);
            log.steps.add(method.getName());
            if (method.getName().equals(failing)) throw new IllegalStateException("injected in " + failing);
            return null;
        }));
    }

    /** What a wrapper does once a step was done. */
    @FunctionalInterface
    public interface AfterStep {
        void run() throws Exception;
    }

    /** @return {@code delegate}, running {@code then} right after the step {@code after} was done (its exception is the step's) */
    public static <P> P afterStep(Class<P> type, P delegate, String after, AfterStep then) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            Object result;
            try {
                result = method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (method.getName().equals(after)) then.run();
            return result;
        }));
    }

    /**
     * @return {@code delegate}, throwing {@code IllegalStateException("injected after NAME")} right
     *         after the step {@code after} was done
     */
    public static <P> P failingAfter(Class<P> type, P delegate, String after) {
        return afterStep(type, delegate, after, () -> {
            throw new IllegalStateException("injected after " + after);
        });
    }

    /**
     * @param announce run once the step {@code after} is done, before the port stops for good
     * @return {@code delegate}, stopping after the step {@code after} (the caller's thread waits
     *         forever there: for a system test that kills the process at that point)
     */
    public static <P> P stoppingAfter(Class<P> type, P delegate, String after, Runnable announce) {
        return afterStep(type, delegate, after, () -> {
            announce.run();
            new java.util.concurrent.CountDownLatch(1).await();
        });
    }

    /** @return the port method that carries the step of {@code state} ({@code HOLDING} -> {@code hold}) */
    public static String step(Enum<?> state) {
        String s = state.name().toLowerCase(Locale.ROOT);
        return switch (s) {
            case "holding" -> "hold";
            case "expecting" -> "expect";
            case "transferring" -> "transfer";
            case "connecting" -> "connect";
            case "awaiting" -> "await";
            case "committing" -> "commit";
            case "releasing" -> "release";
            case "resuming" -> "resume";
            case "preparing" -> "prepare";
            case "admitting" -> "admit";
            case "registering" -> "register";
            case "stopping" -> "stop";
            case "placing" -> "place";
            case "starting" -> "start";
            case "forming" -> "awaitFormed";
            default -> throw new IllegalArgumentException("state " + state + " has no step");
        };
    }
}
