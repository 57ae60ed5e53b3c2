/* MM2 of io.dsa.examples.Mm2 in MPI + C: P = Q x R, then R = Q x P, of n x n matrices of 64-bit
 * integers in [-9, 9] (wrapping arithmetic, as Java's long). Each rank owns a band of n/P rows of
 * Q, R and P; before each product the right operand's bands are gathered on every rank
 * (MPI_Allgather, the communication step), then each rank multiplies its band with the example's
 * i-k-j loop (a zero of the left operand skipped). Rank 0 prints "time SECONDS" (median of REPS
 * runs of both products) and exits 1 unless the distributed P and R equal its own sequential MM2.
 * Usage: mpirun -np P mm2_mpi N [REPS]   (N divisible by P) */
#include <mpi.h>
#include "peer.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entry (i, j) of matrix `which` (0 = Q, 1 = R): a hash of the position into [-9, 9]. */
static uint64_t initial(int which, int i, int j, int n) {
    uint64_t z = (uint64_t)which * 0x9E3779B97F4A7C15ULL + (uint64_t)i * (uint64_t)n + (uint64_t)j + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (uint64_t)((int64_t)(z % 19) - 9);
}

/* out[rows x n] = left[rows x n] x right[n x n], unsigned so that overflow wraps as in Java */
static void multiply(const uint64_t *left, const uint64_t *right, uint64_t *out, int rows, int n) {
    memset(out, 0, sizeof(uint64_t) * (size_t)rows * n);
    for (int i = 0; i < rows; i++)
        for (int k = 0; k < n; k++) {
            uint64_t a = left[(size_t)i * n + k];
            if (a == 0) continue;
            const uint64_t *b = right + (size_t)k * n;
            uint64_t *o = out + (size_t)i * n;
            for (int j = 0; j < n; j++) o[j] += a * b[j];
        }
}

int main(int argc, char **argv) {
    int rank, size;
    peer_start(&argc, &argv, &rank, &size);
    if (argc < 2) { if (rank == 0) fprintf(stderr, "usage: mm2_mpi N [REPS]\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int n = atoi(argv[1]), reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n < size || n % size != 0 || reps < 1) {
        if (rank == 0) fprintf(stderr, "mm2_mpi: N=%d must be divisible by P=%d, and REPS=%d at least 1\n", n, size, reps);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rows = n / size, first = rank * rows;
    size_t band = (size_t)rows * n, whole = (size_t)n * n;
    uint64_t *q = malloc(sizeof(uint64_t) * band), *r = malloc(sizeof(uint64_t) * band), *p = malloc(sizeof(uint64_t) * band);
    uint64_t *all = malloc(sizeof(uint64_t) * whole);
    double *times = malloc(sizeof(double) * reps);
    for (int rep = 0; rep < reps; rep++) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < n; j++) { q[(size_t)i * n + j] = initial(0, first + i, j, n); r[(size_t)i * n + j] = initial(1, first + i, j, n); }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allgather(r, (int)band, MPI_UINT64_T, all, (int)band, MPI_UINT64_T, MPI_COMM_WORLD);
        multiply(q, all, p, rows, n);
        MPI_Allgather(p, (int)band, MPI_UINT64_T, all, (int)band, MPI_UINT64_T, MPI_COMM_WORLD);
        multiply(q, all, r, rows, n);
        MPI_Barrier(MPI_COMM_WORLD);
        times[rep] = MPI_Wtime() - t0;
    }
    /* rank 0 checks both products against its own sequential MM2 */
    uint64_t *gotP = rank == 0 ? malloc(sizeof(uint64_t) * whole) : NULL, *gotR = rank == 0 ? malloc(sizeof(uint64_t) * whole) : NULL;
    MPI_Gather(p, (int)band, MPI_UINT64_T, gotP, (int)band, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(r, (int)band, MPI_UINT64_T, gotR, (int)band, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        uint64_t *sq = malloc(sizeof(uint64_t) * whole), *sr = malloc(sizeof(uint64_t) * whole), *sp = malloc(sizeof(uint64_t) * whole);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) { sq[(size_t)i * n + j] = initial(0, i, j, n); sr[(size_t)i * n + j] = initial(1, i, j, n); }
        multiply(sq, sr, sp, n, n);
        multiply(sq, sp, sr, n, n);
        size_t bad = 0;
        for (size_t k = 0; k < whole; k++) bad += (gotP[k] != sp[k]) + (gotR[k] != sr[k]);
        printf("time %.6f\nmismatches %zu\n", peer_median(times, reps), bad);
        if (bad != 0) { fprintf(stderr, "mm2_mpi: %zu elements of P and R differ from the sequential MM2\n", bad); status = 1; }
        free(sq); free(sr); free(sp); free(gotP); free(gotR);
    }
    free(q); free(r); free(p); free(all); free(times);
    MPI_Finalize();
    return status;
}
