package io.dsa.coherence;

import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link ClusterModel}'s updates that travel to a partition's home instead of taking the
 * partition: the diffs a release scope sends when it closes and the accumulates of accumulate
 * scopes and of plain {@code accumulate} calls (docs/consistency.md, "Release", "Accumulate").
 * It models what dsa-agent's {@code Diffs.onDiff} and {@code Accumulator} do with the engine, through
 * {@code GrantWaits.whenAccessible}: the home writes (or adds) an update once its own store may
 * write the partition, asking its engine for that access if need be (the engine then invalidates
 * the other copies or recalls the exclusive one), right inside the grant, before anything else
 * happens, in the order the updates arrived; then it answers, and the answer completes the
 * worker's op. The updates and their answers travel with no order among themselves or with the
 * coherence messages (every order is explored, so any order the transport keeps is covered).
 *
 * <p>The oracle ({@link ClusterModel#lastWrite}) takes an update when its home answers: a diff's
 * value, or the element's last value plus an accumulate's amount. So the model's check that
 * every valid copy holds the last write finds an update written while another copy stays valid, an
 * answer without the write, and a write that is not the update. Each {@link Fault} is one such bug.
 *
 * <p>Not thread-safe; copied with its model.
 */
final class UpdateModel {
    /** Bugs the homes' handling of updates can be made to commit, so tests can show the explorer finds each. */
    enum Fault {
        /** the home writes an update as soon as it may read the partition, before the other copies are invalidated */
        APPLIED_BEFORE_INVALIDATION,
        /** the home answers an update without writing it */
        LOST,
        /** the home writes an accumulate's amount instead of adding it to the element */
        ACCUMULATE_WRITTEN,
        /** the home writes a diff's whole buffer, the elements its scope did not write (zeros) with the one it did */
        WHOLE_PARTITION_WRITTEN
    }

    /** Updates in flight or waiting: more in one state is a configuration too large. */
    static final int MAX_IN_FLIGHT = 16;

    /**
     * One update: the worker that sent it, its op ({@code D} or {@code A}, with partition and
     * element) and the diff's value or the accumulate's amount.
     */
    record Update(int worker, ModelOp op, int value) {
        @Override
        public String toString() {
            return (op.kind() == 'D' ? "diff " : "accumulate ") + op.partition() + "." + op.element() + (op.kind() == 'D' ? " = " : " += ")
                    + value + " of worker " + worker;
        }
    }

    /** In flight to their homes, in no order. */
    final List<Update> toHome;
    /** Per partition, the updates its home has received and not written yet, in arrival order. */
    final List<List<Update>> waiting;
    /** Answers in flight back to the workers, in no order. */
    final List<Update> answers;

    UpdateModel(int partitions) {
        toHome = new ArrayList<>();
        waiting = new ArrayList<>();
        for (int p = 0; p < partitions; p++) waiting.add(new ArrayList<>());
        answers = new ArrayList<>();
    }

    UpdateModel(UpdateModel from) {
        toHome = new ArrayList<>(from.toHome);
        waiting = new ArrayList<>();
        for (List<Update> w : from.waiting) waiting.add(new ArrayList<>(w));
        answers = new ArrayList<>(from.answers);
    }

    /** A worker sends an update to its partition's home. */
    void send(Update u) {
        if (toHome.size() == MAX_IN_FLIGHT) throw new ClusterModel.Violation("more than " + MAX_IN_FLIGHT + " updates in flight");
        toHome.add(u);
    }

    /**
     * Update {@code i} in flight arrives at its home in model {@code m}: the home writes it at once if
     * its store may write the partition, else asks its engine for that access ({@link #granted} then
     * writes it).
     */
    void arrive(ClusterModel m, int i) {
        Update u = toHome.remove(i);
        int p = u.op().partition();
        int home = m.config.home(p);
        waiting.get(p).add(u);
        if (m.describe) m.log.add("node " + home + " receives " + u);
        Access needed = needed(m);
        if (m.stores[home].access[p].allows(needed)) {
            write(m, home, p, false);
        } else if (m.engines[home].request(ClusterModel.ARRAY, p, needed)) {
            throw new ClusterModel.Violation("node " + home + ": the engine says hit on an update of partition " + p
                    + " but the store grants " + m.stores[home].access[p]);
        }
    }

    /** @return the access a home waits for before it writes an update: READ_WRITE (READ with {@link Fault#APPLIED_BEFORE_INVALIDATION}) */
    private static Access needed(ClusterModel m) {
        return m.config.updateFaults().contains(Fault.APPLIED_BEFORE_INVALIDATION) ? Access.READ : Access.READ_WRITE;
    }

    /** The home's store changed its access to {@code p}: it writes the updates that waited for it, right in the grant. */
    void granted(ClusterModel m, int p) {
        int home = m.config.home(p);
        if (!waiting.get(p).isEmpty() && m.stores[home].access[p].allows(needed(m))) write(m, home, p, true);
    }

    /**
     * The home writes (adds) every update of {@code p} that waits, in arrival order, and answers
     * each; the oracle takes each update as it is answered (the answer promises the update is in the
     * home's copy).
     */
    private void write(ClusterModel m, int home, int p, boolean atGrant) {
        java.util.Set<Fault> faults = m.config.updateFaults();
        ClusterModel.Store store = m.stores[home];
        for (Update u : waiting.get(p)) {   // writing a store does not call back here, so the list stays as it is
            int e = u.op().element();
            int at = p * ClusterModel.ELEMENTS + e;
            boolean accumulate = u.op().kind() == 'A';
            int promised = accumulate ? m.lastWrite[at] + u.value() : u.value();
            if (!faults.contains(Fault.LOST)) {
                boolean overwrite = accumulate && faults.contains(Fault.ACCUMULATE_WRITTEN);
                store.write(p, e, accumulate && !overwrite ? store.value(p, e) + u.value() : u.value());
                if (!accumulate && faults.contains(Fault.WHOLE_PARTITION_WRITTEN)) {
                    for (int o = 0; o < ClusterModel.ELEMENTS; o++) if (o != e) store.write(p, o, 0);
                }
            }
            m.lastWrite[at] = promised;
            if (answers.size() == MAX_IN_FLIGHT) throw new ClusterModel.Violation("more than " + MAX_IN_FLIGHT + " answers in flight");
            answers.add(u);
            m.updateWrittenAtGrant |= atGrant;
            if (m.describe) m.log.add("node " + home + " writes " + u + (atGrant ? " at the grant" : "") + " and answers");
        }
        waiting.get(p).clear();
    }

    /** @return whether no update is in flight, waiting or unanswered */
    boolean empty() {
        if (!toHome.isEmpty() || !answers.isEmpty()) return false;
        for (List<Update> w : waiting) if (!w.isEmpty()) return false;
        return true;
    }

    /** Writes the state for the explorer's visited set: the unordered lists sorted, so equal states give equal bytes. */
    void encode(DataOutputStream out) throws IOException {
        writeSorted(out, toHome);
        for (List<Update> w : waiting) {
            out.writeByte(w.size());
            for (Update u : w) write(out, u);
        }
        writeSorted(out, answers);
    }

    private static void writeSorted(DataOutputStream out, List<Update> updates) throws IOException {
        List<Update> sorted = new ArrayList<>(updates);
        sorted.sort((a, b) -> a.worker() != b.worker() ? Integer.compare(a.worker(), b.worker()) : Integer.compare(a.value(), b.value()));
        out.writeByte(sorted.size());
        for (Update u : sorted) write(out, u);
    }

    private static void write(DataOutputStream out, Update u) throws IOException {
        out.writeByte(u.worker());
        out.writeByte(u.op().kind());
        out.writeByte(u.op().partition());
        out.writeByte(u.op().element());
        out.writeInt(u.value());
    }

    @Override
    public String toString() {
        return "updates in flight " + toHome + ", waiting at homes " + waiting + ", answers in flight " + answers;
    }
}
