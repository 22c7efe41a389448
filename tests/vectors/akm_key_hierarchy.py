#!/usr/bin/env python3
"""Writes akm_key_hierarchy.json: the computed-only vectors of the AKMs with no published
ones (Suite B 192-bit PTK and MIC, the FT chain with SHA-256 and SHA-384), from the formulas
of IEEE 802.11-2020 12.7.1 with hashlib/hmac only. Usage: akm_key_hierarchy.py OUT.json"""
import hashlib, hmac, json, sys
def kdf(h, key, label, ctx, n):
    out=b''; i=0
    while len(out)<n:
        out+=hmac.new(key,(i+1).to_bytes(2,'little')+label+ctx+(n*8).to_bytes(2,'little'),h).digest(); i+=1
    return out[:n]
pmk=bytes.fromhex("0dc0d6eb90555ed6419756b9a15ec3e3209b63df707dd508d14581f8982721af")
aa=bytes.fromhex("a0a1a1a3a4a5"); spa=bytes.fromhex("b0b1b2b3b4b5")
an=bytes.fromhex("e0e1e2e3e4e5e6e7e8e9f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405")
sn=bytes.fromhex("c0c1c2c3c4c5c6c7c8c9d0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5")
ctx=min(aa,spa)+max(aa,spa)+min(an,sn)+max(an,sn)
pmk384=hashlib.sha384(b"wlansec Suite B 192-bit PMK").digest()
ptk384=kdf('sha384',pmk384,b"Pairwise key expansion",ctx,24+32+32)
vectors=[]
common={"aa":aa.hex(),"spa":spa.hex(),"anonce":an.hex(),"snonce":sn.hex()}
vectors.append({"id":"Suite B 192-bit (00-0F-AC:12): PTK = KDF-SHA384-704(PMK, \"Pairwise key expansion\", Min(AA,SPA)||Max(AA,SPA)||Min(ANonce,SNonce)||Max(ANonce,SNonce)), GCMP-256","akm":12,"pmk":pmk384.hex(),"pmk_origin":"SHA-384(\"wlansec Suite B 192-bit PMK\")",**common,"kck":ptk384[:24].hex(),"kek":ptk384[24:56].hex(),"tk":ptk384[56:].hex(),"verified":False,"status":"computed-only: Python hashlib/hmac, written independently of the Rust code (no published SHA-384 PTK vector found)"})
ssid=b"ThisIsASSID"; mdid=bytes.fromhex("a1b2"); r0kh=b"r0kh.example.com"; r1kh=bytes.fromhex("020000000300")
def ft(h, xx, q, kck, kek, tk):
    c=bytes([len(ssid)])+ssid+mdid+bytes([len(r0kh)])+r0kh+spa
    r0=kdf(h,xx,b"FT-R0",c,q+16)
    pmkr0=r0[:q]; r0name=hashlib.new(h,b"FT-R0N"+r0[q:]).digest()[:16]
    pmkr1=kdf(h,pmkr0,b"FT-R1",r1kh+spa,q)
    r1name=hashlib.new(h,b"FT-R1N"+r0name+r1kh+spa).digest()[:16]
    ptk=kdf(h,pmkr1,b"FT-PTK",sn+an+r1kh+spa,kck+kek+tk)
    return {"xxkey":xx.hex(),"ssid_ascii":ssid.decode(),"mdid":mdid.hex(),"r0kh_id_ascii":r0kh.decode(),"r1kh_id":r1kh.hex(),"bssid":r1kh.hex(),"spa":spa.hex(),"anonce":an.hex(),"snonce":sn.hex(),"pmk_r0":pmkr0.hex(),"pmk_r0_name":r0name.hex(),"pmk_r1":pmkr1.hex(),"pmk_r1_name":r1name.hex(),"kck":ptk[:kck].hex(),"kek":ptk[kck:kck+kek].hex(),"tk":ptk[kck+kek:].hex()}
vectors.append({"id":"FT-PSK (00-0F-AC:4): XXKey -> PMK-R0 -> PMK-R1 -> PTK (KDF-SHA256, CCMP-128)","akm":4,**ft('sha256',pmk,32,16,16,16),"verified":False,"status":"computed-only: Python hashlib/hmac from 802.11-2020 12.7.1.7.3-5, independent of the Rust code; tshark 4.0 agrees with wlansec on synthesized FT captures (tests/python/test_decrypt_akm.py)"})
vectors.append({"id":"FT-802.1X-SHA384 (00-0F-AC:13): XXKey (the MSK's first 384 bits) -> PMK-R0 -> PMK-R1 -> PTK (KDF-SHA384, GCMP-256)","akm":13,**ft('sha384',pmk384,48,24,32,32),"verified":False,"status":"computed-only: Python hashlib/hmac, independent of the Rust code"})
kd=bytes.fromhex("30140100000fac090100000fac090100000fac0c0000")
body=bytes([2])+(0x0108).to_bytes(2,'big')+bytes(2)+(1).to_bytes(8,'big')+sn+bytes(16)+bytes(8)+bytes(8)+bytes(24)+len(kd).to_bytes(2,'big')+kd
frame=bytes([2,3])+len(body).to_bytes(2,'big')+body
kck=ptk384[:24]
mic=hmac.new(kck,frame,'sha384').digest()[:24]
vectors.append({"id":"EAPOL-Key MIC of key descriptor version 0 under Suite B 192-bit: HMAC-SHA384 truncated to 192 bits over a message 2 with its 24-octet Key MIC field zeroed","akm":12,"kck":kck.hex(),"eapol_frame_mic_zeroed":frame.hex(),"mic":mic.hex(),"verified":False,"status":"computed-only: Python hmac; the KCK is the Suite B 192-bit vector's"})
doc={"algorithm":"Key hierarchies of the AKMs beyond PSK/802.1X: KDF-SHA384 PTK (Suite B 192-bit), the FT chain (12.7.1.7) with SHA-256 and SHA-384, and the HMAC-SHA384-192 EAPOL-Key MIC","sources":["Computed with Python's hashlib/hmac by akm_key_hierarchy.py from the formulas of IEEE 802.11-2020 12.7.1.3, 12.7.1.6.2, 12.7.1.7 and Table 12-11, on the inputs of the 802.11 pairwise key test vector (ptk_derivation.json). No published vector for these was found (802.11-2020 Annex J has none for FT or the SHA-384 AKMs). KDF-SHA256 itself is verified against J.10 (kdf_sha256.json), and tshark 4.0 agrees with wlansec on captures of every AKM (tests/python/test_decrypt_akm.py)."],"vectors":vectors}
json.dump(doc,open(sys.argv[1],'w'),indent=2); open(sys.argv[1],'a').write("\n")
