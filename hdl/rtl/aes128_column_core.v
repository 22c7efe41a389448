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
    input  wire         in_valid,   // loads when idle
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

  reg         busy, done;
  reg  [3:0]  round;   // 1..10
  reg  [1:0]  phase;   // 0..PHASES-1 within the round
  reg  [7:0]  rcon;    // Rcon[round]
  reg  [127:0] state, round_key;
  reg  [127-W:0] finished;  // the round's columns so far, column 0 on top

  wire load        = in_valid && !busy;
  wire first_phase = phase == 2'd0;
  wire last_phase  = phase == LAST_PHASE;
  wire final_round = round == 4'd10;  // no MixColumns
  assign idle      = !busy;
  assign out_valid = done;
  assign out_block = state;

  // Key words of this phase: word j of round key r is word j of round key r-1 XOR word j-1
  // of round key r, or for j = 0 SubWord(RotWord(word 3 of r-1)) ^ Rcon. The register's
  // last word is always the word before this phase's first.
  wire [31:0] key_sub;
  genvar i, k;
  generate
    for (i = 0; i < 4; i = i + 1) begin : g_key_sub
      aes_sbox sbox (.in_byte(round_key[31 - 8 * ((i + 1) % 4) -: 8]), .out_byte(key_sub[31 - 8 * i -: 8]));
    end
  endgenerate
  wire [31:0] key_carry = first_phase ? key_sub ^ {rcon, 24'h0} : round_key[31:0];
  reg  [W-1:0] key_words;
  reg  [31:0]  key_word;
  integer j;
  always @* begin
    key_word = key_carry;
    for (j = 0; j < COLUMNS; j = j + 1) begin
      key_word = key_word ^ round_key[127 - 32 * j -: 32];
      key_words[W - 1 - 32 * j -: 32] = key_word;
    end
  end

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
  /* verilator lint_off UNUSEDSIGNAL */  // the columns this phase does not compute
  wire [127:0] mixed;
  /* verilator lint_on UNUSEDSIGNAL */
  aes_mix_columns mix (.in_state({rows, {128 - W{1'b0}}}), .out_state(mixed));
  wire [W-1:0] columns = (final_round ? rows : mixed[127 -: W]) ^ key_words;

  always @(posedge clk) begin
    if (reset) begin
      busy  <= 1'b0;
      done  <= 1'b0;
      round <= 4'd0;
      phase <= 2'd0;
      rcon  <= 8'h0;
    end else if (load) begin
      busy  <= 1'b1;
      done  <= 1'b0;
      round <= 4'd1;
      phase <= 2'd0;
      rcon  <= 8'h01;
    end else if (busy) begin
      phase <= last_phase ? 2'd0 : phase + 2'd1;
      if (last_phase) begin
        round <= round + 4'd1;
        rcon  <= {rcon[6:0], 1'b0} ^ (rcon[7] ? 8'h1b : 8'h00);
        if (final_round) begin
          busy <= 1'b0;
          done <= 1'b1;
        end
      end
    end
  end

  // Datapath registers: no reset (the control says when they hold a block).
  always @(posedge clk) begin
    if (load) begin
      state     <= (in_chain ? state : 128'h0) ^ in_block ^ in_key;
      round_key <= in_key;
    end else if (busy) begin
      state     <= last_phase ? {finished, columns} : {state[127 - W:0], state[127 -: W]};
      round_key <= {round_key[127 - W:0], key_words};
    end
  end
  generate
    if (COLUMNS == 1) begin : g_finished_shift
      always @(posedge clk) if (busy) finished <= {finished[127 - 2 * W:0], columns};
    end else begin : g_finished_load
      always @(posedge clk) if (busy) finished <= columns;
    end
  endgenerate
endmodule
`default_nettype wire
