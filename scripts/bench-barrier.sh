#!/usr/bin/env bash
# The barrier macro benchmark (paper Sec. 4.4, Fig. 11) with the MPI_Barrier peer.
# Builds dsa-bench, then runs io.dsa.bench.BarrierBench from the repository root; extra
# arguments go to the runner (see --help). Installs nothing: without mpicc the MPI peer is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "bench-barrier: mpicc/mpirun not found, the MPI_Barrier peer will be skipped." >&2
    echo "  To include it (Debian/Ubuntu): sudo apt-get install -y openmpi-bin libopenmpi-dev" >&2
fi
mvn -q -pl dsa-bench -am package -DskipTests
exec java -cp dsa-bench/target/benchmarks.jar io.dsa.bench.BarrierBench "$@"
