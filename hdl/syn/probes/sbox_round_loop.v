// Synthesis probe, not a core: the bare loop of one AES round per cycle with the S-boxes in
// LUTs, every S-box reading a register, with nothing else on the chip. A step is
//   state <= load ? term : (last ? ShiftRows(SubBytes(state)) : MixColumns(...)) ^ round_key
// (held by the flip-flops' clock enable), and the round key runs its own loop through four
// more S-boxes. Its Fmax bounds what an iterative core with LUT S-boxes can reach.
`default_nettype none
module sbox_round_loop (
    input  wire         clk,
    input  wire         reset,
    input  wire         enable,
    input  wire         load,
    input  wire         last,
    input  wire         key_load,
    input  wire [127:0] term,
    input  wire [127:0] key,
    input  wire [7:0]   rcon,
    output wire [127:0] out_block
);
  reg  [127:0] state, round_key;
  wire [127:0] sub_bytes, rounded;
  wire [31:0]  key_sub;
  aes_enc_sub sub (.state_in(state), .key_word(round_key[31:0]), .sub_bytes(sub_bytes), .key_sub(key_sub));
  aes_enc_linear linear (
      .sub_bytes(sub_bytes), .key_in(128'h0), .key_sub(32'h0), .rcon(8'h0), .final_round(last),
      .state_out(rounded), .key_out()
  );
  wire [31:0] w0 = round_key[127:96] ^ key_sub ^ {rcon, 24'h0};
  wire [31:0] w1 = round_key[95:64] ^ w0;
  wire [31:0] w2 = round_key[63:32] ^ w1;
  wire [31:0] w3 = round_key[31:0] ^ w2;
  always @(posedge clk) begin
    if (reset) state <= 128'h0;
    else if (enable) state <= load ? term : rounded ^ round_key;
    round_key <= key_load ? key : {w0, w1, w2, w3};
  end
  assign out_block = state;
endmodule
`default_nettype wire
