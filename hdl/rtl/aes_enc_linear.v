// The linear half of an AES-128 encryption round (FIPS-197 5.1.2-5.1.4, 5.2), behind
// aes_enc_sub: ShiftRows, MixColumns (not in the final round), the key-expansion step from
// the previous round key and its SubWord(RotWord), and AddRoundKey with the key it makes.
// ADD_ROUND_KEY=0 leaves AddRoundKey to the caller (state_out without the key).
`default_nettype none
module aes_enc_linear #(
    parameter ADD_ROUND_KEY = 1
) (
    input  wire [127:0] sub_bytes,
    input  wire [127:0] key_in,
    input  wire [31:0]  key_sub,
    input  wire [7:0]   rcon,
    input  wire         final_round,  // round 10: no MixColumns
    output wire [127:0] state_out,
    output wire [127:0] key_out
);
  // ShiftRows: row r of column c comes from column c + r.
  wire [127:0] shift_rows;
  genvar i;
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
