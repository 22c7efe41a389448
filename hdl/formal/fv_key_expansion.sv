// FIPS-197 5.2 KeyExpansion of an AES-128 key, unrolled: round_keys holds round keys 0..10,
// round key n at [128 * (11 - n) - 1 -: 128]. Its S-box is computed from the definition
// (multiplicative inverse in GF(2^8), then the affine map), not read from aes_sbox's table.
`default_nettype none
module fv_sbox_spec (
    input  wire [7:0] a,
    output reg  [7:0] s
);
  function automatic [7:0] gf_mul(input [7:0] x, input [7:0] y);
    reg [7:0] p, t;
    integer i;
    begin
      p = 8'h0;
      t = x;
      for (i = 0; i < 8; i = i + 1) begin
        if (y[i]) p = p ^ t;
        t = {t[6:0], 1'b0} ^ (t[7] ? 8'h1b : 8'h00);
      end
      gf_mul = p;
    end
  endfunction

  function automatic [7:0] sub_byte(input [7:0] x);
    reg [7:0] inv, power;
    integer i;
    begin
      inv = 8'h01;  // x^254 = x^-1 (and 0 for 0): the product of x^2, x^4, ..., x^128
      power = x;
      for (i = 1; i < 8; i = i + 1) begin
        power = gf_mul(power, power);
        inv = gf_mul(inv, power);
      end
      for (i = 0; i < 8; i = i + 1)
        sub_byte[i] = inv[i] ^ inv[(i + 4) % 8] ^ inv[(i + 5) % 8] ^ inv[(i + 6) % 8]
                      ^ inv[(i + 7) % 8] ^ ((8'h63 >> i) & 1'b1);
    end
  endfunction

  // Evaluated at elaboration for all 256 bytes (a solver proves table lookups equal far
  // faster than GF(2^8) arithmetic).
  function automatic [2047:0] sub_table(input integer unused);
    integer x;
    begin
      for (x = 0; x < 256; x = x + 1) sub_table[8 * x +: 8] = sub_byte(x[7:0]);
    end
  endfunction
  localparam [2047:0] TABLE = sub_table(0);
  // A case per byte (a variable part-select of TABLE is a 2048-bit shifter to a solver).
  integer x;
  always @* begin
    s = 8'h0;
    for (x = 0; x < 256; x = x + 1) if (a == x[7:0]) s = TABLE[8 * x +: 8];
  end
endmodule

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
        fv_sbox_spec sbox (.a(rot[31 - 8 * b -: 8]), .s(sub[31 - 8 * b -: 8]));
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
