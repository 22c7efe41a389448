// Iterative AES-128: one round per cycle, round keys expanded on the fly, 10 cycles per
// block back to back. The last round is combinational into out_block, so a block is
// returned and the next one loaded in the same cycle (a CBC chain can feed out_block back).
//
// Encrypt: in_key is the cipher key; out_round_key is round key 10 (the decryption key).
// Decrypt: in_key is round key 10; the schedule runs backwards; out_round_key is round key 0.
// ENABLE_DECRYPT=0 drops the inverse datapath (CCM only ever encrypts) and orders the round
// for timing: every S-box reads a register, the round runs S-box -> (ShiftRows,
// MixColumns) -> AddRoundKey -> state, and all control is folded into terms from registers
// alone. On ECP5 that register becomes a block RAM's address register (synth.py's *_bram
// designs; with AES_TBOX_BRAM defined, *_tbox, the RAMs hold T-tables), or feeds a LUT
// S-box that synthesis keeps apart (two PFU levels: syn/synth.py keeps the S-box modules
// out of ABC's merging).
// in_chain (CBC): the block loaded is out_block ^ in_block, the block leaving now.
// LANES > 1 (encrypt only): that many blocks under one key in lock step, sharing one key
// schedule (the CCMP-N cores' MAC and CTR lanes: 8 S-boxes a lane fewer). Lane 0 (the top
// 128 bits, mask bit LANES-1) is loaded with every block and its handshake is the core's;
// the other lanes load when their in_mask bit is set. A lane not loaded with lane 0 holds
// its state, so its out_block is its last result again whenever lane 0's is valid.
`default_nettype none
module aes128_core #(
    parameter ENABLE_DECRYPT = 1,
    parameter LANES          = 1   // > 1 only with ENABLE_DECRYPT = 0
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,
    output wire         in_ready,
    output wire         idle,       // no block inside: in_ready without looking at out_ready
    input  wire         in_decrypt,
    input  wire [LANES-1:0] in_chain,  // with in_valid while out_valid: encrypt out_block ^ in_block
    /* verilator lint_off UNUSEDSIGNAL */  // lane 0's own bit: lane 0 is always loaded
    input  wire [LANES-1:0] in_mask,   // lanes loaded with lane 0
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [127:0] in_key,
    input  wire [128*LANES-1:0] in_block,
    output wire         out_valid,
    input  wire         out_ready,
    output wire [128*LANES-1:0] out_block,
    output wire [127:0] out_round_key
);
  reg [3:0]   round;      // the round the next step computes; 0 = idle
  reg         idle_q;     // round == 0
  reg         last_step;  // round == 10
  reg         decrypting;

  assign out_valid = last_step;
  assign idle      = idle_q;
  assign in_ready  = idle_q || (last_step && out_ready);

  wire load = in_valid && in_ready;
  wire step = !idle_q && !last_step;

  wire [3:0] rcon_index = decrypting ? 4'd11 - round : round;
  wire [7:0] rcon;
  aes_rcon rcon_table (.round(rcon_index), .rcon(rcon));

  // last_step has neither reset nor enable (both are in its next value), so that the
  // T-table order can use it as its RAMs' last-round index bit.
  always @(posedge clk)
    last_step <= !reset && !load && (last_step ? !out_ready : step && round == 4'd9);

  always @(posedge clk) begin
    if (reset) begin
      round      <= 4'd0;
      idle_q     <= 1'b1;
      decrypting <= 1'b0;
    end else if (load) begin
      decrypting <= (ENABLE_DECRYPT != 0) && in_decrypt;
      round      <= 4'd1;
      idle_q     <= 1'b0;
    end else if (last_step) begin
      if (out_ready) begin
        round  <= 4'd0;
        idle_q <= 1'b1;
      end
    end else if (step) begin
      round <= round + 4'd1;
    end
  end

  generate
    if (ENABLE_DECRYPT != 0) begin : g_enc_dec
      // state = the state after AddRoundKey; round_key = the key just added.
      reg  [127:0] state, round_key;
      wire [127:0] enc_state, enc_key, dec_state, dec_key;
      aes_enc_round enc (
          .state_in(state), .key_in(round_key), .rcon(rcon), .final_round(last_step),
          .state_out(enc_state), .key_out(enc_key)
      );
      aes_dec_round dec (
          .state_in(state), .key_in(round_key), .rcon(rcon), .final_round(last_step),
          .state_out(dec_state), .key_out(dec_key)
      );
      wire [127:0] next_state = decrypting ? dec_state : enc_state;
      wire [127:0] next_key   = decrypting ? dec_key : enc_key;
      assign out_block     = next_state;
      assign out_round_key = next_key;

      always @(posedge clk) begin
        if (reset) begin
          state     <= 128'h0;
          round_key <= 128'h0;
        end else if (load) begin
          state     <= (in_chain ? next_state : 128'h0) ^ in_block ^ in_key;
          round_key <= in_key;
        end else if (step) begin
          state     <= next_state;
          round_key <= next_key;
        end
      end
    end else begin : g_enc_only
      // state = the state after AddRoundKey; round_key = round key r in round r, expanded a
      // round ahead (its SubWord reads its own last word), so no S-box output reaches the
      // state through the key; a load takes round key 1 from in_key through four more
      // S-boxes. A RAM's address register has no enable or reset, so neither register has
      // one: each is an S-box term XORed onto a term from registers alone (which holds the
      // value, loads, or adds the key), with the S-box terms gated at the XOR trees' leaves,
      // which keeps the logic between one S-box and the next shallow.
      reg  [127:0] round_key;
      wire [31:0]  key_sub, in_key_sub;
      wire [7:0]   next_rcon = {rcon[6:0], 1'b0} ^ (rcon[7] ? 8'h1b : 8'h00);  // Rcon[r + 1]
      genvar i, l;
      for (i = 0; i < 4; i = i + 1) begin : g_key_sub
        aes_sbox next_sbox (.in_byte(round_key[31 - 8 * ((i + 1) % 4) -: 8]),
                            .out_byte(key_sub[31 - 8 * i -: 8]));
        aes_sbox in_sbox (.in_byte(in_key[31 - 8 * ((i + 1) % 4) -: 8]),
                          .out_byte(in_key_sub[31 - 8 * i -: 8]));
      end
      // Key expansion (FIPS-197 5.2) without SubWord: word j of the next round key is word j
      // of prefix_xor(key, Rcon) ^ SubWord(RotWord(key's last word)).
      function [127:0] prefix_xor(input [127:0] key, input [7:0] rc);
        reg [31:0] w;
        integer j;
        begin
          w = {rc, 24'h0};
          for (j = 0; j < 4; j = j + 1) begin
            w = w ^ key[127 - 32 * j -: 32];
            prefix_xor[127 - 32 * j -: 32] = w;
          end
        end
      endfunction
      assign out_round_key = round_key;

      (* keep *) wire [31:0]  sub_term   = load ? in_key_sub : step ? key_sub : 32'h0;
      wire [127:0] key_term = load ? prefix_xor(in_key, 8'h01)
                            : step ? prefix_xor(round_key, next_rcon) : round_key;
      always @(posedge clk) round_key <= {4{sub_term}} ^ key_term;

      for (l = 0; l < LANES; l = l + 1) begin : g_lane
        localparam BIT = LANES - 1 - l;
        // running: this lane was loaded with lane 0's block, so it steps with it; otherwise
        // it holds its state (and its result). Lane 0 always runs.
        wire running;
        if (l == 0) begin : g_lead
          assign running = 1'b1;
        end else begin : g_follow
          reg running_q;
          always @(posedge clk)
            if (reset) running_q <= 1'b0;
            else if (load) running_q <= in_mask[BIT];
          assign running = running_q;
        end
        wire         lane_load  = load && (l == 0 || in_mask[BIT]);
        wire         lane_step  = step && running;
        wire         chain_load = lane_load && in_chain[BIT];
        wire [127:0] block      = in_block[128 * (BIT + 1) - 1 -: 128];
        reg  [127:0] state;
        wire [127:0] last_rows;  // ShiftRows(SubBytes(state)) in the last step
        assign out_block[128 * (BIT + 1) - 1 -: 128] = last_rows ^ round_key;  // valid in the last step

        (* keep *) wire [127:0] state_term = lane_step  ? round_key
                                           : chain_load ? round_key ^ block ^ in_key
                                           : lane_load  ? block ^ in_key : state;
`ifdef AES_TBOX_BRAM
        // T-tables (aes_tbox, one 512 x 24 RAM per state byte, indexed by {last_step, byte}):
        // the XOR of four entries is a byte of MixColumns(ShiftRows(SubBytes)), or of
        // ShiftRows(SubBytes) in the last step, so each next-state bit is one 6-input
        // function (four RAM bits, the gate, the register term) between RAMs (ECP5: a LUT5
        // and a LUT4; the routes to and from the RAM rows, not this logic, set the period).
        wire [383:0] entries;  // entry of state byte i at [383 - 24i -: 24]
        for (i = 0; i < 16; i = i + 1) begin : g_tbox
          aes_tbox tbox (.in_index({last_step, state[127 - 8 * i -: 8]}),
                         .out_entry(entries[383 - 24 * i -: 24]));
        end
        aes_tbox_mix mix (.entries(entries), .rounded(last_rows));
        always @(posedge clk) state <= (last_rows & {128{lane_step || chain_load}}) ^ state_term;
`else
        // S-boxes (in LUTs, or paired two to a dual-port RAM): S-box -> ShiftRows ->
        // MixColumns -> AddRoundKey (ECP5: three LUT4s and a PFUMX on the critical path,
        // behind the RAM's 5.8 ns clock-to-output or the LUT S-box's two PFU levels).
        aes_enc_round #(.ADD_ROUND_KEY(0)) enc (
            .state_in(state), .key_in(128'h0), .rcon(8'h0), .final_round(1'b1),
            .state_out(last_rows), .key_out()
        );
        // A step's MixColumns in three parts gated by the step (aes_mix_columns_split), which
        // meet the rest in the state's final LUT (synthesis shares partial sums between
        // bits: two on the measured path).
        (* keep *) wire [127:0] mix0, mix1, mix2;
        aes_mix_columns_split mix (.in_state(last_rows), .gate(lane_step),
                                   .part0(mix0), .part1(mix1), .part2(mix2));
        (* keep *) wire [127:0] chained = last_rows & {128{chain_load}};
        always @(posedge clk) state <= mix0 ^ mix1 ^ mix2 ^ chained ^ state_term;
`endif
      end
    end
  endgenerate
endmodule
`default_nettype wire
