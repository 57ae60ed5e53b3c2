/* Blocked right-looking LU without pivoting, the algorithm of io.dsa.examples.Lu, in MPI + C: the
 * n x n matrix (strictly diagonally dominant: a[i][j] = n + 1 on the diagonal, in [-0.5, 0.5)
 * off it) in b x b blocks, block rows dealt round-robin to the ranks. Step k: the owner of block
 * row k factors A_kk and solves U_kj = L_kk^-1 A_kj, then broadcasts that block row; every rank
 * solves L_ik = A_ik U_kk^-1 for its block rows i > k and updates A_ij -= L_ik U_kj.
 * Rank 0 prints "time SECONDS" (median of REPS factorisations, MPI_Wtime) and the relative
 * residual of L*U - A over a few sampled rows, and exits 1 if it exceeds 1e-9.
 * Usage: mpirun -np P lu_mpi N B [REPS] */
#include <math.h>
#include <mpi.h>
#include "peer.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double a_at(int i, int j, int n) { return i == j ? n + 1.0 : ((i * 7919 + j * 104729) % 1000) / 1000.0 - 0.5; }

int main(int argc, char **argv) {
    int rank, size;
    peer_start(&argc, &argv, &rank, &size);
    if (argc < 3) { if (rank == 0) fprintf(stderr, "usage: lu_mpi N B [REPS]\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int n = atoi(argv[1]), b = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 3;
    if (b < 1 || n % b != 0) { if (rank == 0) fprintf(stderr, "lu_mpi: B=%d must divide N=%d\n", b, n); MPI_Abort(MPI_COMM_WORLD, 2); }
    int nb = n / b, mine = 0;
    for (int i = rank; i < nb; i += size) mine++;
    double *rows = malloc(sizeof(double) * (size_t)mine * b * n);   /* my block rows, row-major b x n each */
    double *panel = malloc(sizeof(double) * (size_t)b * n);
    double *times = malloc(sizeof(double) * reps);
    for (int rep = 0; rep < reps; rep++) {
        for (int m = 0; m < mine; m++) {
            int bi = rank + m * size;
            for (int r = 0; r < b; r++) for (int c = 0; c < n; c++) rows[((size_t)m * b + r) * n + c] = a_at(bi * b + r, c, n);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < nb; k++) {
            int owner = k % size, c0 = k * b, w = n - c0;
            if (owner == rank) {
                double *p = rows + (size_t)(k / size) * b * n;
                for (int kk = 0; kk < b; kk++) {           /* factor A_kk and apply L_kk^-1 to the rest of the row */
                    double pivot = p[kk * n + c0 + kk];
                    for (int i = kk + 1; i < b; i++) {
                        double lik = p[i * n + c0 + kk] / pivot;
                        p[i * n + c0 + kk] = lik;
                        for (int j = c0 + kk + 1; j < n; j++) p[i * n + j] -= lik * p[kk * n + j];
                    }
                }
                for (int r = 0; r < b; r++) memcpy(panel + (size_t)r * w, p + (size_t)r * n + c0, sizeof(double) * w);
            }
            MPI_Bcast(panel, b * w, MPI_DOUBLE, owner, MPI_COMM_WORLD);
            for (int m = 0; m < mine; m++) {
                int bi = rank + m * size;
                if (bi <= k) continue;
                double *a = rows + (size_t)m * b * n;
                for (int r = 0; r < b; r++) {                 /* L_ik = A_ik U_kk^-1 */
                    for (int j = 0; j < b; j++) {
                        double sum = a[r * n + c0 + j];
                        for (int q = 0; q < j; q++) sum -= a[r * n + c0 + q] * panel[q * w + j];
                        a[r * n + c0 + j] = sum / panel[j * w + j];
                    }
                }
                for (int r = 0; r < b; r++) {                 /* A_ij -= L_ik U_kj for j > k */
                    for (int q = 0; q < b; q++) {
                        double l = a[r * n + c0 + q];
                        const double *u = panel + (size_t)q * w + b;
                        double *dst = a + (size_t)r * n + c0 + b;
                        for (int j = 0; j < w - b; j++) dst[j] -= l * u[j];
                    }
                }
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        times[rep] = MPI_Wtime() - t0;
    }
    /* residual over sampled rows: gather the factors to rank 0 */
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)n * n) : NULL;
    for (int bi = 0; bi < nb; bi++) {
        int owner = bi % size;
        if (owner == rank && rank == 0) memcpy(all + (size_t)bi * b * n, rows + (size_t)(bi / size) * b * n, sizeof(double) * b * n);
        else if (owner == rank) MPI_Send(rows + (size_t)(bi / size) * b * n, b * n, MPI_DOUBLE, 0, bi, MPI_COMM_WORLD);
        else if (rank == 0) MPI_Recv(all + (size_t)bi * b * n, b * n, MPI_DOUBLE, owner, bi, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int status = 0;
    if (rank == 0) {
        double worst = 0;
        int samples[] = {0, 1, n / 3, n / 2, n - 2, n - 1};
        for (int s = 0; s < 6; s++) {
            int i = samples[s];
            if (i < 0) continue;
            for (int j = 0; j < n; j++) {
                double sum = 0;
                int kmax = i < j ? i : j;
                for (int k = 0; k <= kmax; k++) sum += (k == i ? 1.0 : all[(size_t)i * n + k]) * all[(size_t)k * n + j];
                double e = fabs(sum - a_at(i, j, n)) / (n + 1.0);
                if (e > worst) worst = e;
            }
        }
        printf("time %.6f\nresidual %.3e\n", peer_median(times, reps), worst);
        if (!(worst < 1e-9)) { fprintf(stderr, "lu_mpi: residual %.3e >= 1e-9\n", worst); status = 1; }
        free(all);
    }
    free(rows); free(panel); free(times);
    MPI_Finalize();
    return status;
}
