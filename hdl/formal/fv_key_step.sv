// FIPS-197 5.2 KeyExpansion of an AES-128 key, one round: round key r from round key r - 1
// and Rcon[r] (words w[4r..4r+3] from w[4r-4..4r-1]). The expansion is this step iterated
// from the cipher key, which is how fv_key_schedule.sv checks the core round by round.
// SubWord uses aes_sbox, whose table fv_sbox.sv proves equal to the S-box's definition.
`default_nettype none
module fv_key_step (
    input  wire [127:0] prev,  // round key r - 1
    input  wire [7:0]   rcon,  // Rcon[r]
    output wire [127:0] next   // round key r
);
  wire [31:0] rot = {prev[23:0], prev[31:24]};  // RotWord of the last word
  wire [31:0] sub;                              // SubWord
  genvar b;
  generate
    for (b = 0; b < 4; b = b + 1) begin : g_sub
      aes_sbox sbox (.in_byte(rot[31 - 8 * b -: 8]), .out_byte(sub[31 - 8 * b -: 8]));
    end
  endgenerate
  wire [31:0] w0 = prev[127:96] ^ sub ^ {rcon, 24'h0};
  wire [31:0] w1 = prev[95:64] ^ w0;
  wire [31:0] w2 = prev[63:32] ^ w1;
  wire [31:0] w3 = prev[31:0] ^ w2;
  assign next = {w0, w1, w2, w3};
endmodule
`default_nettype wire
