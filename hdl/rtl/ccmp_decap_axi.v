// ccmp_decap (CCMP-128 decapsulation) as an SoC peripheral, ccmp_axi's counterpart:
// protected MPDUs (MAC header, CCMP header, encrypted body, MIC; no FCS) in on an
// AXI4-Stream, plaintext MPDUs (MAC header with Protected cleared, body) out on another
// with the verdict on the last beat's tuser (1: drop the frame: the MIC does not match, or
// the Protected or Ext IV bit is clear; replay and Key ID are the driver's), TK and control
// on AXI4-Lite (ccmp_axi_regs' map; the PN and Key ID registers are unused: each frame
// carries its PN). mpdu_ingest splits the MAC header from the rest (CCMP header, body and
// MIC, stored and forwarded: the MIC ends the frame and CCM needs the body's length first);
// the rest comes out of its FIFO shifted by the CCMP header's 8 octets, the MIC is taken
// off the input stream as it passes. One frame at a time in the core; the next streams in
// meanwhile. A frame too short for the CCMP header and MIC is dropped (FRAMES_DROPPED) as
// mpdu_ingest drops malformed ones. Clock `aclk`; `aresetn` synchronous, active low.
`default_nettype none
module ccmp_decap_axi #(
    parameter DEPTH_W  = 8,     // input FIFO: 2^DEPTH_W beats of 16 octets
    parameter MAX_BODY = 2304   // longest plaintext body taken; longer frames are dropped
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
    output wire         m_axis_tlast,
    output wire         m_axis_tuser
);
  localparam [1:0] IDLE = 2'd0, DISCARD = 2'd1, HEADER = 2'd2, RUN = 2'd3;
  localparam [15:0] OVERHEAD = 16'd16;  // CCMP header + MIC
  wire reset = !aresetn;

  wire         enable, ht_control;
  wire [127:0] tk;
  /* verilator lint_off UNUSEDSIGNAL */  // encapsulation's: a received frame carries its PN and Key ID
  wire [1:0]   keyid;
  wire [47:0]  pn;
  wire         pn_exhausted;
  /* verilator lint_on UNUSEDSIGNAL */
  wire         ingest_busy, pack_busy, ingest_dropped;
  reg  [1:0]   state;
  wire         desc_valid, desc_ht_control;
  wire         desc_ready = state == IDLE;
  wire [287:0] desc_header;
  wire [5:0]   desc_header_len;
  wire [15:0]  desc_rest_len;  // CCMP header + encrypted body + MIC
  wire         too_short = desc_rest_len < OVERHEAD;
  wire         short_dropped = desc_valid && desc_ready && too_short;
  /* verilator lint_off UNUSEDSIGNAL */  // at most 2320 octets: 145 beats
  wire [15:0]  rest_beats = (desc_rest_len + 16'd15) >> 4;
  /* verilator lint_on UNUSEDSIGNAL */

  ccmp_axi_regs regs (
      .clk(aclk), .reset(reset),
      .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
      .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
      .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
      .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
      .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
      .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
      .enable(enable), .ht_control(ht_control), .keyid(keyid), .tk(tk), .pn(pn),
      .pn_exhausted(pn_exhausted), .pn_take(1'b0), .busy(ingest_busy || state != IDLE || pack_busy),
      .frame_out(m_axis_tvalid && m_axis_tready && m_axis_tlast),
      .frame_dropped(ingest_dropped || short_dropped)
  );

  wire         rest_valid;
  reg          rest_ready;
  wire [127:0] rest_data;
  mpdu_ingest #(.DEPTH_W(DEPTH_W), .MAX_BODY(MAX_BODY + 16)) ingest (
      .clk(aclk), .reset(reset), .ht_control(ht_control),
      .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
      .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
      .desc_valid(desc_valid), .desc_ready(desc_ready), .desc_header(desc_header),
      .desc_header_len(desc_header_len), .desc_body_len(desc_rest_len), .desc_ht_control(desc_ht_control),
      .body_valid(rest_valid), .body_ready(rest_ready), .body_data(rest_data),
      .dropped(ingest_dropped), .busy(ingest_busy)
  );

  // ---- the MIC: the last 8 octets the input stream carried (held while mpdu_ingest
  // waits with a whole frame for its descriptor to be taken) ----
  reg  [63:0]  tail;
  reg  [191:0] tail_and_beat;  // octet 0 on top: the tail, then the beat's octets
  reg  [4:0]   beat_octets;
  integer i;
  always @(*) begin
    beat_octets = 5'd0;
    tail_and_beat[191:128] = tail;
    for (i = 0; i < 16; i = i + 1) begin
      tail_and_beat[127 - 8 * i -: 8] = s_axis_tdata[8 * i +: 8];
      beat_octets = beat_octets + {4'd0, s_axis_tkeep[i]};
    end
  end
  /* verilator lint_off UNUSEDSIGNAL */  // the octets before the last 8
  wire [191:0] tail_shifted = tail_and_beat >> {5'd16 - beat_octets, 3'b000};
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- the frame in the core: its descriptor, then the rest from the FIFO ----
  reg  [287:0] header;
  reg  [5:0]   header_len;
  reg          frame_ht_control;
  reg  [15:0]  body_len;        // encrypted body octets
  reg  [63:0]  mic, ccmp_header;
  reg  [63:0]  carry;           // the low half of the FIFO beat last read
  reg  [11:0]  beats_left;      // body beats not yet given to the core
  reg          started;         // the core took the descriptor
  wire         core_in_ready, core_body_ready;
  wire         core_in_valid = state == RUN && !started && enable;
  wire         core_body_valid = state == RUN && beats_left != 12'd0 && rest_valid;
  always @(*) begin
    case (state)
      DISCARD, HEADER: rest_ready = rest_valid;
      RUN:             rest_ready = core_body_valid && core_body_ready;
      default:         rest_ready = 1'b0;
    endcase
  end

  wire         core_out_valid, core_out_last, res_valid, res_ok;
  wire [127:0] core_out_data;
  wire [4:0]   core_out_nbytes;
  reg          core_out_ready;
  wire         res_ready;
  /* verilator lint_off UNUSEDSIGNAL */  // the core reads the header's first 32 octets
  wire [287:0] header_q = header;
  /* verilator lint_on UNUSEDSIGNAL */
  ccmp_decap #(.N(1)) core (
      .clk(aclk), .reset(reset),
      .in_valid(core_in_valid), .in_ready(core_in_ready), .in_tk(tk), .in_ccmp_header(ccmp_header),
      .in_header(header_q[287:32]), .in_ht_control(frame_ht_control), .in_body_len(body_len), .in_mic(mic),
      .body_valid(core_body_valid), .body_ready(core_body_ready), .body_data({carry, rest_data[127:64]}),
      .out_valid(core_out_valid), .out_ready(core_out_ready), .out_data(core_out_data),
      .out_nbytes(core_out_nbytes), .out_last(core_out_last),
      .res_valid(res_valid), .res_ready(res_ready), .res_ok(res_ok)
  );

  // ---- output: the MAC header (Protected cleared) in up to three pieces, then the
  // plaintext; the frame's final piece waits in `held` for the verdict ----
  reg  [1:0]   piece;  // 0, 1, 2: MAC header octets 0-15, 16-31, 32-35; 3: the core's output
  reg          pieces_done;
  reg  [127:0] piece_data;
  reg  [4:0]   piece_nbytes;
  reg          piece_final;
  wire         no_body = body_len == 16'd0;
  always @(*) begin
    case (piece)
      2'd0: begin
        piece_data   = header[287:160] & ~{9'h0, 1'b1, 118'h0};  // Protected: FC bit 14
        piece_nbytes = 5'd16;
        piece_final  = 1'b0;
      end
      2'd1: begin
        piece_data   = header[159:32];
        piece_nbytes = (header_len >= 6'd32) ? 5'd16 : header_len[4:0] - 5'd16;
        piece_final  = no_body && header_len <= 6'd32;
      end
      2'd2: begin
        piece_data   = {header[31:0], 96'h0};
        piece_nbytes = header_len[4:0];  // header_len - 32
        piece_final  = no_body;
      end
      default: begin
        piece_data   = core_out_data;
        piece_nbytes = core_out_nbytes;
        piece_final  = core_out_last;
      end
    endcase
  end
  wire piece_valid = state == RUN && !pieces_done && (piece == 2'd3 ? core_out_valid : 1'b1);

  reg          held_full, held_final, bad;
  reg  [127:0] held_data;
  reg  [4:0]   held_nbytes;
  wire         pack_ready;
  wire         pack_valid = held_full && (!held_final || res_valid);
  wire         pack_take = pack_valid && pack_ready;
  wire         piece_ready = !held_full || pack_take;
  wire         piece_take = piece_valid && piece_ready;
  assign res_ready = held_full && held_final && pack_ready;
  always @(*) core_out_ready = piece == 2'd3 && state == RUN && !pieces_done && piece_ready;

  octet_pack pack (
      .clk(aclk), .reset(reset),
      .in_valid(pack_valid), .in_ready(pack_ready), .in_data(held_data),
      .in_nbytes(held_nbytes), .in_last(held_final),
      .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
      .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .busy(pack_busy)
  );
  assign m_axis_tuser = m_axis_tlast && bad;

  always @(posedge aclk) begin
    if (desc_valid && desc_ready) begin
      header           <= desc_header;
      header_len       <= desc_header_len;
      frame_ht_control <= desc_ht_control;
      body_len         <= desc_rest_len - OVERHEAD;
      mic              <= tail;
      beats_left       <= rest_beats[11:0] - 12'd1;  // ceil((rest - 16) / 16)
    end
    if (state == RUN && rest_ready) beats_left <= beats_left - 12'd1;
    if (state == HEADER && rest_valid) ccmp_header <= rest_data[127:64];
    if (rest_valid && rest_ready) carry <= rest_data[63:0];
    if (piece_take) begin
      held_data   <= piece_data;
      held_nbytes <= piece_nbytes;
      held_final  <= piece_final;
    end
  end

  always @(posedge aclk) begin
    if (reset) begin
      state       <= IDLE;
      tail        <= 64'h0;
      started     <= 1'b0;
      piece       <= 2'd0;
      pieces_done <= 1'b0;
      held_full   <= 1'b0;
      bad         <= 1'b0;
    end else begin
      if (s_axis_tvalid && s_axis_tready) tail <= tail_shifted[63:0];
      case (state)
        IDLE: if (desc_valid) begin
          state       <= too_short ? (desc_rest_len != 16'd0 ? DISCARD : IDLE) : HEADER;
          started     <= 1'b0;
          piece       <= 2'd0;
          pieces_done <= 1'b0;
        end
        DISCARD: if (rest_valid) state <= IDLE;  // a short frame's one beat
        HEADER: if (rest_valid) state <= RUN;
        default: begin  // RUN: until the final piece has gone to the packer
          if (core_in_valid && core_in_ready) started <= 1'b1;
          if (piece_take) begin
            if (piece_final) pieces_done <= 1'b1;
            case (piece)
              2'd0: piece <= 2'd1;
              2'd1: piece <= (header_len > 6'd32) ? 2'd2 : 2'd3;
              default: piece <= 2'd3;
            endcase
          end
          if (pack_take && held_final) state <= IDLE;
        end
      endcase
      if (piece_take) held_full <= 1'b1;
      else if (pack_take) held_full <= 1'b0;
      if (pack_take && held_final) bad <= !res_ok;
    end
  end
endmodule
`default_nettype wire
