package io.dsa.agent.host;

import io.dsa.DsaException;

/**
 * One row of a host's answer to a read ({@code dsa read}): an element's index and its value as
 * text, joined by a tab ({@link #format}). The rows come over the network, so {@link #parse}
 * checks them before they are printed.
 *
 * @param index the element's index, {@code >= 0}
 * @param value the element's value as {@link Double#toString} (or the float, long, int form)
 *        writes it: 1 to {@value #MAX_VALUE_CHARS} characters, no control character
 */
public record ElementRow(long index, String value) {
    /** The longest value text a row may carry (a double takes at most 24). */
    public static final int MAX_VALUE_CHARS = 64;

    /**
     * Parses one row as a host wrote it.
     *
     * @throws DsaException naming the row and what is wrong: no tab, an index that is not a
     *         number {@code >= 0}, an empty or overlong value, or a control character in it
     */
    public static ElementRow parse(String row) {
        if (row == null) throw new DsaException("read row is missing");
        int tab = row.indexOf('\t');
        if (tab < 0) throw new DsaException("read row '" + StatusRow.shown(row) + "' is not index<TAB>value");
        long index;
        try {
            index = Long.parseLong(row.substring(0, tab));
        } catch (NumberFormatException e) {
            throw new DsaException("read row '" + StatusRow.shown(row) + "': index is not a number");
        }
        String value = row.substring(tab + 1);
        if (index < 0 || value.isEmpty() || value.length() > MAX_VALUE_CHARS || value.chars().anyMatch(Character::isISOControl)) {
            throw new DsaException("read row '" + StatusRow.shown(row) + "': expected an index >= 0 and a value of 1 to "
                    + MAX_VALUE_CHARS + " characters without control characters");
        }
        return new ElementRow(index, value);
    }

    /**
     * Parses a read reply's rows.
     *
     * @throws DsaException when there are none (null: a reply without rows) or one does not parse ({@link #parse})
     */
    public static java.util.List<ElementRow> parseAll(java.util.List<String> rows) {
        if (rows == null) throw new DsaException("read reply without rows");
        java.util.List<ElementRow> parsed = new java.util.ArrayList<>(rows.size());
        for (String row : rows) parsed.add(parse(row));
        return parsed;
    }

    /** @return the row as it travels: index, a tab, value */
    public String format() { return index + "\t" + value; }
}
