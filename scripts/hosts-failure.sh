#!/usr/bin/env bash
# Issue 14's failure target on hosts: four 'dsa host' daemons on 127.0.0.2-5 (one machine, four
# loopback addresses), Jacobi N x N for ITERATIONS iterations on 4 nodes x 2 threads with a checkpoint
# every 100 global barriers, and DELAY seconds after the launcher heard of the first complete
# checkpoint, host K (1-4; host 1 runs node 0) is killed by PID with SIGKILL together with its jobs'
# JVMs, as a lost machine would be. The launcher restarts the VM from the newest checkpoint on the
# remaining hosts; the run must end "result: OK" (Jacobi checks its grid bitwise against the
# sequential iteration). Prints the launcher's lines but the per-checkpoint progress.
#
# Usage: scripts/hosts-failure.sh [K=3] [DELAY=20] [N=1024] [ITERATIONS=10000]   (K=0: no kill)
# Builds dsa-bench first; everything it starts is ended by PID, its files are under a fresh temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
KILL=${1:-3}; DELAY=${2:-20}; N=${3:-1024}; ITERATIONS=${4:-10000}
if ! [[ "$KILL" =~ ^[0-4]$ ]]; then echo "hosts-failure: K=$KILL out of range [0, 4] (0: no kill)" >&2; exit 2; fi
mvn -q -pl dsa-bench -am package -DskipTests
JAR=dsa-bench/target/benchmarks.jar
DIR=$(mktemp -d -t dsa-hosts-failure-XXXXXX)
HOST_PIDS=()
cleanup() {
    for p in "${HOST_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${HOST_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$DIR"
}
trap cleanup EXIT
java -cp "$JAR" io.dsa.agent.cli.DsaCli keygen -o "$DIR/secret" >/dev/null
for i in 2 3 4 5; do
    java -cp "$JAR" io.dsa.agent.cli.DsaCli host --bind "127.0.0.$i" --port 0 --secret-file "$DIR/secret" \
        --work-dir "$DIR/w$i" > "$DIR/host$i.log" 2>&1 &
    HOST_PIDS+=($!)
done
HOSTS=""
for i in 2 3 4 5; do
    address=""
    for _ in $(seq 1 600); do   # a host prints its address once it listens
        address=$(grep -o "127\.0\.0\.$i:[0-9]*" "$DIR/host$i.log" | head -1 || true)
        [ -n "$address" ] && break
        sleep 0.1
    done
    if [ -z "$address" ]; then echo "hosts-failure: host 127.0.0.$i did not start:" >&2; cat "$DIR/host$i.log" >&2; exit 1; fi
    HOSTS="$HOSTS${HOSTS:+,}$address"
done
echo "hosts: $HOSTS"
java -cp "$JAR" io.dsa.agent.cli.DsaCli run --hosts "$HOSTS" --secret-file "$DIR/secret" --nodes 4 --threads 2 \
    --timeout 3600 --checkpoint-every 100 jacobi "$N" "$ITERATIONS" > "$DIR/run.log" 2>&1 &
RUN=$!
if [ "$KILL" -gt 0 ]; then
    until grep -q "first complete checkpoint" "$DIR/run.log"; do
        if ! kill -0 "$RUN" 2>/dev/null; then echo "hosts-failure: the run ended before its first checkpoint" >&2; break; fi
        sleep 0.05
    done
    sleep "$DELAY"
    victim=${HOST_PIDS[$((KILL - 1))]}
    jobs_of_victim=$(pgrep -P "$victim" | tr '\n' ' ' || true)
    kill -9 "$victim" $jobs_of_victim 2>/dev/null || true
    echo "killed host $KILL (pid $victim; its jobs' JVMs: ${jobs_of_victim:-none}) at $(date -u +%T.%N)"
fi
status=0
wait "$RUN" || status=$?
grep -v -e "checkpoint at epoch" -e "iteration [0-9]* of" "$DIR/run.log" || true
echo "checkpoint lines: $(grep -c "checkpoint at epoch" "$DIR/run.log" || true); dsa run exit code $status"
exit "$status"
