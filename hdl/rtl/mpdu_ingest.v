// A plaintext MPDU (MAC header + body, no FCS) from an AXI4-Stream, split for ccmp_core:
// the MAC header (its length from Frame Control, IEEE 802.11-2016 9.2.4) and a descriptor
// with the body's length, and the body realigned to 16-octet beats (octet 0 on top) in a
// FIFO. CCM puts the body's length in B0, before the first block, so a frame is passed on
// only once its tlast is in (store and forward; the next frame streams in meanwhile).
// Stream: octet i of a beat in tdata[8i+7:8i]; every beat full (tkeep all ones) except
// the last, whose tkeep is contiguous from byte 0. A frame is dropped (`dropped` for one
// cycle, nothing passed on) when its tkeep breaks that rule, its protocol version is not 0,
// it is not a data or management frame, it ends inside its MAC header, or its body is
// longer than MAX_BODY octets. A body must fit the FIFO: 2^DEPTH_W >= MAX_BODY/16 + 2.
`default_nettype none
module mpdu_ingest #(
    parameter DEPTH_W  = 8,     // body FIFO: 2^DEPTH_W beats of 16 octets
    parameter MAX_BODY = 2304   // the largest MSDU
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         ht_control,      // 802.11n rules: +HTC with Order (taken per frame)
    input  wire [127:0] s_axis_tdata,
    input  wire [15:0]  s_axis_tkeep,
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire         s_axis_tlast,
    // One descriptor per frame, once all of it is in
    output wire         desc_valid,
    input  wire         desc_ready,
    output reg  [287:0] desc_header,     // the first 36 octets, octet 0 on top
    output reg  [5:0]   desc_header_len,
    output wire [15:0]  desc_body_len,
    output reg          desc_ht_control,
    // The body, 16 octets per beat (filler beyond the last octet), octet 0 on top
    output wire         body_valid,
    input  wire         body_ready,
    output wire [127:0] body_data,
    output wire         dropped,
    output wire         busy             // a frame partly in
);
  localparam [DEPTH_W:0] DEPTH = 1 << DEPTH_W;

  // ---- the beat as octets, octet 0 on top, and how many it holds ----
  reg  [127:0] beat;
  reg  [4:0]   beat_octets;
  integer i;
  always @(*) begin
    beat_octets = 5'd0;
    for (i = 0; i < 16; i = i + 1) begin
      beat[127 - 8 * i -: 8] = s_axis_tdata[8 * i +: 8];
      beat_octets = beat_octets + {4'd0, s_axis_tkeep[i]};
    end
  end
  wire [15:0] keep_plus_one = s_axis_tkeep + 16'd1;
  wire keep_ok = s_axis_tlast ? ((s_axis_tkeep & keep_plus_one) == 16'h0) : (&s_axis_tkeep);

  // ---- frame state ----
  reg        ending;       // tlast taken: flush the last body octets, then pass the frame on
  reg  [1:0] beat_no;      // 0, 1, 2, 3 and later
  reg  [5:0] header_len;
  reg  [15:0] octets;      // of the frame so far (held once the frame is bad)
  reg        bad;
  reg  [255:0] acc;        // body octets not yet written, octet 0 on top, zero beyond acc_n
  reg  [4:0] acc_n;        // < 16 between beats

  // Frame Control (octets 0 and 1 of the first beat)
  /* verilator lint_off UNUSEDSIGNAL */  // subtype, and flags that leave the length alone
  wire [7:0] fc0 = beat[127:120];
  wire [7:0] fc1 = beat[119:112];
  /* verilator lint_on UNUSEDSIGNAL */
  wire is_mgmt = fc0[3:2] == 2'b00;
  wire is_data = fc0[3:2] == 2'b10;
  wire has_qos = is_data && fc0[7];
  wire has_htc = ht_control && fc1[7] && (is_mgmt || has_qos);
  wire fc_ok   = fc0[1:0] == 2'b00 && (is_mgmt || is_data);
  wire [5:0] first_header_len = 6'd24 + ((is_data && fc1[0] && fc1[1]) ? 6'd6 : 6'd0)
                              + (has_qos ? 6'd2 : 6'd0) + (has_htc ? 6'd4 : 6'd0);
  wire [5:0] hlen = (beat_no == 2'd0) ? first_header_len : header_len;

  // Header octets at the front of this beat (the rest is body): all of beat 0 (a header
  // has 24..36 octets), hlen-16 of beat 1 (at most 16), hlen-32 of beat 2 (0..4).
  reg [4:0] skip;
  always @(*) begin
    case (beat_no)
      2'd0:    skip = 5'd16;
      2'd1:    skip = (hlen >= 6'd32) ? 5'd16 : hlen[4:0] - 5'd16;
      2'd2:    skip = (hlen > 6'd32) ? hlen[4:0] : 5'd0;  // hlen - 32
      default: skip = 5'd0;
    endcase
  end
  wire [4:0]   chunk_n = (beat_octets > skip) ? beat_octets - skip : 5'd0;
  wire [127:0] chunk_keep;
  keep_mask #(.BYTES(16), .NB_W(5)) keep (.nbytes(chunk_n), .mask(chunk_keep));
  wire [127:0] chunk = (beat << {skip, 3'b000}) & chunk_keep;
  wire [255:0] joined = acc | ({chunk, 128'h0} >> {acc_n, 3'b000});
  wire [4:0]   joined_n = acc_n + chunk_n;  // at most 15 + 16
  wire [15:0]  octets_now = octets + {11'd0, beat_octets};
  wire bad_now = bad || !keep_ok || (beat_no == 2'd0 && !fc_ok) ||
                 (octets_now > {10'd0, hlen} + MAX_BODY[15:0]);
  wire bad_end = bad || (octets < {10'd0, header_len});  // ends inside its header

  // ---- body FIFO: written from `wr`, passed on up to `committed` (whole frames) ----
  reg  [127:0]     mem [0:(1 << DEPTH_W) - 1];
  reg  [DEPTH_W:0] wr, committed, rd;
  wire room = (wr - rd) != DEPTH;
  wire take = s_axis_tvalid && s_axis_tready;
  assign s_axis_tready = !ending && room;
  // A beat is written when 16 octets are joined, or at tlast; a last beat that completes one
  // body beat and starts another leaves its rest for one more cycle (write_flush).
  wire write_beat  = take && !bad_now && (joined_n[4] || (s_axis_tlast && joined_n != 5'd0));
  wire write_flush = ending && !bad_end && acc_n != 5'd0 && room;
  assign desc_valid    = ending && !bad_end && acc_n == 5'd0;
  assign desc_body_len = octets - {10'd0, header_len};
  assign dropped       = ending && bad_end;
  assign busy          = ending || beat_no != 2'd0;

  reg          out_full;
  reg  [127:0] out_q;
  wire read = (!out_full || body_ready) && rd != committed;
  assign body_valid = out_full;
  assign body_data  = out_q;

  always @(posedge clk) begin
    if (write_beat || write_flush) mem[wr[DEPTH_W-1:0]] <= write_beat ? joined[255:128] : acc[255:128];
    if (read) out_q <= mem[rd[DEPTH_W-1:0]];
  end

  always @(posedge clk) begin
    if (reset) begin
      ending          <= 1'b0;
      beat_no         <= 2'd0;
      header_len      <= 6'd0;
      octets          <= 16'd0;
      bad             <= 1'b0;
      acc             <= 256'h0;
      acc_n           <= 5'd0;
      desc_header     <= 288'h0;
      desc_header_len <= 6'd0;
      desc_ht_control <= 1'b0;
      wr              <= {DEPTH_W + 1{1'b0}};
      committed       <= {DEPTH_W + 1{1'b0}};
      rd              <= {DEPTH_W + 1{1'b0}};
      out_full        <= 1'b0;
    end else begin
      if (read) begin
        rd       <= rd + 1'b1;
        out_full <= 1'b1;
      end else if (body_ready) begin
        out_full <= 1'b0;
      end

      if (take) begin
        beat_no <= (beat_no == 2'd3) ? 2'd3 : beat_no + 2'd1;
        bad     <= bad_now;
        if (!bad) octets <= octets_now;
        case (beat_no)
          2'd0: begin
            header_len            <= first_header_len;
            desc_header[287:160]  <= beat;
            desc_header_len       <= first_header_len;
            desc_ht_control       <= ht_control;
          end
          2'd1: desc_header[159:32] <= beat;
          2'd2: desc_header[31:0]   <= beat[127:96];
          default: ;
        endcase
        if (joined_n[4]) begin
          acc   <= joined << 128;
          acc_n <= joined_n - 5'd16;
        end else if (s_axis_tlast) begin
          acc   <= 256'h0;
          acc_n <= 5'd0;
        end else begin
          acc   <= joined;
          acc_n <= joined_n;
        end
        if (write_beat) wr <= wr + 1'b1;
        if (s_axis_tlast) ending <= 1'b1;
      end

      if (write_flush) begin
        wr    <= wr + 1'b1;
        acc   <= 256'h0;
        acc_n <= 5'd0;
      end
      if ((desc_valid && desc_ready) || dropped) begin
        if (dropped) wr <= committed;
        else committed <= wr;
        ending  <= 1'b0;
        beat_no <= 2'd0;
        octets  <= 16'd0;
        bad     <= 1'b0;
        acc     <= 256'h0;
        acc_n   <= 5'd0;
      end
    end
  end
endmodule
`default_nettype wire
