/* NAS Parallel Benchmarks CG (classes S, W, A) in MPI + C: the algorithm of io.dsa.examples.Cg.
 * Every rank generates NPB's matrix (makea/sprnvc/vecset/sparse with NPB's randlc, seed
 * 314159265, multiplier 5^13) and keeps its block of rows [na*rank/P, na*(rank+1)/P), the same
 * blocks as the DSA program's threads. Vectors are distributed the same way; before each
 * matrix-vector product the rank gathers the whole of p (or z) with MPI_Allgatherv; dot products
 * are MPI_Allreduce, and the outer iteration's three sums (||x - Az||^2, x.z, z.z) are one
 * MPI_Allreduce of three values, as in the DSA program. Per CG step: one Allgatherv, two Allreduce.
 * Each rep runs NPB's untimed iteration, then the niter timed ones. Rank 0 prints
 * "zeta Z", "error E" and "time SECONDS" (median of REPS) and exits 1 if the relative error of
 * zeta against NPB's published value exceeds 1e-10.
 * Usage: mpirun -np P cg_mpi CLASS [REPS]   (CLASS one of S, W, A) */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CG_STEPS 25
#define RCOND 0.1

typedef struct { char name; int na, nonzer, niter; double shift, zeta; } Size;
static const Size SIZES[] = {
    {'S', 1400, 7, 15, 10.0, 8.5971775078648},
    {'W', 7000, 8, 15, 12.0, 10.362595087124},
    {'A', 14000, 11, 15, 20.0, 17.130235054029},
};

/* x = a * x mod 2^46 in doubles, split into 23-bit halves so that no product loses bits */
static double randlc(double *x, double a) {
    const double r23 = 0x1.0p-23, t23 = 0x1.0p23, r46 = 0x1.0p-46, t46 = 0x1.0p46;
    double a1 = (double)(long long)(r23 * a), a2 = a - t23 * a1;
    double x1 = (double)(long long)(r23 * *x), x2 = *x - t23 * x1;
    double t1 = a1 * x2 + a2 * x1;
    double t2 = (double)(long long)(r23 * t1);
    double z = t1 - t23 * t2;
    double t3 = t23 * z + a2 * x2;
    double t4 = (double)(long long)(r46 * t3);
    *x = t3 - t46 * t4;
    return r46 * *x;
}

typedef struct { int n; int *start, *col; double *a; } Matrix;

/* nz distinct random positions in [1, n] (rejecting those past n and repeats) with random values */
static int sprnvc(int n, int nz, int nn1, double *v, int *iv, double *seed) {
    int count = 0;
    while (count < nz) {
        double value = randlc(seed, 1220703125.0);
        int i = (int)(nn1 * randlc(seed, 1220703125.0)) + 1, seen = 0;
        if (i > n) continue;
        for (int k = 0; k < count && !seen; k++) seen = iv[k] == i;
        if (seen) continue;
        v[count] = value;
        iv[count++] = i;
    }
    return count;
}

/* position i gets value, appended if absent */
static int vecset(double *v, int *iv, int count, int i, double value) {
    int set = 0;
    for (int k = 0; k < count; k++) if (iv[k] == i) { v[k] = value; set = 1; }
    if (set) return count;
    v[count] = value;
    iv[count] = i;
    return count + 1;
}

