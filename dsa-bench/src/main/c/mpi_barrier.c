/* MPI_Barrier peer of io.dsa.bench.BarrierBench: warm-up, then per repetition the mean time of
 * ITERS consecutive barriers (max over ranks); prints "rep <r> <ns>" lines on rank 0.
 * usage: mpi_barrier WARMUP ITERS REPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int warmup = argc > 1 ? atoi(argv[1]) : 100;
    int iters = argc > 2 ? atoi(argv[2]) : 1000;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < warmup; i++) MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_ns();
        for (int i = 0; i < iters; i++) MPI_Barrier(MPI_COMM_WORLD);
        double per = (now_ns() - t0) / iters, max = 0;
        MPI_Reduce(&per, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("rep %d %.1f\n", r, max);
    }
    MPI_Finalize();
    return 0;
}
