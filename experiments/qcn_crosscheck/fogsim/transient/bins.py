import sys,collections
b=collections.defaultdict(lambda:[0,0,0])
for line in open(sys.argv[1]).readlines()[1:]:
    f=line.split()
    rel=int(f[1]); lat=float(f[2]); n=int(f[3]); m=int(f[4])
    k=(rel//1000)
    b[k][0]+=lat; b[k][1]+=n; b[k][2]+=m
for k in sorted(b):
    lat,n,m=b[k]
    if n: print(f"{k*1000:6d} packets {n:6d} latency {lat/n+10:8.0f} misrouted {100*m/n:5.1f}%")
