package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;

/** Array specs to and from the registry's parameter list. */
final class Specs {
    private Specs() {}

    static long[] toParams(ArraySpec s) {
        return new long[] {s.elementType().ordinal(), s.rows(), s.cols(), s.partitionRows(), s.partitionCols(),
                s.distribution().ordinal(), s.oneDimensional() ? 1 : 0};
    }

    static ArraySpec fromParams(String name, long[] p) {
        if (p.length != 7) throw new IllegalArgumentException("array params of '" + name + "' have " + p.length + " values, expected 7");
        ElementType type = ElementType.values()[(int) p[0]];
        Distribution dist = Distribution.values()[(int) p[5]];
        return p[6] == 1
                ? ArraySpec.oneDimensional(name, type, (int) p[2], (int) p[4], dist)
                : ArraySpec.of(name, type, (int) p[1], (int) p[2], (int) p[3], (int) p[4], dist);
    }
}
