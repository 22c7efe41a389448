#!/usr/bin/env python3
"""Medians per binary of alternating runs: python3 compare.py DIR (files TAG-N.json; a column per TAG)."""
import json,glob,statistics as st,sys,collections
d=sys.argv[1]
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(d+'/*.json')):
    tag=f.split('/')[-1].split('-')[0]
    j=json.load(open(f))
    for r in j['results']:
        if r['impl']=='wlansec' or r['impl'].startswith('ipsec'):
            rows[(r['impl'],r['mode'],r['lanes'],r['frame_bytes'])][tag].append(r['cycles_per_byte'])
    for t in j['threads']:
        rows[('sharded',t['direction'],t['threads'],'of_kernel_same')][tag].append(t['of_kernel_same_frames'])
    for v in j['versus_ipsec_mb']:
        rows[('speedup vs ipsec-mb',v['frame_bytes'],'','')][tag].append(v['wlansec_speedup'])
tags=sorted({t for r in rows.values() for t in r})
print('%-45s'%'row', *['%12s'%t for t in tags], '  n')
for k in sorted(rows, key=str):
    print('%-45s'%str(k), *['%12.3f'%st.median(rows[k][t]) if rows[k][t] else '%12s'%'-' for t in tags], ' ', len(rows[k][tags[0]]))
