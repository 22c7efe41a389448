// FIPS-197 5.2 KeyExpansion of an AES-128 key, unrolled: round_keys holds round keys 0..10,
// round key n at [128 * (11 - n) - 1 -: 128]. SubWord uses aes_sbox, whose table
// fv_sbox.sv proves equal to the S-box's definition (key_schedule.sby task sbox).
`default_nettype none
module fv_key_expansion (
    input  wire [127:0]      key,
    output wire [11*128-1:0] round_keys
);
  localparam [79:0] RCON = 80'h01_02_04_08_10_20_40_80_1b_36;  // Rcon[1..10]
  assign round_keys[11*128-1 -: 128] = key;
  genvar r, b;
  generate
    for (r = 1; r <= 10; r = r + 1) begin : g_round
      wire [127:0] prev = round_keys[128 * (12 - r) - 1 -: 128];
      wire [31:0]  rot = {prev[23:0], prev[31:24]};  // RotWord of the last word
      wire [31:0]  sub;                              // SubWord
      for (b = 0; b < 4; b = b + 1) begin : g_sub
        aes_sbox sbox (.in_byte(rot[31 - 8 * b -: 8]), .out_byte(sub[31 - 8 * b -: 8]));
      end
      wire [31:0] w0 = prev[127:96] ^ sub ^ {RCON[87 - 8 * r -: 8], 24'h0};
      wire [31:0] w1 = prev[95:64] ^ w0;
      wire [31:0] w2 = prev[63:32] ^ w1;
      wire [31:0] w3 = prev[31:0] ^ w2;
      assign round_keys[128 * (11 - r) - 1 -: 128] = {w0, w1, w2, w3};
    end
  endgenerate
endmodule
`default_nettype wire
