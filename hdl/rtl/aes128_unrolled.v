// AES-128 encryption with R rounds per cycle (R divides 10), in one of two shapes:
//   PIPELINED=0: low latency, one block at a time, 10/R cycles per block (R=10: one cycle);
//   PIPELINED=1: an input register (the block after AddRoundKey 0, and round key 1), then
//                a register stage every R rounds: a new block every cycle, 10/R + 1 cycles
//                of latency; in_user rides along (which frame or lane a block belongs to).
//                Each stage's key register holds the first round key its rounds add (the
//                expansion runs a stage ahead), so no round waits for its key's expansion.
//                Every S-box reads a register, so synthesis can put it in block RAM with
//                that register as the RAM's address register (syn/synth.py *_bram), and a
//                caller's input muxes do not share a cycle with the first round's state.
//                Round key 1 is expanded from in_key in the input cycle, or, with
//                KEY_1_GIVEN=1, comes from the caller (in_key_1), who can then keep it
//                precomputed beside the key and select between keys after the expansion.
//   PIPELINED=2 (R=1): as 1, with two register stages in every round, both behind its
//                S-boxes (a block RAM's read register, then a flip-flop): 21 cycles of
//                latency, and no path runs from one S-box RAM through logic into the next.
// BLOCKS blocks under the same key go through side by side (block 0 in the high bits) with
// one key expansion: ccmp_multi's CBC-MAC and CTR blocks of one frame.
// out_round_key is round key 10 (the decryption key, as aes128_core). The pipeline moves
// exactly on the cycles with out_ready high (even when its output stage is empty), so a
// caller can know which cycle a block comes out: ccmp_multi schedules on that.
`default_nettype none
module aes128_unrolled #(
    parameter R         = 2,
    parameter PIPELINED = 0,
    parameter USER_W    = 1,
    parameter BLOCKS    = 1,
    parameter KEY_1_GIVEN = 0  // PIPELINED=1: round key 1 is in_key_1, not expanded here
) (
    input  wire              clk,
    input  wire              reset,
    input  wire              in_valid,
    output wire              in_ready,
    input  wire [127:0]      in_key,
    /* verilator lint_off UNUSEDSIGNAL */  // read only with PIPELINED=1 and KEY_1_GIVEN=1
    input  wire [127:0]      in_key_1,  // round key 1 of in_key
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [128*BLOCKS-1:0] in_block,
    input  wire [USER_W-1:0] in_user,
    output wire              out_valid,
    input  wire              out_ready,
    output wire [128*BLOCKS-1:0] out_block,
    output wire [127:0]      out_round_key,
    output wire [USER_W-1:0] out_user
);
  localparam S = 10 / R;                      // steps per block
  localparam LATENCY = PIPELINED * S + 1;       // pipelined: cycles from in to out
  localparam W = 128 * BLOCKS;                  // the blocks side by side

  genvar b, s;
  generate
    if (PIPELINED == 0) begin : g_iterative
      reg [W-1:0]      state;
      reg [127:0]      round_key;
      reg [USER_W-1:0] user;
      reg [3:0]        step;  // R-round steps applied; S = done, 0 = idle
      wire             done = (step == S[3:0]);
      wire             load = in_valid && in_ready;
      wire [W-1:0]     next_state;
      wire [127:0]     next_key;
      assign in_ready = (step == 4'd0) || (done && out_ready);
      // The first R rounds happen in the cycle that takes the block.
      aes_enc_rounds #(.R(R), .BLOCKS(BLOCKS)) rounds (
          .first_round(load ? 4'd1 : step * R[3:0] + 4'd1),
          .state_in(load ? in_block ^ {BLOCKS{in_key}} : state),
          .key_in(load ? in_key : round_key),
          .state_out(next_state), .key_out(next_key)
      );
      always @(posedge clk) begin
        if (reset) begin
          step      <= 4'd0;
          state     <= {W{1'b0}};
          round_key <= 128'h0;
          user      <= {USER_W{1'b0}};
        end else if (load) begin
          state     <= next_state;
          round_key <= next_key;
          user      <= in_user;
          step      <= 4'd1;
        end else if (done) begin
          if (out_ready) step <= 4'd0;
        end else if (step != 4'd0) begin
          state     <= next_state;
          round_key <= next_key;
          step      <= step + 4'd1;
        end
      end
      assign out_valid     = done;
      assign out_block     = state;
      assign out_round_key = round_key;
      assign out_user      = user;
    end else begin : g_pipelined
      // Stage 0 is the input register. PIPELINED=1: stage s (1..S) holds the block after
      // rounds 1 .. s*R. PIPELINED=2: two stages per round, both behind its S-boxes (below).
      localparam STAGES = (PIPELINED == 2) ? 1 : LATENCY;  // the state/key registers kept here
      reg [W-1:0]       state [0:STAGES-1];
      reg [127:0]       key   [0:STAGES-1];
      reg [USER_W-1:0]  user  [0:LATENCY-1];
      reg [LATENCY-1:0] valid;
      wire [127:0]      input_key;  // into key[0]: in_key (PIPELINED=2) or round key 1
      wire              advance = out_ready;  // strict lock step: callers count on it
      assign in_ready = advance;
      integer t;
      always @(posedge clk) begin
        if (reset) begin
          valid <= {LATENCY{1'b0}};
        end else if (advance) begin
          valid    <= {valid[LATENCY-2:0], in_valid};
          state[0] <= in_block ^ {BLOCKS{in_key}};
          key[0]   <= input_key;
          user[0]  <= in_user;
          for (t = 1; t < LATENCY; t = t + 1) user[t] <= user[t - 1];
        end
      end
      if (PIPELINED == 2) begin : g_split
        // Both registers of a round sit behind its S-boxes: their read register, which
        // becomes a block RAM's own (Yosys merges the flip-flop behind a ROM into its read
        // port), then a plain one. So the RAM's slow clock-to-output runs into a flip-flop
        // and the round's linear half into the next RAM's address register. Round 10's
        // linear half (ShiftRows, AddRoundKey) drives the output: the input register and
        // two per round are the 21 stages.
        wire [W-1:0] round_state [0:10];  // entering round s + 1: after AddRoundKey s
        wire [127:0] round_key   [0:10];  // round key s
        assign input_key      = in_key;
        assign round_state[0] = state[0];
        assign round_key[0]   = key[0];
        for (s = 1; s <= 10; s = s + 1) begin : g_round
          localparam [3:0] ROUND = s;
          wire [W-1:0] sub;
          wire [31:0]  word_sub;        // SubWord(RotWord) of round key s-1's last word
          reg  [W-1:0] sub_read, sub_q;
          reg  [127:0] key_read, key_q;
          reg  [31:0]  word_read, word_q;
          wire [7:0]   rcon;
          aes_rcon rcon_table (.round(ROUND), .rcon(rcon));
          for (b = 0; b < BLOCKS; b = b + 1) begin : g_block
            localparam integer HI = W - 128 * b - 1;
            /* verilator lint_off UNUSEDSIGNAL */  // blocks 1.. leave their key copy open
            wire [31:0]  block_word_sub;
            wire [127:0] block_key;
            /* verilator lint_on UNUSEDSIGNAL */
            aes_enc_sub subst (.state_in(round_state[s - 1][HI -: 128]),
                               .key_word(round_key[s - 1][31:0]),
                               .sub_bytes(sub[HI -: 128]), .key_sub(block_word_sub));
            aes_enc_linear linear (
                .sub_bytes(sub_q[HI -: 128]), .key_in(key_q), .key_sub(word_q), .rcon(rcon),
                .final_round(s == 10), .state_out(round_state[s][HI -: 128]),
                .key_out(block_key)
            );
            if (b == 0) begin : g_key
              assign word_sub     = block_word_sub;
              assign round_key[s] = block_key;
            end
          end
          always @(posedge clk) begin
            if (advance) begin
              sub_read  <= sub;
              word_read <= word_sub;
              key_read  <= round_key[s - 1];
              sub_q     <= sub_read;
              word_q    <= word_read;
              key_q     <= key_read;
            end
          end
        end
        assign out_block     = round_state[10];
        assign out_round_key = round_key[10];
      end else begin : g_rounds
        if (KEY_1_GIVEN != 0) begin : g_key_1_given
          assign input_key = in_key_1;
        end else begin : g_key_1
          aes_round_key_1 expansion (.key(in_key), .round_key_1(input_key));
        end
        for (s = 1; s <= S; s = s + 1) begin : g_stage
          localparam integer FIRST_I = (s - 1) * R + 1;
          localparam [3:0] FIRST = FIRST_I[3:0];
          wire [W-1:0] next_state;
          wire [127:0] next_key;
          aes_enc_rounds #(.R(R), .BLOCKS(BLOCKS), .KEY_AHEAD(1)) rounds (
              .first_round(FIRST), .state_in(state[s - 1]), .key_in(key[s - 1]),
              .state_out(next_state), .key_out(next_key)
          );
          always @(posedge clk) begin
            if (advance) begin
              state[s] <= next_state;
              key[s]   <= next_key;
            end
          end
        end
        assign out_block     = state[LATENCY-1];
        assign out_round_key = key[LATENCY-1];
      end
      assign out_valid = valid[LATENCY-1];
      assign out_user  = user[LATENCY-1];
    end
  endgenerate
endmodule
`default_nettype wire
