// One AES-128 inverse-cipher round and the inverse key-expansion step (FIPS-197 5.3):
// decryption starts from the last round key and walks the schedule backwards on the fly.
//   key_out   = round key r, computed from key_in = round key r+1 and rcon = Rcon[r+1]
//   state_out = InvMixColumns?(InvSubBytes(InvShiftRows(state_in)) ^ key_out)
`default_nettype none
module aes_dec_round (
    input  wire [127:0] state_in,
    input  wire [127:0] key_in,
    input  wire [7:0]   rcon,
    input  wire         final_round,  // produces round key 0: no InvMixColumns
    output wire [127:0] state_out,
    output wire [127:0] key_out
);
  function [7:0] xtime(input [7:0] b);
    xtime = {b[6:0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
  endfunction

  function [7:0] mul(input [7:0] b, input [3:0] k);  // b * k in GF(2^8), k < 16
    reg [7:0] b2, b4, b8;
    begin
      b2 = xtime(b);
      b4 = xtime(b2);
      b8 = xtime(b4);
      mul = (k[0] ? b : 8'h0) ^ (k[1] ? b2 : 8'h0) ^ (k[2] ? b4 : 8'h0) ^ (k[3] ? b8 : 8'h0);
    end
  endfunction

  function [31:0] inv_mix_column(input [31:0] c);
    reg [7:0] a0, a1, a2, a3;
    begin
      {a0, a1, a2, a3} = c;
      inv_mix_column = {mul(a0, 14) ^ mul(a1, 11) ^ mul(a2, 13) ^ mul(a3, 9),
                        mul(a0, 9) ^ mul(a1, 14) ^ mul(a2, 11) ^ mul(a3, 13),
                        mul(a0, 13) ^ mul(a1, 9) ^ mul(a2, 14) ^ mul(a3, 11),
                        mul(a0, 11) ^ mul(a1, 13) ^ mul(a2, 9) ^ mul(a3, 14)};
    end
  endfunction

  wire [31:0] w3 = key_in[31:0] ^ key_in[63:32];
  wire [31:0] w2 = key_in[63:32] ^ key_in[95:64];
  wire [31:0] w1 = key_in[95:64] ^ key_in[127:96];
  wire [31:0] key_sub;
  wire [127:0] shifted;
  wire [127:0] inv_sub;
  genvar i;
  generate
    for (i = 0; i < 4; i = i + 1) begin : g_key_sub
      aes_sbox sbox (.in_byte(w3[31 - 8 * ((i + 1) % 4) -: 8]), .out_byte(key_sub[31 - 8 * i -: 8]));
    end
    for (i = 0; i < 16; i = i + 1) begin : g_inv
      // InvShiftRows: byte (row r, column c) comes from column (c - r) mod 4.
      assign shifted[127 - 8 * i -: 8] = state_in[127 - 8 * ((i % 4) + 4 * (((i / 4) + 4 - (i % 4)) % 4)) -: 8];
      aes_inv_sbox sbox (.in_byte(shifted[127 - 8 * i -: 8]), .out_byte(inv_sub[127 - 8 * i -: 8]));
    end
  endgenerate
  wire [31:0] w0 = key_in[127:96] ^ key_sub ^ {rcon, 24'h0};

  wire [127:0] added = inv_sub ^ key_out;
  assign key_out   = {w0, w1, w2, w3};
  assign state_out = final_round ? added
                                 : {inv_mix_column(added[127:96]), inv_mix_column(added[95:64]),
                                    inv_mix_column(added[63:32]), inv_mix_column(added[31:0])};
endmodule
`default_nettype wire
