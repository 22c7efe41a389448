// R consecutive AES-128 encryption rounds, first_round .. first_round+R-1, with their
// on-the-fly key expansion: the combinational step of the unrolled and pipelined cores.
// BLOCKS blocks under the same key go through side by side (block 0 in the high bits),
// all taking their round keys from one key expansion (block 0's SubWord).
// KEY_AHEAD=0: key_in is round key first_round-1, key_out round key first_round+R-1.
// KEY_AHEAD=1 (a pipeline that expands every round key one stage ahead): key_in is round
// key first_round already and key_out round key first_round+R, the next step's (round key
// 10 from the step that ends with round 10), so a round's AddRoundKey reads key_in, and
// the expansion of the next key runs beside the round instead of in front of it.
`default_nettype none
module aes_enc_rounds #(
    parameter R         = 2,
    parameter BLOCKS    = 1,
    parameter KEY_AHEAD = 0
) (
    input  wire [3:0]              first_round,
    input  wire [128*BLOCKS-1:0]   state_in,
    input  wire [127:0]            key_in,
    output wire [128*BLOCKS-1:0]   state_out,
    output wire [127:0]            key_out
);
  localparam W = 128 * BLOCKS;
  localparam integer LAST_OFFSET_I = R - 1;
  localparam [3:0] LAST_OFFSET = LAST_OFFSET_I[3:0];  // of the step's last round
  wire [W-1:0] state [0:R];
  wire [127:0] key   [0:R];  // KEY_AHEAD=0: round key first_round-1+r; 1: first_round+r
  assign state[0]  = state_in;
  assign key[0]    = key_in;
  assign state_out = state[R];
  assign key_out   = (KEY_AHEAD != 0 && first_round + LAST_OFFSET == 4'd10) ? key[R - 1] : key[R];

  genvar r, blk;
  generate
    for (r = 0; r < R; r = r + 1) begin : g_round
      localparam [3:0] OFFSET = r;
      wire [3:0]  round = first_round + OFFSET;
      wire [7:0]  rcon;
      wire [31:0] key_sub;
      wire [W-1:0] next;
      assign state[r + 1] = next;
      // The key expanded here is round key `round` (KEY_AHEAD=0) or the next one.
      aes_rcon rcon_table (.round(KEY_AHEAD != 0 ? round + 4'd1 : round), .rcon(rcon));
      for (blk = 0; blk < BLOCKS; blk = blk + 1) begin : g_block
        localparam integer HI = W - 128 * blk - 1;
        wire [127:0] sub_bytes;
        wire [127:0] linear_out;
        /* verilator lint_off UNUSEDSIGNAL */  // blocks 1.. leave their key copy open
        wire [31:0]  block_key_sub;
        wire [127:0] block_key;
        /* verilator lint_on UNUSEDSIGNAL */
        aes_enc_sub sub (.state_in(state[r][HI -: 128]), .key_word(key[r][31:0]),
                         .sub_bytes(sub_bytes), .key_sub(block_key_sub));
        aes_enc_linear #(.ADD_ROUND_KEY(KEY_AHEAD == 0)) linear (
            .sub_bytes(sub_bytes), .key_in(key[r]), .key_sub(key_sub), .rcon(rcon),
            .final_round(round == 4'd10), .state_out(linear_out),
            .key_out(block_key)
        );
        assign next[HI -: 128] = KEY_AHEAD != 0 ? linear_out ^ key[r] : linear_out;
        if (blk == 0) begin : g_key
          assign key_sub    = block_key_sub;
          assign key[r + 1] = block_key;
        end
      end
    end
  endgenerate
endmodule
`default_nettype wire
