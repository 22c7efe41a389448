#!/usr/bin/env bash
# `make demo`: the engine checks itself against every published vector, protects a stream of
# generated frames of every header shape into a pcap, and Wireshark's tshark, given only the
# temporal key, decrypts that capture.
set -euo pipefail
cd "$(dirname "$0")/.."
WLANSEC=${WLANSEC:-target/release/wlansec}
OUT=${OUT:-out/demo}
mkdir -p "$OUT"
TK=000102030405060708090a0b0c0d0e0f
FRAMES=200

step() { printf '\n== %s\n' "$*"; }

step "1/3 wlansec selftest: every published vector"
"$WLANSEC" selftest --quiet

step "2/3 protect $FRAMES generated frames (every header shape) with CCMP-128 into $OUT/ccmp128.pcap"
"$WLANSEC" vectors --count "$FRAMES" --seed 1 --min-len 2 --out "$OUT/frames.jsonl"
sed -n 's/.*"plaintext_mpdu":"\([0-9a-f]*\)".*/\1/p' "$OUT/frames.jsonl" > "$OUT/plaintext.hex"
"$WLANSEC" frame protect --suite ccmp128 --tk "$TK" --pn 1 --pcap "$OUT/ccmp128.pcap" - \
  < "$OUT/plaintext.hex" > "$OUT/protected.hex"
echo "wrote $(wc -l < "$OUT/protected.hex") protected MPDUs"

step "3/3 tshark decrypts the capture with the TK alone"
KEYS=(-o wlan.enable_decryption:TRUE -o "uat:80211_keys:\"tk\",\"$TK\"")
tshark -r "$OUT/ccmp128.pcap" "${KEYS[@]}" -c 5 2>/dev/null
decrypted=$(tshark -r "$OUT/ccmp128.pcap" "${KEYS[@]}" -x 2>/dev/null | grep -c "^Decrypted CCMP data" || true)
echo
echo "tshark decrypted $decrypted of $FRAMES frames protected by wlansec (bit-exact check: make test)"
[ "$decrypted" -eq "$FRAMES" ]
