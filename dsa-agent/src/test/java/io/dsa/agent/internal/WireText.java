package io.dsa.agent.internal;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: a message as short text for exact assertions, {@code Name(field, field, ...)} with
 * the record's fields in order, long arrays spelled out and partition data as its byte count:
 * {@code BarrierArrive(0, 0, 1, 2, [5, 6])}, {@code Coherence(DATA_S, 7, 0, 0, 1, 1, 16 bytes)}. A barrier
 * message's node payload is left out when it is empty (it is, but in a scope switch that pushes diffs):
 * {@code BarrierRelease(0, 3, [1, 2])}, {@code BarrierRelease(0, 3, [1, 2], payload [2, 7, 8, 0])}.
 */
final class WireText {
    private WireText() {}

    static String of(Object message) {
        Class<?> type = message.getClass();
        if (!type.isRecord()) return String.valueOf(message);
        List<String> fields = new ArrayList<>();
        for (RecordComponent c : type.getRecordComponents()) {
            Object v;
            try {
                v = c.getAccessor().invoke(message);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            if (c.getName().equals("payload") && v instanceof long[] payload) {
                if (payload.length > 0) fields.add("payload " + java.util.Arrays.toString(payload));
            } else if (v instanceof long[] longs) fields.add(java.util.Arrays.toString(longs));
            else if (v instanceof int[] ints) fields.add(java.util.Arrays.toString(ints));
            else if (v instanceof byte[] bytes) fields.add(bytes.length + " bytes");
            else fields.add(String.valueOf(v));
        }
        return type.getSimpleName().replace("Message", "") + "(" + String.join(", ", fields) + ")";
    }
}
