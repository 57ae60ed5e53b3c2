package io.dsa.agent.cli;

import io.dsa.DsaProgram;
import io.dsa.ProgramName;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The programs {@code dsa run} can launch: those registered in
 * {@code META-INF/services/io.dsa.DsaProgram} (found by their {@link ProgramName}), or any class
 * implementing {@link DsaProgram} with a public no-argument constructor, by its full name.
 */
final class ProgramCatalog {
    /** A known program: its short name and class. */
    record Entry(String name, Class<? extends DsaProgram> type) {}

    private final ClassLoader loader;

    ProgramCatalog(ClassLoader loader) { this.loader = loader; }

    /** @return the catalog of the context class loader (the application class path) */
    static ProgramCatalog fromContext() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return new ProgramCatalog(loader != null ? loader : ProgramCatalog.class.getClassLoader());
    }

    /** @return the registered programs, by short name */
    List<Entry> programs() {
        List<Entry> entries = new ArrayList<>();
        for (ServiceLoader.Provider<DsaProgram> p : ServiceLoader.load(DsaProgram.class, loader).stream().collect(Collectors.toList())) {
            entries.add(new Entry(shortName(p.type()), p.type()));
        }
        entries.sort(Comparator.comparing(Entry::name));
        return entries;
    }

    /**
     * @param nameOrClass a short name or a fully-qualified class name
     * @return the program's class
     * @throws IllegalArgumentException naming the unknown program and listing the known ones
     */
    Class<? extends DsaProgram> resolve(String nameOrClass) {
        List<Entry> known = programs();
        Optional<Entry> byName = known.stream().filter(e -> e.name().equals(nameOrClass)).findFirst();
        if (byName.isPresent()) return byName.get().type();
        Class<?> type;
        try {
            type = Class.forName(nameOrClass, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("unknown program '" + nameOrClass + "'; known programs: "
                    + knownNames(known) + " (or the full name of a class implementing io.dsa.DsaProgram)");
        }
        if (!DsaProgram.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("class " + nameOrClass + " does not implement io.dsa.DsaProgram");
        }
        if (Modifier.isAbstract(type.getModifiers()) || !hasPublicNoArgConstructor(type)) {
            throw new IllegalArgumentException("program class " + nameOrClass
                    + " needs to be a concrete class with a public no-argument constructor");
        }
        return type.asSubclass(DsaProgram.class);
    }

    /** @return a new instance of {@code type} */
    static DsaProgram instantiate(Class<? extends DsaProgram> type) {
        try {
            return type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException("cannot create program " + type.getName() + ": " + cause, cause);
        }
    }

    /** @return the short name of {@code type}: its {@link ProgramName}, or its full class name */
    static String shortName(Class<?> type) {
        ProgramName name = type.getAnnotation(ProgramName.class);
        return name != null ? name.value() : type.getName();
    }

    private static String knownNames(List<Entry> known) {
        return known.isEmpty() ? "(none registered)" : known.stream().map(Entry::name).collect(Collectors.joining(", "));
    }

    private static boolean hasPublicNoArgConstructor(Class<?> type) {
        try {
            Constructor<?> c = type.getConstructor();
            return Modifier.isPublic(c.getModifiers()) && Modifier.isPublic(type.getModifiers());
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