/* column c's slot in row slots [from, to) kept sorted (unused slots -1 at the end); counts duplicates */
static int insert(double *a, int *col, int from, int to, int c, int *dup) {
    for (int k = from; k < to; k++) {
        if (col[k] > c) {
            for (int m = to - 2; m >= k; m--) if (col[m] > -1) { a[m + 1] = a[m]; col[m + 1] = col[m]; }
            col[k] = c;
            a[k] = 0.0;
            return k;
        }
        if (col[k] == -1) { col[k] = c; return k; }
        if (col[k] == c) { (*dup)++; return k; }
    }
    fprintf(stderr, "cg_mpi: sparse row overflow\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
    return -1;
}

/* NPB's makea + sparse: the sum over generated vectors i of rcond^(i/n) v_i v_i^T, rcond - shift
 * added on the diagonal of the element vecset put at i, summed in NPB's order, duplicates removed */
static Matrix makea(const Size *s) {
    int n = s->na, nn1 = 1;
    double seed = 314159265.0;
    randlc(&seed, 1220703125.0);
    do nn1 *= 2; while (nn1 < n);
    int w = s->nonzer + 1;
    int *count = malloc(sizeof(int) * n), *cols = malloc(sizeof(int) * n * w);
    double *vals = malloc(sizeof(double) * n * w);
    for (int i = 0; i < n; i++) {
        int nzv = sprnvc(n, s->nonzer, nn1, vals + (size_t)i * w, cols + (size_t)i * w, &seed);
        count[i] = vecset(vals + (size_t)i * w, cols + (size_t)i * w, nzv, i + 1, 0.5);
        for (int k = 0; k < count[i]; k++) cols[(size_t)i * w + k] -= 1;
    }
    int *start = calloc(n + 1, sizeof(int));
    for (int i = 0; i < n; i++) for (int k = 0; k < count[i]; k++) start[cols[(size_t)i * w + k] + 1] += count[i];
    for (int j = 1; j <= n; j++) start[j] += start[j - 1];
    int capacity = start[n];
    double *a = calloc(capacity, sizeof(double));
    int *col = malloc(sizeof(int) * capacity), *dup = calloc(n, sizeof(int));
    for (int k = 0; k < capacity; k++) col[k] = -1;
    double scale = 1.0, ratio = pow(RCOND, 1.0 / n);
    for (int i = 0; i < n; i++) {
        for (int e = 0; e < count[i]; e++) {
            int row = cols[(size_t)i * w + e];
            double rowScale = scale * vals[(size_t)i * w + e];
            for (int f = 0; f < count[i]; f++) {
                int c = cols[(size_t)i * w + f];
                double value = vals[(size_t)i * w + f] * rowScale;
                if (c == row && row == i) value = value + RCOND - s->shift;
                int k = insert(a, col, start[row], start[row + 1], c, &dup[row]);
                a[k] = a[k] + value;
            }
        }
        scale *= ratio;
    }
    for (int j = 1; j < n; j++) dup[j] += dup[j - 1];
    for (int j = 0; j < n; j++) {
        int to = j > 0 ? start[j] - dup[j - 1] : 0, end = start[j + 1] - dup[j];
        for (int from = start[j]; to < end; to++, from++) { a[to] = a[from]; col[to] = col[from]; }
    }
    for (int j = 1; j <= n; j++) start[j] -= dup[j - 1];
    free(count); free(cols); free(vals); free(dup);
    Matrix m = {n, start, col, a};
    return m;
}

/* out[i] = (A v)[lo + i] for this rank's rows; v is the whole vector. Two rows at a time, each row's
 * products summed in column order (the Java NpbCg.multiply's loop, the same sums bit for bit as a row
 * at a time): the two sums are independent chains of additions that the core overlaps. */
static void multiply(const Matrix *m, int lo, int hi, const double *v, double *out) {
    const int *start = m->start, *col = m->col;
    const double *a = m->a;
    int i = lo;
    for (; i + 1 < hi; i += 2) {
        int k0 = start[i], k1 = start[i + 1], end1 = start[i + 2];
        int both = k1 - k0 < end1 - k1 ? k1 - k0 : end1 - k1;
        double sum0 = 0, sum1 = 0;
        for (int t = 0; t < both; t++) {
            sum0 += a[k0 + t] * v[col[k0 + t]];
            sum1 += a[k1 + t] * v[col[k1 + t]];
        }
        for (int k = k0 + both; k < k1; k++) sum0 += a[k] * v[col[k]];
        for (int k = k1 + both; k < end1; k++) sum1 += a[k] * v[col[k]];
        out[i - lo] = sum0;
        out[i + 1 - lo] = sum1;
    }
    if (i < hi) {
        double sum = 0;
        for (int k = start[i]; k < start[i + 1]; k++) sum += a[k] * v[col[k]];
        out[i - lo] = sum;
    }
}

static double allsum(double v) {
    double out;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

typedef struct { int lo, hi, *counts, *displs; double *full; } Blocks;

/* NPB's conj_grad on rows [lo, hi): 25 CG steps for A z = x; returns this rank's part of ||x - A z||^2 */
static double conj_grad(const Matrix *m, const Blocks *b, double *x, double *z, double *p, double *q, double *r) {
    int rows = b->hi - b->lo;
    double rho = 0;
    for (int j = 0; j < rows; j++) { q[j] = 0; z[j] = 0; r[j] = x[j]; p[j] = x[j]; rho += x[j] * x[j]; }
    rho = allsum(rho);
    for (int step = 0; step < CG_STEPS; step++) {
        MPI_Allgatherv(p, rows, MPI_DOUBLE, b->full, b->counts, b->displs, MPI_DOUBLE, MPI_COMM_WORLD);
        multiply(m, b->lo, b->hi, b->full, q);
        double d = 0;
        for (int j = 0; j < rows; j++) d += p[j] * q[j];
        d = allsum(d);
        double alpha = rho / d, rho0 = rho;
        rho = 0;
        for (int j = 0; j < rows; j++) {
            z[j] += alpha * p[j];
            r[j] -= alpha * q[j];
            rho += r[j] * r[j];
        }
        rho = allsum(rho);
        double beta = rho / rho0;
        for (int j = 0; j < rows; j++) p[j] = r[j] + beta * p[j];
    }
    MPI_Allgatherv(z, rows, MPI_DOUBLE, b->full, b->counts, b->displs, MPI_DOUBLE, MPI_COMM_WORLD);
    multiply(m, b->lo, b->hi, b->full, r);
    double sum = 0;
    for (int j = 0; j < rows; j++) { double d = x[j] - r[j]; sum += d * d; }
    return sum;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Size *s = NULL;
    for (int i = 0; argc >= 2 && i < 3; i++) if ((argv[1][0] & ~32) == SIZES[i].name && argv[1][1] == 0) s = &SIZES[i];
    if (s == NULL) { if (rank == 0) fprintf(stderr, "usage: cg_mpi S|W|A [REPS]\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    if (reps < 1) reps = 1;
    Matrix m = makea(s);
    int n = s->na;
    Blocks b = {(int)((long)n * rank / size), (int)((long)n * (rank + 1) / size), malloc(sizeof(int) * size),
                malloc(sizeof(int) * size), malloc(sizeof(double) * n)};
    for (int k = 0; k < size; k++) {
        b.displs[k] = (int)((long)n * k / size);
        b.counts[k] = (int)((long)n * (k + 1) / size) - b.displs[k];
    }
    int rows = b.hi - b.lo;
    double *x = malloc(sizeof(double) * (rows + 1)), *z = malloc(sizeof(double) * (rows + 1)),
           *p = malloc(sizeof(double) * (rows + 1)), *q = malloc(sizeof(double) * (rows + 1)),
           *r = malloc(sizeof(double) * (rows + 1)), *times = malloc(sizeof(double) * reps);
    double zeta = 0;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = 0;
        for (int it = 0; it <= s->niter; it++) {
            if (it <= 1) {
                for (int j = 0; j < rows; j++) x[j] = 1.0; /* it = 0 is NPB's untimed iteration */
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            double local[3] = {conj_grad(&m, &b, x, z, p, q, r), 0, 0}, sums[3];
            for (int j = 0; j < rows; j++) { local[1] += x[j] * z[j]; local[2] += z[j] * z[j]; }
            MPI_Allreduce(local, sums, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            zeta = s->shift + 1.0 / sums[1];
            double norm = 1.0 / sqrt(sums[2]);
            for (int j = 0; j < rows; j++) x[j] = norm * z[j];
        }
        times[rep] = MPI_Wtime() - t0;
    }
    int status = 0;
    if (rank == 0) {
        qsort(times, reps, sizeof(double), cmp);
        double err = fabs(zeta - s->zeta) / s->zeta;
        printf("zeta %.13f\nerror %.3e\ntime %.6f\n", zeta, err, times[reps / 2]);
        if (!(err <= 1e-10)) { fprintf(stderr, "cg_mpi: zeta %.13f, expected %.13f (not verified)\n", zeta, s->zeta); status = 1; }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
