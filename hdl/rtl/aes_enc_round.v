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
  function [7:0] xtime(input [7:0] b);
    xtime = {b[6:0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
  endfunction

  function [31:0] mix_column(input [31:0] c);
    reg [7:0] a0, a1, a2, a3;
    begin
      {a0, a1, a2, a3} = c;
      mix_column = {xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3,
                    a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3,
                    a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3,
                    xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3)};
    end
  endfunction

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

  wire [127:0] mixed = {mix_column(shift_rows[127:96]), mix_column(shift_rows[95:64]),
                        mix_column(shift_rows[63:32]), mix_column(shift_rows[31:0])};

  wire [31:0] w0 = key_in[127:96] ^ key_sub ^ {rcon, 24'h0};
  wire [31:0] w1 = key_in[95:64] ^ w0;
  wire [31:0] w2 = key_in[63:32] ^ w1;
  wire [31:0] w3 = key_in[31:0] ^ w2;
  assign key_out   = {w0, w1, w2, w3};
  assign state_out = (final_round ? shift_rows : mixed) ^ (ADD_ROUND_KEY != 0 ? key_out : 128'h0);
endmodule
`default_nettype wire
