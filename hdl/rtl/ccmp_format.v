// CCMP formatting (IEEE 802.11-2016 12.5.3.3, SP 800-38C A.2): from one frame descriptor
// (TK, PN, Key ID, MAC header, body length) and the frame body as 16-byte beats it emits
//   mac_*: the CBC-MAC chain's first blocks, then, when encapsulating, the body blocks zero
//          padded;
//   ctr_*: A0 (ctr_s0, data 0), then Ai = 0x01 || nonce || i with body block i.
// The chain's first blocks are B0 = 0x59 || nonce || l(m) and the two AAD blocks
// (l(a) || AAD, zero padded); mac_header_last marks the last of them. HEADER_UNIT = 1
// (N = 1 only): the descriptor is taken into a register while the frame ahead streams, and a
// header unit of its own (a compact third AES, aes128_column_core: 44 cycles for two blocks,
// which only frames of up to 3 body blocks wait for) encrypts that frame's B0 and first AAD
// block, so the chain starts at X2 ^ AAD2 (X2 = E(E(B0) ^ AAD1)) and the MAC unit takes one
// block more than the body, like the CTR unit: neither waits for the other (950 cycles for a
// 1500-octet body instead of 970).
// N > 1 (Enhanced CCMP-N, docs/enhanced-ccmp.md): every beat is N blocks wide, block i of
// the body in lane i mod N; the MAC lanes are its sub-chains, which start with B0_j (flags
// 0x80 | log2(N) << 3 | j) and take both AAD blocks, and the CTR lanes take counters
// i+1 .. i+N.
// AAD, nonce and CCMP header come from the descriptor (ccmp_descriptor).
// ctr_frame_info travels with A0: the CCMP header to transmit (encapsulation) or the
// received MIC (DECAP=1, where the body goes to the CTR unit only: its MAC input is the
// decrypted plaintext).
`default_nettype none
module ccmp_format #(
    parameter N     = 1,
    parameter HEADER_UNIT = 0,             // 1: the header unit (N = 1 only; ignored otherwise)
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
    output wire         mac_header_last,  // the chain's last header block: the body follows
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
  localparam HU = (HEADER_UNIT != 0) && (N == 1);
  localparam [1:0] AAD_BLOCKS = HU ? 2'd0 : 2'd2;  // AAD blocks the MAC slot takes
  localparam integer BEAT_OCTETS = 16 * N;
  localparam [15:0] BEAT = BEAT_OCTETS[15:0];
  localparam integer FLAGS = (N == 1) ? 'h59 : ('h80 | ($clog2(N) << 3));
  localparam [7:0] SUB_CHAIN_FLAGS = FLAGS[7:0];

  // next frame: the ports, or (HU) the descriptor's register
  wire        next_full;
  wire [127:0] next_tk;
  wire [103:0] next_nonce;
  wire [63:0]  next_info;
  wire [15:0]  next_body_len;
  wire [255:0] next_aad;
  wire        next_started;    // its chain's first block is ready
  wire [128*N-1:0] chain_start;  // HU: that block, X2 ^ AAD2
  // current frame
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
  reg              mac_header_last_q;
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
  wire   start    = next_full && next_started && !busy;

  // ---- shape of a body beat from the octets left: the frame's length when it starts,
  // left_after when a beat is captured ----
  localparam [15:0] TWO_BEATS = 2 * BEAT;
  wire [15:0]      shape_left = busy ? left_after : next_body_len;
  wire             shape_full = busy ? after_full : (next_body_len >= BEAT);
  wire             shape_last = busy ? after_last : (next_body_len <= BEAT);
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
      assign b0_lanes[128 * (N - l) - 1 -: 128]  = {SUB_CHAIN_FLAGS | LANE[7:0], next_nonce, next_body_len};
      assign aad_lanes[128 * (N - l) - 1 -: 128] = aad[255:128];
      assign body_index[16 * (N - l) - 1 -: 16] = block_index + LANE;
      assign counters[128 * (N - l) - 1 -: 128]  = {8'h01, nonce, ctr_index[16 * (N - l) - 1 -: 16]};
    end
  endgenerate
  assign body_blocks = body_data & beat_keep;

  // ---- the next frame's descriptor. HU: taken into a register once that is empty, and the
  // header unit's X2 = E(E(B0) ^ AAD1), B0 loaded once the descriptor is in the register and
  // AAD1 chained onto E(B0) as that block leaves ----
  generate
    if (HU) begin : g_header_unit
      reg          full;
      reg  [127:0] tk_q;
      reg  [103:0] nonce_q;
      reg  [63:0]  info_q;
      reg  [15:0]  body_len_q;
      reg  [255:0] aad_q;
      reg  [1:0]   loaded;  // the next frame's blocks in the unit so far: B0, AAD1
      reg          made;
      reg  [127:0] made_block;
      reg          load;    // a block into the unit: registered, as it selects the unit's state
      wire         unit_idle, unit_out_valid;
      wire [127:0] unit_out;
      wire take = in_valid && !full;
      aes128_column_core #(.COLUMNS(2)) aes (
          .clk(clk), .reset(reset),
          .in_valid(load), .idle(unit_idle), .in_chain(loaded == 2'd1),
          .in_key(tk_q), .in_block(loaded == 2'd0 ? b0_lanes : aad_q[255:128]),
          .out_valid(unit_out_valid), .out_block(unit_out)
      );
      always @(posedge clk) begin
        if (reset) begin
          full       <= 1'b0;
          tk_q       <= 128'h0;
          nonce_q    <= 104'h0;
          info_q     <= 64'h0;
          body_len_q <= 16'd0;
          aad_q      <= 256'h0;
          loaded     <= 2'd0;
          load       <= 1'b0;
          made       <= 1'b0;
          made_block <= 128'h0;
        end else if (start) begin
          full   <= 1'b0;
          loaded <= 2'd0;
          load   <= 1'b0;
          made   <= 1'b0;
        end else begin
          // B0 once the descriptor is in and the unit idle, AAD1 once E(B0) is out: a cycle
          // after the condition (and not again while that load is under way).
          load <= !load && full && (loaded == 2'd0 ? unit_idle : loaded == 2'd1 && unit_out_valid);
          if (take) begin
            full       <= 1'b1;
            tk_q       <= in_tk;
            nonce_q    <= in_nonce;
            info_q     <= (DECAP != 0) ? in_mic : ccmp_header;
            body_len_q <= in_body_len;
            aad_q      <= in_aad;
          end
          if (load) loaded <= loaded + 2'd1;
          if (loaded == 2'd2 && unit_out_valid) begin
            made       <= 1'b1;
            made_block <= unit_out ^ aad_q[127:0];
          end
        end
      end
      assign in_ready      = !full;
      assign next_full     = full;
      assign next_tk       = tk_q;
      assign next_nonce    = nonce_q;
      assign next_info     = info_q;
      assign next_body_len = body_len_q;
      assign next_aad      = aad_q;
      assign next_started  = made;
      assign chain_start   = made_block;
    end else begin : g_descriptor
      assign in_ready      = !busy;
      assign next_full     = in_valid;
      assign next_tk       = in_tk;
      assign next_nonce    = in_nonce;
      assign next_info     = (DECAP != 0) ? in_mic : ccmp_header;
      assign next_body_len = in_body_len;
      assign next_aad      = in_aad;
      assign next_started  = 1'b1;
      assign chain_start   = {128*N{1'b0}};
    end
  endgenerate

  localparam JOIN_MAC = (DECAP == 0);  // encapsulation: body beat to CBC-MAC and CTR at once
  assign body_ready = busy && body_left && !ctr_full && (!JOIN_MAC || (!mac_full && aad_left == 2'd0));
  wire   capture    = body_valid && body_ready;
  wire   aad_refill = busy && !mac_full && aad_left != 2'd0;
  wire   frame_done = busy && !mac_full && !ctr_full && aad_left == 2'd0 && !body_left;

  assign mac_key    = tk;
  assign mac_valid  = mac_full;
  assign mac_blocks = mac_q;
  assign mac_mask   = mac_mask_q;
  assign mac_last   = mac_last_q;
  assign mac_header_last = mac_header_last_q;

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
      mac_header_last_q <= 1'b0;
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
        tk          <= next_tk;
        nonce       <= next_nonce;
        frame_info  <= next_info;
        body_none   <= (next_body_len == 16'd0);
        body_left   <= (next_body_len != 16'd0);
        block_index <= 16'd1;
        // MAC slot: B0 with the AAD blocks to follow, or (HU) X2 ^ AAD2.
        mac_full    <= 1'b1;
        mac_q       <= HU ? chain_start : b0_lanes;
        mac_mask_q  <= {N{1'b1}};
        mac_last_q  <= HU && next_body_len == 16'd0;
        mac_header_last_q <= HU;
        aad         <= next_aad;
        aad_left    <= AAD_BLOCKS;
        // CTR slot: A0 (counter 0, lane 0 only).
        ctr_full     <= 1'b1;
        ctr_index    <= {16*N{1'b0}};
        ctr_data_q   <= {128*N{1'b0}};
        ctr_mask_q   <= {1'b1, {N-1{1'b0}}};
        ctr_nbytes_q <= {NB_W{1'b0}};
        ctr_s0_q     <= 1'b1;
        ctr_last_q   <= (next_body_len == 16'd0);
      end

      if (aad_refill) begin
        mac_full   <= 1'b1;
        mac_q      <= aad_lanes;
        mac_mask_q <= {N{1'b1}};
        mac_last_q <= (aad_left == 2'd1) && body_none;
        mac_header_last_q <= (aad_left == 2'd1);
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
          mac_header_last_q <= 1'b0;
        end
      end
    end
  end
endmodule
`default_nettype wire
