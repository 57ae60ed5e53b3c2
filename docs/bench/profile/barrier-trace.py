"""Critical path of the global TREE barrier from the timestamp trace of barrier-trace.patch.

Usage (from the repository root; see docs/benchmarks.md, "Where a barrier's time goes"):
  git apply docs/bench/profile/barrier-trace.patch && mvn -B -q -pl dsa-bench -am package -DskipTests
  mkdir -p /tmp/btrace && JAVA_TOOL_OPTIONS=-Ddsa.btrace=/tmp/btrace java -cp dsa-bench/target/benchmarks.jar \
      io.dsa.bench.BarrierBench --nodes 4 --threads 2 --kinds TREE --proxies FLOAT --no-mpi --reps 3 --out /tmp/bt-out
  python3 docs/bench/profile/barrier-trace.py /tmp/btrace 4
  git apply -R docs/bench/profile/barrier-trace.patch
Events per line of node-K.txt: EVENT GENERATION NANOS, with 1 worker arrives, 2 last local arrival
(proxy), 3/4 node 0 before/after sendToAll of the release, 5 release handled, 6 worker leaves,
10+K node 0 handles node K's arrival. Uses the last ~600 generations (the timed ones).
"""
import sys,collections,statistics as st
d=sys.argv[1]; n=int(sys.argv[2])
ev=collections.defaultdict(lambda: collections.defaultdict(list))  # gen -> key -> times
for k in range(n):
    for line in open(f"{d}/node-{k}.txt"):
        e,g,t=map(int,line.split())
        ev[g][(k,e)].append(t)
gens=sorted(ev)
gens=[g for g in gens if g>=gens[-1]-600 and g<gens[-1]-5]
rows=collections.defaultdict(list)
for g in gens:
    x=ev[g]
    try:
        lastarr=max(max(x[(k,1)]) for k in range(n))
        proxy={k:x[(k,2)][0] for k in range(n)}
        lastnode=max(range(n),key=lambda k:proxy[k])
        rows['total: last arrival -> last wake']+= [max(max(x[(k,6)]) for k in range(n))-lastarr]
        rows['last local arrival -> proxy send call']+=[proxy[lastnode]-max(x[(lastnode,1)])]
        if lastnode!=0:
            rows['proxy send (node k) -> node0 onArrive (io wake+tcp+io wake)']+=[x[(0,10+lastnode)][0]-proxy[lastnode]]
        else:
            rows['node0 is last: proxy -> onArrive (local)']+=[x[(0,10)][0]-proxy[0]]
        rows['node0 last onArrive -> release decided']+=[x[(0,3)][0]-max(x[(0,10+k)][0] for k in range(n))]
        rows['sendToAll duration']+=[x[(0,4)][0]-x[(0,3)][0]]
        for k in range(1,n):
            rows['release decided -> node k onRelease']+=[x[(k,5)][0]-x[(0,3)][0]]
        for k in range(n):
            w=sorted(x[(k,6)]); r=x[(k,5)][0]
            rows['onRelease -> first worker awake']+=[w[0]-r]
            rows['onRelease -> last worker awake']+=[w[-1]-r]
        rows['lastnode==0']+=[1000 if lastnode==0 else 0]
    except (KeyError,ValueError,IndexError) as e:
        pass
for k,v in rows.items():
    v=sorted(v); print(f"{k:65s} n={len(v):4d} median={st.median(v)/1000:8.1f} us  p90={v[int(.9*len(v))]/1000:8.1f} us  mean={st.mean(v)/1000:8.1f}")
