package io.dsa.examples;

import java.util.Arrays;

/**
 * A travelling salesman instance (random asymmetric integer costs from a seed), its lower bound,
 * and the sequential solvers that check the parallel {@link Tsp}: Held-Karp dynamic programming
 * for small instances, and a depth-first branch and bound with the same bound for larger ones.
 * Tours start and end at city 0; a partial tour is a path from city 0.
 */
final class TspInstance {
    final int n;
    final int[][] cost;

    TspInstance(int n, int[][] cost) {
        this.n = n;
        this.cost = cost;
    }

    /** Random asymmetric costs in {@code [minCost, maxCost]} from {@code seed}. */
    static TspInstance random(int n, long seed, int minCost, int maxCost) {
        int[][] c = new int[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) c[i][j] = i == j ? 0 : Seeded.between(seed, 7, (long) i * n + j, minCost, maxCost);
        }
        return new TspInstance(n, c);
    }

    /** @return the cities other than 0 as a bit mask */
    long allButStart() { return ((n == 64 ? -1L : (1L << n) - 1)) & ~1L; }

    /**
     * A lower bound on the cost of any tour that starts with the path ending at {@code last},
     * has cost {@code pathCost} so far and leaves the cities in {@code unvisited} (a mask without
     * city 0) to visit: the path cost plus the larger of the sum of the cheapest way out of every
     * city still to be left and the sum of the cheapest way into every city still to be entered.
     */
    long bound(int last, long unvisited, long pathCost) {
        if (unvisited == 0) return pathCost + cost[last][0];
        long out = 0;
        long in = 0;
        int[] fromLast = cost[last];
        int best = Integer.MAX_VALUE;
        for (long m = unvisited; m != 0; m &= m - 1) best = Math.min(best, fromLast[Long.numberOfTrailingZeros(m)]);
        out += best;
        best = Integer.MAX_VALUE;
        for (long m = unvisited; m != 0; m &= m - 1) best = Math.min(best, cost[Long.numberOfTrailingZeros(m)][0]);
        in += best;
        for (long mu = unvisited; mu != 0; mu &= mu - 1) {
            int u = Long.numberOfTrailingZeros(mu);
            int[] row = cost[u];
            int bestOut = row[0];
            int bestIn = fromLast[u];
            for (long mv = unvisited & ~(1L << u); mv != 0; mv &= mv - 1) {
                int v = Long.numberOfTrailingZeros(mv);
                if (row[v] < bestOut) bestOut = row[v];
                int c = cost[v][u];
                if (c < bestIn) bestIn = c;
            }
            out += bestOut;
            in += bestIn;
        }
        return pathCost + Math.max(out, in);
    }

    /** @return the cost of {@code tour} (a permutation of the cities starting at 0), back to 0 */
    long tourCost(int[] tour) {
        long c = 0;
        for (int i = 0; i < n; i++) c += cost[tour[i]][tour[(i + 1) % n]];
        return c;
    }

    /** @return a nearest-neighbour tour from city 0 */
    int[] nearestNeighbourTour() {
        int[] tour = new int[n];
        boolean[] seen = new boolean[n];
        seen[0] = true;
        for (int i = 1; i < n; i++) {
            int last = tour[i - 1];
            int next = -1;
            for (int v = 0; v < n; v++) {
                if (!seen[v] && (next < 0 || cost[last][v] < cost[last][next])) next = v;
            }
            tour[i] = next;
            seen[next] = true;
        }
        return tour;
    }

    /** The optimum by Held-Karp dynamic programming: {@code O(n^2 2^n)} time, for {@code n <= 20}. */
    long heldKarp() {
        if (n == 1) return 0;
        int m = n - 1;   // cities 1..n-1 as bits 0..m-1
        int full = (1 << m) - 1;
        long[] d = new long[(1 << m) * m];
        Arrays.fill(d, Long.MAX_VALUE / 4);
        for (int j = 0; j < m; j++) d[(1 << j) * m + j] = cost[0][j + 1];
        for (int s = 1; s <= full; s++) {
            for (int j = 0; j < m; j++) {
                if ((s & (1 << j)) == 0) continue;
                long dj = d[s * m + j];
                if (dj >= Long.MAX_VALUE / 4) continue;
                int[] row = cost[j + 1];
                for (int k = 0; k < m; k++) {
                    if ((s & (1 << k)) != 0) continue;
                    int t = s | (1 << k);
                    long c = dj + row[k + 1];
                    if (c < d[t * m + k]) d[t * m + k] = c;
                }
            }
        }
        long best = Long.MAX_VALUE;
        for (int j = 0; j < m; j++) best = Math.min(best, d[full * m + j] + cost[j + 1][0]);
        return best;
    }

    /** The optimum by a sequential depth-first branch and bound from the nearest-neighbour tour. */
    long sequentialBranchAndBound() {
        if (n == 1) return 0;
        int[] path = new int[n];
        long[] best = {tourCost(nearestNeighbourTour())};
        dfs(path, 1, 0, allButStart(), best, null);
        return best[0];
    }

    /** Receives complete tours found by {@link #dfs}. */
    interface TourSink {
        /** @return the current best cost (maybe lowered by others) after offering this tour */
        long offer(long cost, int[] path);
    }

    /**
     * Depth-first branch and bound below the path {@code path[0..depth)} of cost {@code pathCost},
     * children in increasing bound order; {@code best[0]} is the bound to beat and is lowered as
     * better tours are found (and offered to {@code sink} when not null).
     *
     * @return the number of subproblems expanded
     */
    long dfs(int[] path, int depth, long pathCost, long unvisited, long[] best, TourSink sink) {
        int last = path[depth - 1];
        if (unvisited == 0) {
            long total = pathCost + cost[last][0];
            if (total < best[0]) {
                best[0] = total;
                if (sink != null) best[0] = Math.min(best[0], sink.offer(total, path));
            }
            return 1;
        }
        int k = Long.bitCount(unvisited);
        int[] cities = new int[k];
        long[] bounds = new long[k];
        int count = 0;
        for (long m = unvisited; m != 0; m &= m - 1) {
            int v = Long.numberOfTrailingZeros(m);
            long b = bound(v, unvisited & ~(1L << v), pathCost + cost[last][v]);
            if (b >= best[0]) continue;
            int i = count++;
            while (i > 0 && bounds[i - 1] > b) {   // insertion sort by bound
                bounds[i] = bounds[i - 1];
                cities[i] = cities[i - 1];
                i--;
            }
            bounds[i] = b;
            cities[i] = v;
        }
        long expanded = 1;
        for (int i = 0; i < count; i++) {
            if (bounds[i] >= best[0]) break;
            int v = cities[i];
            path[depth] = v;
            expanded += dfs(path, depth + 1, pathCost + cost[last][v], unvisited & ~(1L << v), best, sink);
        }
        return expanded;
    }
}
