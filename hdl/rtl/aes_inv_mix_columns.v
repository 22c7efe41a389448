// AES InvMixColumns (FIPS-197 5.3.3) of a whole state. Byte i of the state is bits
// [127-8i -: 8]; column c is bytes 4c..4c+3 (as aes_mix_columns).
`default_nettype none
module aes_inv_mix_columns (
    input  wire [127:0] in_state,
    output wire [127:0] out_state
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

  assign out_state = {inv_mix_column(in_state[127:96]), inv_mix_column(in_state[95:64]),
                      inv_mix_column(in_state[63:32]), inv_mix_column(in_state[31:0])};
endmodule
`default_nettype wire
