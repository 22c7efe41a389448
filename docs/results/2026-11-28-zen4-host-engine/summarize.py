#!/usr/bin/env python3
"""Medians of the runs of runs.sh: python3 summarize.py RUNDIR (the JSON of every run)."""
import json,glob,statistics as st,sys,collections
d=sys.argv[1]
files=sorted(glob.glob(d+'/run-*.json'))
R=collections.defaultdict(list); V=collections.defaultdict(list); T=collections.defaultdict(list); L=collections.defaultdict(list); loads=[]
for f in files:
    j=json.load(open(f))
    loads.append(j['machine']['load_average'][0])
    for r in j['results']: R[(r['impl'],r['mode'],r['lanes'],r['frame_bytes'])].append(r['cycles_per_byte'])
    for v in j['versus_ipsec_mb']: V[v['frame_bytes']].append((v['wlansec_speedup'], v['ipsec_mb_best']))
    for t in j['threads']: T[(t['direction'],t['threads'])].append((t['of_kernel_same_frames'], t['of_kernel'], t['speedup']))
    for s in j['bound']['lane_steps']: L[(s['registers'],s['lanes'])].append((s['cycles_per_step'], s['cycles_per_byte_1500']))
m=lambda xs: st.median(xs)
print('runs',len(files),'load avg 1-min at start: %.2f-%.2f'%(min(loads),max(loads)))
j=json.load(open(files[0])); print(j['machine']['cpu'], j['machine']['backend'], j['machine']['cpu_flags'])
sizes=[64,256,512,1024,1500,2304]
def row(name,key):
    print('%-40s'%name, ' '.join('%7.3f'%m(R[key(s)]) if R[key(s)] else '      -' for s in sizes), ' range1500 %.3f-%.3f'%(min(R[key(1500)]),max(R[key(1500)])))
print('%-40s'%'cpb', ' '.join('%7d'%s for s in sizes))
row('multibuffer 8', lambda s:('wlansec','multibuffer',8,s))
row('single', lambda s:('wlansec','single',1,s))
for n in (2,4,8): row('enhanced %d'%n, lambda s,n=n:('wlansec','enhanced',n,s))
for impl in sorted({k[0] for k in R if k[0].startswith('ipsec')}): row(impl, lambda s,i=impl:(i,'multibuffer',32,s))
row('openssl', lambda s:('openssl','single',1,s)); row('rustcrypto', lambda s:('rustcrypto-ccm','single',1,s))
print('%-40s'%'speedup vs ipsec-mb best (median of per-run)', ' '.join('%7.2f'%m([x[0] for x in V[s]]) for s in sizes))
print('   best api per size', [collections.Counter(x[1] for x in V[s]).most_common(1)[0][0] for s in sizes])
for k,v in sorted(T.items()): print('sharded',k,'of_kernel_same %.3f (%.3f-%.3f) of_kernel %.3f speedup %.2f'%(m([x[0] for x in v]),min(x[0] for x in v),max(x[0] for x in v),m([x[1] for x in v]),m([x[2] for x in v])))
for k,v in sorted(L.items()): print('lane step',k,'%.1f cycles (%.1f-%.1f), %.3f cpb'%(m([x[0] for x in v]),min(x[0] for x in v),max(x[0] for x in v),m([x[1] for x in v])))
# n8 vs n4 per run at 64
r8=R[('wlansec','enhanced',8,64)]; r4=R[('wlansec','enhanced',4,64)]
print('enh8/enh4 at 64 per run median %.3f'%m([a/b for a,b in zip(r8,r4)]))
# The multi-buffer kernel against the step on registers alone of its own register width
# and lane count (8 lanes), run by run.
width = {'avx512-vaes': 'zmm', 'avx2-vaes': 'ymm'}.get(j['machine']['backend'])
if width and L[(width, 8)]:
    per_run = [mb / step[1] for mb, step in zip(R[('wlansec', 'multibuffer', 8, 1500)], L[(width, 8)])]
    print('multibuffer 1500 / %s 8-lane step ceiling, per run: median %.3f (%.3f-%.3f)' % (width, m(per_run), min(per_run), max(per_run)))
