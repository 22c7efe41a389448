// CCMP formatting (IEEE 802.11-2016 12.5.3.3, SP 800-38C A.2): from one frame descriptor
// (TK, PN, Key ID, MAC header, body length) and the frame body as 16-byte beats it emits
//   mac_*: B0 = 0x59 || nonce || l(m), the two AAD blocks (l(a) || AAD, zero padded) and,
//          when encapsulating, the body blocks zero padded;
//   ctr_*: A0 (ctr_s0, data 0), then Ai = 0x01 || nonce || i with body block i.
// N > 1 (Enhanced CCMP-N, docs/enhanced-ccmp.md): every beat is N blocks wide, block i of
// the body in lane i mod N; the MAC lanes are its sub-chains, whose first blocks B0_j carry
// flags 0x80 | log2(N) << 3 | j, and the CTR lanes take counters i+1 .. i+N.
// AAD and nonce come from the header: FC with subtype (data), Retry, PwrMgt and MoreData
// masked and Protected set, Order masked for QoS frames when in_ht_control (802.11n rules),
// A1-A3, SC with the sequence number masked, A4 (ToDS and FromDS data), QC with only the
// TID. Nonce flags: priority = TID for QoS data, 0x10 for management frames.
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
  reg         busy;
  reg [127:0] tk;
  reg [47:0]  pn;
  reg [1:0]   keyid;
  /* verilator lint_off UNUSEDSIGNAL */  // Duration, SN and QC octet 1 are not authenticated
  reg [255:0] header;
  /* verilator lint_on UNUSEDSIGNAL */
  reg         ht_control;
  reg [63:0]  mic;
  reg [15:0]  body_len;
  reg [15:0]  remaining;     // body octets not yet emitted
  reg [15:0]  block_index;   // i of the next Ai
  reg [1:0]   header_beats;  // B0, AAD1, AAD2 emitted so far
  reg         a0_pending;

  // ---- header fields ----
  wire [7:0] fc0 = header[255:248];
  wire [7:0] fc1 = header[247:240];
  wire       is_mgmt = (fc0[3:2] == 2'b00);
  wire       is_data = (fc0[3:2] == 2'b10);
  wire       has_qos = is_data && fc0[7];
  wire       has_a4  = is_data && fc1[0] && fc1[1];
  /* verilator lint_off UNUSEDSIGNAL */
  wire [7:0] qc0     = has_a4 ? header[255 - 8 * 30 -: 8] : header[255 - 8 * 24 -: 8];
  /* verilator lint_on UNUSEDSIGNAL */
  wire [3:0] tid     = qc0[3:0];

  wire [7:0] fc0_masked = is_data ? (fc0 & 8'h8f) : fc0;
  wire [7:0] fc1_masked = ((fc1 & 8'hc7) | 8'h40) & ((has_qos && ht_control) ? 8'h7f : 8'hff);
  // FC, A1..A3 (octets 4..21), SC with only the fragment number.
  wire [175:0] aad_base = {fc0_masked, fc1_masked, header[255 - 8 * 4 -: 144],
                           header[255 - 8 * 22 -: 8] & 8'h0f, 8'h00};
  wire [47:0]  a4 = header[255 - 8 * 24 -: 48];
  wire [63:0]  aad_tail = has_a4 ? (has_qos ? {a4, 4'h0, tid, 8'h00} : {a4, 16'h0})
                                 : (has_qos ? {4'h0, tid, 56'h0} : 64'h0);
  wire [15:0]  aad_len = 16'd22 + (has_a4 ? 16'd6 : 16'd0) + (has_qos ? 16'd2 : 16'd0);
  wire [255:0] aad_blocks = {aad_len, aad_base, aad_tail};

  wire [7:0]   nonce_flags = {3'b000, is_mgmt, has_qos ? tid : 4'h0};
  wire [103:0] nonce = {nonce_flags, header[255 - 8 * 10 -: 48], pn};
  wire [63:0]  ccmp_header = {pn[7:0], pn[15:8], 8'h00, keyid, 6'b100000,
                              pn[23:16], pn[31:24], pn[39:32], pn[47:40]};

  // ---- body beats ----
  wire         headers_done = (header_beats == 2'd3);
  wire         in_body = busy && !a0_pending && (remaining != 16'd0) && (DECAP != 0 || headers_done);
  localparam integer BEAT_OCTETS = 16 * N;
  localparam [15:0] BEAT = BEAT_OCTETS[15:0];
  wire [NB_W-1:0]  nbytes = (remaining >= BEAT) ? BEAT[NB_W-1:0] : remaining[NB_W-1:0];
  wire             body_last = (remaining <= BEAT);
  wire [128*N-1:0] valid_octets;
  keep_mask #(.BYTES(16 * N), .NB_W(NB_W)) keep (.nbytes(nbytes), .mask(valid_octets));
  wire [128*N-1:0] body_blocks = body_data & valid_octets;
  wire [N-1:0]     body_mask;
  wire [128*N-1:0] b0_lanes, aad1_lanes, aad2_lanes, counters;
  localparam integer FLAGS = (N == 1) ? 'h59 : ('h80 | ($clog2(N) << 3));
  localparam [7:0] SUB_CHAIN_FLAGS = FLAGS[7:0];
  genvar l;
  generate
    for (l = 0; l < N; l = l + 1) begin : g_lane
      localparam [15:0] LANE = l;
      localparam integer LANE_OCTET = 16 * l;
      localparam [15:0] LANE_START = LANE_OCTET[15:0];
      assign body_mask[N-1-l] = ({{16-NB_W{1'b0}}, nbytes} > LANE_START);
      assign b0_lanes[128 * (N - l) - 1 -: 128]   = {SUB_CHAIN_FLAGS | LANE[7:0], nonce, body_len};
      assign aad1_lanes[128 * (N - l) - 1 -: 128] = aad_blocks[255:128];
      assign aad2_lanes[128 * (N - l) - 1 -: 128] = aad_blocks[127:0];
      assign counters[128 * (N - l) - 1 -: 128]   =
          {8'h01, nonce, a0_pending ? 16'd0 : block_index + LANE};
    end
  endgenerate

  wire mac_hdr_valid = busy && !headers_done;
  localparam JOIN_MAC = (DECAP == 0);  // encapsulation: body block to CBC-MAC and CTR at once
  wire body_take = in_body && body_valid && ctr_ready && (!JOIN_MAC || mac_ready);

  assign body_ready = in_body && ctr_ready && (!JOIN_MAC || mac_ready);

  assign mac_key   = tk;
  assign mac_valid = mac_hdr_valid || (JOIN_MAC && in_body && body_valid && ctr_ready);
  assign mac_blocks = mac_hdr_valid ? (header_beats == 2'd0 ? b0_lanes
                                       : header_beats == 2'd1 ? aad1_lanes : aad2_lanes)
                                    : body_blocks;
  assign mac_mask  = mac_hdr_valid ? {N{1'b1}} : body_mask;
  assign mac_last  = mac_hdr_valid ? (header_beats == 2'd2 && body_len == 16'd0) : body_last;

  assign ctr_key        = tk;
  assign ctr_valid      = (busy && a0_pending) || (in_body && body_valid && (!JOIN_MAC || mac_ready));
  assign ctr_counters   = counters;
  assign ctr_data       = a0_pending ? {128*N{1'b0}} : body_blocks;
  assign ctr_mask       = a0_pending ? {1'b1, {N-1{1'b0}}} : body_mask;
  assign ctr_nbytes     = a0_pending ? {NB_W{1'b0}} : nbytes;
  assign ctr_s0         = a0_pending;
  assign ctr_last       = a0_pending ? (body_len == 16'd0) : body_last;
  assign ctr_frame_info = (DECAP != 0) ? mic : ccmp_header;

  wire frame_done = headers_done && !a0_pending && remaining == 16'd0;
  assign in_ready = !busy;

  always @(posedge clk) begin
    if (reset) begin
      busy         <= 1'b0;
      tk           <= 128'h0;
      pn           <= 48'h0;
      keyid        <= 2'd0;
      header       <= 256'h0;
      ht_control   <= 1'b0;
      mic          <= 64'h0;
      body_len     <= 16'd0;
      remaining    <= 16'd0;
      block_index  <= 16'd1;
      header_beats <= 2'd0;
      a0_pending   <= 1'b0;
    end else if (!busy) begin
      if (in_valid) begin
        busy         <= 1'b1;
        tk           <= in_tk;
        pn           <= in_pn;
        keyid        <= in_keyid;
        header       <= in_header;
        ht_control   <= in_ht_control;
        mic          <= in_mic;
        body_len     <= in_body_len;
        remaining    <= in_body_len;
        block_index  <= 16'd1;
        header_beats <= 2'd0;
        a0_pending   <= 1'b1;
      end
    end else begin
      if (mac_hdr_valid && mac_ready) header_beats <= header_beats + 2'd1;
      if (a0_pending && ctr_ready) a0_pending <= 1'b0;
      if (body_take) begin
        remaining   <= remaining - {{16-NB_W{1'b0}}, nbytes};
        block_index <= block_index + N[15:0];
      end
      if (frame_done) busy <= 1'b0;
    end
  end
endmodule
`default_nettype wire
