// CCMP formatting (IEEE 802.11-2016 12.5.3.3, SP 800-38C A.2): from one frame descriptor
// (TK, PN, Key ID, MAC header, body length) and the frame body as 16-byte beats it emits
//   mac_*: B0 = 0x59 || nonce || l(m), the two AAD blocks (l(a) || AAD, zero padded) and,
//          when encapsulating, the body blocks zero padded;
//   ctr_*: A0 (ctr_s0, data 0), then Ai = 0x01 || nonce || i with body block i.
// N > 1 (Enhanced CCMP-N, docs/enhanced-ccmp.md): every beat is N blocks wide, block i of
// the body in lane i mod N; the MAC lanes are its sub-chains, whose first blocks B0_j carry
// flags 0x80 | log2(N) << 3 | j, and the CTR lanes take counters i+1 .. i+N.
// AAD, nonce and CCMP header come from the descriptor (ccmp_descriptor).
// ctr_frame_info travels with A0: the CCMP header to transmit (encapsulation) or the
// received MIC (DECAP=1, where the body goes to the CTR unit only: its MAC input is the
// decrypted plaintext).
`default_nettype none
module ccmp_format #(
    parameter N     = 1,
    parameter DECAP = 0,
    parameter NB_W  = $clog2(16 * N + 1)  // width of an octet count of one beat
) (
    input  wire         clk,
    input  wire         reset,
    // Frame descriptor
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [127:0] in_tk,
    input  wire [47:0]  in_pn,
    input  wire [1:0]   in_keyid,
    input  wire [255:0] in_header,       // first 32 header octets, octet 0 in [255:248]
    input  wire         in_ht_control,   // Rules.ht_control: 802.11n and later
    input  wire [15:0]  in_body_len,     // octets of body (plaintext or ciphertext)
    input  wire [63:0]  in_mic,          // received MIC (DECAP=1 only)
    // Frame body, 16*N octets per beat (fewer valid in the last beat), octet 0 on top
    input  wire           body_valid,
    output wire           body_ready,
    input  wire [128*N-1:0] body_data,
    // CBC-MAC blocks
    output wire         mac_valid,
    input  wire         mac_ready,
    output wire [127:0] mac_key,
    output wire [128*N-1:0] mac_blocks,
    output wire [N-1:0] mac_mask,
    output wire         mac_last,
    // CTR blocks
    output wire         ctr_valid,
    input  wire         ctr_ready,
    output wire [127:0] ctr_key,
    output wire [128*N-1:0] ctr_counters,
    output wire [128*N-1:0] ctr_data,
    output wire [N-1:0] ctr_mask,
    output wire [NB_W-1:0] ctr_nbytes,
    output wire         ctr_s0,
    output wire         ctr_last,
    output wire [63:0]  ctr_frame_info
);
  // Every output comes from a flip-flop: a MAC slot and a CTR slot, filled from the frame
  // state only when empty (so no ready reaches a load enable). A slot emptied in one cycle
  // is refilled in the next, well inside an AES unit's 10 cycles per block. Encapsulation
  // captures a body beat into both slots at once, after the MAC has taken all header
  // blocks; the next frame starts only when both slots are empty, so its A0 never passes
  // the previous frame's last MAC block.
  localparam integer BEAT_OCTETS = 16 * N;
  localparam [15:0] BEAT = BEAT_OCTETS[15:0];
  localparam integer FLAGS = (N == 1) ? 'h59 : ('h80 | ($clog2(N) << 3));
  localparam [7:0] SUB_CHAIN_FLAGS = FLAGS[7:0];

  reg         busy;
  reg [127:0] tk;
  reg [103:0] nonce;
  reg [63:0]  frame_info;    // CCMP header (encapsulation) or received MIC (DECAP=1)
  reg         body_none;     // zero-length body: AAD2 and A0 end the frame
  reg [255:0] aad;           // AAD blocks not yet in the MAC slot, next on top
  reg [1:0]   aad_left;
  reg         body_left;     // body octets not yet captured
  // The octets left once the next beat is captured, and how they compare with a beat, kept
  // a beat ahead so that a capture shapes the beat after it from registers alone (no
  // subtract-then-compare carry chains in front of the beat registers).
  reg [15:0]  left_after;
  reg         after_full;    // left_after >= BEAT: the beat after the next one is full
  reg         after_last;    // left_after <= BEAT: ... and the frame's last
  reg [15:0]  block_index;   // i of the next body beat's first counter
  // shape of the next body beat
  reg [NB_W-1:0]   beat_nbytes;
  reg [128*N-1:0]  beat_keep;
  reg [N-1:0]      beat_mask;
  reg              beat_last;
  // MAC slot
  reg              mac_full;
  reg [128*N-1:0]  mac_q;
  reg [N-1:0]      mac_mask_q;
  reg              mac_last_q;
  // CTR slot
  reg              ctr_full;
  reg [16*N-1:0]   ctr_index;  // lane l: counter i of its block
  reg [128*N-1:0]  ctr_data_q;
  reg [N-1:0]      ctr_mask_q;
  reg [NB_W-1:0]   ctr_nbytes_q;
  reg              ctr_s0_q, ctr_last_q;

  // ---- what CCMP takes from the descriptor ----
  wire [103:0] in_nonce;
  wire [255:0] in_aad;
  wire [63:0]  ccmp_header;
  ccmp_descriptor descriptor (
      .header(in_header), .ht_control(in_ht_control), .pn(in_pn), .keyid(in_keyid),
      .nonce(in_nonce), .aad(in_aad), .ccmp_header(ccmp_header)
  );

  // ---- shape of a body beat from the octets left: the frame's length when it starts,
  // left_after when a beat is captured ----
  localparam [15:0] TWO_BEATS = 2 * BEAT;
  wire [15:0]      shape_left = busy ? left_after : in_body_len;
  wire             shape_full = busy ? after_full : (in_body_len >= BEAT);
  wire             shape_last = busy ? after_last : (in_body_len <= BEAT);
  wire [NB_W-1:0]  shape_nbytes = shape_full ? BEAT[NB_W-1:0] : shape_left[NB_W-1:0];
  wire [128*N-1:0] shape_keep;
  keep_mask #(.BYTES(16 * N), .NB_W(NB_W)) keep (.nbytes(shape_nbytes), .mask(shape_keep));
  wire [N-1:0]     shape_mask;

  wire [128*N-1:0] b0_lanes, aad_lanes, body_blocks;
  wire [16*N-1:0]  body_index;
  wire [128*N-1:0] counters;
  genvar l;
  generate
    for (l = 0; l < N; l = l + 1) begin : g_lane
      localparam [15:0] LANE = l;
      localparam integer LANE_OCTET = 16 * l;
      localparam [15:0] LANE_START = LANE_OCTET[15:0];
      assign shape_mask[N-1-l] = ({{16-NB_W{1'b0}}, shape_nbytes} > LANE_START);
      assign b0_lanes[128 * (N - l) - 1 -: 128]  = {SUB_CHAIN_FLAGS | LANE[7:0], in_nonce, in_body_len};
      assign aad_lanes[128 * (N - l) - 1 -: 128] = aad[255:128];
      assign body_index[16 * (N - l) - 1 -: 16] = block_index + LANE;
      assign counters[128 * (N - l) - 1 -: 128]  = {8'h01, nonce, ctr_index[16 * (N - l) - 1 -: 16]};
    end
  endgenerate
  assign body_blocks = body_data & beat_keep;

  localparam JOIN_MAC = (DECAP == 0);  // encapsulation: body beat to CBC-MAC and CTR at once
  assign in_ready   = !busy;
  assign body_ready = busy && body_left && !ctr_full && (!JOIN_MAC || (!mac_full && aad_left == 2'd0));
  wire   start      = in_valid && !busy;
  wire   capture    = body_valid && body_ready;
  wire   aad_refill = busy && !mac_full && aad_left != 2'd0;
  wire   frame_done = busy && !mac_full && !ctr_full && aad_left == 2'd0 && !body_left;

  assign mac_key    = tk;
  assign mac_valid  = mac_full;
  assign mac_blocks = mac_q;
  assign mac_mask   = mac_mask_q;
  assign mac_last   = mac_last_q;

  assign ctr_key        = tk;
  assign ctr_valid      = ctr_full;
  assign ctr_counters   = counters;
  assign ctr_data       = ctr_data_q;
  assign ctr_mask       = ctr_mask_q;
  assign ctr_nbytes     = ctr_nbytes_q;
  assign ctr_s0         = ctr_s0_q;
  assign ctr_last       = ctr_last_q;
  assign ctr_frame_info = frame_info;

  always @(posedge clk) begin
    if (reset) begin
      busy         <= 1'b0;
      tk           <= 128'h0;
      nonce        <= 104'h0;
      frame_info   <= 64'h0;
      body_none    <= 1'b0;
      aad          <= 256'h0;
      aad_left     <= 2'd0;
      body_left    <= 1'b0;
      left_after   <= 16'd0;
      after_full   <= 1'b0;
      after_last   <= 1'b0;
      block_index  <= 16'd1;
      beat_nbytes  <= {NB_W{1'b0}};
      beat_keep    <= {128*N{1'b0}};
      beat_mask    <= {N{1'b0}};
      beat_last    <= 1'b0;
      mac_full     <= 1'b0;
      mac_q        <= {128*N{1'b0}};
      mac_mask_q   <= {N{1'b0}};
      mac_last_q   <= 1'b0;
      ctr_full     <= 1'b0;
      ctr_index    <= {16*N{1'b0}};
      ctr_data_q   <= {128*N{1'b0}};
      ctr_mask_q   <= {N{1'b0}};
      ctr_nbytes_q <= {NB_W{1'b0}};
      ctr_s0_q     <= 1'b0;
      ctr_last_q   <= 1'b0;
    end else begin
      if (mac_valid && mac_ready) mac_full <= 1'b0;
      if (ctr_valid && ctr_ready) ctr_full <= 1'b0;
      if (frame_done) busy <= 1'b0;

      if (start || capture) begin
        beat_nbytes <= shape_nbytes;
        beat_keep   <= shape_keep;
        beat_mask   <= shape_mask;
        beat_last   <= shape_last;
        left_after  <= shape_left - BEAT;
        after_full  <= shape_left >= TWO_BEATS;
        after_last  <= shape_left <= TWO_BEATS;
      end

      if (start) begin
        busy        <= 1'b1;
        tk          <= in_tk;
        nonce       <= in_nonce;
        frame_info  <= (DECAP != 0) ? in_mic : ccmp_header;
        body_none   <= (in_body_len == 16'd0);
        body_left   <= (in_body_len != 16'd0);
        block_index <= 16'd1;
        // MAC slot: B0; the AAD blocks follow.
        mac_full    <= 1'b1;
        mac_q       <= b0_lanes;
        mac_mask_q  <= {N{1'b1}};
        mac_last_q  <= 1'b0;
        aad         <= in_aad;
        aad_left    <= 2'd2;
        // CTR slot: A0 (counter 0, lane 0 only).
        ctr_full     <= 1'b1;
        ctr_index    <= {16*N{1'b0}};
        ctr_data_q   <= {128*N{1'b0}};
        ctr_mask_q   <= {1'b1, {N-1{1'b0}}};
        ctr_nbytes_q <= {NB_W{1'b0}};
        ctr_s0_q     <= 1'b1;
        ctr_last_q   <= (in_body_len == 16'd0);
      end

      if (aad_refill) begin
        mac_full   <= 1'b1;
        mac_q      <= aad_lanes;
        mac_mask_q <= {N{1'b1}};
        mac_last_q <= (aad_left == 2'd1) && body_none;
        aad        <= {aad[127:0], 128'h0};
        aad_left   <= aad_left - 2'd1;
      end

      if (capture) begin
        body_left    <= !beat_last;
        block_index  <= block_index + N[15:0];
        ctr_full     <= 1'b1;
        ctr_index    <= body_index;
        ctr_data_q   <= body_blocks;
        ctr_mask_q   <= beat_mask;
        ctr_nbytes_q <= beat_nbytes;
        ctr_s0_q     <= 1'b0;
        ctr_last_q   <= beat_last;
        if (JOIN_MAC) begin
          mac_full   <= 1'b1;
          mac_q      <= body_blocks;
          mac_mask_q <= beat_mask;
          mac_last_q <= beat_last;
        end
      end
    end
  end
endmodule
`default_nettype wire
