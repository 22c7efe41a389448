// Iterative AES-128: one round per cycle, round keys expanded on the fly, 10 cycles per
// block back to back. The last round is combinational into out_block, so a block is
// returned and the next one loaded in the same cycle (a CBC chain can feed out_block back).
//
// Encrypt: in_key is the cipher key; out_round_key is round key 10 (the decryption key).
// Decrypt: in_key is round key 10; the schedule runs backwards; out_round_key is round key 0.
// ENABLE_DECRYPT=0 drops the inverse datapath (CCM only ever encrypts) and reorders the
// round for timing: the state register holds the state before AddRoundKey and the next
// round starts with state ^ round key, so a loaded block goes straight into the register
// (no key XOR on the load path) and no S-box reads a bare flip-flop (synthesis would move
// that register behind the S-box, putting the load mux and its enable in front of it).
// The key schedule keeps SubWord(RotWord) of the round key's last word in a register for
// the same reason. in_chain (CBC): the block loaded is out_block ^ in_block, the block
// leaving now; the enc-only core folds out_block's last key and in_block into the key it
// adds first, so the chaining XOR stays off the state path.
// With AES_SBOX_BRAM defined (S-boxes in block RAM) the enc-only core takes the opposite
// order: every S-box reads a register, which becomes the RAM's address register.
`default_nettype none
module aes128_core #(
    parameter ENABLE_DECRYPT = 1
) (
    input  wire         clk,
    input  wire         reset,
    input  wire         in_valid,
    output wire         in_ready,
    output wire         idle,       // no block inside: in_ready without looking at out_ready
    input  wire         in_decrypt,
    input  wire         in_chain,   // with in_valid while out_valid: encrypt out_block ^ in_block
    input  wire [127:0] in_key,
    input  wire [127:0] in_block,
    output wire         out_valid,
    input  wire         out_ready,
    output wire [127:0] out_block,
    output wire [127:0] out_round_key
);
  reg [127:0] state;
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

  always @(posedge clk) begin
    if (reset) begin
      round      <= 4'd0;
      idle_q     <= 1'b1;
      last_step  <= 1'b0;
      decrypting <= 1'b0;
    end else if (load) begin
      decrypting <= (ENABLE_DECRYPT != 0) && in_decrypt;
      round      <= 4'd1;
      idle_q     <= 1'b0;
      last_step  <= 1'b0;
    end else if (last_step) begin
      if (out_ready) begin
        round     <= 4'd0;
        idle_q    <= 1'b1;
        last_step <= 1'b0;
      end
    end else if (step) begin
      round     <= round + 4'd1;
      last_step <= (round == 4'd9);
    end
  end

  generate
    if (ENABLE_DECRYPT != 0) begin : g_enc_dec
      // state = the state after AddRoundKey; round_key = the key just added.
      reg  [127:0] round_key;
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
`ifdef AES_SBOX_BRAM
      // S-boxes in block RAM (synth.py's *_bram designs): every S-box reads a register,
      // which becomes the RAM's address register, and the round runs RAM -> ShiftRows ->
      // MixColumns -> AddRoundKey -> state. state = the state after AddRoundKey;
      // round_key = round key r in round r, expanded a round ahead (its SubWord is a RAM
      // read of its own last word), so no RAM output reaches the state through the key; a
      // load takes round key 1 from in_key through four more S-boxes. Neither register has
      // an enable or a reset: a RAM's address register has none, so the hold is a mux that
      // the state path shares with the load (sel_early), beside the round's XORs.
      reg  [127:0] round_key;
      wire [127:0] round_out;  // ShiftRows(SubBytes(.)) in the last round, MixColumns of it before
      wire [31:0]  key_sub, in_key_sub;
      wire [7:0]   next_rcon = {rcon[6:0], 1'b0} ^ (rcon[7] ? 8'h1b : 8'h00);  // Rcon[r + 1]
      aes_enc_round #(.ADD_ROUND_KEY(0)) enc (
          .state_in(state), .key_in(128'h0), .rcon(8'h0), .final_round(last_step),
          .state_out(round_out), .key_out()
      );
      genvar i;
      for (i = 0; i < 4; i = i + 1) begin : g_key_sub
        aes_sbox next_sbox (.in_byte(round_key[31 - 8 * ((i + 1) % 4) -: 8]),
                            .out_byte(key_sub[31 - 8 * i -: 8]));
        aes_sbox in_sbox (.in_byte(in_key[31 - 8 * ((i + 1) % 4) -: 8]),
                          .out_byte(in_key_sub[31 - 8 * i -: 8]));
      end
      // The key-expansion step (FIPS-197 5.2) from a key, SubWord(RotWord(its last word)), Rcon.
      function [127:0] expand(input [127:0] key, input [31:0] sub, input [7:0] rc);
        reg [31:0] w;
        integer j;
        begin
          w = sub ^ {rc, 24'h0};
          for (j = 0; j < 4; j = j + 1) begin
            w = w ^ key[127 - 32 * j -: 32];
            expand[127 - 32 * j -: 32] = w;
          end
        end
      endfunction
      assign out_block     = round_out ^ round_key;
      assign out_round_key = round_key;

      // state <= sel_early ? early : round_out ^ (round key, and in a chained load in_block ^ in_key)
      wire         chain_load = load && in_chain;
      wire         sel_early  = !step && !chain_load;  // an unchained load, or hold
      wire [127:0] early      = load ? in_block ^ in_key : state;
      wire [127:0] add        = chain_load ? round_key ^ in_block ^ in_key : round_key;
      always @(posedge clk) begin
        state     <= sel_early ? early : round_out ^ add;
        round_key <= load ? expand(in_key, in_key_sub, 8'h01)
                   : step ? expand(round_key, key_sub, next_rcon) : round_key;
      end
`else
      // state = the state before adding add_key; add_key = round key r-1 in round r, except
      // in a chained round 1 (previous last round key ^ in_block ^ cipher key);
      // key_sub = SubWord(RotWord(last word of round_key)).
      reg  [127:0] round_key;
      reg  [127:0] add_key;
      reg  [31:0]  key_sub;
      wire [127:0] round_out;  // ShiftRows(SubBytes(.)) in the last round, MixColumns of it before
      aes_enc_round #(.ADD_ROUND_KEY(0)) enc (
          .state_in(state ^ add_key), .key_in(round_key), .rcon(rcon), .final_round(last_step),
          .state_out(round_out), .key_out()
      );
      wire [31:0]  w0 = round_key[127:96] ^ key_sub ^ {rcon, 24'h0};
      wire [31:0]  w1 = round_key[95:64] ^ w0;
      wire [31:0]  w2 = round_key[63:32] ^ w1;
      wire [31:0]  w3 = round_key[31:0] ^ w2;
      wire [127:0] next_key = {w0, w1, w2, w3};
      wire [31:0]  next_key_sub, in_key_sub;
      genvar i;
      for (i = 0; i < 4; i = i + 1) begin : g_key_sub
        aes_sbox next_sbox (.in_byte(w3[31 - 8 * ((i + 1) % 4) -: 8]),
                            .out_byte(next_key_sub[31 - 8 * i -: 8]));
        aes_sbox in_sbox (.in_byte(in_key[31 - 8 * ((i + 1) % 4) -: 8]),
                          .out_byte(in_key_sub[31 - 8 * i -: 8]));
      end
      assign out_block     = round_out ^ next_key;
      assign out_round_key = next_key;

      always @(posedge clk) begin
        if (reset) begin
          state     <= 128'h0;
          add_key   <= 128'h0;
          round_key <= 128'h0;
          key_sub   <= 32'h0;
        end else if (load) begin
          state     <= in_chain ? round_out : in_block;
          add_key   <= (in_chain ? next_key ^ in_block : 128'h0) ^ in_key;
          round_key <= in_key;
          key_sub   <= in_key_sub;
        end else if (step) begin
          state     <= round_out;
          add_key   <= next_key;
          round_key <= next_key;
          key_sub   <= next_key_sub;
        end
      end
`endif
    end
  endgenerate
endmodule
`default_nettype wire
