package io.dsa.examples.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API in package {@code io.dsa} speaks only in JDK types and its own types: no
 * internal, coherence, agent or third-party type leaks through a public or protected signature
 * (parameters, return types, exceptions, fields, supertypes, type-parameter bounds).
 */
class PublicApiArchTest {
    static final String API_PACKAGE = "io.dsa";

    static final Predicate<Class<?>> API_TYPES = c -> c.isPrimitive()
            || c.getPackageName().startsWith("java.") || c.getPackageName().equals(API_PACKAGE);

    @Test
    void publicSignaturesUseOnlyJdkAndApiTypes() {
        List<Class<?>> classes = apiClasses();
        assertTrue(classes.size() >= 10, "classes of " + API_PACKAGE + ": " + classes);
        List<String> violations = new ArrayList<>();
        for (Class<?> c : classes) violations.addAll(violations(c, API_TYPES));
        assertTrue(violations.isEmpty(), violations.size() + " public signature(s) leak non-API types:\n  "
                + String.join("\n  ", violations));
    }

    /** The top-level classes of the API package, from the files in dsa-core's source directory. */
    static List<Class<?>> apiClasses() {
        Path dir = SourceTree.find().root.resolve("dsa-core/src/main/java").resolve(API_PACKAGE.replace('.', '/'));
        try (Stream<Path> files = Files.list(dir)) {
            List<String> names = files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".java") && !n.equals("package-info.java") && !n.equals("module-info.java"))
                    .map(n -> API_PACKAGE + "." + n.substring(0, n.length() - ".java".length()))
                    .sorted()
                    .collect(Collectors.toList());
            List<Class<?>> classes = new ArrayList<>();
            for (String name : names) classes.add(Class.forName(name));
            return classes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("source without a class on the test classpath: " + e.getMessage(), e);
        }
    }

    /** @return one line per non-API type in the exported signatures of {@code c} and its nested types */
    static List<String> violations(Class<?> c, Predicate<Class<?>> allowed) {
        List<String> out = new ArrayList<>();
        if (!exported(c)) return out;
        String owner = c.getName();
        Type superclass = c.getGenericSuperclass();
        if (superclass != null) check(superclass, allowed, owner + " supertype", out);
        for (Type i : c.getGenericInterfaces()) check(i, allowed, owner + " supertype", out);
        for (TypeVariable<?> v : c.getTypeParameters()) check(v, allowed, owner + " type parameter " + v, out);
        for (Field f : c.getDeclaredFields()) {
            if (!visible(f.getModifiers()) || f.isSynthetic()) continue;
            check(f.getGenericType(), allowed, owner + "." + f.getName(), out);
        }
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (!visible(k.getModifiers()) || k.isSynthetic()) continue;
            String where = owner + " constructor " + k.toGenericString();
            for (Type t : k.getGenericParameterTypes()) check(t, allowed, where + " parameter", out);
            for (Type t : k.getGenericExceptionTypes()) check(t, allowed, where + " throws", out);
            for (TypeVariable<?> v : k.getTypeParameters()) check(v, allowed, where + " type parameter", out);
        }
        for (Method m : c.getDeclaredMethods()) {
            if (!visible(m.getModifiers()) || m.isSynthetic() || m.isBridge()) continue;
            String where = owner + "." + m.getName() + " (" + m.toGenericString() + ")";
            check(m.getGenericReturnType(), allowed, where + " returns", out);
            for (Type t : m.getGenericParameterTypes()) check(t, allowed, where + " parameter", out);
            for (Type t : m.getGenericExceptionTypes()) check(t, allowed, where + " throws", out);
            for (TypeVariable<?> v : m.getTypeParameters()) check(v, allowed, where + " type parameter", out);
        }
        for (Class<?> nested : c.getDeclaredClasses()) out.addAll(violations(nested, allowed));
        return out;
    }

    /** Public or protected; members of an interface are public. Nested types are reached only through exported ones. */
    private static boolean exported(Class<?> c) {
        return visible(c.getModifiers()) || (c.isMemberClass() && c.getDeclaringClass().isInterface());
    }

    /** Public or protected; interface members are implicitly public. */
    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void check(Type type, Predicate<Class<?>> allowed, String where, List<String> out) {
        check(type, allowed, where, out, new HashSet<>());
    }

    private static void check(Type type, Predicate<Class<?>> allowed, String where, List<String> out,
                              Set<TypeVariable<?>> seen) {
        if (type instanceof Class) {
            Class<?> c = (Class<?>) type;
            while (c.isArray()) c = c.getComponentType();
            if (!allowed.test(c)) out.add(where + " uses " + c.getName());
        } else if (type instanceof ParameterizedType) {
            ParameterizedType p = (ParameterizedType) type;
            check(p.getRawType(), allowed, where, out, seen);
            if (p.getOwnerType() != null) check(p.getOwnerType(), allowed, where, out, seen);
            for (Type a : p.getActualTypeArguments()) check(a, allowed, where, out, seen);
        } else if (type instanceof GenericArrayType) {
            check(((GenericArrayType) type).getGenericComponentType(), allowed, where, out, seen);
        } else if (type instanceof WildcardType) {
            WildcardType w = (WildcardType) type;
            for (Type b : w.getUpperBounds()) check(b, allowed, where, out, seen);
            for (Type b : w.getLowerBounds()) check(b, allowed, where, out, seen);
        } else if (type instanceof TypeVariable) {
            TypeVariable<?> v = (TypeVariable<?>) type;
            if (seen.add(v)) {
                for (Type b : v.getBounds()) check(b, allowed, where, out, seen);
            }
        }
    }

    // ---- the check catches leaks ---------------------------------------------------------------

    /** Stands for an internal type: it is not in java.* and not in the fixture's own package. */
    public static final class Internal extends Exception {
        private static final long serialVersionUID = 1L;
    }

    /** An "API" whose signatures leak {@link Internal} in every possible position. */
    public static class Leaky<T extends Internal> {
        public Internal field;
        private Internal hidden;
        public Leaky(Internal i) { hidden = i; }
        protected Leaky() throws Internal { }
        public List<? extends Internal> list() { return List.of(); }
        public void take(Internal[][] arrays, List<T> generic) { }
        public <U extends Comparable<Internal>> U bound() { return null; }
        public void fails() throws Internal { }
        public String fine(int x, List<String> y) throws IOException { return hidden == null ? "" : "x"; }
        private Internal notApi() { return hidden; }
        /** A leak in a nested public type counts too. */
        public interface Nested { Internal get(); }
    }

    @Test
    void checkFindsEveryLeak() {
        Predicate<Class<?>> onlyJdk = c -> c.isPrimitive() || c.getPackageName().startsWith("java.");
        List<String> v = violations(Leaky.class, onlyJdk.or(c -> c == Leaky.class || c == Leaky.Nested.class));
        String all = String.join("\n", v);
        String internal = Internal.class.getName();
        assertTrue(all.contains("Leaky type parameter T uses " + internal), all);
        assertTrue(all.contains("Leaky.field uses " + internal), all);
        assertTrue(all.contains("parameter uses " + internal), all);
        assertTrue(all.contains("throws uses " + internal), all);
        assertTrue(all.contains("list (") && all.contains("returns uses " + internal), all);
        assertTrue(all.contains("bound (") && all.contains("type parameter uses " + internal), all);
        assertTrue(all.contains("Nested.get ("), all);
        assertTrue(!all.contains("hidden") && !all.contains("notApi") && !all.contains("fine ("), all);
        // T, field, Leaky(Internal), Leaky() throws, list, take (twice: the array and T's bound),
        // bound (twice: its return type U and its declaration), fails, Nested.get
        assertEquals(11, v.size(), all);
    }
}
