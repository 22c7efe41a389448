// One AES-128 encryption round and the key-expansion step that produces its round key
// (FIPS-197 5.1, 5.2). Combinational: the iterative, unrolled and pipelined cores all
// build on it (or, split by a register, on its two halves) so the round logic exists in
// one place.
//   state_out = AddRoundKey(MixColumns?(ShiftRows(SubBytes(state_in))), key_out)
//   key_out   = KeyExpansion step from key_in (the previous round key) with rcon
// ADD_ROUND_KEY=0 leaves AddRoundKey to the caller (state_out without the key), for a core
// that adds the round key in front of the next round's S-boxes.
`default_nettype none
module aes_enc_round #(
    parameter ADD_ROUND_KEY = 1
) (
    input  wire [127:0] state_in,
    input  wire [127:0] key_in,
    input  wire [7:0]   rcon,
    input  wire         final_round,  // round 10: no MixColumns
    output wire [127:0] state_out,
    output wire [127:0] key_out
);
  wire [127:0] sub_bytes;
  wire [31:0]  key_sub;
  aes_enc_sub sub (.state_in(state_in), .key_word(key_in[31:0]), .sub_bytes(sub_bytes), .key_sub(key_sub));
  aes_enc_linear #(.ADD_ROUND_KEY(ADD_ROUND_KEY)) linear (
      .sub_bytes(sub_bytes), .key_in(key_in), .key_sub(key_sub), .rcon(rcon), .final_round(final_round),
      .state_out(state_out), .key_out(key_out)
  );
endmodule
`default_nettype wire
