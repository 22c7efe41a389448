// CCMP-128 decapsulation: CTR decrypts the body while the CBC-MAC authenticates the
// recovered plaintext; the MIC is recomputed and compared with the received one. The
// plaintext leaves as it is recovered (out_*); the verdict follows on res_* and the
// consumer must drop the frame unless res_ok: the MIC matches, the MAC header's Protected
// bit is set and the CCMP header's Ext IV bit is set (the two checks the MIC does not
// cover, as the Rust engine makes them; replay and Key ID are the caller's). Input:
// descriptor with the MAC header, the 8-octet CCMP header, received MIC and encrypted-body
// length; the encrypted body.
`default_nettype none
module ccmp_decap #(
    parameter N    = 1,                    // 1: CCMP-128; 2, 4, 8: Enhanced CCMP-N
    parameter HEADER_UNIT = 0,             // 1 (N = 1): ccmp_format's header unit, 950 cycles a 1500-octet frame
    parameter NB_W = $clog2(16 * N + 1)
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [127:0] in_tk,
    /* verilator lint_off UNUSEDSIGNAL */  // the reserved octet and Key ID are the caller's
    input  wire [63:0]  in_ccmp_header,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [255:0] in_header,
    input  wire         in_ht_control,
    input  wire [15:0]  in_body_len,
    input  wire [63:0]  in_mic,
    input  wire         body_valid,
    output wire         body_ready,
    input  wire [128*N-1:0] body_data,
    output wire         out_valid,
    input  wire         out_ready,
    output wire [128*N-1:0] out_data,
    output wire [NB_W-1:0] out_nbytes,
    output wire         out_last,
    output wire         res_valid,
    input  wire         res_ready,
    output wire         res_ok
);
  localparam USER_W = 1 + 1 + NB_W + 64;  // s0, last, nbytes, received MIC

  // The CCMP header: PN0 PN1 reserved (Key ID, Ext IV) PN2 PN3 PN4 PN5, octet 0 on top.
  wire [47:0] pn = {in_ccmp_header[7:0], in_ccmp_header[15:8], in_ccmp_header[23:16],
                    in_ccmp_header[31:24], in_ccmp_header[55:48], in_ccmp_header[63:56]};
  wire header_ok = in_header[246] && in_ccmp_header[37];  // Protected (FC octet 1), Ext IV
  // header_ok of each frame between its descriptor and its verdict, oldest in bit 0; a
  // descriptor waits while four frames are in flight (never in the benches' streams).
  reg  [3:0] flight_ok;
  reg  [2:0] in_flight;
  wire       format_ready;
  wire       take_res = res_valid && res_ready;
  wire [2:0] flight_kept = in_flight - {2'd0, take_res};
  assign in_ready = format_ready && (in_flight != 3'd4);

  wire         fmac_valid, fmac_ready, fmac_last, fmac_header_last;
  wire [127:0] fmac_key;
  wire [128*N-1:0] fmac_blocks;
  wire [N-1:0] fmac_mask;
  wire         fctr_valid, fctr_ready, fctr_s0, fctr_last;
  wire [127:0] fctr_key;
  wire [128*N-1:0] fctr_counters, fctr_data;
  wire [N-1:0] fctr_mask;
  wire [NB_W-1:0] fctr_nbytes;
  wire [63:0]  fctr_info;

  ccmp_format #(.N(N), .DECAP(1), .HEADER_UNIT(HEADER_UNIT), .NB_W(NB_W)) format (
      .clk(clk), .reset(reset),
      .in_valid(in_valid), .in_ready(format_ready), .in_tk(in_tk), .in_pn(pn),
      .in_keyid(2'd0), .in_header(in_header), .in_ht_control(in_ht_control),
      .in_body_len(in_body_len), .in_mic(in_mic),
      .body_valid(body_valid), .body_ready(body_ready), .body_data(body_data),
      .mac_valid(fmac_valid), .mac_ready(fmac_ready), .mac_key(fmac_key),
      .mac_blocks(fmac_blocks), .mac_mask(fmac_mask), .mac_last(fmac_last),
      .mac_header_last(fmac_header_last),
      .ctr_valid(fctr_valid), .ctr_ready(fctr_ready), .ctr_key(fctr_key),
      .ctr_counters(fctr_counters), .ctr_data(fctr_data), .ctr_mask(fctr_mask), .ctr_nbytes(fctr_nbytes),
      .ctr_s0(fctr_s0), .ctr_last(fctr_last), .ctr_frame_info(fctr_info)
  );

  wire              ks_valid, ks_ready;
  wire [128*N-1:0]  ks_data;
  wire [USER_W-1:0] ks_user;
  // Keystream kept: the beat's octets (the plaintext comes out zero padded for the MAC), or
  // all of S0 (its first 8 octets decrypt the MIC).
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

  reg          mac_payload;   // the MAC now takes the recovered plaintext
  reg          s0_full;
  reg  [63:0]  s0;
  reg  [63:0]  rx_mic;
  reg          mic_pending;
  // MAC input slot: the header blocks from ccmp_format, then the recovered plaintext. It is
  // filled only when empty, so the CBC-MAC loads from registers and no ready reaches the
  // load enables; its key stays the frame's TK (format may already hold the next frame's).
  reg              mac_full;
  reg  [127:0]     mac_key_q;
  reg  [128*N-1:0] mac_blocks_q;
  reg  [N-1:0]     mac_mask_q;
  reg              mac_last_q;

  reg          tag_full;      // the frame's CBC-MAC tag, taken off the MAC unit at once
  reg  [63:0]  tag_q;
  wire [N-1:0]     plaintext_mask;  // lanes holding data: lane l when nbytes > 16 l
  genvar l;
  generate
    for (l = 0; l < N; l = l + 1) begin : g_lane
      localparam integer LANE_OCTET = 16 * l;
      assign plaintext_mask[N-1-l] = (ks_nbytes > LANE_OCTET[NB_W-1:0]);
    end
  endgenerate
  wire [128*N-1:0] plaintext = ks_data;

  wire         mac_in_ready, tag_valid;
  /* verilator lint_off UNUSEDSIGNAL */  // CCMP-128 keeps the first 8 tag octets
  wire [127:0] tag;
  /* verilator lint_on UNUSEDSIGNAL */
  wire body_beat = ks_valid && !ks_s0 && mac_payload;
  wire plaintext_take = body_beat && !mac_full && out_ready;
  assign fmac_ready   = !mac_payload && !mac_full;

  cbc_mac #(.N(N)) mac (
      .clk(clk), .reset(reset),
      .in_valid(mac_full), .in_ready(mac_in_ready), .in_key(mac_key_q),
      .in_blocks(mac_blocks_q), .in_mask(mac_mask_q), .in_last(mac_last_q),
      .out_valid(tag_valid), .out_ready(!tag_full), .out_tag(tag)
  );

  assign ks_ready   = ks_s0 ? !s0_full : (mac_payload && !mac_full && out_ready);
  assign out_valid  = body_beat && !mac_full;
  assign out_data   = plaintext;
  assign out_nbytes = ks_nbytes;
  assign out_last   = ks_last;
  assign res_valid  = mic_pending && tag_full;
  assign res_ok     = ((tag_q ^ s0) == rx_mic) && flight_ok[0];

  always @(posedge clk) begin
    if (reset) begin
      mac_payload  <= 1'b0;
      s0_full      <= 1'b0;
      s0           <= 64'h0;
      rx_mic       <= 64'h0;
      mic_pending  <= 1'b0;
      mac_full     <= 1'b0;
      mac_key_q    <= 128'h0;
      mac_blocks_q <= {128*N{1'b0}};
      mac_mask_q   <= {N{1'b0}};
      mac_last_q   <= 1'b0;
      tag_full     <= 1'b0;
      tag_q        <= 64'h0;
      flight_ok    <= 4'd0;
      in_flight    <= 3'd0;
    end else begin
      in_flight <= flight_kept + {2'd0, in_valid && in_ready};
      flight_ok <= (take_res ? {1'b0, flight_ok[3:1]} : flight_ok)
                 | ({3'd0, in_valid && in_ready && header_ok} << flight_kept);
      if (tag_valid && !tag_full) begin
        tag_full <= 1'b1;
        tag_q    <= tag[127:64];
      end
      if (mac_full && mac_in_ready) mac_full <= 1'b0;
      if (fmac_valid && fmac_ready) begin
        mac_full     <= 1'b1;
        mac_key_q    <= fmac_key;
        mac_blocks_q <= fmac_blocks;
        mac_mask_q   <= fmac_mask;
        mac_last_q   <= fmac_last;
        if (fmac_header_last) mac_payload <= !fmac_last;
      end
      if (plaintext_take) begin
        mac_full     <= 1'b1;
        mac_blocks_q <= plaintext;
        mac_mask_q   <= plaintext_mask;
        mac_last_q   <= ks_last;
      end
      if (ks_valid && ks_ready) begin
        if (ks_s0) begin
          s0_full <= 1'b1;
          s0      <= ks_data[128*N-1 -: 64];
          rx_mic  <= ks_info;
        end
        if (ks_last) begin
          mic_pending <= 1'b1;
          if (!ks_s0) mac_payload <= 1'b0;
        end
      end
      if (take_res) begin
        s0_full     <= 1'b0;
        mic_pending <= 1'b0;
        tag_full    <= 1'b0;
      end
    end
  end
endmodule
`default_nettype wire
