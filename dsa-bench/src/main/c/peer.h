/* What the MPI + C peers of dsa-bench share (each is one program: mpicc -O3 -march=native X.c -lm):
 * starting MPI with this rank and the world's size, and the median of the timed runs. */
#ifndef DSA_PEER_H
#define DSA_PEER_H
#include <mpi.h>
#include <stdlib.h>

static int peer_cmp(const void *x, const void *y) { double a = *(const double *)x, b = *(const double *)y; return (a > b) - (a < b); }

/* MPI_Init, then this process's rank and the number of ranks */
static void peer_start(int *argc, char ***argv, int *rank, int *size) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

/* the median of times[0..n), which it sorts */
static double peer_median(double *times, int n) {
    qsort(times, n, sizeof(double), peer_cmp);
    return times[n / 2];
}
#endif
