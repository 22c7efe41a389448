// Key schedule of aes128_core against FIPS-197 5.2 (fv_key_expansion, written out as a
// plain unrolled function): the round key the core holds (out_round_key) n rounds after a
// load is round key n of the loaded cipher key when encrypting, and round key 10 - n when
// decrypting from round key 10. ENABLE_DECRYPT = 0 is the CCMP cores' schedule (expanded a
// round ahead, SubWord gated into the XOR trees); 1 runs aes_enc_round's and
// aes_dec_round's key steps.
`default_nettype none
module fv_key_schedule #(
    parameter ENABLE_DECRYPT = 0
) (
    input wire clk
);
  // ---- the core, driven freely ----
  (* anyseq *) reg in_valid, in_decrypt, in_chain, out_ready;
  (* anyseq *) reg [127:0] in_key, in_block;
  (* anyconst *) reg [127:0] cipher_key;  // the key a decryption's round key 10 comes from
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

  // ---- the specification: round keys 0..10 of the key in flight and of cipher_key ----
  reg  [127:0]      key;  // the cipher key of the block in flight
  wire [11*128-1:0] key_rounds, cipher_key_rounds;
  fv_key_expansion expand_key (.key(key), .round_keys(key_rounds));
  generate
    if (ENABLE_DECRYPT != 0) begin : g_decrypt
      fv_key_expansion expand_cipher_key (.key(cipher_key), .round_keys(cipher_key_rounds));
    end else begin : g_encrypt_only
      assign cipher_key_rounds = {11 * 128{1'b0}};
    end
  endgenerate
  function automatic [127:0] pick(input [11*128-1:0] rounds, input [3:0] n);
    integer i;
    begin
      pick = 128'h0;  // a mux per round key (n is never above 10)
      for (i = 0; i <= 10; i = i + 1) if (n == i) pick = rounds[128 * (11 - i) - 1 -: 128];
    end
  endfunction

  wire decrypt_load = (ENABLE_DECRYPT != 0) && in_decrypt;
  // A decryption starts from the last round key of some cipher key.
  always @* if (!reset && in_valid && decrypt_load)
    assume (in_key == pick(cipher_key_rounds, 4'd10));

  // ---- the documented timing: the round the core is in, 0 when idle ----
  reg [3:0] rounds;
  reg       decrypting;
  wire load = in_valid && in_ready;
  always @(posedge clk) begin
    if (reset) rounds <= 4'd0;
    else if (load) rounds <= 4'd1;
    else if (rounds == 4'd10) rounds <= out_ready ? 4'd0 : 4'd10;
    else if (rounds != 4'd0) rounds <= rounds + 4'd1;
    if (load) begin
      key <= decrypt_load ? cipher_key : in_key;
      decrypting <= decrypt_load;
    end
  end

  always @* if (!reset) begin
    // The core's control agrees with the documented timing (what lets induction start
    // from any state that satisfies the checks).
    assert (dut_round == rounds && dut_idle_q == (rounds == 4'd0)
            && dut_last_step == (rounds == 4'd10));
    if (rounds != 4'd0) assert (dut_decrypting == decrypting);
    assert (out_valid == (rounds == 4'd10));
    assert (in_ready == (rounds == 4'd0 || (rounds == 4'd10 && out_ready)));
    if (rounds != 4'd0)
      assert (out_round_key == pick(key_rounds, decrypting ? 4'd10 - rounds : rounds));
  end

  // Not vacuous: a block goes through (with decryption: a decryption does).
  always @* if (!reset) cover (out_valid && out_ready && (ENABLE_DECRYPT == 0 || decrypting));
endmodule
`default_nettype wire
