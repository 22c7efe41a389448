// CCMP-128 encapsulation (IEEE 802.11-2016 12.5.3): two AES-128 units run concurrently,
// one in the CBC-MAC chain and one in CTR mode, each 10 cycles per block, fed by
// ccmp_format (HEADER_UNIT = 1: its header unit starts the next frame's chain beforehand).
// Output, as beats of up to 16 octets: the 8-octet CCMP header, the encrypted body, the
// 8-octet encrypted MIC (out_last). The MAC header itself is the caller's: only its
// Protected bit changes.
`default_nettype none
module ccmp_core #(
    parameter N    = 1,                    // 1: CCMP-128; 2, 4, 8: Enhanced CCMP-N
    parameter HEADER_UNIT = 0,             // 1 (N = 1): ccmp_format's header unit, 950 cycles a 1500-octet frame
    parameter NB_W = $clog2(16 * N + 1)
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [127:0] in_tk,
    input  wire [47:0]  in_pn,
    input  wire [1:0]   in_keyid,
    input  wire [255:0] in_header,
    input  wire         in_ht_control,
    input  wire [15:0]  in_body_len,
    input  wire         body_valid,
    output wire         body_ready,
    input  wire [128*N-1:0] body_data,
    output wire         out_valid,
    input  wire         out_ready,
    output wire [128*N-1:0] out_data,
    output wire [NB_W-1:0] out_nbytes,
    output wire         out_last
);
  localparam USER_W = 1 + 1 + NB_W + 64;  // s0, last, nbytes, CCMP header

  wire         mac_valid, mac_ready, mac_last;
  wire [127:0] mac_key;
  wire [128*N-1:0] mac_blocks;
  wire [N-1:0] mac_mask;
  wire         fctr_valid, fctr_ready, fctr_s0, fctr_last;
  wire [127:0] fctr_key;
  wire [128*N-1:0] fctr_counters, fctr_data;
  wire [N-1:0] fctr_mask;
  wire [NB_W-1:0] fctr_nbytes;
  wire [63:0]  fctr_info;

  ccmp_format #(.N(N), .DECAP(0), .HEADER_UNIT(HEADER_UNIT), .NB_W(NB_W)) format (
      .clk(clk), .reset(reset),
      .in_valid(in_valid), .in_ready(in_ready), .in_tk(in_tk), .in_pn(in_pn),
      .in_keyid(in_keyid), .in_header(in_header), .in_ht_control(in_ht_control),
      .in_body_len(in_body_len), .in_mic(64'h0),
      .body_valid(body_valid), .body_ready(body_ready), .body_data(body_data),
      .mac_valid(mac_valid), .mac_ready(mac_ready), .mac_key(mac_key), .mac_blocks(mac_blocks), .mac_mask(mac_mask),
      .mac_last(mac_last), .mac_header_last(),
      .ctr_valid(fctr_valid), .ctr_ready(fctr_ready), .ctr_key(fctr_key),
      .ctr_counters(fctr_counters), .ctr_data(fctr_data), .ctr_mask(fctr_mask), .ctr_nbytes(fctr_nbytes),
      .ctr_s0(fctr_s0), .ctr_last(fctr_last), .ctr_frame_info(fctr_info)
  );

  wire         tag_valid, tag_ready;
  /* verilator lint_off UNUSEDSIGNAL */  // CCMP-128 keeps the first 8 tag octets
  wire [127:0] tag;
  /* verilator lint_on UNUSEDSIGNAL */
  cbc_mac #(.N(N)) mac (
      .clk(clk), .reset(reset),
      .in_valid(mac_valid), .in_ready(mac_ready), .in_key(mac_key), .in_blocks(mac_blocks), .in_mask(mac_mask),
      .in_last(mac_last),
      .out_valid(tag_valid), .out_ready(tag_ready), .out_tag(tag)
  );

  wire              ks_valid, ks_ready;
  wire [128*N-1:0]  ks_data;
  wire [USER_W-1:0] ks_user;
  // Keystream kept: the beat's octets, or all of S0 (its first 8 octets encrypt the MIC).
  wire [128*N-1:0] beat_keep;
  keep_mask #(.BYTES(16 * N), .NB_W(NB_W)) keep (.nbytes(fctr_nbytes), .mask(beat_keep));
  ctr #(.N(N), .USER_W(USER_W)) ctr_unit (
      .clk(clk), .reset(reset),
      .in_valid(fctr_valid), .in_ready(fctr_ready), .in_key(fctr_key),
      .in_counters(fctr_counters), .in_data(fctr_data),
      .in_keep(fctr_s0 ? {128*N{1'b1}} : beat_keep), .in_mask(fctr_mask),
      .in_user({fctr_s0, fctr_last, fctr_nbytes, fctr_info}),
      .out_valid(ks_valid), .out_ready(ks_ready), .out_data(ks_data), .out_user(ks_user)
  );
  wire        ks_s0     = ks_user[USER_W-1];
  wire        ks_last   = ks_user[USER_W-2];
  wire [NB_W-1:0] ks_nbytes = ks_user[USER_W-3 -: NB_W];
  wire [63:0] ks_info   = ks_user[63:0];

  reg         s0_full;      // S0 = E(K, A0) of the frame in flight, kept for its MIC
  reg [63:0]  s0;
  reg         mic_pending;  // all body beats out: the MIC is next
  reg         tag_full;     // the frame's CBC-MAC tag, taken off the MAC unit at once
  reg [63:0]  tag_q;

  wire emit_header = ks_valid && ks_s0 && !s0_full;
  wire emit_body   = ks_valid && !ks_s0 && !mic_pending;
  wire emit_mic    = mic_pending && tag_full;

  assign tag_ready  = !tag_full;
  assign ks_ready   = out_ready && (ks_s0 ? !s0_full : !mic_pending);
  assign out_valid  = emit_header || emit_body || emit_mic;
  localparam [NB_W-1:0] EIGHT = 8;
  assign out_data   = emit_mic ? {tag_q ^ s0, {128*N-64{1'b0}}}
                    : emit_header ? {ks_info, {128*N-64{1'b0}}}
                    : ks_data;
  assign out_nbytes = (emit_mic || emit_header) ? EIGHT : ks_nbytes;
  assign out_last   = emit_mic;

  always @(posedge clk) begin
    if (reset) begin
      s0_full     <= 1'b0;
      s0          <= 64'h0;
      mic_pending <= 1'b0;
      tag_full    <= 1'b0;
      tag_q       <= 64'h0;
    end else begin
      if (tag_valid && tag_ready) begin
        tag_full <= 1'b1;
        tag_q    <= tag[127:64];
      end
      if (out_ready) begin
        if (emit_mic) begin
          s0_full     <= 1'b0;
          mic_pending <= 1'b0;
          tag_full    <= 1'b0;
        end else if (emit_header) begin
          s0_full     <= 1'b1;
          s0          <= ks_data[128*N-1 -: 64];
          mic_pending <= ks_last;
        end else if (emit_body) begin
          mic_pending <= ks_last;
        end
      end
    end
  end
endmodule
`default_nettype wire
