package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.wire.ElementsMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * One element of a host's answer to a read ({@code dsa read}): its index and its value as text,
 * made from the {@link ElementsMessage} that carried it as bits ({@link #of}).
 *
 * @param index the element's index, {@code >= 0}
 * @param value the element's value as {@link Double#toString} (or the float, long, int form) writes it
 */
public record ElementRow(long index, String value) {
    /**
     * @return one row per element of {@code m}, from index {@code m.from()}
     * @throws DsaException when the answer is missing
     */
    public static List<ElementRow> of(ElementsMessage m) {
        if (m == null) throw new DsaException("read answer is missing");
        List<ElementRow> rows = new ArrayList<>(m.bits().length);
        for (int i = 0; i < m.bits().length; i++) rows.add(new ElementRow(m.from() + i, m.text(i)));
        return rows;
    }
}
