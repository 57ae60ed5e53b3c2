package io.dsa.agent.internal;

import io.dsa.ReduceOp;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import java.util.concurrent.atomic.AtomicLong;

/** Executes shared-variable operations atomically on the home's value bits. */
final class VariableOps {
    static final int INT = 0;
    static final int LONG = 1;
    static final int FLOAT = 2;
    static final int DOUBLE = 3;

    private VariableOps() {}

    static VarResultMessage execute(AtomicLong bits, VarOpMessage m) {
        switch (m.op()) {
            case VarOpMessage.GET:
                return new VarResultMessage(m.requestId(), bits.get(), true);
            case VarOpMessage.SET:
                bits.set(m.a());
                return new VarResultMessage(m.requestId(), m.a(), true);
            case VarOpMessage.COMPARE_AND_SET:
                return new VarResultMessage(m.requestId(), m.a(), bits.compareAndSet(m.a(), m.b()));
            case VarOpMessage.GET_AND_ADD: {
                // the type travels in b for getAndAdd, so the home needs no type table
                int type = (int) m.b();
                while (true) {
                    long old = bits.get();
                    long next = add(type, old, m.a());
                    if (bits.compareAndSet(old, next)) return new VarResultMessage(m.requestId(), old, true);
                }
            }
            case VarOpMessage.ACCUMULATE: {
                int type = (int) (m.b() & 0xFF);
                int opIndex = (int) ((m.b() >>> 8) & 0xFF);
                if (opIndex >= OPS.length) {
                    throw new IllegalArgumentException("unknown reduce op " + opIndex + " for variable " + m.varId());
                }
                ReduceOp op = OPS[opIndex];
                while (true) {
                    long old = bits.get();
                    long next = accumulate(type, op, old, m.a());
                    if (bits.compareAndSet(old, next)) return new VarResultMessage(m.requestId(), old, true);
                }
            }
            default:
                throw new IllegalArgumentException("unknown shared variable op " + m.op() + " for variable " + m.varId());
        }
    }

    private static final ReduceOp[] OPS = ReduceOp.values();

    /** @return the bits of {@code op.apply(value, operand)} in the variable's type */
    static long accumulate(int type, ReduceOp op, long bits, long operandBits) {
        switch (type) {
            case INT: return (int) op.apply((long) (int) bits, (long) (int) operandBits) & 0xFFFF_FFFFL;
            case LONG: return op.apply(bits, operandBits);
            // a float op computed in double and rounded once is the float op (53 >= 2 * 24 + 2)
            case FLOAT: return Float.floatToRawIntBits((float) op.apply((double) Float.intBitsToFloat((int) bits),
                    (double) Float.intBitsToFloat((int) operandBits))) & 0xFFFF_FFFFL;
            case DOUBLE: return Double.doubleToRawLongBits(op.apply(Double.longBitsToDouble(bits), Double.longBitsToDouble(operandBits)));
            default: throw new IllegalArgumentException("unknown shared variable type " + type);
        }
    }

    static long add(int type, long bits, long deltaBits) {
        switch (type) {
            case INT: return ((int) bits + (int) deltaBits) & 0xFFFF_FFFFL; // 32-bit values live in the low bits
            case LONG: return bits + deltaBits;
            case FLOAT: return Float.floatToRawIntBits(Float.intBitsToFloat((int) bits) + Float.intBitsToFloat((int) deltaBits)) & 0xFFFF_FFFFL;
            case DOUBLE: return Double.doubleToRawLongBits(Double.longBitsToDouble(bits) + Double.longBitsToDouble(deltaBits));
            default: throw new IllegalArgumentException("unknown shared variable type " + type);
        }
    }
}
