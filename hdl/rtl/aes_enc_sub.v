// The nonlinear half of an AES-128 encryption round (FIPS-197 5.1.1, 5.2): SubBytes of the
// state and SubWord(RotWord) of the previous round key's last word. aes_enc_round puts
// aes_enc_linear straight behind it; the split pipeline (aes128_unrolled PIPELINED=2)
// puts a register between the two, where a block RAM's output register sits.
`default_nettype none
module aes_enc_sub (
    input  wire [127:0] state_in,
    input  wire [31:0]  key_word,   // the previous round key's last word
    output wire [127:0] sub_bytes,
    output wire [31:0]  key_sub
);
  // Byte i of the state is bits [127-8i -: 8]; row = i % 4, column = i / 4.
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g_sub
      aes_sbox sbox (.in_byte(state_in[127 - 8 * i -: 8]), .out_byte(sub_bytes[127 - 8 * i -: 8]));
    end
    for (i = 0; i < 4; i = i + 1) begin : g_key_sub
      // RotWord then SubWord.
      aes_sbox sbox (.in_byte(key_word[31 - 8 * ((i + 1) % 4) -: 8]), .out_byte(key_sub[31 - 8 * i -: 8]));
    end
  endgenerate
endmodule
`default_nettype wire
