// Multi-frame CCMP-128 encapsulation ("hardware multi-buffer"): F = PIPELINED * 10/R + 1
// independent frame lanes share two pipelined AES-128 units (an input register, then R
// rounds per stage in 10/R stages, or with PIPELINED=2 and R=1 two stages per round, the
// second after SubBytes: F cycles of latency), one for CBC-MAC and one for CTR. A CBC-MAC
// chain can only issue a block when its previous one has left the pipeline, so the lanes
// take turns: slot k of every F cycles belongs to lane k, and its result comes back
// exactly when its slot comes round again. With every lane busy both pipelines start a
// block each cycle. Each lane has its own descriptor,
// body and output ports (layout and output as ccmp_core, lane l at index l of each packed
// bus, lane 0 in the low bits). A lane whose output is not taken holds both pipelines.
`default_nettype none
module ccmp_multi #(
    parameter R = 1,
    parameter PIPELINED = 1,
    parameter F = PIPELINED * (10 / R) + 1  // the pipelines' latency: not a free choice
) (
    input  wire             clk,
    input  wire             reset,
    input  wire [F-1:0]     in_valid,
    output wire [F-1:0]     in_ready,
    input  wire [128*F-1:0] in_tk,
    input  wire [48*F-1:0]  in_pn,
    input  wire [2*F-1:0]   in_keyid,
    input  wire [256*F-1:0] in_header,
    input  wire [F-1:0]     in_ht_control,
    input  wire [16*F-1:0]  in_body_len,
    input  wire [F-1:0]     body_valid,
    output wire [F-1:0]     body_ready,
    input  wire [128*F-1:0] body_data,
    output wire [F-1:0]     out_valid,
    input  wire [F-1:0]     out_ready,
    output wire [128*F-1:0] out_data,
    output wire [5*F-1:0]   out_nbytes,
    output wire [F-1:0]     out_last
);
  localparam LANE_W = (F > 1) ? $clog2(F) : 1;
  localparam CTR_USER_W = LANE_W + 1 + 5;  // lane, s0, nbytes
  localparam integer LAST_LANE_I = F - 1;
  localparam [LANE_W-1:0] LAST_LANE = LAST_LANE_I[LANE_W-1:0];

  // ---- slot: the lane whose turn it is ----
  wire             advance;
  reg [LANE_W-1:0] slot;
  always @(posedge clk) begin
    if (reset) slot <= {LANE_W{1'b0}};
    else if (advance) slot <= (slot == LAST_LANE) ? {LANE_W{1'b0}} : slot + 1'b1;
  end

  // ---- per-lane formatting, with the lanes' streams gathered for the slot mux ----
  wire [F-1:0]     mac_valid, mac_last, ctr_valid, ctr_s0;
  wire [128*F-1:0] mac_key, mac_block, ctr_key, ctr_counter, ctr_data;
  wire [5*F-1:0]   ctr_nbytes;
  wire [64*F-1:0]  ctr_info;
  wire [F-1:0]     mac_take, ctr_take;  // the lane issues into a pipeline this cycle

  // ---- the two pipelines ----
  wire             mac_out_valid, ctr_out_valid;
  wire [127:0]     mac_out, ctr_out;
  wire [LANE_W-1:0] mac_out_lane;
  wire [CTR_USER_W-1:0] ctr_out_user;
  wire [LANE_W-1:0] ctr_out_lane = ctr_out_user[CTR_USER_W-1 -: LANE_W];
  wire             ks_s0     = ctr_out_user[5];
  wire [4:0]       ks_nbytes = ctr_out_user[4:0];

  reg  [F-1:0]     chaining;     // the lane's CBC-MAC chain continues after its block
  reg  [F-1:0]     mac_flight;   // the lane has a MAC block in the pipeline
  reg  [F-1:0]     mac_final;    // ... and it is the frame's last
  reg  [127:0]     chain_reg [0:F-1];
  reg  [127:0]     data_reg  [0:F-1];
  reg  [63:0]      info_reg  [0:F-1];
  reg  [63:0]      s0_reg    [0:F-1];
  reg  [63:0]      mic_reg   [0:F-1];
  reg  [F-1:0]     mic_pending;

  wire [127:0] mac_in_block [0:F-1];
  wire [127:0] ks_masked;
  keep_mask #(.BYTES(16), .NB_W(5)) keep (.nbytes(ks_nbytes), .mask(ks_masked));

  // The pipelines hold while a lane's arriving keystream cannot leave.
  wire ctr_blocked = ctr_out_valid && (mic_pending[ctr_out_lane] || !out_ready[ctr_out_lane]);
  assign advance = !ctr_blocked;

  genvar l;
  generate
    for (l = 0; l < F; l = l + 1) begin : g_lane
      localparam [LANE_W-1:0] LANE = l;
      wire turn = advance && (slot == LANE);
      wire mac_arrives = mac_out_valid && (mac_out_lane == LANE);
      wire ctr_arrives = ctr_out_valid && (ctr_out_lane == LANE);
      wire [127:0] chain_value = mac_arrives ? mac_out : chain_reg[l];

      ccmp_format #(.N(1), .DECAP(0), .NB_W(5)) format (
          .clk(clk), .reset(reset),
          .in_valid(in_valid[l]), .in_ready(in_ready[l]), .in_tk(in_tk[128 * l +: 128]),
          .in_pn(in_pn[48 * l +: 48]), .in_keyid(in_keyid[2 * l +: 2]),
          .in_header(in_header[256 * l +: 256]), .in_ht_control(in_ht_control[l]),
          .in_body_len(in_body_len[16 * l +: 16]), .in_mic(64'h0),
          .body_valid(body_valid[l]), .body_ready(body_ready[l]),
          .body_data(body_data[128 * l +: 128]),
          .mac_valid(mac_valid[l]), .mac_ready(mac_take[l]), .mac_key(mac_key[128 * l +: 128]),
          .mac_blocks(mac_block[128 * l +: 128]), .mac_mask(), .mac_last(mac_last[l]),
          .ctr_valid(ctr_valid[l]), .ctr_ready(ctr_take[l]), .ctr_key(ctr_key[128 * l +: 128]),
          .ctr_counters(ctr_counter[128 * l +: 128]), .ctr_data(ctr_data[128 * l +: 128]),
          .ctr_mask(), .ctr_nbytes(ctr_nbytes[5 * l +: 5]), .ctr_s0(ctr_s0[l]),
          .ctr_last(), .ctr_frame_info(ctr_info[64 * l +: 64])
      );

      // A lane issues only in its slot, so a block it has in flight is arriving right now
      // and its result chains straight into the next block.
      assign mac_take[l] = turn && (!mac_flight[l] || mac_arrives) && !mic_pending[l];
      assign ctr_take[l] = turn && !mic_pending[l];
      assign mac_in_block[l] = (chaining[l] ? chain_value : 128'h0) ^ mac_block[128 * l +: 128];

      assign out_valid[l] = mic_pending[l] || ctr_arrives;
      assign out_data[128 * l +: 128] =
          mic_pending[l] ? {mic_reg[l], 64'h0}
                         : ks_s0 ? {info_reg[l], 64'h0} : (data_reg[l] ^ ctr_out) & ks_masked;
      assign out_nbytes[5 * l +: 5] = (mic_pending[l] || ks_s0) ? 5'd8 : ks_nbytes;
      assign out_last[l] = mic_pending[l];

      always @(posedge clk) begin
        if (reset) begin
          chaining[l]    <= 1'b0;
          mac_flight[l]  <= 1'b0;
          mac_final[l]   <= 1'b0;
          mic_pending[l] <= 1'b0;
          chain_reg[l]   <= 128'h0;
          data_reg[l]    <= 128'h0;
          info_reg[l]    <= 64'h0;
          s0_reg[l]      <= 64'h0;
          mic_reg[l]     <= 64'h0;
        end else begin
          if (mic_pending[l] && out_ready[l]) mic_pending[l] <= 1'b0;
          if (advance && mac_arrives) begin
            mac_flight[l] <= 1'b0;
            if (mac_final[l]) begin
              mic_reg[l]     <= mac_out[127:64] ^ s0_reg[l];
              mic_pending[l] <= 1'b1;
            end else begin
              chain_reg[l] <= mac_out;
            end
          end
          if (mac_valid[l] && mac_take[l]) begin
            mac_flight[l] <= 1'b1;
            mac_final[l]  <= mac_last[l];
            chaining[l]   <= !mac_last[l];
          end
          if (ctr_valid[l] && ctr_take[l]) begin
            data_reg[l] <= ctr_data[128 * l +: 128];
            if (ctr_s0[l]) info_reg[l] <= ctr_info[64 * l +: 64];
          end
          if (advance && ctr_arrives && ks_s0) s0_reg[l] <= ctr_out[127:64];
        end
      end
    end
  endgenerate

  // ---- slot muxes into the pipelines ----
  wire [127:0] mac_pipe_block = mac_in_block[slot];
  wire [127:0] mac_pipe_key   = mac_key[128 * slot +: 128];
  wire         mac_pipe_valid = mac_valid[slot] && mac_take[slot];
  wire         ctr_pipe_valid = ctr_valid[slot] && ctr_take[slot];

  aes128_unrolled #(.R(R), .PIPELINED(PIPELINED), .USER_W(LANE_W)) mac_pipe (
      .clk(clk), .reset(reset),
      .in_valid(mac_pipe_valid), .in_ready(), .in_key(mac_pipe_key),
      .in_block(mac_pipe_block), .in_user(slot),
      .out_valid(mac_out_valid), .out_ready(advance), .out_block(mac_out),
      .out_round_key(), .out_user(mac_out_lane)
  );
  aes128_unrolled #(.R(R), .PIPELINED(PIPELINED), .USER_W(CTR_USER_W)) ctr_pipe (
      .clk(clk), .reset(reset),
      .in_valid(ctr_pipe_valid), .in_ready(), .in_key(ctr_key[128 * slot +: 128]),
      .in_block(ctr_counter[128 * slot +: 128]),
      .in_user({slot, ctr_s0[slot], ctr_nbytes[5 * slot +: 5]}),
      .out_valid(ctr_out_valid), .out_ready(advance), .out_block(ctr_out),
      .out_round_key(), .out_user(ctr_out_user)
  );
endmodule
`default_nettype wire
