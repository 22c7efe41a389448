// CTR-mode keystream over N lanes: out_data = (in_data ^ E(K, in_counters)) & in_keep, one
// block per lane, in_mask (a prefix: lane 0 always) saying which lanes carry a block. The
// lanes run in lock step in one multi-lane aes128_core (one key schedule), so lane 0's
// handshake speaks for all of them. in_user rides along
// with the beat (byte count, flags) so the caller needs no side queue.
// The result goes into an output register: the AES's combinational last round ends there,
// and an AES finishes only into an empty register, so no ready from downstream reaches its
// load enables (the register drains long before the next block's 10 cycles are up).
`default_nettype none
module ctr #(
    parameter N      = 1,
    parameter USER_W = 1
) (
    input  wire              clk,
    input  wire              reset,
    input  wire              in_valid,
    output wire              in_ready,
    input  wire [127:0]      in_key,
    input  wire [128*N-1:0]  in_counters,  // lane 0 in the top 128 bits
    input  wire [128*N-1:0]  in_data,
    input  wire [128*N-1:0]  in_keep,      // output bits to keep (the rest read as zero)
    input  wire [N-1:0]      in_mask,
    input  wire [USER_W-1:0] in_user,
    output wire              out_valid,
    input  wire              out_ready,
    output wire [128*N-1:0]  out_data,
    output wire [USER_W-1:0] out_user
);
  reg  [128*N-1:0]  data, keep;
  reg  [USER_W-1:0] user;
  reg               out_full;
  reg  [128*N-1:0]  out_q;
  reg  [USER_W-1:0] out_user_q;
  wire              aes_out_valid;
  wire [128*N-1:0]  keystream;

  assign out_valid = out_full;
  assign out_data  = out_q;
  assign out_user  = out_user_q;

  // One AES with a lane per block (one key schedule); lane 0's handshake is the beat's.
  aes128_core #(.ENABLE_DECRYPT(0), .LANES(N)) aes (
      .clk(clk), .reset(reset),
      .in_valid(in_valid), .in_ready(in_ready), .idle(),
      .in_decrypt(1'b0), .in_chain({N{1'b0}}), .in_mask(in_mask), .in_key(in_key),
      .in_block(in_counters),
      .out_valid(aes_out_valid), .out_ready(!out_full),
      .out_block(keystream), .out_round_key()
  );

  always @(posedge clk) begin
    if (reset) begin
      data       <= {128*N{1'b0}};
      keep       <= {128*N{1'b0}};
      user       <= {USER_W{1'b0}};
      out_full   <= 1'b0;
      out_q      <= {128*N{1'b0}};
      out_user_q <= {USER_W{1'b0}};
    end else begin
      if (in_valid && in_ready) begin
        data <= in_data;
        keep <= in_keep;
        user <= in_user;
      end
      if (aes_out_valid && !out_full) begin
        out_full   <= 1'b1;
        out_q      <= (data ^ keystream) & keep;
        out_user_q <= user;
      end else if (out_ready) begin
        out_full <= 1'b0;
      end
    end
  end
endmodule
`default_nettype wire
