"""Each formal check seen failing: a copy of rtl/ and formal/ per mutant under
build/mutants/<name>/, one RTL line changed, the check run there; every mutant must make
its check FAIL (a counterexample), else this exits non-zero. `make -C hdl formal-mutants`."""
import shutil
import subprocess
import sys
from pathlib import Path

HDL = Path(__file__).resolve().parents[1]
# name: (RTL file, text, replacement, sby file, task, what the mutation does)
MUTANTS = {
    "core_beat_lost": (
        "ccmp_core.v", "assign ks_ready   = out_ready && (ks_s0", "assign ks_ready   = (ks_s0",
        "ccmp_stream", "core", "a keystream beat leaves the CTR unit without out_ready: lost beat"),
    "core_stall_change": (
        "ccmp_core.v", "  assign out_nbytes = (emit_mic || emit_header) ? EIGHT : ks_nbytes;",
        "  assign out_nbytes = (emit_mic || emit_header) && out_ready ? EIGHT : ks_nbytes;",
        "ccmp_stream", "core", "out_nbytes depends on out_ready: changes while stalled"),
    "decap_beat_lost": (
        "ccmp_decap.v", "wire plaintext_take = body_beat && !mac_full && out_ready;",
        "wire plaintext_take = body_beat && !mac_full;",
        "ccmp_stream", "decap", "the MAC takes a plaintext beat the consumer did not"),
    "decap_beat_twice": (
        "ccmp_decap.v", "assign out_valid  = body_beat && !mac_full;",
        "assign out_valid  = body_beat;",
        "ccmp_stream", "decap", "a plaintext beat offered while the MAC slot is full: sent twice"),
    "decap_mic_half": (
        "ccmp_decap.v", "assign res_ok     = ((tag_q ^ s0) == rx_mic) && flight_ok[0];",
        "assign res_ok     = ((tag_q[63:32] ^ s0[63:32]) == rx_mic[63:32]) && flight_ok[0];",
        "ccmp_decap_mic", "plain", "only 4 of the 8 MIC octets compared"),
    "decap_ok_forced": (
        "ccmp_decap.v", "assign res_ok     = ((tag_q ^ s0) == rx_mic) && flight_ok[0];",
        "assign res_ok     = flight_ok[0];",
        "ccmp_decap_mic", "plain", "ok without the MIC comparison"),
    "sbox_entry": (
        "aes_sbox.v", "8'h53: out_byte = 8'hed;", "8'h53: out_byte = 8'hec;",
        "key_schedule", "sbox", "one S-box entry wrong (0x53)"),
    "enc_key_rotword": (
        "aes128_core.v", "aes_sbox next_sbox (.in_byte(round_key[31 - 8 * ((i + 1) % 4) -: 8]),",
        "aes_sbox next_sbox (.in_byte(round_key[31 - 8 * i -: 8]),",
        "key_schedule", "enc_only", "the CCMP cores' schedule without RotWord"),
    "dec_key_word": (
        "aes_dec_round.v", "wire [31:0] w2 = key_in[63:32] ^ key_in[95:64];",
        "wire [31:0] w2 = key_in[63:32] ^ key_in[127:96];",
        "key_schedule", "enc_dec", "the inverse key step XORs the wrong word"),
    "rcon_9": (
        "aes_rcon.v", "4'd9:    rcon = 8'h1b;", "4'd9:    rcon = 8'h1c;",
        "key_schedule", "enc_dec", "Rcon[9] wrong"),
}


def main():
    names = sys.argv[1:] or list(MUTANTS)
    survived = []
    for name in names:
        file, text, replacement, sby, task, what = MUTANTS[name]
        root = HDL / "build" / "mutants" / name
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(HDL / "rtl", root / "rtl")
        shutil.copytree(HDL / "formal", root / "formal")
        source = root / "rtl" / file
        rtl = source.read_text()
        assert rtl.count(text) == 1, f"{name}: '{text}' not found once in {file}"
        source.write_text(rtl.replace(text, replacement))
        run = subprocess.run([str(root / "formal" / "run_sby.sh"), f"{sby}.sby", *([task] if task else [])],
                             capture_output=True, text=True)
        # Debian's ABC writes a counterexample trace this SymbiYosys cannot convert (the task
        # then ends in ERROR): the engine's FAIL is the verdict.
        failed = "DONE (FAIL" in run.stdout or "returned FAIL" in run.stdout
        print(f"mutant {name} ({what}): {sby} {task} {'FAILS as it must' if failed else 'NOT caught'}",
              flush=True)
        if not failed:
            survived.append(name)
    if survived:
        sys.exit(f"formal-mutants: not caught: {', '.join(survived)}")


if __name__ == "__main__":
    main()
