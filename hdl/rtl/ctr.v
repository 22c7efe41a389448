// CTR-mode keystream: out_data = in_data ^ E(K, in_counter). in_user rides along with
// its block (byte count, flags) so the caller needs no side queue.
`default_nettype none
module ctr #(
    parameter USER_W = 1
) (
    input  wire              clk,
    input  wire              reset,
    input  wire              in_valid,
    output wire              in_ready,
    input  wire [127:0]      in_key,
    input  wire [127:0]      in_counter,
    input  wire [127:0]      in_data,
    input  wire [USER_W-1:0] in_user,
    output wire              out_valid,
    input  wire              out_ready,
    output wire [127:0]      out_data,
    output wire [USER_W-1:0] out_user
);
  reg [127:0]      data;
  reg [USER_W-1:0] user;
  wire [127:0]     keystream;

  aes128_core #(.ENABLE_DECRYPT(0)) aes (
      .clk(clk), .reset(reset),
      .in_valid(in_valid), .in_ready(in_ready), .in_decrypt(1'b0), .in_key(in_key),
      .in_block(in_counter),
      .out_valid(out_valid), .out_ready(out_ready), .out_block(keystream), .out_round_key()
  );

  assign out_data = data ^ keystream;
  assign out_user = user;

  always @(posedge clk) begin
    if (reset) begin
      data <= 128'h0;
      user <= {USER_W{1'b0}};
    end else if (in_valid && in_ready) begin
      data <= in_data;
      user <= in_user;
    end
  end
endmodule
`default_nettype wire
