// aes_sbox's table against the S-box's definition (FIPS-197 5.1.1: the multiplicative
// inverse in GF(2^8), 0 for 0, then the affine map with 0x63), for every byte; and
// aes_inv_sbox undoes it.
`default_nettype none
module fv_sbox (
    input wire clk
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

  (* anyseq *) reg [7:0] a;
  wire [7:0] s, back;
  aes_sbox sbox (.in_byte(a), .out_byte(s));
  aes_inv_sbox inv_sbox (.in_byte(s), .out_byte(back));
  always @* begin
    assert (s == sub_byte(a));
    assert (back == a);
  end
endmodule
`default_nettype wire
