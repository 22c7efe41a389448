// CBC-MAC over a stream of 128-bit blocks (the CCM authentication chain, SP 800-38C):
// X1 = E(K, B0), Xi+1 = E(K, Xi ^ Bi); out_tag = E(K, Xn ^ Bn) after the in_last block.
// The chaining XOR feeds aes128_core's combinational result straight back, so the chain
// runs at the core's 10 cycles per block with no bubble while blocks keep arriving.
`default_nettype none
module cbc_mac (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [127:0] in_key,
    input  wire [127:0] in_block,
    input  wire         in_last,
    output wire         out_valid,
    input  wire         out_ready,
    output wire [127:0] out_tag
);
  reg chaining;  // the block inside the AES is not the last one: its result chains on

  wire         aes_in_valid, aes_in_ready, aes_out_valid, aes_out_ready;
  wire [127:0] aes_out;

  assign aes_in_valid  = in_valid && (!chaining || aes_out_valid);
  assign in_ready      = chaining ? aes_out_valid : aes_in_ready;  // not a function of in_valid
  assign aes_out_ready = chaining ? in_valid : out_ready;
  assign out_valid     = aes_out_valid && !chaining;
  assign out_tag       = aes_out;

  aes128_core #(.ENABLE_DECRYPT(0)) aes (
      .clk(clk), .reset(reset),
      .in_valid(aes_in_valid), .in_ready(aes_in_ready), .in_decrypt(1'b0), .in_key(in_key),
      .in_block(chaining ? (aes_out ^ in_block) : in_block),
      .out_valid(aes_out_valid), .out_ready(aes_out_ready), .out_block(aes_out),
      .out_round_key()
  );

  always @(posedge clk) begin
    if (reset) chaining <= 1'b0;
    else if (in_valid && in_ready) chaining <= !in_last;
  end
endmodule
`default_nettype wire
