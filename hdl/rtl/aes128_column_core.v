// Compact AES-128 encryption: COLUMNS (1 or 2) of the state's four columns a cycle, so
// 4/COLUMNS cycles a round and 40/COLUMNS from a load to out_valid, with
// 4 * COLUMNS + 4 S-boxes against aes128_core's 20. For blocks off a core's critical
// chain: ccmp_format's header unit encrypts two a frame, in the time the frame ahead takes.
// The state register rotates by COLUMNS columns a cycle, so every S-box reads one fixed
// register byte and ShiftRows is wiring: in phase p it holds the round's input rotated by
// p * COLUMNS columns, and output column p * COLUMNS + k takes row i from its column
// (k + i) mod 4. Finished columns wait in a shift register and replace the state in the
// round's last phase. The round key is expanded a word per column beside them (FIPS-197
// 5.2), in a register that rotates the same way.
// The result stays in out_block (out_valid) until the next load; in_chain loads
// out_block ^ in_block (CBC).
`default_nettype none
module aes128_column_core #(
    parameter COLUMNS = 2  // 1 or 2
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,   // loads when idle (from a register: it selects every state bit)
    output wire         idle,
    input  wire         in_chain,
    input  wire [127:0] in_key,
    input  wire [127:0] in_block,
    output wire         out_valid,
    output wire [127:0] out_block
);
  localparam integer PHASES = 4 / COLUMNS;
  localparam integer W = 32 * COLUMNS;  // state bits finished a cycle
  localparam integer LAST_PHASE_INT = PHASES - 1;
  localparam [1:0] LAST_PHASE = LAST_PHASE_INT[1:0];

  reg          busy, done;
  reg  [1:0]   phase;        // 0..PHASES-1 within the round
  reg          last_phase;   // phase == PHASES - 1: the new state's last columns
  reg          final_round;  // round 10: no MixColumns
  reg  [7:0]   rcon;         // Rcon[round]
  reg  [127:0] state, round_key;
  reg  [127-W:0] finished;   // the round's columns so far, column 0 on top

  wire load        = in_valid && !busy;
  wire first_phase = phase == 2'd0;
  assign idle      = !busy;
  assign out_valid = done;
  assign out_block = state;

  // Key words of this phase: word j of round key r is word j of round key r-1 XOR word j-1
  // of round key r, or for j = 0 SubWord(RotWord(word 3 of r-1)) ^ Rcon; the register's last
  // word is always the word before this phase's first. key_prefix is that XOR without
  // SubWord, from registers alone: all the last phase needs (it is never the first).
  wire [31:0] key_sub;
  genvar i, k;
  generate
    for (i = 0; i < 4; i = i + 1) begin : g_key_sub
      aes_sbox sbox (.in_byte(round_key[31 - 8 * ((i + 1) % 4) -: 8]), .out_byte(key_sub[31 - 8 * i -: 8]));
    end
  endgenerate
  reg  [W-1:0] key_prefix;
  reg  [31:0]  key_word;
  integer j;
  always @* begin
    key_word = first_phase ? {rcon, 24'h0} : round_key[31:0];
    for (j = 0; j < COLUMNS; j = j + 1) begin
      key_word = key_word ^ round_key[127 - 32 * j -: 32];
      key_prefix[W - 1 - 32 * j -: 32] = key_word;
    end
  end
  wire [W-1:0] key_words = key_prefix ^ {COLUMNS{key_sub & {32{first_phase}}}};

  // SubBytes and ShiftRows of this phase's columns, from fixed register bytes.
  wire [W-1:0] rows;
  generate
    for (k = 0; k < COLUMNS; k = k + 1) begin : g_column
      for (i = 0; i < 4; i = i + 1) begin : g_row
        aes_sbox sbox (.in_byte(state[127 - 32 * ((k + i) % 4) - 8 * i -: 8]),
                       .out_byte(rows[W - 1 - 32 * k - 8 * i -: 8]));
      end
    end
  endgenerate

  // The new columns, twice: into `finished` in the other phases, and into the state's last
  // columns in the last phase. Each takes MixColumns in parts gated at the S-boxes' outputs
  // and one other term (the state's: hold, load, rotate or the round key, from registers
  // alone), so an S-box is two LUTs from a register (aes128_core's arrangement). The two
  // part sets are synthesized apart (keep_hierarchy), or synthesis derives the state's from
  // the other's and a gate: a level more on the critical path.
  /* verilator lint_off UNUSEDSIGNAL */  // the columns this phase does not compute
  (* keep *) wire [127:0] finish_mix0, finish_mix1, finish_mix2, last_mix0, last_mix1, last_mix2;
  /* verilator lint_on UNUSEDSIGNAL */
  (* keep_hierarchy *)
  aes_mix_columns_split finish_mix (.in_state({rows, {128 - W{1'b0}}}), .gate(!final_round),
                                    .part0(finish_mix0), .part1(finish_mix1), .part2(finish_mix2));
  wire         stepping_last = busy && last_phase;
  (* keep_hierarchy *)
  aes_mix_columns_split last_mix (.in_state({rows, {128 - W{1'b0}}}), .gate(stepping_last && !final_round),
                                  .part0(last_mix0), .part1(last_mix1), .part2(last_mix2));
  (* keep *) wire [W-1:0] finish_rows = rows & {W{final_round}};
  (* keep *) wire [W-1:0] finish_term = key_words;
  wire [W-1:0] finish_columns = finish_mix0[127 -: W] ^ finish_mix1[127 -: W] ^ finish_mix2[127 -: W]
                              ^ finish_rows ^ finish_term;
  wire [127:0] load_state = (in_chain ? state : 128'h0) ^ in_block ^ in_key;
  (* keep *) wire [W-1:0] last_rows = rows & {W{stepping_last && final_round}};
  (* keep *) wire [W-1:0] last_term = load ? load_state[W-1:0] : last_phase ? key_prefix : state[127 -: W];
  wire [W-1:0] last_columns = last_mix0[127 -: W] ^ last_mix1[127 -: W] ^ last_mix2[127 -: W]
                            ^ last_rows ^ last_term;

  always @(posedge clk) begin
    if (reset) begin
      busy        <= 1'b0;
      done        <= 1'b0;
      phase       <= 2'd0;
      last_phase  <= 1'b0;
      final_round <= 1'b0;
      rcon        <= 8'h0;
    end else if (load) begin
      busy        <= 1'b1;
      done        <= 1'b0;
      phase       <= 2'd0;
      last_phase  <= 1'b0;
      final_round <= 1'b0;
      rcon        <= 8'h01;
    end else if (busy) begin
      phase      <= last_phase ? 2'd0 : phase + 2'd1;
      last_phase <= !last_phase && phase + 2'd1 == LAST_PHASE;
      if (last_phase) begin
        rcon        <= {rcon[6:0], 1'b0} ^ (rcon[7] ? 8'h1b : 8'h00);
        final_round <= rcon == 8'h1b;  // Rcon[9]: round 10 next
        if (final_round) begin
          busy <= 1'b0;
          done <= 1'b1;
        end
      end
    end
  end

  // Datapath registers: no reset (the control says when they hold a block), held (clock
  // enable) when idle. The state's other columns rotate, or in the last phase take the
  // finished ones.
  always @(posedge clk) begin
    if (load || busy) state[W-1:0] <= last_columns;
    if (load) begin
      state[127:W] <= load_state[127:W];
      round_key    <= in_key;
    end else if (busy) begin
      state[127:W] <= last_phase ? finished : state[127 - W:0];
      round_key    <= {round_key[127 - W:0], key_words};
    end
  end
  generate
    if (COLUMNS == 1) begin : g_finished_shift
      always @(posedge clk) if (busy) finished <= {finished[127 - 2 * W:0], finish_columns};
    end else begin : g_finished_load
      always @(posedge clk) if (busy) finished <= finish_columns;
    end
  endgenerate
endmodule
`default_nettype wire
