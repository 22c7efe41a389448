// ccmp_decap (N = 1), driven by fv_stream_env (inputs obey the valid/ready protocol, bodies
// of 0..MAX_LEN octets), the output and verdict streams stalled at will, AES outputs free.
// Stream (CHECK_MIC = 0): out_* holds still while out_valid && !out_ready and res_ok while
// res_valid && !res_ready; the plaintext of each frame with a body leaves as
// ceil(L / 16) beats of min(16, octets left) octets, out_last on its last, in order; one
// verdict per frame, in order, never before all of its plaintext is out.
// MIC (CHECK_MIC = 1): the verdict of frame k is ok exactly when the received MIC of frame
// k (its descriptor's in_mic) equals T_k ^ S0_k, the first 8 octets of the k-th tag the
// CBC-MAC hands over and of the k-th S0 the CTR unit returns, and frame k's MAC header has
// Protected and its CCMP header Ext IV set. With the AES outputs free, tag and S0 take any
// value the solver likes, so no value of the cipher can make a wrong MIC pass.
// ccmp_decap's internal streams ks_* (CTR unit out) and tag* (CBC-MAC out) are brought out
// as ports by ccmp_decap.sby / ccmp_stream.sby (yosys expose).
`default_nettype none
module fv_ccmp_decap #(
    parameter CHECK_MIC = 0,
    parameter MAX_LEN   = 32
) (
    input wire clk
);
  (* anyseq *) reg         in_valid, in_ht_control, body_valid, out_ready, res_ready;
  (* anyseq *) reg [127:0] in_tk, body_data;
  (* anyseq *) reg [63:0]  in_ccmp_header, in_mic;
  (* anyseq *) reg [255:0] in_header;
  (* anyseq *) reg [15:0]  in_body_len;
  wire in_ready, body_ready, out_valid, out_last, res_valid, res_ok;
  wire [127:0] out_data;
  wire [4:0]   out_nbytes;
  wire ks_valid, ks_ready, ks_s0, tag_valid, tag_full;
  wire [127:0] ks_data, tag;
  reg reset = 1'b1;
  always @(posedge clk) reset <= 1'b0;

  ccmp_decap dut (
      .clk(clk), .reset(reset), .in_valid(in_valid), .in_ready(in_ready), .in_tk(in_tk),
      .in_ccmp_header(in_ccmp_header), .in_header(in_header), .in_ht_control(in_ht_control),
      .in_body_len(in_body_len), .in_mic(in_mic), .body_valid(body_valid),
      .body_ready(body_ready), .body_data(body_data), .out_valid(out_valid),
      .out_ready(out_ready), .out_data(out_data), .out_nbytes(out_nbytes), .out_last(out_last),
      .res_valid(res_valid), .res_ready(res_ready), .res_ok(res_ok),
      .ks_valid(ks_valid), .ks_ready(ks_ready), .ks_s0(ks_s0), .ks_data(ks_data),
      .tag_valid(tag_valid), .tag_full(tag_full), .tag(tag)
  );

  fv_stream_env #(.N(1), .MAX_LEN(MAX_LEN), .DESC_W(128 + 64 + 256 + 1 + 16 + 64)) env (
      .clk(clk), .reset(reset), .in_valid(in_valid), .in_ready(in_ready),
      .descriptor({in_tk, in_ccmp_header, in_header, in_ht_control, in_body_len, in_mic}),
      .in_body_len(in_body_len), .body_valid(body_valid), .body_ready(body_ready),
      .body_data(body_data)
  );

  wire take = in_valid && in_ready;
  wire emit = out_valid && out_ready;
  wire verdict = res_valid && res_ready;

  // ---- per frame, by frame number mod 8 ----
  reg        body_out [0:7];   // all of its plaintext is out
  reg [63:0] mic [0:7];
  reg        header_ok [0:7];  // Protected (FC octet 1 bit 6) and Ext IV (CCMP octet 3 bit 5)
  reg [63:0] tag_seen [0:7];   // first 8 octets of the k-th tag
  reg [63:0] s0_seen [0:7];    // first 8 octets of the k-th S0
  reg [2:0]  taken, judged, tags, s0s;
  // frames with a body, in order, for the plaintext stream: length and frame number
  reg [15:0] body_lengths [0:3];
  reg [2:0]  body_frames [0:3];
  reg [2:0]  bodies;
  reg [15:0] left;  // octets of the head body not yet out
  wire [15:0] head_left = (left != 16'd0) ? left : body_lengths[0];
  wire [15:0] expect_nbytes = (head_left > 16'd16) ? 16'd16 : head_left;
  wire body_done = emit && head_left <= 16'd16;

  always @(posedge clk) begin
    if (reset) begin
      taken <= 3'd0;
      judged <= 3'd0;
      tags <= 3'd0;
      s0s <= 3'd0;
      bodies <= 3'd0;
      left <= 16'd0;
    end else begin
      if (take) begin
        body_out[taken] <= in_body_len == 16'd0;
        mic[taken] <= in_mic;
        header_ok[taken] <= in_header[246] && in_ccmp_header[37];
        taken <= taken + 3'd1;
      end
      if (tag_valid && !tag_full) begin
        tag_seen[tags] <= tag[127:64];
        tags <= tags + 3'd1;
      end
      if (ks_valid && ks_ready && ks_s0) begin
        s0_seen[s0s] <= ks_data[127:64];
        s0s <= s0s + 3'd1;
      end
      if (verdict) judged <= judged + 3'd1;
      if (body_done) begin
        body_out[body_frames[0]] <= 1'b1;
        body_lengths[0] <= body_lengths[1];
        body_lengths[1] <= body_lengths[2];
        body_lengths[2] <= body_lengths[3];
        body_frames[0] <= body_frames[1];
        body_frames[1] <= body_frames[2];
        body_frames[2] <= body_frames[3];
      end
      if (take && in_body_len != 16'd0) begin
        body_lengths[bodies - {2'd0, body_done}] <= in_body_len;
        body_frames[bodies - {2'd0, body_done}] <= taken;
      end
      bodies <= bodies + {2'd0, take && in_body_len != 16'd0} - {2'd0, body_done};
      if (emit) begin
        left <= head_left - expect_nbytes;
      end
    end
  end

  wire [2:0] pending = taken - judged;
  always @(posedge clk) if (!reset) begin
    assert (pending != 3'd7 && (bodies != 3'd4 || !take));  // the wrapper's tables are deep enough
    if (CHECK_MIC == 0) begin
      if (emit) assert (bodies != 3'd0 && {11'd0, out_nbytes} == expect_nbytes
                        && out_last == (head_left <= 16'd16));
      if (verdict) assert (pending != 3'd0 && body_out[judged]);
    end else if (verdict) begin
      assert (tags - judged != 3'd0 && s0s - judged != 3'd0);  // its tag and S0 exist
      assert (res_ok == ((tag_seen[judged] ^ s0_seen[judged]) == mic[judged]
                         && header_ok[judged]));
    end
  end
  always @(posedge clk) if (!reset && !$past(reset) && CHECK_MIC == 0) begin
    if ($past(out_valid && !out_ready))
      assert (out_valid && $stable(out_data) && $stable(out_nbytes) && $stable(out_last));
    if ($past(res_valid && !res_ready)) assert (res_valid && $stable(res_ok));
  end

endmodule
`default_nettype wire
