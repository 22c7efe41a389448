// CBC-MAC over N independent sub-chains (N = 1: the CCM authentication chain of
// SP 800-38C; N > 1: Enhanced CCMP-N, docs/enhanced-ccmp.md). Each beat carries one block
// per sub-chain; in_mask marks the sub-chains that take a block (a prefix: sub-chain 0
// always does). Sub-chain j: Y = E(K, first block), Y = E(K, Y ^ block) per following block;
// out_tag = Y_0 ^ ... ^ Y_{N-1} once the in_last beat has gone through.
// Chaining loads the next block into aes128_core as its last round ends (in_chain: the core
// XORs it with its output), so each chain runs at 10 cycles per block with no bubble
// while beats keep arriving. All sub-chains move in lock step in one multi-lane
// aes128_core (one key schedule), so sub-chain 0's handshake speaks for all of them.
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
  reg  [N-1:0] chaining;  // sub-chain j's value inside the AES chains on to a next block
  wire         aes_idle, aes_out_valid;
  wire [128*N-1:0] aes_out;

  // Sub-chain 0 takes a block when its chaining value is ready, or to start a chain when
  // the AES is empty or handing over the previous tag in this cycle.
  wire lane0_ready = chaining[N-1] ? aes_out_valid : (aes_idle || (out_valid && out_ready));
  wire take        = in_valid && lane0_ready;
  assign in_ready  = lane0_ready;  // not a function of in_valid
  assign out_valid = aes_out_valid && !chaining[N-1];

  reg [127:0] tag;
  integer k;
  always @* begin
    tag = 128'h0;
    for (k = 0; k < N; k = k + 1) tag = tag ^ aes_out[128 * k +: 128];
  end
  assign out_tag = tag;

  // One AES with a lane per sub-chain: a sub-chain not in a beat's mask holds its value
  // (the core keeps it) until it takes a block again or the tag leaves.
  aes128_core #(.ENABLE_DECRYPT(0), .LANES(N)) aes (
      .clk(clk), .reset(reset),
      .in_valid(take), .in_ready(), .idle(aes_idle),
      .in_decrypt(1'b0), .in_chain(chaining), .in_mask(in_mask),
      .in_key(in_key), .in_block(in_blocks),
      .out_valid(aes_out_valid), .out_ready(chaining[N-1] ? take : (out_ready && out_valid)),
      .out_block(aes_out), .out_round_key()
  );
  always @(posedge clk) begin
    if (reset) chaining <= {N{1'b0}};
    else if (take) chaining <= in_last ? {N{1'b0}} : (chaining | in_mask);
  end
endmodule
`default_nettype wire
