// One AES-128 encryption round and the key-expansion step that produces its round key
// (FIPS-197 5.1, 5.2). Combinational: the iterative, unrolled and pipelined cores all
// build on this one block so the round logic exists in one place.
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
  // Byte i of the state is bits [127-8i -: 8]; row = i % 4, column = i / 4.
  wire [127:0] sub_bytes;
  wire [31:0]  key_sub;
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g_sub
      aes_sbox sbox (.in_byte(state_in[127 - 8 * i -: 8]), .out_byte(sub_bytes[127 - 8 * i -: 8]));
    end
    for (i = 0; i < 4; i = i + 1) begin : g_key_sub
      // RotWord then SubWord of the last key word.
      aes_sbox sbox (.in_byte(key_in[31 - 8 * ((i + 1) % 4) -: 8]), .out_byte(key_sub[31 - 8 * i -: 8]));
    end
  endgenerate

  wire [127:0] shift_rows;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g_shift
      assign shift_rows[127 - 8 * i -: 8] = sub_bytes[127 - 8 * ((i % 4) + 4 * (((i / 4) + (i % 4)) % 4)) -: 8];
    end
  endgenerate

  wire [127:0] mixed;
  aes_mix_columns mix (.in_state(shift_rows), .out_state(mixed));

  wire [31:0] w0 = key_in[127:96] ^ key_sub ^ {rcon, 24'h0};
  wire [31:0] w1 = key_in[95:64] ^ w0;
  wire [31:0] w2 = key_in[63:32] ^ w1;
  wire [31:0] w3 = key_in[31:0] ^ w2;
  assign key_out   = {w0, w1, w2, w3};
  assign state_out = (final_round ? shift_rows : mixed) ^ (ADD_ROUND_KEY != 0 ? key_out : 128'h0);
endmodule
`default_nettype wire
