// Multi-frame CCMP-128 encapsulation ("hardware multi-buffer"): F frame lanes share one
// pipelined AES-128 that takes a CBC-MAC block and a CTR block of the same frame side by
// side under one key expansion (aes128_unrolled BLOCKS=2). A CBC-MAC chain can only issue
// its next block once the previous one is out, so the lanes take turns: slot k of every F
// cycles is lane k's, and F is the loop's latency (the pipeline's input register and
// stages, then the result register here), so a lane's results come back exactly in its
// next turn. With every lane busy the pipeline starts a MAC and a CTR block each cycle.
//
// One formatter serves all lanes: a lane's state is read, advanced and written back only
// in its turn, so it lives in small RAMs indexed by the slot (LUT RAM on an FPGA), not in
// F copies of the formatting logic. Per frame and lane, one turn each:
//   B0 (taking the descriptor) | AAD1 with A0 | AAD2 | body block i with A_i ... ;
// a lane takes its next descriptor in the turn its last MAC block comes back.
// Streams: descriptors go to the lane whose turn it is when that lane is free (`in_lane`
// says which), body beats come addressed to a lane (`body_ready` per lane), and the output
// interleaves the lanes (`out_lane`): per frame the CCMP header, the ciphertext, the MIC
// (`out_last`), as ccmp_core. A lane whose frame's body beat is late skips its turn; an
// output not taken holds everything.
`default_nettype none
module ccmp_multi #(
    parameter R         = 1,
    parameter PIPELINED = 1,
    parameter F         = PIPELINED * (10 / R) + 2,  // the loop's latency: not a free choice
    parameter LANE_W    = (F > 1) ? $clog2(F) : 1
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
  localparam USER_W = 9;  // mac, final, ctr, s0, nbytes
  localparam [1:0] STEP_AAD1 = 2'd0, STEP_AAD2 = 2'd1, STEP_BODY = 2'd2, STEP_FINAL = 2'd3;

  // Everything but the body port moves on `advance`: the output register is free.
  wire advance = !out_valid || out_ready;

  reg [LANE_W-1:0] slot;  // the lane whose turn it is
  always @(posedge clk) begin
    if (reset) slot <= {LANE_W{1'b0}};
    else if (advance) slot <= (slot == LAST_LANE) ? {LANE_W{1'b0}} : slot + 1'b1;
  end

  // ---- per-lane flags (flip-flops: reset, and body_ready shows them at any time) ----
  reg [F-1:0] busy;         // a frame is under way
  reg [F-1:0] wants_body;   // ... and not all its body beats have been issued
  reg [F-1:0] beat_full;    // the lane's body beat buffer holds a beat
  reg [F-1:0] mic_pending;  // the MIC goes out in the lane's next turn

  // ---- per-lane state, only touched in the lane's turn ----
  reg [127:0] lane_tk     [0:F-1];
  reg [103:0] lane_nonce  [0:F-1];
  reg [63:0]  lane_header [0:F-1];  // the CCMP header to transmit
  reg [255:0] lane_aad    [0:F-1];
  reg [1:0]   lane_step   [0:F-1];
  reg [15:0]  lane_left   [0:F-1];  // body octets not yet issued
  reg [15:0]  lane_index  [0:F-1];  // counter i of the next body block
  reg [127:0] lane_chain  [0:F-1];  // CBC-MAC value, when a turn was skipped
  reg [127:0] lane_data   [0:F-1];  // the body block whose keystream is in flight
  reg [63:0]  lane_s0     [0:F-1];  // first 8 octets of E(K, A0)
  reg [63:0]  lane_mic    [0:F-1];
  reg [127:0] lane_beat   [0:F-1];  // body beat buffer, written from the body port

  wire [127:0] tk     = lane_tk[slot];
  wire [103:0] nonce  = lane_nonce[slot];
  wire [255:0] aad    = lane_aad[slot];
  wire [1:0]   step   = lane_step[slot];
  wire [15:0]  left   = lane_left[slot];
  wire [15:0]  index  = lane_index[slot];
  wire [127:0] beat   = lane_beat[slot];

  // ---- the pipeline's results for this lane, issued in its previous turn ----
  reg          res_valid, res_mac, res_final, res_ctr, res_s0;
  reg  [4:0]   res_nbytes;
  reg  [127:0] res_mac_block, res_ctr_block;
  wire         mac_back   = res_valid && res_mac;
  wire         final_back = mac_back && res_final;
  wire         ctr_back   = res_valid && res_ctr;
  wire [127:0] chain      = mac_back ? res_mac_block : lane_chain[slot];

  // ---- this turn: start a frame, or issue its next blocks ----
  wire [103:0] in_nonce;
  wire [255:0] in_aad;
  wire [63:0]  in_header_ccmp;
  ccmp_descriptor descriptor (
      .header(in_header), .ht_control(in_ht_control), .pn(in_pn), .keyid(in_keyid),
      .nonce(in_nonce), .aad(in_aad), .ccmp_header(in_header_ccmp)
  );
  wire free  = !busy[slot] || final_back;
  assign in_ready = advance && free;
  assign in_lane  = slot;
  wire start = in_valid && in_ready;

  wire         running  = busy[slot] && !final_back;
  wire         body_now = running && step == STEP_BODY && beat_full[slot];
  wire         last     = left <= 16'd16;
  wire [4:0]   nbytes   = last ? left[4:0] : 5'd16;
  wire [127:0] keep;
  keep_mask #(.BYTES(16), .NB_W(5)) body_keep (.nbytes(nbytes), .mask(keep));
  wire [127:0] body_block = beat & keep;

  wire mac_issue = start || (running && (step == STEP_AAD1 || step == STEP_AAD2)) || body_now;
  wire mac_final = (running && step == STEP_AAD2 && left == 16'd0) || (body_now && last);
  wire ctr_issue = running && (step == STEP_AAD1 || body_now);
  wire ctr_s0    = step == STEP_AAD1;
  reg  [127:0] mac_block;
  always @(*) begin
    if (start) mac_block = {8'h59, in_nonce, in_body_len};  // B0
    else if (step == STEP_AAD1) mac_block = chain ^ aad[255:128];
    else if (step == STEP_AAD2) mac_block = chain ^ aad[127:0];
    else mac_block = chain ^ body_block;
  end
  wire [127:0] ctr_block = {8'h01, nonce, ctr_s0 ? 16'h0 : index};

  wire         pipe_valid;
  wire [USER_W-1:0] pipe_user;
  wire [255:0] pipe_blocks;
  aes128_unrolled #(.R(R), .PIPELINED(PIPELINED), .USER_W(USER_W), .BLOCKS(2)) pipe (
      .clk(clk), .reset(reset),
      .in_valid(advance && (mac_issue || ctr_issue)), .in_ready(),
      .in_key(start ? in_tk : tk), .in_block({mac_block, ctr_block}),
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

  // ---- lane state write-back ----
  wire [127:0] res_keep;
  keep_mask #(.BYTES(16), .NB_W(5)) out_keep (.nbytes(res_nbytes), .mask(res_keep));
  always @(posedge clk) begin
    if (advance) begin
      lane_chain[slot] <= chain;
      if (start) begin
        lane_tk[slot]     <= in_tk;
        lane_nonce[slot]  <= in_nonce;
        lane_header[slot] <= in_header_ccmp;
        lane_aad[slot]    <= in_aad;
        lane_left[slot]   <= in_body_len;
        lane_index[slot]  <= 16'd1;
      end else if (body_now) begin
        lane_left[slot]   <= left - {11'd0, nbytes};
        lane_index[slot]  <= index + 16'd1;
      end
      if (start) lane_step[slot] <= STEP_AAD1;
      else if (mac_issue) lane_step[slot] <= mac_final ? STEP_FINAL
                                            : (step == STEP_AAD1) ? STEP_AAD2 : STEP_BODY;
      if (body_now) lane_data[slot] <= body_block;
      if (ctr_back && res_s0) lane_s0[slot] <= res_ctr_block[127:64];
      if (final_back) lane_mic[slot] <= res_mac_block[127:64] ^ lane_s0[slot];
    end
    if (body_valid && body_ready[body_lane]) lane_beat[body_lane] <= body_data;
  end

  // ---- flags and output ----
  assign body_ready = wants_body & ~beat_full;
  always @(posedge clk) begin
    if (reset) begin
      busy        <= {F{1'b0}};
      wants_body  <= {F{1'b0}};
      beat_full   <= {F{1'b0}};
      mic_pending <= {F{1'b0}};
      out_valid   <= 1'b0;
    end else begin
      if (out_valid && out_ready) out_valid <= 1'b0;
      if (advance) begin
        if (final_back) begin
          busy[slot]        <= 1'b0;
          mic_pending[slot] <= 1'b1;
        end
        if (start) begin
          busy[slot]       <= 1'b1;
          wants_body[slot] <= in_body_len != 16'd0;
        end
        if (body_now) begin
          beat_full[slot] <= 1'b0;
          if (last) wants_body[slot] <= 1'b0;
        end
        // The MIC goes out in the turn after the last MAC block came back, when this lane
        // has no keystream arriving (its next frame's A0 is issued no earlier).
        if (mic_pending[slot]) begin
          mic_pending[slot] <= 1'b0;
          out_valid  <= 1'b1;
          out_data   <= {lane_mic[slot], 64'h0};
          out_nbytes <= 5'd8;
          out_last   <= 1'b1;
        end else if (ctr_back) begin
          out_valid  <= 1'b1;
          out_data   <= res_s0 ? {lane_header[slot], 64'h0}
                               : (lane_data[slot] ^ res_ctr_block) & res_keep;
          out_nbytes <= res_s0 ? 5'd8 : res_nbytes;
          out_last   <= 1'b0;
        end
        out_lane <= slot;
      end
      if (body_valid && body_ready[body_lane]) beat_full[body_lane] <= 1'b1;
    end
  end
endmodule
`default_nettype wire
