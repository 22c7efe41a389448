// AES MixColumns (FIPS-197 5.1.3) of a whole state. Byte i of the state is bits
// [127-8i -: 8]; column c is bytes 4c..4c+3.
`default_nettype none
module aes_mix_columns (
    input  wire [127:0] in_state,
    output wire [127:0] out_state
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

  assign out_state = {mix_column(in_state[127:96]), mix_column(in_state[95:64]),
                      mix_column(in_state[63:32]), mix_column(in_state[31:0])};
endmodule
`default_nettype wire
