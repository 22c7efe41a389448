// ccmp_core (CCMP-128 encapsulation) as an SoC peripheral: plaintext MPDUs (MAC header +
// body, no FCS) in on an AXI4-Stream, protected MPDUs (MAC header with Protected set,
// CCMP header, encrypted body, MIC) out on another, TK, PN, Key ID and control/status on
// AXI4-Lite (ccmp_axi_regs; map, stream format and cycles in hdl/README.md). The wrapper
// only adapts: mpdu_ingest splits header and body, a ring of frame descriptors feeds the
// core and then the output, octet_pack joins header, core output and MIC into 16-octet
// beats. A frame starts (taking TK, Key ID and the next PN) once it is all in, CTRL.ENABLE
// is set and the PN is not exhausted. Clock `aclk`; `aresetn` synchronous, active low.
`default_nettype none
module ccmp_axi #(
    parameter DEPTH_W  = 8,     // input body FIFO: 2^DEPTH_W beats of 16 octets
    parameter MAX_BODY = 2304   // longer bodies are dropped (FRAMES_DROPPED)
) (
    input  wire         aclk,
    input  wire         aresetn,
    input  wire [5:0]   s_axil_awaddr,
    input  wire         s_axil_awvalid,
    output wire         s_axil_awready,
    input  wire [31:0]  s_axil_wdata,
    input  wire [3:0]   s_axil_wstrb,
    input  wire         s_axil_wvalid,
    output wire         s_axil_wready,
    output wire [1:0]   s_axil_bresp,
    output wire         s_axil_bvalid,
    input  wire         s_axil_bready,
    input  wire [5:0]   s_axil_araddr,
    input  wire         s_axil_arvalid,
    output wire         s_axil_arready,
    output wire [31:0]  s_axil_rdata,
    output wire [1:0]   s_axil_rresp,
    output wire         s_axil_rvalid,
    input  wire         s_axil_rready,
    input  wire [127:0] s_axis_tdata,
    input  wire [15:0]  s_axis_tkeep,
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire         s_axis_tlast,
    output wire [127:0] m_axis_tdata,
    output wire [15:0]  m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast
);
  wire reset = !aresetn;

  wire         enable, ht_control, pn_exhausted, pn_take;
  wire [1:0]   keyid;
  wire [127:0] tk;
  wire [47:0]  pn;
  wire         ingest_busy, pack_busy, dropped;
  wire         ring_busy;

  ccmp_axi_regs regs (
      .clk(aclk), .reset(reset),
      .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
      .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
      .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
      .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
      .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
      .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
      .enable(enable), .ht_control(ht_control), .keyid(keyid), .tk(tk), .pn(pn),
      .pn_exhausted(pn_exhausted), .pn_take(pn_take), .busy(ingest_busy || ring_busy || pack_busy),
      .frame_out(m_axis_tvalid && m_axis_tready && m_axis_tlast), .frame_dropped(dropped)
  );

  // ---- input: descriptors into the ring, bodies straight to the core ----
  wire         desc_valid, desc_ready, desc_ht_control;
  wire [287:0] desc_header;
  wire [5:0]   desc_header_len;
  wire [15:0]  desc_body_len;
  wire         body_valid, body_ready;
  wire [127:0] body_data;
  mpdu_ingest #(.DEPTH_W(DEPTH_W), .MAX_BODY(MAX_BODY)) ingest (
      .clk(aclk), .reset(reset), .ht_control(ht_control),
      .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
      .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
      .desc_valid(desc_valid), .desc_ready(desc_ready), .desc_header(desc_header),
      .desc_header_len(desc_header_len), .desc_body_len(desc_body_len), .desc_ht_control(desc_ht_control),
      .body_valid(body_valid), .body_ready(body_ready), .body_data(body_data),
      .dropped(dropped), .busy(ingest_busy)
  );

  // ---- ring of 4 frame descriptors: written at `wr`, started by the core at `start`, their
  // MAC header sent at `out` (a frame leaves the ring when its MIC has gone to the packer) ----
  reg  [287:0] ring_header [0:3];
  reg  [5:0]   ring_header_len [0:3];
  reg  [15:0]  ring_body_len [0:3];
  reg          ring_ht_control [0:3];
  reg  [2:0]   wr, start, out;
  assign ring_busy  = wr != out;
  assign desc_ready = (wr - out) != 3'd4;

  wire core_in_ready;
  wire core_in_valid = start != wr && enable && !pn_exhausted;
  assign pn_take = core_in_valid && core_in_ready;
  /* verilator lint_off UNUSEDSIGNAL */  // the core reads the header's first 32 octets
  wire [287:0] start_header = ring_header[start[1:0]];
  /* verilator lint_on UNUSEDSIGNAL */

  wire         core_out_valid, core_out_ready, core_out_last;
  wire [127:0] core_out_data;
  wire [4:0]   core_out_nbytes;
  ccmp_core #(.N(1)) core (
      .clk(aclk), .reset(reset),
      .in_valid(core_in_valid), .in_ready(core_in_ready), .in_tk(tk), .in_pn(pn), .in_keyid(keyid),
      .in_header(start_header[287:32]), .in_ht_control(ring_ht_control[start[1:0]]),
      .in_body_len(ring_body_len[start[1:0]]),
      .body_valid(body_valid), .body_ready(body_ready), .body_data(body_data),
      .out_valid(core_out_valid), .out_ready(core_out_ready), .out_data(core_out_data),
      .out_nbytes(core_out_nbytes), .out_last(core_out_last)
  );

  // ---- output: the started frame's MAC header (Protected set) in up to three pieces,
  // then the core's CCMP header, body and MIC ----
  reg  [1:0]   piece;  // 0, 1, 2: MAC header octets 0-15, 16-31, 32-35; 3: the core's output
  wire [287:0] out_header = ring_header[out[1:0]];
  wire [5:0]   out_header_len = ring_header_len[out[1:0]];
  wire         started = out != start;
  reg  [127:0] piece_data;
  reg  [4:0]   piece_nbytes;
  always @(*) begin
    case (piece)
      2'd0: begin
        piece_data   = out_header[287:160] | {9'h0, 1'b1, 118'h0};  // Protected: FC bit 14
        piece_nbytes = 5'd16;
      end
      2'd1: begin
        piece_data   = out_header[159:32];
        piece_nbytes = (out_header_len >= 6'd32) ? 5'd16 : out_header_len[4:0] - 5'd16;
      end
      2'd2: begin
        piece_data   = {out_header[31:0], 96'h0};
        piece_nbytes = out_header_len[4:0];  // header_len - 32
      end
      default: begin
        piece_data   = core_out_data;
        piece_nbytes = core_out_nbytes;
      end
    endcase
  end
  wire piece_valid = (piece == 2'd3) ? core_out_valid : started;
  wire piece_ready;
  wire piece_last = piece == 2'd3 && core_out_last;
  assign core_out_ready = piece == 2'd3 && piece_ready;

  octet_pack pack (
      .clk(aclk), .reset(reset),
      .in_valid(piece_valid), .in_ready(piece_ready), .in_data(piece_data),
      .in_nbytes(piece_nbytes), .in_last(piece_last),
      .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
      .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .busy(pack_busy)
  );

  always @(posedge aclk) begin
    if (desc_valid && desc_ready) begin
      ring_header[wr[1:0]]     <= desc_header;
      ring_header_len[wr[1:0]] <= desc_header_len;
      ring_body_len[wr[1:0]]   <= desc_body_len;
      ring_ht_control[wr[1:0]] <= desc_ht_control;
    end
  end

  always @(posedge aclk) begin
    if (reset) begin
      wr    <= 3'd0;
      start <= 3'd0;
      out   <= 3'd0;
      piece <= 2'd0;
    end else begin
      if (desc_valid && desc_ready) wr <= wr + 3'd1;
      if (pn_take) start <= start + 3'd1;
      if (piece_valid && piece_ready) begin
        case (piece)
          2'd0: piece <= 2'd1;
          2'd1: piece <= (out_header_len > 6'd32) ? 2'd2 : 2'd3;
          2'd2: piece <= 2'd3;
          default: if (core_out_last) begin
            piece <= 2'd0;
            out   <= out + 3'd1;
          end
        endcase
      end
    end
  end
endmodule
`default_nettype wire
