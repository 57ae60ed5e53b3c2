/* The 2-D FFT of io.dsa.examples.Fft2d in MPI + C: an n x n complex array (split real and
 * imaginary parts) in row bands of n/P rows per rank. One pass: radix-2 FFT of each local row,
 * then a transpose with MPI_Alltoall (the communication step); two passes make the 2-D transform
 * in the normal orientation. Rank 0 prints "time SECONDS" (median of REPS forward transforms)
 * and the relative error of the inverse vs the input, and exits 1 if it exceeds 1e-9.
 * Usage: mpirun -np P fft_mpi N [REPS]   (N a power of two, divisible by P) */
#include <math.h>
#include <mpi.h>
#include "peer.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cos(2 pi k/n), sin(2 pi k/n) for k < n/2, interleaved, as Fft.twiddles: made once per length, kept */
static double *twiddles(int n) {
    static double *tables[31];
    int log = 0;
    while ((1 << log) < n) log++;
    if (!tables[log]) {
        double *t = malloc(sizeof(double) * (size_t)(n < 2 ? 2 : n));
        for (int k = 0; k < n / 2; k++) { t[2 * k] = cos(2 * M_PI * k / n); t[2 * k + 1] = sin(2 * M_PI * k / n); }
        tables[log] = t;
    }
    return tables[log];
}

static void fft(double *re, double *im, int n, int inverse) {
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { double t = re[i]; re[i] = re[j]; re[j] = t; t = im[i]; im[i] = im[j]; im[j] = t; }
    }
    double sign = inverse ? 1 : -1;
    const double *w = twiddles(n);
    for (int len = 2; len <= n; len <<= 1) {
        int half = len >> 1, stride = n / len;
        for (int k = 0; k < half; k++) {
            double wr = w[2 * k * stride], wi = sign * w[2 * k * stride + 1];
            for (int s = 0; s < n; s += len) {
                int a = s + k, b = a + half;
                double tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr;
                re[b] = re[a] - tr; im[b] = im[a] - ti; re[a] += tr; im[a] += ti;
            }
        }
    }
    if (inverse) for (int i = 0; i < n; i++) { re[i] /= n; im[i] /= n; }
}

/* rows x n band -> transposed band via all-to-all of (rows x rows) tiles */
static void transpose(double *src, double *dst, double *send, double *recv, int n, int rows, int size) {
    for (int p = 0; p < size; p++)
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < rows; c++) send[(size_t)p * rows * rows + c * rows + r] = src[(size_t)r * n + p * rows + c];
    MPI_Alltoall(send, rows * rows, MPI_DOUBLE, recv, rows * rows, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int p = 0; p < size; p++)
        for (int r = 0; r < rows; r++)
            memcpy(dst + (size_t)r * n + p * rows, recv + (size_t)p * rows * rows + r * rows, sizeof(double) * rows);
}

static void pass(double *re, double *im, double *tre, double *tim, double *s, double *r, int n, int rows, int size, int inverse) {
    for (int i = 0; i < rows; i++) fft(re + (size_t)i * n, im + (size_t)i * n, n, inverse);
    transpose(re, tre, s, r, n, rows, size);
    transpose(im, tim, s, r, n, rows, size);
}

static double input(int r, int c, int part) { return (((r * 7919 + c * 104729 + part * 31) % 2000) / 1000.0) - 1.0; }

int main(int argc, char **argv) {
    int rank, size;
    peer_start(&argc, &argv, &rank, &size);
    if (argc < 2) { if (rank == 0) fprintf(stderr, "usage: fft_mpi N [REPS]\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int n = atoi(argv[1]), reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n < size || (n & (n - 1)) != 0 || n % size != 0) {
        if (rank == 0) fprintf(stderr, "fft_mpi: N=%d must be a power of two divisible by P=%d\n", n, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rows = n / size;
    size_t band = (size_t)rows * n;
    double *re = malloc(sizeof(double) * band), *im = malloc(sizeof(double) * band);
    double *tre = malloc(sizeof(double) * band), *tim = malloc(sizeof(double) * band);
    double *s = malloc(sizeof(double) * band), *r = malloc(sizeof(double) * band);
    double *times = malloc(sizeof(double) * reps);
    for (int rep = 0; rep < reps; rep++) {
        for (int i = 0; i < rows; i++)
            for (int c = 0; c < n; c++) { re[(size_t)i * n + c] = input(rank * rows + i, c, 0); im[(size_t)i * n + c] = input(rank * rows + i, c, 1); }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pass(re, im, tre, tim, s, r, n, rows, size, 0);
        pass(tre, tim, re, im, s, r, n, rows, size, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        times[rep] = MPI_Wtime() - t0;
    }
    pass(re, im, tre, tim, s, r, n, rows, size, 1);
    pass(tre, tim, re, im, s, r, n, rows, size, 1);
    double err = 0;
    for (int i = 0; i < rows; i++)
        for (int c = 0; c < n; c++) {
            double e = fabs(re[(size_t)i * n + c] - input(rank * rows + i, c, 0)) + fabs(im[(size_t)i * n + c] - input(rank * rows + i, c, 1));
            if (e > err) err = e;
        }
    double worst;
    MPI_Reduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        printf("time %.6f\nerror %.3e\n", peer_median(times, reps), worst);
        if (!(worst < 1e-9)) { fprintf(stderr, "fft_mpi: inverse differs from the input by %.3e\n", worst); status = 1; }
    }
    free(re); free(im); free(tre); free(tim); free(s); free(r); free(times);
    MPI_Finalize();
    return status;
}
