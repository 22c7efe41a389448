// Iterative AES-128: one round per cycle, round keys expanded on the fly, 10 cycles per
// block back to back. The last round is combinational into out_block, so a block is
// returned and the next one loaded in the same cycle (a CBC chain can feed out_block back).
//
// Encrypt: in_key is the cipher key; out_round_key is round key 10 (the decryption key).
// Decrypt: in_key is round key 10; the schedule runs backwards; out_round_key is round key 0.
// ENABLE_DECRYPT=0 drops the inverse datapath (CCM only ever encrypts).
`default_nettype none
module aes128_core #(
    parameter ENABLE_DECRYPT = 1
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,
    output wire         in_ready,
    output wire         idle,       // no block inside: in_ready without looking at out_ready
    input  wire         in_decrypt,
    input  wire [127:0] in_key,
    input  wire [127:0] in_block,
    output wire         out_valid,
    input  wire         out_ready,
    output wire [127:0] out_block,
    output wire [127:0] out_round_key
);
  reg [127:0] state;
  reg [127:0] round_key;
  reg [3:0]   round;      // the round the next step computes; 0 = idle
  reg         decrypting;

  wire last_step = (round == 4'd10);
  assign out_valid = last_step;
  assign idle      = (round == 4'd0);
  assign in_ready  = idle || (last_step && out_ready);

  wire [3:0] rcon_index = decrypting ? 4'd11 - round : round;
  wire [7:0] rcon;
  aes_rcon rcon_table (.round(rcon_index), .rcon(rcon));

  wire [127:0] enc_state, enc_key;
  aes_enc_round enc (
      .state_in(state), .key_in(round_key), .rcon(rcon), .final_round(last_step),
      .state_out(enc_state), .key_out(enc_key)
  );

  wire [127:0] next_state, next_key;
  generate
    if (ENABLE_DECRYPT != 0) begin : g_dec
      wire [127:0] dec_state, dec_key;
      aes_dec_round dec (
          .state_in(state), .key_in(round_key), .rcon(rcon), .final_round(last_step),
          .state_out(dec_state), .key_out(dec_key)
      );
      assign next_state = decrypting ? dec_state : enc_state;
      assign next_key   = decrypting ? dec_key : enc_key;
    end else begin : g_enc_only
      assign next_state = enc_state;
      assign next_key   = enc_key;
    end
  endgenerate

  assign out_block     = next_state;
  assign out_round_key = next_key;

  always @(posedge clk) begin
    if (reset) begin
      round      <= 4'd0;
      decrypting <= 1'b0;
      state      <= 128'h0;
      round_key  <= 128'h0;
    end else if (in_valid && in_ready) begin
      state      <= in_block ^ in_key;
      round_key  <= in_key;
      decrypting <= (ENABLE_DECRYPT != 0) && in_decrypt;
      round      <= 4'd1;
    end else if (last_step) begin
      if (out_ready) round <= 4'd0;
    end else if (round != 4'd0) begin
      state     <= next_state;
      round_key <= next_key;
      round     <= round + 4'd1;
    end
  end
endmodule
`default_nettype wire
