// Pieces of 0..16 octets (octet 0 on top) packed into an AXI4-Stream frame: 16 octets per
// beat, octet i of a beat in tdata[8i+7:8i], every beat full except the last (tkeep
// contiguous from byte 0, tlast), which follows the piece marked in_last. A piece is taken
// only while fewer than 16 octets wait and the frame's end is not pending, so the output
// beat, when valid, never changes before it is taken and no ready passes through.
`default_nettype none
module octet_pack (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [127:0] in_data,
    input  wire [4:0]   in_nbytes,
    input  wire         in_last,
    output wire [127:0] m_axis_tdata,
    output wire [15:0]  m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast,
    output wire         busy
);
  reg  [255:0] acc;     // octets waiting, octet 0 on top, zero beyond acc_n
  reg  [5:0]   acc_n;   // 0..31
  reg          ending;  // the frame's last piece is in

  wire [127:0] piece_keep;
  keep_mask #(.BYTES(16), .NB_W(5)) keep (.nbytes(in_nbytes), .mask(piece_keep));
  wire full_beat = acc_n[5] || acc_n[4];
  assign in_ready      = !ending && !full_beat;
  assign m_axis_tvalid = full_beat || ending;
  assign m_axis_tlast  = ending && acc_n <= 6'd16;
  wire [4:0] out_n = full_beat ? 5'd16 : acc_n[4:0];
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g_octet
      localparam [4:0] AT = i;
      assign m_axis_tdata[8 * i +: 8] = acc[255 - 8 * i -: 8];
      assign m_axis_tkeep[i]          = out_n > AT;
    end
  endgenerate
  assign busy = ending || acc_n != 6'd0;

  always @(posedge clk) begin
    if (reset) begin
      acc    <= 256'h0;
      acc_n  <= 6'd0;
      ending <= 1'b0;
    end else if (m_axis_tvalid && m_axis_tready) begin
      acc    <= acc << 128;
      acc_n  <= acc_n - {1'b0, out_n};
      if (m_axis_tlast) ending <= 1'b0;
    end else if (in_valid && in_ready) begin
      acc    <= acc | ({in_data & piece_keep, 128'h0} >> {acc_n, 3'b000});
      acc_n  <= acc_n + {1'b0, in_nbytes};
      ending <= in_last;
    end
  end
endmodule
`default_nettype wire
