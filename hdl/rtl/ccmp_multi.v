// Multi-frame CCMP-128 encapsulation ("hardware multi-buffer"): F frame lanes share one
// pipelined AES-128 that takes a CBC-MAC block and a CTR block of the same frame side by
// side under one key expansion (aes128_unrolled BLOCKS=2). A CBC-MAC chain can only issue
// its next block once the previous one is out, so the lanes take turns: slot k of every F
// cycles is lane k's, and F is the loop's latency (the pipeline's input register and
// stages, then the result register here), so a lane's results come back exactly in its
// next turn. With every lane busy the pipeline starts a MAC and a CTR block each cycle.
//
// One formatter serves all lanes: a lane's state lives in small RAMs indexed by lane (LUT
// RAM on an FPGA), is read into the head registers in the cycle before its turn, advanced
// in its turn and written back, so F lanes cost F RAM words, not F copies of the logic.
// Per frame and lane, one turn each:
//   B0 (taking the descriptor) | AAD1 with A0 | AAD2 | body block i with A_i ... ;
// a lane takes its next descriptor in the turn its last MAC block comes back.
// Streams: descriptors go to the lane whose turn it is when that lane is free (`in_lane`
// says which), body beats come addressed to a lane (`body_ready` per lane), and the output
// interleaves the lanes (`out_lane`): per frame the CCMP header, the ciphertext, the MIC
// (`out_last`), as ccmp_core. A lane whose body beat is late skips its turn.
//
// Timing: every wide enable and select comes from a flip-flop. With PIPELINED=1 the
// pipeline's input stage takes round key 1 beside the key (it expands a stage ahead): a
// lane keeps it in its state, so the only expansion in that cycle is of in_tk, and the
// select between a new key and the lane's comes after it, not in front of it. Body beats pass an input
// register (body_q) whose lane comparisons are made on the way in; the output has a skid
// register, so an output not taken holds everything but the body port one cycle later
// (`advance` is registered) and in_ready / body_ready never depend on out_ready.
`default_nettype none
module ccmp_multi #(
    parameter R         = 1,
    parameter PIPELINED = 1,  // 1 or 2 (aes128_unrolled)
    parameter F         = PIPELINED * (10 / R) + 2,  // the loop's latency: not a free choice
    parameter LANE_W    = $clog2(F)
) (
    input  wire              clk,
    input  wire              reset,
    // Frame descriptors (fields as ccmp_core)
    input  wire              in_valid,
    output wire              in_ready,
    output wire [LANE_W-1:0] in_lane,
    input  wire [127:0]      in_tk,
    input  wire [47:0]       in_pn,
    input  wire [1:0]        in_keyid,
    input  wire [255:0]      in_header,
    input  wire              in_ht_control,
    input  wire [15:0]       in_body_len,
    // Frame bodies, 16 octets per beat (fewer valid in the last), octet 0 on top
    input  wire              body_valid,
    input  wire [LANE_W-1:0] body_lane,
    output wire [F-1:0]      body_ready,
    input  wire [127:0]      body_data,
    // Protected frame bodies
    output reg               out_valid,
    input  wire              out_ready,
    output reg  [LANE_W-1:0] out_lane,
    output reg  [127:0]      out_data,
    output reg  [4:0]        out_nbytes,
    output reg               out_last
);
  localparam integer LAST_LANE_I = F - 1;
  localparam [LANE_W-1:0] LAST_LANE = LAST_LANE_I[LANE_W-1:0];
  localparam [LANE_W-1:0] LANE_1 = 1;
  localparam USER_W = 9;  // mac, final, ctr, s0, nbytes
  localparam [1:0] STEP_AAD1 = 2'd0, STEP_AAD2 = 2'd1, STEP_BODY = 2'd2, STEP_FINAL = 2'd3;

  // Everything but the body port moves on `advance`: the skid register is free.
  reg  skid_valid;
  wire advance = !skid_valid;

  reg [LANE_W-1:0] slot;        // the lane whose turn it is
  reg [LANE_W-1:0] next_slot;   // the next one, whose state is read now
  reg [LANE_W-1:0] after_next;  // the one after, read in the next cycle that advances
  always @(posedge clk) begin
    if (reset) begin
      slot       <= {LANE_W{1'b0}};
      next_slot  <= LANE_1;
      after_next <= LANE_1 + LANE_1;
    end else if (advance) begin
      slot       <= next_slot;
      next_slot  <= after_next;
      after_next <= (after_next == LAST_LANE) ? {LANE_W{1'b0}} : after_next + 1'b1;
    end
  end

  // ---- per-lane flags (flip-flops: reset, and body_ready shows them at any time) ----
  reg [F-1:0] busy;         // a frame is under way
  reg [F-1:0] wants_body;   // ... and not all its body beats have been issued
  reg [F-1:0] beat_full;    // the lane's body beat buffer holds a beat
  reg [F-1:0] mic_pending;  // the MIC goes out in the lane's next turn
  assign body_ready = wants_body & ~beat_full;
  wire body_write = body_valid && body_ready[body_lane];

  // ---- the body port's input register: a beat taken is written to its lane's buffer in
  // the next cycle, and goes straight to the head registers when that lane is in its turn
  // then (to_slot) or is the lane read then (to_next).
  reg              body_q_valid, body_q_to_slot, body_q_to_next;
  reg [LANE_W-1:0] body_q_lane;
  reg [127:0]      body_q_data;
  always @(posedge clk) begin
    if (reset) begin
      body_q_valid   <= 1'b0;
      body_q_to_slot <= 1'b0;
      body_q_to_next <= 1'b0;
    end else begin
      body_q_valid   <= body_write;
      body_q_to_slot <= body_write && body_lane == (advance ? next_slot : slot);
      body_q_to_next <= body_write && body_lane == (advance ? after_next : next_slot);
    end
    body_q_lane <= body_lane;
    body_q_data <= body_data;
  end

  // ---- per-lane state (RAM) and the head registers: the state of lane `slot` ----
  // LUT RAM, not block RAM: the S-boxes need those.
  (* ram_style = "distributed" *) reg [127:0] lane_tk     [0:F-1];
  (* ram_style = "distributed" *) reg [127:0] lane_tk_1   [0:F-1];  // round key 1 of lane_tk
  (* ram_style = "distributed" *) reg [103:0] lane_nonce  [0:F-1];
  (* ram_style = "distributed" *) reg [63:0]  lane_header [0:F-1];  // the CCMP header to transmit
  (* ram_style = "distributed" *) reg [255:0] lane_aad    [0:F-1];
  (* ram_style = "distributed" *) reg [1:0]   lane_step   [0:F-1];
  (* ram_style = "distributed" *) reg [15:0]  lane_left   [0:F-1];  // body octets not yet issued
  (* ram_style = "distributed" *) reg [4:0]   lane_nbytes [0:F-1];  // ... in the next body beat
  (* ram_style = "distributed" *) reg [15:0]  lane_index  [0:F-1];  // counter i of the next body block
  (* ram_style = "distributed" *) reg [127:0] lane_chain  [0:F-1];  // CBC-MAC value, when a turn was skipped
  (* ram_style = "distributed" *) reg [127:0] lane_data   [0:F-1];  // the body block whose keystream is in flight
  (* ram_style = "distributed" *) reg [63:0]  lane_s0     [0:F-1];  // first 8 octets of E(K, A0)
  (* ram_style = "distributed" *) reg [63:0]  lane_mic    [0:F-1];
  (* ram_style = "distributed" *) reg [127:0] lane_beat   [0:F-1];  // body beat buffer, written from the body port

  reg [127:0] tk, tk_1, chain_q, data, beat;
  reg [103:0] nonce;
  reg [63:0]  header, s0, mic;
  reg [255:0] aad;
  reg [1:0]   step;
  reg [15:0]  left, index;
  reg [4:0]   nbytes;
  reg         has_body, has_beat, has_mic;
  reg         free;     // the head lane can take a descriptor: idle, or its last MAC block is back
  reg         running;  // ... it cannot: a frame is under way

  // ---- the pipeline's results for this lane, issued in its previous turn ----
  reg          res_valid, res_mac, res_final, res_ctr, res_s0;
  reg  [4:0]   res_nbytes;
  reg  [127:0] res_mac_block, res_ctr_block;
  wire         mac_back   = res_valid && res_mac;
  wire         final_back = mac_back && res_final;
  wire         ctr_back   = res_valid && res_ctr;
  wire [127:0] chain      = mac_back ? res_mac_block : chain_q;

  // ---- this turn: start a frame, or issue its next blocks ----
  wire [103:0] in_nonce;
  wire [255:0] in_aad;
  wire [63:0]  in_header_ccmp;
  ccmp_descriptor descriptor (
      .header(in_header), .ht_control(in_ht_control), .pn(in_pn), .keyid(in_keyid),
      .nonce(in_nonce), .aad(in_aad), .ccmp_header(in_header_ccmp)
  );
  // A free lane takes the descriptor fields into its state whether or not one comes: they
  // are only read once a frame starts, and selecting on `free` (a flip-flop) keeps in_valid
  // off the wide selects.
  assign in_ready = advance && free;
  assign in_lane  = slot;
  wire start = in_valid && in_ready;
  wire [127:0] in_tk_1;
  aes_round_key_1 in_tk_expansion (.key(in_tk), .round_key_1(in_tk_1));
  wire [127:0] key   = free ? in_tk : tk;
  wire [127:0] key_1 = free ? in_tk_1 : tk_1;

  wire [127:0] turn_beat = body_q_to_slot ? body_q_data : beat;
  wire body_now = running && step == STEP_BODY && (has_beat || body_q_to_slot);
  wire last     = !(|left[15:5]) && (left[4:0] <= 5'd16);  // the next beat is the last
  wire [127:0] keep;
  keep_mask #(.BYTES(16), .NB_W(5)) body_keep (.nbytes(nbytes), .mask(keep));
  wire [127:0] body_block = turn_beat & keep;

  wire mac_issue = start || (running && (step == STEP_AAD1 || step == STEP_AAD2)) || body_now;
  wire mac_final = (running && step == STEP_AAD2 && !has_body) || (body_now && last);
  wire ctr_issue = running && (step == STEP_AAD1 || body_now);
  wire ctr_s0    = step == STEP_AAD1;
  reg  [127:0] mac_block;
  always @(*) begin
    if (free) mac_block = {8'h59, in_nonce, in_body_len};  // B0
    else if (step == STEP_AAD1) mac_block = chain ^ aad[255:128];
    else if (step == STEP_AAD2) mac_block = chain ^ aad[127:0];
    else mac_block = chain ^ body_block;
  end
  wire [127:0] ctr_block = {8'h01, nonce, ctr_s0 ? 16'h0 : index};

  wire         pipe_valid;
  wire [USER_W-1:0] pipe_user;
  wire         pipe_mac   = pipe_user[USER_W-1];
  wire         pipe_final = pipe_user[USER_W-2];
  wire [255:0] pipe_blocks;
  aes128_unrolled #(.R(R), .PIPELINED(PIPELINED), .USER_W(USER_W), .BLOCKS(2),
                    .KEY_1_GIVEN(1)) pipe (
      .clk(clk), .reset(reset),
      .in_valid(advance && (mac_issue || ctr_issue)), .in_ready(),
      .in_key(key), .in_key_1(key_1), .in_block({mac_block, ctr_block}),
      .in_user({mac_issue, mac_final, ctr_issue, ctr_s0, ctr_s0 ? 5'd0 : nbytes}),
      .out_valid(pipe_valid), .out_ready(advance), .out_block(pipe_blocks),
      .out_round_key(), .out_user(pipe_user)
  );
  always @(posedge clk) begin
    if (reset) begin
      res_valid <= 1'b0;
    end else if (advance) begin
      res_valid <= pipe_valid;
      {res_mac, res_final, res_ctr, res_s0, res_nbytes} <= pipe_user;
      {res_mac_block, res_ctr_block} <= pipe_blocks;
    end
  end

  // ---- the lane's next state, written back at the end of its turn ----
  wire [15:0]  left_next = free ? in_body_len : body_now ? left - {11'd0, nbytes} : left;
  wire [4:0]   nbytes_next = (left_next >= 16'd16) ? 5'd16 : left_next[4:0];
  wire [1:0]   step_next = free ? STEP_AAD1
                         : !mac_issue ? step
                         : mac_final ? STEP_FINAL
                         : (step == STEP_AAD1) ? STEP_AAD2 : STEP_BODY;
  wire [63:0]  s0_next  = (ctr_back && res_s0) ? res_ctr_block[127:64] : s0;
  wire [63:0]  mic_next = final_back ? res_mac_block[127:64] ^ s0 : mic;
  always @(posedge clk) begin
    if (advance) begin
      lane_tk[slot]     <= key;
      lane_tk_1[slot]   <= key_1;
      lane_nonce[slot]  <= free ? in_nonce : nonce;
      lane_header[slot] <= free ? in_header_ccmp : header;
      lane_aad[slot]    <= free ? in_aad : aad;
      lane_step[slot]   <= step_next;
      lane_left[slot]   <= left_next;
      lane_nbytes[slot] <= nbytes_next;
      lane_index[slot]  <= free ? 16'd1 : body_now ? index + 16'd1 : index;
      lane_chain[slot]  <= chain;
      lane_data[slot]   <= body_now ? body_block : data;
      lane_s0[slot]     <= s0_next;
      lane_mic[slot]    <= mic_next;
      // The next lane's state into the head registers (its last write was F cycles ago).
      tk     <= lane_tk[next_slot];
      tk_1   <= lane_tk_1[next_slot];
      nonce  <= lane_nonce[next_slot];
      header <= lane_header[next_slot];
      aad    <= lane_aad[next_slot];
      step   <= lane_step[next_slot];
      left   <= lane_left[next_slot];
      nbytes <= lane_nbytes[next_slot];
      index  <= lane_index[next_slot];
      chain_q <= lane_chain[next_slot];
      data   <= lane_data[next_slot];
      s0     <= lane_s0[next_slot];
      mic    <= lane_mic[next_slot];
    end
    if (body_q_valid) lane_beat[body_q_lane] <= body_q_data;
    // A registered beat for the lane being read, or for the head lane while the turn is
    // held, goes straight into the head register (its buffer is written at the same edge).
    if (advance) beat <= body_q_to_next ? body_q_data : lane_beat[next_slot];
    else if (body_q_to_slot) beat <= body_q_data;
  end

  // ---- flags ----
  always @(posedge clk) begin
    if (reset) begin
      busy        <= {F{1'b0}};
      wants_body  <= {F{1'b0}};
      beat_full   <= {F{1'b0}};
      mic_pending <= {F{1'b0}};
      free        <= 1'b1;
      running     <= 1'b0;
      has_body    <= 1'b0;
      has_beat    <= 1'b0;
      has_mic     <= 1'b0;
    end else begin
      if (body_write) beat_full[body_lane] <= 1'b1;
      if (advance) begin
        busy[slot]        <= start || running;
        mic_pending[slot] <= final_back;
        if (start) wants_body[slot] <= in_body_len != 16'd0;
        else if (body_now && last) wants_body[slot] <= 1'b0;
        if (body_now) beat_full[slot] <= 1'b0;
        // The next turn's final_back is the pipeline's result entering res_* now.
        free     <= !busy[next_slot] || (pipe_valid && pipe_mac && pipe_final);
        running  <= busy[next_slot] && !(pipe_valid && pipe_mac && pipe_final);
        has_body <= wants_body[next_slot];
        // A beat taken in this cycle reaches the turn through body_q (to_slot).
        has_beat <= beat_full[next_slot];
        has_mic  <= mic_pending[next_slot];
      end else if (body_q_to_slot) begin
        has_beat <= 1'b1;
      end
    end
  end

  // ---- output: this turn's beat, through the skid register when the output is held ----
  // The MIC goes out in the turn after the last MAC block came back, when this lane has no
  // keystream arriving (its next frame's A0 is issued no earlier).
  wire [127:0] res_keep;
  keep_mask #(.BYTES(16), .NB_W(5)) out_keep (.nbytes(res_nbytes), .mask(res_keep));
  wire         produce = advance && (has_mic || ctr_back);
  wire [127:0] produce_data = has_mic ? {mic, 64'h0}
                            : res_s0 ? {header, 64'h0} : (data ^ res_ctr_block) & res_keep;
  wire [4:0]   produce_nbytes = (has_mic || res_s0) ? 5'd8 : res_nbytes;
  wire         out_free = !out_valid || out_ready;
  reg  [LANE_W-1:0] skid_lane;
  reg  [127:0]      skid_data;
  reg  [4:0]        skid_nbytes;
  reg               skid_last;
  always @(posedge clk) begin
    if (reset) begin
      skid_valid <= 1'b0;
      out_valid  <= 1'b0;
    end else begin
      skid_valid <= (skid_valid || produce) && !out_free;
      if (out_free) out_valid <= skid_valid || produce;
    end
    if (advance) {skid_lane, skid_data, skid_nbytes, skid_last} <= {slot, produce_data, produce_nbytes, has_mic};
    if (out_free) {out_lane, out_data, out_nbytes, out_last} <= skid_valid
        ? {skid_lane, skid_data, skid_nbytes, skid_last}
        : {slot, produce_data, produce_nbytes, has_mic};
  end
endmodule
`default_nettype wire
