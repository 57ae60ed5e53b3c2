package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.ReduceOp;
import io.dsa.SharedDouble;
import io.dsa.SharedFloat;
import io.dsa.SharedInteger;
import io.dsa.SharedLong;
import io.dsa.agent.wire.VarOpMessage;

/** The four shared variable types over one bits-level client. */
final class SharedVariables {
    private SharedVariables() {}

    /** A variable's identity and the raw operations, executed at its home. */
    static final class Handle {
        final NodeRuntime rt;
        final String name;
        final int id;
        final int home;
        final int type;

        Handle(NodeRuntime rt, String name, int id, int home, int type) {
            this.rt = rt;
            this.name = name;
            this.id = id;
            this.home = home;
            this.type = type;
        }

        long get() { return rt.variables.op(id, home, VarOpMessage.GET, 0, 0).value(); }

        void set(long bits) { rt.variables.op(id, home, VarOpMessage.SET, bits, 0); }

        long getAndAdd(long deltaBits) { return rt.variables.op(id, home, VarOpMessage.GET_AND_ADD, deltaBits, type).value(); }

        long accumulate(long operandBits, ReduceOp op) {
            if (type != VariableOps.INT && type != VariableOps.LONG && op.ordinal() > ReduceOp.PROD.ordinal()) {
                throw new DsaException("reduce op " + op + " is defined for integer variables only, not for '" + name + "'");
            }
            return rt.variables.op(id, home, VarOpMessage.ACCUMULATE, operandBits, type | (long) op.ordinal() << 8).value();
        }

        boolean compareAndSet(long expect, long update) {
            return rt.variables.op(id, home, VarOpMessage.COMPARE_AND_SET, expect, update).success();
        }
    }

    static final class DoubleVar implements SharedDouble {
        private final Handle h;
        DoubleVar(Handle h) { this.h = h; }
        @Override public String name() { return h.name; }
        @Override public double get() { return Double.longBitsToDouble(h.get()); }
        @Override public void set(double v) { h.set(Double.doubleToRawLongBits(v)); }
        @Override public double accumulate(double v, ReduceOp op) {
            return Double.longBitsToDouble(h.accumulate(Double.doubleToRawLongBits(v), op));
        }
        @Override public double getAndAdd(double d) { return Double.longBitsToDouble(h.getAndAdd(Double.doubleToRawLongBits(d))); }
        @Override public boolean compareAndSet(double e, double u) {
            return h.compareAndSet(Double.doubleToRawLongBits(e), Double.doubleToRawLongBits(u));
        }
    }

    static final class FloatVar implements SharedFloat {
        private final Handle h;
        FloatVar(Handle h) { this.h = h; }
        @Override public String name() { return h.name; }
        @Override public float get() { return Float.intBitsToFloat((int) h.get()); }
        @Override public void set(float v) { h.set(bits(v)); }
        @Override public float accumulate(float v, ReduceOp op) { return Float.intBitsToFloat((int) h.accumulate(bits(v), op)); }
        @Override public float getAndAdd(float d) { return Float.intBitsToFloat((int) h.getAndAdd(bits(d))); }
        @Override public boolean compareAndSet(float e, float u) { return h.compareAndSet(bits(e), bits(u)); }
        static long bits(float v) { return Float.floatToRawIntBits(v) & 0xFFFF_FFFFL; }
    }

    static final class LongVar implements SharedLong {
        private final Handle h;
        LongVar(Handle h) { this.h = h; }
        @Override public String name() { return h.name; }
        @Override public long get() { return h.get(); }
        @Override public void set(long v) { h.set(v); }
        @Override public long accumulate(long v, ReduceOp op) { return h.accumulate(v, op); }
        @Override public long getAndAdd(long d) { return h.getAndAdd(d); }
        @Override public boolean compareAndSet(long e, long u) { return h.compareAndSet(e, u); }
    }

    static final class IntVar implements SharedInteger {
        private final Handle h;
        IntVar(Handle h) { this.h = h; }
        @Override public String name() { return h.name; }
        @Override public int get() { return (int) h.get(); }
        @Override public void set(int v) { h.set(bits(v)); }
        @Override public int accumulate(int v, ReduceOp op) { return (int) h.accumulate(bits(v), op); }
        @Override public int getAndAdd(int d) { return (int) h.getAndAdd(bits(d)); }
        @Override public boolean compareAndSet(int e, int u) { return h.compareAndSet(bits(e), bits(u)); }
        static long bits(int v) { return v & 0xFFFF_FFFFL; }
    }
}
