// R consecutive AES-128 encryption rounds, first_round .. first_round+R-1, with their
// on-the-fly key expansion: the combinational step of the unrolled and pipelined cores.
// BLOCKS blocks under the same key go through side by side (block 0 in the high bits),
// all taking their round keys from one key expansion (block 0's SubWord).
`default_nettype none
module aes_enc_rounds #(
    parameter R      = 2,
    parameter BLOCKS = 1
) (
    input  wire [3:0]              first_round,
    input  wire [128*BLOCKS-1:0]   state_in,
    input  wire [127:0]            key_in,
    output wire [128*BLOCKS-1:0]   state_out,
    output wire [127:0]            key_out
);
  localparam W = 128 * BLOCKS;
  wire [W-1:0] state [0:R];
  wire [127:0] key   [0:R];
  assign state[0]  = state_in;
  assign key[0]    = key_in;
  assign state_out = state[R];
  assign key_out   = key[R];

  genvar r, blk;
  generate
    for (r = 0; r < R; r = r + 1) begin : g_round
      localparam [3:0] OFFSET = r;
      wire [3:0]  round = first_round + OFFSET;
      wire [7:0]  rcon;
      wire [31:0] key_sub;
      wire [W-1:0] next;
      assign state[r + 1] = next;
      aes_rcon rcon_table (.round(round), .rcon(rcon));
      for (blk = 0; blk < BLOCKS; blk = blk + 1) begin : g_block
        localparam integer HI = W - 128 * blk - 1;
        wire [127:0] sub_bytes;
        /* verilator lint_off UNUSEDSIGNAL */  // blocks 1.. leave their key copy open
        wire [31:0]  block_key_sub;
        wire [127:0] block_key;
        /* verilator lint_on UNUSEDSIGNAL */
        aes_enc_sub sub (.state_in(state[r][HI -: 128]), .key_word(key[r][31:0]),
                         .sub_bytes(sub_bytes), .key_sub(block_key_sub));
        aes_enc_linear linear (
            .sub_bytes(sub_bytes), .key_in(key[r]), .key_sub(key_sub), .rcon(rcon),
            .final_round(round == 4'd10), .state_out(next[HI -: 128]),
            .key_out(block_key)
        );
        if (blk == 0) begin : g_key
          assign key_sub    = block_key_sub;
          assign key[r + 1] = block_key;
        end
      end
    end
  endgenerate
endmodule
`default_nettype wire
