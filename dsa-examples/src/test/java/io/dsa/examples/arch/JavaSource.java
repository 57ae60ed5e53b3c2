package io.dsa.examples.arch;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Java source file, lexed just enough for architecture rules: comments are blanked out (so a
 * Javadoc that says "never uses ObjectInputStream" is not a violation), and a second view also
 * blanks string and character literals. Line breaks are kept, so line numbers stay true.
 */
final class JavaSource {
    /** An import or a fully-qualified name used in code. */
    static final class Reference {
        final int line;
        final String name;
        final boolean imported;

        Reference(int line, String name, boolean imported) {
            this.line = line;
            this.name = name;
            this.imported = imported;
        }

        /** @return the package part: the segments before the first one that starts upper case */
        String packageName() {
            String[] parts = name.split("\\.");
            StringBuilder pkg = new StringBuilder();
            for (String part : parts) {
                if (part.isEmpty() || part.equals("*") || Character.isUpperCase(part.charAt(0))) break;
                if (pkg.length() > 0) pkg.append('.');
                pkg.append(part);
            }
            return pkg.toString();
        }

        /** @return whether this name is {@code prefix} or lies inside it (package or class) */
        boolean isIn(String prefix) {
            String n = name.endsWith(".*") ? name.substring(0, name.length() - 2) : name;
            return n.equals(prefix) || n.startsWith(prefix + ".");
        }

        String describe() { return (imported ? "import " : "reference to ") + name; }
    }

    private static final Pattern IMPORT = Pattern.compile(
            "^\\s*import\\s+(?:static\\s+)?([A-Za-z_$][\\w$]*(?:\\s*\\.\\s*(?:[A-Za-z_$][\\w$]*|\\*))*)\\s*;");
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s");
    /** A qualified name in code that starts at a well-known package root, e.g. {@code io.netty.buffer.ByteBuf}. */
    private static final Pattern QUALIFIED = Pattern.compile(
            "(?<![\\w$.])((?:java|javax|jdk|sun|io|org|com|net|picocli)\\s*\\.\\s*[a-z_][\\w$]*(?:\\s*\\.\\s*[A-Za-z_$][\\w$]*)*)");

    final String module;
    /** Path from the project root, with '/' separators. */
    final String path;
    /** Lines with comments blanked; string literals kept. */
    final String[] codeAndStrings;
    /** Lines with comments and string/char literals blanked. */
    final String[] code;

    private JavaSource(String module, String path, String[] codeAndStrings, String[] code) {
        this.module = module;
        this.path = path;
        this.codeAndStrings = codeAndStrings;
        this.code = code;
    }

    static JavaSource parse(String module, String path, String text) {
        StringBuilder withStrings = new StringBuilder(text.length());
        StringBuilder codeOnly = new StringBuilder(text.length());
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            char next = i + 1 < n ? text.charAt(i + 1) : '\0';
            if (c == '/' && next == '/') {
                while (i < n && text.charAt(i) != '\n') { blank(withStrings, codeOnly, text.charAt(i)); i++; }
            } else if (c == '/' && next == '*') {
                int end = text.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                for (; i < end; i++) blank(withStrings, codeOnly, text.charAt(i));
            } else if (c == '"' && text.startsWith("\"\"\"", i)) {
                int end = i + 3;
                while (end < n && !text.startsWith("\"\"\"", end)) end += text.charAt(end) == '\\' ? 2 : 1;
                end = Math.min(n, end + 3);
                literal(withStrings, codeOnly, text, i, end, 3);
                i = end;
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < n && text.charAt(end) != c && text.charAt(end) != '\n') {
                    end += text.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 1);
                literal(withStrings, codeOnly, text, i, end, 1);
                i = end;
            } else {
                withStrings.append(c);
                codeOnly.append(c);
                i++;
            }
        }
        return new JavaSource(module, path, withStrings.toString().split("\n", -1), codeOnly.toString().split("\n", -1));
    }

    private static void blank(StringBuilder a, StringBuilder b, char c) {
        char keep = c == '\n' ? '\n' : ' ';
        a.append(keep);
        b.append(keep);
    }

    /** Keeps the literal in the first view; in the second keeps its quotes and line breaks only. */
    private static void literal(StringBuilder withStrings, StringBuilder codeOnly, String text, int from, int to,
                                int quoteLength) {
        for (int k = from; k < to; k++) {
            char c = text.charAt(k);
            withStrings.append(c);
            boolean quote = k < from + quoteLength || k >= to - quoteLength;
            codeOnly.append(c == '\n' || quote ? c : ' ');
        }
    }

    /** @return every import and every fully-qualified name in code (not in comments or strings) */
    List<Reference> references() {
        List<Reference> refs = new ArrayList<>();
        for (int i = 0; i < code.length; i++) {
            String line = code[i];
            if (PACKAGE.matcher(line).find()) continue;
            Matcher imp = IMPORT.matcher(line);
            if (imp.find()) {
                refs.add(new Reference(i + 1, imp.group(1).replaceAll("\\s", ""), true));
                continue;
            }
            Matcher q = QUALIFIED.matcher(line);
            while (q.find()) refs.add(new Reference(i + 1, q.group(1).replaceAll("\\s", ""), false));
        }
        return refs;
    }

    /** @return the package this file declares, or "" */
    String packageName() {
        Pattern decl = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;");
        for (String line : code) {
            Matcher m = decl.matcher(line);
            if (m.find()) return m.group(1);
        }
        return "";
    }

    /** @return "path:line: " for a violation message */
    String at(int line) { return path + ":" + line + ": "; }
}
