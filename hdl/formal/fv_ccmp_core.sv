// Stream properties of ccmp_core. The environment obeys the valid/ready protocol on both
// input streams (assumed: nothing changes while valid && !ready; a frame's body beats are
// offered only once its descriptor is taken) and stalls the output at will. Asserted: the
// output holds still while out_valid && !out_ready, and every frame leaves as exactly its
// CCMP header (8 octets), ceil(L / 16N) body beats of min(16N, octets left) octets and the
// MIC (8 octets, out_last), in order, with no body beat out before it came in.
// The AES units' outputs are cut free (ccmp_stream.sby), so this holds for any cipher.
`default_nettype none
module fv_ccmp_core #(
    parameter N       = 1,
    parameter HEADER_UNIT = 0,
    parameter MAX_LEN = 32,  // body octets per frame (the bound that keeps frames short)
    localparam NB_W   = $clog2(16 * N + 1),
    localparam BEAT   = 16 * N
) (
    input wire clk
);
  (* anyseq *) reg         in_valid, in_ht_control, body_valid, out_ready;
  (* anyseq *) reg [127:0] in_tk;
  (* anyseq *) reg [47:0]  in_pn;
  (* anyseq *) reg [1:0]   in_keyid;
  (* anyseq *) reg [255:0] in_header;
  (* anyseq *) reg [15:0]  in_body_len;
  (* anyseq *) reg [128*N-1:0] body_data;
  wire in_ready, body_ready, out_valid, out_last;
  wire [128*N-1:0] out_data;
  wire [NB_W-1:0]  out_nbytes;
  reg reset = 1'b1;
  always @(posedge clk) reset <= 1'b0;

  ccmp_core #(.N(N), .HEADER_UNIT(HEADER_UNIT)) dut (
      .clk(clk), .reset(reset), .in_valid(in_valid), .in_ready(in_ready), .in_tk(in_tk),
      .in_pn(in_pn), .in_keyid(in_keyid), .in_header(in_header), .in_ht_control(in_ht_control),
      .in_body_len(in_body_len), .body_valid(body_valid), .body_ready(body_ready),
      .body_data(body_data), .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data),
      .out_nbytes(out_nbytes), .out_last(out_last)
  );

  fv_stream_env #(.N(N), .MAX_LEN(MAX_LEN)) env (
      .clk(clk), .reset(reset), .in_valid(in_valid), .in_ready(in_ready),
      .descriptor({in_tk, in_pn, in_keyid, in_header, in_ht_control, in_body_len}),
      .in_body_len(in_body_len), .body_valid(body_valid), .body_ready(body_ready),
      .body_data(body_data)
  );

  // ---- frames taken, oldest first: body lengths ----
  reg [15:0] lengths [0:3];
  reg [2:0]  frames;
  wire take  = in_valid && in_ready;
  wire emit  = out_valid && out_ready;
  reg        in_frame;  // the head frame's CCMP header is out
  reg [15:0] left;      // its body octets not yet out
  reg [7:0]  beats_ahead;  // body beats taken in and not yet out
  wire [15:0] expect_nbytes = (left > BEAT) ? BEAT : left;
  wire pop = emit && in_frame && left == 16'd0;

  always @(posedge clk) begin
    if (reset) begin
      frames <= 3'd0;
      in_frame <= 1'b0;
      beats_ahead <= 8'd0;
    end else begin
      if (pop) begin
        lengths[0] <= lengths[1];
        lengths[1] <= lengths[2];
        lengths[2] <= lengths[3];
      end
      if (take) lengths[frames - {2'd0, pop}] <= in_body_len;
      frames <= frames + {2'd0, take} - {2'd0, pop};
      beats_ahead <= beats_ahead + {7'd0, body_valid && body_ready}
                     - {7'd0, emit && in_frame && left != 16'd0};
      if (emit) begin
        if (!in_frame) begin
          in_frame <= 1'b1;
          left <= lengths[0];
        end else if (left != 16'd0) begin
          left <= left - expect_nbytes;
        end else begin
          in_frame <= 1'b0;
        end
      end
    end
  end

  always @(posedge clk) if (!reset) begin
    assert (frames != 3'd4 || !take);  // the wrapper's queue is deep enough
    if (emit) begin
      assert (frames != 3'd0);
      if (!in_frame) assert (out_nbytes == 8 && !out_last);                 // CCMP header
      else if (left != 16'd0) assert (out_nbytes == expect_nbytes && !out_last
                                      && beats_ahead != 8'd0);             // body beat
      else assert (out_nbytes == 8 && out_last);                            // MIC
    end
  end
  // Nothing changes on the output while it waits.
  always @(posedge clk) if (!reset && !$past(reset) && $past(out_valid && !out_ready))
    assert (out_valid && $stable(out_data) && $stable(out_nbytes) && $stable(out_last));

endmodule

// The environment of a CCMP core's input streams: descriptor and body beats held while
// valid && !ready, bodies of at most MAX_LEN octets, body beats only for frames taken.
module fv_stream_env #(
    parameter N = 1,
    parameter MAX_LEN = 32,
    parameter DESC_W = 128 + 48 + 2 + 256 + 1 + 16
) (
    input wire              clk,
    input wire              reset,
    input wire              in_valid,
    input wire              in_ready,
    input wire [DESC_W-1:0] descriptor,
    input wire [15:0]       in_body_len,
    input wire              body_valid,
    input wire              body_ready,
    input wire [128*N-1:0]  body_data
);
  localparam BEAT = 16 * N;
  reg [7:0] beats_owed;  // body beats of the frames taken not yet offered
  wire [7:0] frame_beats = (in_body_len + BEAT - 1) / BEAT;
  always @(posedge clk) begin
    if (reset) beats_owed <= 8'd0;
    else beats_owed <= beats_owed + ((in_valid && in_ready) ? frame_beats : 8'd0)
                       - {7'd0, body_valid && body_ready};
  end
  always @* if (!reset) begin
    if (in_valid) assume (in_body_len <= MAX_LEN);
    if (body_valid) assume (beats_owed != 8'd0);
  end
  always @(posedge clk) if (!reset && !$past(reset)) begin
    if ($past(in_valid && !in_ready)) assume (in_valid && $stable(descriptor));
    if ($past(body_valid && !body_ready)) assume (body_valid && $stable(body_data));
  end
endmodule
`default_nettype wire
