package io.dsa.agent.host;

import io.dsa.DsaException;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * The text form in which a clone's partitions travel to the homes that register it:
 * {@code arrayId:p,p,...;arrayId:p,...} (array ids and partition numbers in decimal; empty for
 * none).
 */
final class ClonePartitions {
    private ClonePartitions() {}

    static String encode(Map<Integer, int[]> held) {
        StringJoiner arrays = new StringJoiner(";");
        for (Map.Entry<Integer, int[]> a : held.entrySet()) {
            if (a.getValue().length == 0) continue;
            StringJoiner parts = new StringJoiner(",", a.getKey() + ":", "");
            for (int p : a.getValue()) parts.add(Integer.toString(p));
            arrays.add(parts.toString());
        }
        return arrays.toString();
    }

    /** @throws DsaException naming the bad entry when {@code text} is not of that form */
    static Map<Integer, int[]> decode(String text) {
        Map<Integer, int[]> held = new TreeMap<>();
        if (text.isEmpty()) return held;
        for (String array : text.split(";")) {
            int colon = array.indexOf(':');
            try {
                if (colon < 1) throw new NumberFormatException("no array id");
                String[] parts = array.substring(colon + 1).split(",");
                int[] partitions = new int[parts.length];
                for (int i = 0; i < parts.length; i++) partitions[i] = Integer.parseInt(parts[i]);
                if (held.put(Integer.parseInt(array.substring(0, colon)), partitions) != null) {
                    throw new NumberFormatException("array listed twice");
                }
            } catch (NumberFormatException e) {
                throw new DsaException("clone partitions entry '" + array + "' is not arrayId:p,p,...: " + e.getMessage());
            }
        }
        return held;
    }
}
