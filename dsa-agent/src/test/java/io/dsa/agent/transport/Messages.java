package io.dsa.agent.transport;

import java.lang.reflect.Array;
import java.lang.reflect.RecordComponent;

/** Test helper: record equality that compares array components by content. */
final class Messages {
    private Messages() {}

    /** @return a canonical text of a record, arrays spelled out element by element */
    static String canonical(Object message) {
        if (message == null || !message.getClass().isRecord()) {
            return String.valueOf(message);
        }
        StringBuilder sb = new StringBuilder(message.getClass().getSimpleName()).append('{');
        for (RecordComponent c : message.getClass().getRecordComponents()) {
            Object value;
            try {
                value = c.getAccessor().invoke(message);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            sb.append(c.getName()).append('=');
            if (value != null && value.getClass().isArray()) {
                sb.append(value.getClass().getComponentType()).append('[');
                for (int i = 0; i < Array.getLength(value); i++) {
                    sb.append(Array.get(value, i)).append(',');
                }
                sb.append(']');
            } else if (value != null && value.getClass().isRecord()) {
                sb.append(canonical(value));
            } else {
                sb.append(value);
            }
            sb.append(';');
        }
        return sb.append('}').toString();
    }
}
