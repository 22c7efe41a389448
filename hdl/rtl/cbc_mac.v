// CBC-MAC over N independent sub-chains (N = 1: the CCM authentication chain of
// SP 800-38C; N > 1: Enhanced CCMP-N, docs/enhanced-ccmp.md). Each beat carries one block
// per sub-chain; in_mask marks the sub-chains that take a block (a prefix: sub-chain 0
// always does). Sub-chain j: Y = E(K, first block), Y = E(K, Y ^ block) per following block;
// out_tag = Y_0 ^ ... ^ Y_{N-1} once the in_last beat has gone through.
// Chaining loads the next block into aes128_core as its last round ends (in_chain: the core
// XORs it with its output), so each chain runs at 10 cycles per block with no bubble
// while beats keep arriving. All sub-chains
// move in lock step, so sub-chain 0's handshake speaks for all of them.
`default_nettype none
module cbc_mac #(
    parameter N = 1
) (
    input  wire           clk,
    input  wire           reset,
    input  wire           in_valid,
    output wire           in_ready,
    input  wire [127:0]   in_key,
    input  wire [128*N-1:0] in_blocks,  // sub-chain 0 in the top 128 bits
    input  wire [N-1:0]   in_mask,      // bit N-1-j: sub-chain j takes a block
    input  wire           in_last,
    output wire           out_valid,
    input  wire           out_ready,
    output wire [127:0]   out_tag
);
  reg  [N-1:0] chaining;  // sub-chain j's value inside its AES chains on to a next block
  wire [N-1:0] aes_idle, aes_out_valid;
  wire [127:0] aes_out [0:N-1];

  // Sub-chain 0 takes a block when its chaining value is ready, or to start a chain when
  // its AES is empty or handing over the previous tag in this cycle.
  wire lane0_ready = chaining[N-1] ? aes_out_valid[N-1]
                                   : (aes_idle[N-1] || (out_valid && out_ready));
  wire take        = in_valid && lane0_ready;
  assign in_ready  = lane0_ready;  // not a function of in_valid
  assign out_valid = aes_out_valid[N-1] && !chaining[N-1];

  reg [127:0] tag;
  integer k;
  always @* begin
    tag = 128'h0;
    for (k = 0; k < N; k = k + 1) tag = tag ^ aes_out[k];
  end
  assign out_tag = tag;

  genvar j;
  generate
    for (j = 0; j < N; j = j + 1) begin : g_chain
      localparam BIT = N - 1 - j;
      wire [127:0] block = in_blocks[128 * (N - j) - 1 -: 128];
      aes128_core #(.ENABLE_DECRYPT(0)) aes (
          .clk(clk), .reset(reset),
          .in_valid(take && in_mask[BIT]), .in_ready(), .idle(aes_idle[BIT]),
          .in_decrypt(1'b0), .in_chain(chaining[BIT]),
          .in_key(in_key), .in_block(block),
          .out_valid(aes_out_valid[BIT]),
          .out_ready(chaining[BIT] ? (take && in_mask[BIT]) : (out_ready && out_valid)),
          .out_block(aes_out[j]), .out_round_key()
      );
      always @(posedge clk) begin
        if (reset) chaining[BIT] <= 1'b0;
        else if (take && (in_mask[BIT] || in_last)) chaining[BIT] <= in_mask[BIT] && !in_last;
      end
    end
  endgenerate
endmodule
`default_nettype wire
