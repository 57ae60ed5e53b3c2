/* MPI ping-pong, the peer of `dsa bench stream`: rank 0 sends a 1-byte request, rank 1 answers
 * with N bytes, for each N given; rank 0 times each round trip. The reply buffer is allocated and
 * touched once, as a program that streams into its own arrays would. For each size, rank 0 prints
 * "pingpong N MEDIAN_NS" (median round trip over ITERS after ITERS/4 warm-up round trips, with
 * ITERS = clamp(BUDGET / N, 10, 10000)).
 * Usage: mpirun -np 2 pingpong_mpi BUDGET_BYTES N [N...] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np 2 pingpong_mpi BUDGET_BYTES N [N...] (got %d ranks)\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long budget = atol(argv[1]);
    for (int a = 2; a < argc; a++) {
        long n = atol(argv[a]);
        if (n < 1) { if (rank == 0) fprintf(stderr, "pingpong_mpi: size %s not >= 1\n", argv[a]); MPI_Abort(MPI_COMM_WORLD, 2); }
        long iters = budget / n;
        if (iters < 10) iters = 10;
        if (iters > 10000) iters = 10000;
        long warmup = iters / 4;
        char *buf = malloc(n), request = 1;
        memset(buf, rank, n);
        double *ns = malloc(sizeof(double) * iters);
        MPI_Barrier(MPI_COMM_WORLD);
        for (long k = -warmup; k < iters; k++) {
            if (rank == 0) {
                double t0 = MPI_Wtime();
                MPI_Send(&request, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t1 = MPI_Wtime();
                if (k >= 0) ns[k] = (t1 - t0) * 1e9;
            } else {
                MPI_Recv(&request, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            if (buf[0] != 1 || buf[n - 1] != 1) { fprintf(stderr, "pingpong_mpi: reply of %ld bytes not rank 1's\n", n); MPI_Abort(MPI_COMM_WORLD, 1); }
            qsort(ns, iters, sizeof(double), cmp);
            printf("pingpong %ld %.1f\n", n, ns[iters / 2]);
            fflush(stdout);
        }
        free(buf);
        free(ns);
    }
    MPI_Finalize();
    return 0;
}
