// Key schedule of aes128_core against FIPS-197 5.2 KeyExpansion, for all time and any key
// (k-induction). KeyExpansion is a recurrence: round key r = fv_key_step(round key r - 1,
// Rcon[r]) from round key 0 = the cipher key. So the check is the recurrence, cycle by cycle:
// encrypting, the round key the core holds in round r (out_round_key) is the step of the one
// it held in round r - 1 (of the loaded key in round 1), hence round key r; decrypting from
// round key 10, it is the key whose step gives the one before (round key 10 - r: the step is
// a bijection). Each proof obligation holds one S-box layer, where the unrolled expansion
// compared against every round at once left the induction stuck (S-boxes ten deep).
// ENABLE_DECRYPT = 0 is the CCMP cores' schedule (expanded a round ahead, SubWord gated into
// the XOR trees); 1 runs aes_enc_round's and aes_dec_round's key steps.
`default_nettype none
module fv_key_schedule #(
    parameter ENABLE_DECRYPT = 0
) (
    input wire clk
);
  // ---- the core, driven freely ----
  (* anyseq *) reg in_valid, in_decrypt, in_chain, out_ready;
  (* anyseq *) reg [127:0] in_key, in_block;
  wire in_ready, idle, out_valid;
  wire [127:0] out_block, out_round_key;
  wire [3:0] dut_round;  // the core's round counter and flags, exposed by key_schedule.sby
  wire dut_idle_q, dut_last_step, dut_decrypting;
  reg reset = 1'b1;
  always @(posedge clk) reset <= 1'b0;

  aes128_core dut (  // ENABLE_DECRYPT set on aes128_core by key_schedule.sby
      .clk(clk), .reset(reset), .in_valid(in_valid), .in_ready(in_ready), .idle(idle),
      .in_decrypt(in_decrypt), .in_chain(in_chain), .in_key(in_key), .in_block(in_block),
      .out_valid(out_valid), .out_ready(out_ready), .out_block(out_block),
      .out_round_key(out_round_key), .round(dut_round), .idle_q(dut_idle_q),
      .last_step(dut_last_step), .decrypting(dut_decrypting)
  );

  // ---- the documented timing: the round the core is in, 0 when idle ----
  reg [3:0]   rounds;
  reg         decrypting;
  reg [127:0] key;   // the key loaded with the block in flight (round key 0, or 10 decrypting)
  reg [127:0] held;  // out_round_key one cycle ago
  reg [3:0]   held_rounds;  // rounds one cycle ago
  wire decrypt_load = (ENABLE_DECRYPT != 0) && in_decrypt;
  wire load = in_valid && in_ready;
  always @(posedge clk) begin
    if (reset) rounds <= 4'd0;
    else if (load) rounds <= 4'd1;
    else if (rounds == 4'd10) rounds <= out_ready ? 4'd0 : 4'd10;
    else if (rounds != 4'd0) rounds <= rounds + 4'd1;
    if (load) begin
      key <= in_key;
      decrypting <= decrypt_load;
    end
    held <= out_round_key;
    held_rounds <= rounds;
  end

  // ---- the recurrence: Rcon from FIPS-197 5.2's table, not the core's aes_rcon ----
  localparam [79:0] RCON = 80'h01_02_04_08_10_20_40_80_1b_36;  // Rcon[1..10]
  function automatic [7:0] rcon_of(input [3:0] r);  // Rcon[r], r in 1..10
    rcon_of = RCON[87 - 8 * r -: 8];
  endfunction
  wire [127:0] before = rounds == 4'd1 ? key : held;  // the round key of the round before
  wire [127:0] step_forward, step_of_held;
  // Encrypting in round r: round key r = step(round key r - 1, Rcon[r]).
  fv_key_step forward (.prev(before), .rcon(rcon_of(rounds)), .next(step_forward));
  // Decrypting in round r: step(round key 10 - r, Rcon[11 - r]) = round key 11 - r.
  fv_key_step backward (.prev(out_round_key), .rcon(rcon_of(4'd11 - rounds)), .next(step_of_held));
  wire stalled = rounds == 4'd10 && held_rounds == 4'd10;  // the last round, held for out_ready

  always @* if (!reset) begin
    // The core's control agrees with the documented timing (what lets induction start
    // from any state that satisfies the checks).
    assert (rounds <= 4'd10);
    if (rounds != 4'd0 && rounds != 4'd1 && !stalled) assert (held_rounds == rounds - 4'd1);
    if (ENABLE_DECRYPT == 0) assert (!decrypting);
    assert (dut_round == rounds && dut_idle_q == (rounds == 4'd0)
            && dut_last_step == (rounds == 4'd10));
    if (rounds != 4'd0) assert (dut_decrypting == decrypting);
    assert (out_valid == (rounds == 4'd10));
    assert (in_ready == (rounds == 4'd0 || (rounds == 4'd10 && out_ready)));
    if (stalled) assert (out_round_key == held);
    else if (rounds != 4'd0 && !decrypting) assert (out_round_key == step_forward);
    else if (rounds != 4'd0) assert (step_of_held == before);
  end

  // Not vacuous: a block goes through (with decryption: a decryption does).
  always @* if (!reset) cover (out_valid && out_ready && (ENABLE_DECRYPT == 0 || decrypting));
endmodule
`default_nettype wire
