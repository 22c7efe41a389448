// R consecutive AES-128 encryption rounds, first_round .. first_round+R-1, with their
// on-the-fly key expansion: the combinational step of the unrolled and pipelined cores.
`default_nettype none
module aes_enc_rounds #(
    parameter R = 2
) (
    input  wire [3:0]   first_round,
    input  wire [127:0] state_in,
    input  wire [127:0] key_in,
    output wire [127:0] state_out,
    output wire [127:0] key_out
);
  wire [127:0] state [0:R];
  wire [127:0] key   [0:R];
  assign state[0]  = state_in;
  assign key[0]    = key_in;
  assign state_out = state[R];
  assign key_out   = key[R];

  genvar r;
  generate
    for (r = 0; r < R; r = r + 1) begin : g_round
      localparam [3:0] OFFSET = r;
      wire [3:0] round = first_round + OFFSET;
      wire [7:0] rcon;
      aes_rcon rcon_table (.round(round), .rcon(rcon));
      aes_enc_round enc (
          .state_in(state[r]), .key_in(key[r]), .rcon(rcon), .final_round(round == 4'd10),
          .state_out(state[r + 1]), .key_out(key[r + 1])
      );
    end
  endgenerate
endmodule
`default_nettype wire
